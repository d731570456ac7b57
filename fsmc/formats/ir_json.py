"""The fsmc IR as JSON: written deterministically (sorted keys, spans dropped unless asked for), read back validated."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.formats.json_text import json_data, too_deep
from fsmc.formats.located import Where
from fsmc.frontend.limits import check_nesting
from fsmc.source import Source, recall

__all__ = ["from_ir_data", "from_ir_json", "ir_to_data", "is_ir_data", "to_ir_json"]


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


def is_ir_data(data: Any) -> bool:
    """Whether JSON data is meant as an fsmc IR: an object with 'site'."""
    return isinstance(data, dict) and "site" in data


def from_ir_data(data: Any, file: str, text: str | None = None) -> ir.Spec:
    """The spec of IR data (unresolved, as written), each node located where its object starts in the file's text
    (`text`, else the source remembered under `file`: fsmc.source.recall) unless the data gives its span; SpecError
    E005 where it is no valid IR, located at the first problem's JSON path, E004 if too deep."""
    # where each JSON path starts: the scanner AutoWebWorld's reader uses (imported here: .fsm input needs none of it)
    from fsmc.formats.awm.where import json_offsets

    source = Source(file, text) if text is not None else recall(file)
    offsets = json_offsets(source.text) if source is not None else {}
    try:
        spec = check_nesting(ir.Spec.model_validate(data), file)
    except ValidationError as err:
        first = err.errors()[0]
        path = tuple(first["loc"])
        where = ".".join(str(x) for x in path)
        raise SpecError([Diagnostic("E005", f"not a valid fsmc IR: {where}: {first['msg']}",
                                    Where(source, offsets).span(path),
                                    hint=f"{err.error_count()} problem(s) in all")]) from None
    except RecursionError:
        raise too_deep(file) from None
    try:
        return Where(source, offsets).located(spec)
    except RecursionError:  # deeper than the nesting check lets through: left unlocated
        return spec



def from_ir_json(text: str, file: str = "<ir>") -> ir.Spec:
    """Read IR JSON text back (unresolved, as written); raises SpecError with a diagnostic if it is not IR."""
    data = json_data(text, file)
    if not is_ir_data(data):
        raise SpecError([Diagnostic("E002", "JSON is not an fsmc IR (an object with 'site')",
                                    ir.Span(file=file, line=1, col=1))])
    return from_ir_data(data, file, text)
