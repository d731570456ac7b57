"""Datasets from replayed trajectories (SFT conversations, GRPO prompts with ground truth, grounding) and a gallery.

    from fsmc.export import export, write_gallery
    export("data/shop", "sft", "datasets/shop-sft")      # datasets.load_dataset("datasets/shop-sft")
    write_gallery("data/shop")                            # data/shop/gallery/index.html
"""

from fsmc.export.actions import ACTION_TYPES, SYSTEM_PROMPT, format_action, parse_action
from fsmc.export.gallery import write_gallery
from fsmc.export.writer import FORMATS, export, features

__all__ = ["ACTION_TYPES", "FORMATS", "SYSTEM_PROMPT", "export", "features", "format_action", "parse_action",
           "write_gallery"]
