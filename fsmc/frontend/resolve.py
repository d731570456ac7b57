"""Resolve pass: replaces enum names in types by their choice types; unknown names are left for the checks."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from fsmc import ir


def _rewrite(node: Any, enums: dict[str, ir.Enum]) -> Any:
    if isinstance(node, ir.NamedType) and node.name in enums:
        e = enums[node.name]
        return ir.ChoiceType(values=e.values, name=e.name, span=node.span)
    if isinstance(node, tuple):
        return tuple(_rewrite(x, enums) for x in node)
    if isinstance(node, ir.Node):
        changes = {}
        for f in type(node).model_fields:
            old = getattr(node, f)
            if isinstance(old, (BaseModel, tuple)):
                new = _rewrite(old, enums)
                if new is not old:
                    changes[f] = new
        return node.model_copy(update=changes) if changes else node
    return node


def resolve(spec: ir.Spec) -> ir.Spec:
    enums = {e.name: e for e in spec.enums}
    if not enums:
        return spec
    result: ir.Spec = _rewrite(spec, enums)
    return result
