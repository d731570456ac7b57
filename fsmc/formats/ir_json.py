"""The IR as JSON: deterministic (sorted keys, fixed indentation), spans dropped unless asked for."""

from __future__ import annotations

import json
from typing import Any

from fsmc import ir

__all__ = ["from_ir_json", "ir_to_data", "to_ir_json"]


def _drop_spans(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _drop_spans(v) for k, v in data.items() if k != "span"}
    if isinstance(data, list):
        return [_drop_spans(v) for v in data]
    return data


def ir_to_data(node: ir.Node, *, spans: bool = False) -> Any:
    """A node as plain JSON data (dicts, lists, scalars); what `Node.model_validate` reads back."""
    data = node.model_dump(mode="json")
    return data if spans else _drop_spans(data)


def to_ir_json(spec: ir.Spec, *, spans: bool = False, indent: int | None = 2) -> str:
    """The spec as IR JSON text; the same spec always gives the same bytes."""
    return json.dumps(ir_to_data(spec, spans=spans), indent=indent, sort_keys=True, ensure_ascii=False) + "\n"


def from_ir_json(text: str, file: str = "<ir>") -> ir.Spec:
    """Read IR JSON text back (unresolved, as written); raises SpecError with a diagnostic if it is not IR."""
    from fsmc.frontend.load import _load_json

    return _load_json(text, file)
