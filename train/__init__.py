"""Training on fsmc exports with TRL: `sft.py` (SFTTrainer), `grpo.py` (GRPOTrainer with `rewards.py`), `tiny.py` (an offline test model)."""
