"""The native explorer: the IR lowered to small ints, generated as C, compiled with gcc, run through ctypes."""

from fsmc.backends.native.build import NativeError, cache_dir
from fsmc.backends.native.layout import LoweringError
from fsmc.backends.native.lower import LModel, lower
from fsmc.backends.native.space import NativeExplorer, NativeStateSpace, explore_native

__all__ = ["LModel", "LoweringError", "NativeError", "NativeExplorer", "NativeStateSpace", "cache_dir",
           "explore_native", "lower"]
