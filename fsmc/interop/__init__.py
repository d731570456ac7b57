"""Interop: the spec in other shapes (fsmc IR JSON, AutoWebWorld fsm.json), written and read back losslessly."""

from fsmc.interop.autowebworld import from_fsm_json, to_fsm_json
from fsmc.interop.ir_json import from_ir_json, to_ir_json

__all__ = ["from_fsm_json", "from_ir_json", "to_fsm_json", "to_ir_json"]
