"""The typed, frozen, located intermediate representation of a spec."""

from fsmc.ir.nodes import *  # noqa: F403
from fsmc.ir.nodes import __all__  # noqa: F401
