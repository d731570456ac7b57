"""The native explorer: the IR lowered to small ints, generated as C, compiled with gcc, run through ctypes."""

from fsmc.engines.native.build import NativeError, cache_dir
from fsmc.engines.native.encoding import LoweringError
from fsmc.engines.native.lower import LModel
from fsmc.engines.native.model import lower
from fsmc.engines.native.space import NativeExplorer, NativeStateSpace, explore_native

__all__ = ["LModel", "LoweringError", "NativeError", "NativeExplorer", "NativeStateSpace", "cache_dir",
           "explore_native", "lower"]
