"""fsmc: compile a formal website spec into verifiable web environments for visual web agents."""

__version__ = "0.1.0"
