"""A tiny Qwen2.5-VL with random weights and its processor, built offline (for tests and `--tiny` smoke runs).

Everything a real Qwen2.5-VL checkpoint brings is built here from nothing: a byte-level BPE tokenizer
trained on the system prompt (and any texts given), with the special tokens the Qwen chat template
uses; the Qwen2.5-VL chat template itself (the copy TRL ships, so TRL recognises it and can swap in
its training variant for assistant-only loss); an image processor that shrinks the 1280×720
screenshots to 84×140; and a model of about 170 k parameters. TRL runs it through the same
Qwen-specific paths as a real Qwen2.5-VL (image_grid_thw, mm_token_type_ids, multimodal RoPE).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fsmc.export import SYSTEM_PROMPT

SPECIAL_TOKENS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                  "<|image_pad|>", "<|video_pad|>")
MAX_PIXELS = 28 * 28 * 16   # a screenshot becomes 84×140 pixels: 60 patches, 15 image tokens after merging
HIDDEN = 64


def tiny_tokenizer(texts: Iterable[str] = (), vocab_size: int = 600) -> Any:
    """A byte-level BPE (any text encodes) trained on the system prompt and `texts`, wrapped for transformers."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=list(SPECIAL_TOKENS), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator([SYSTEM_PROMPT, *texts], trainer)
    return PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   padding_side="left")


def tiny_processor(texts: Iterable[str] = ()) -> Any:
    """A Qwen2.5-VL processor around `tiny_tokenizer`, with TRL's copy of the Qwen2.5-VL chat template."""
    from transformers import Qwen2_5_VLProcessor
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil
    from trl.chat_template_utils import qwen2_5_vl_chat_template

    class ImageOnlyProcessor(Qwen2_5_VLProcessor):
        """Without the video processor, which needs torchvision (not needed for screenshots, not installed here)."""

        def __init__(self, image_processor: Any = None, tokenizer: Any = None, chat_template: Any = None) -> None:
            super().__init__(image_processor, tokenizer, None, chat_template=chat_template)

    images = Qwen2VLImageProcessorPil(min_pixels=28 * 28 * 4, max_pixels=MAX_PIXELS)
    return ImageOnlyProcessor(images, tiny_tokenizer(texts), qwen2_5_vl_chat_template)


def tiny_model(processor: Any, seed: int = 0) -> Any:
    """A Qwen2.5-VL with one vision block and one language layer, hidden size 64, random weights."""
    import torch
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    tok = processor.tokenizer
    ids = {name: tok.convert_tokens_to_ids(t) for name, t in [
        ("image_token_id", "<|image_pad|>"), ("video_token_id", "<|video_pad|>"),
        ("vision_start_token_id", "<|vision_start|>"), ("vision_end_token_id", "<|vision_end|>")]}
    text = {"vocab_size": len(tok), "hidden_size": HIDDEN, "intermediate_size": 2 * HIDDEN, "num_hidden_layers": 1,
            "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 4096,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [4, 6, 6]},
            "bos_token_id": tok.pad_token_id, "eos_token_id": tok.eos_token_id, "pad_token_id": tok.pad_token_id}
    vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": HIDDEN,
              "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "window_size": 56,
              "fullatt_block_indexes": [0]}
    config = Qwen2_5_VLConfig(text_config=text, vision_config=vision, **ids)
    torch.manual_seed(seed)
    model = Qwen2_5_VLForConditionalGeneration(config)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    return model


def tiny_model_and_processor(texts: Iterable[str] = (), seed: int = 0) -> tuple[Any, Any]:
    processor = tiny_processor(texts)
    return tiny_model(processor, seed), processor


TOOL_TOKENS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>")


def tiny_chat_model_and_tokenizer(texts: Iterable[str] = (), seed: int = 0) -> tuple[Any, Any]:
    """A text-only Qwen3 with random weights and a tokenizer with TRL's copy of the Qwen3 chat template, which renders
    tool calls (what TRL's `environment_factory` needs): one layer, hidden size 64."""
    import torch
    from tokenizers import AddedToken
    from transformers import Qwen3Config, Qwen3ForCausalLM
    from trl.chat_template_utils import qwen3_chat_template

    tok = tiny_tokenizer(texts)
    tok.add_special_tokens({"additional_special_tokens": [AddedToken(t, special=False) for t in TOOL_TOKENS]})
    tok.chat_template = qwen3_chat_template
    config = Qwen3Config(vocab_size=len(tok), hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, head_dim=32, max_position_embeddings=4096,
                         bos_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    return model, tok
