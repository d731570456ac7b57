"""Resolve pass: replaces enum names in types by their choice types; unknown names are left for the checks.

Types stand only in variables and parameters, so only those are rewritten; every other node is kept.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from fsmc import ir

T = TypeVar("T", ir.Var, ir.Param)


def _type(node: Any, enums: dict[str, ir.Enum]) -> Any:
    """The type with every enum name in it replaced (the same object when nothing changes)."""
    if isinstance(node, ir.NamedType) and node.name in enums:
        e = enums[node.name]
        return ir.ChoiceType.trusted(values=e.values, name=e.name, span=node.span)
    changes = {f: new for f in type(node).model_fields
               if isinstance(old := getattr(node, f), BaseModel) and (new := _type(old, enums)) is not old}
    return node.model_copy(update=changes) if changes else node


def _typed(items: tuple[T, ...], enums: dict[str, ir.Enum]) -> tuple[T, ...]:
    return tuple(x.model_copy(update={"type": t}) if (t := _type(x.type, enums)) is not x.type else x for x in items)


def _page(page: ir.Page, enums: dict[str, ir.Enum]) -> ir.Page:
    actions = tuple(a.model_copy(update={"params": _typed(a.params, enums)}) for a in page.actions)
    return page.model_copy(update={"vars": _typed(page.vars, enums), "actions": actions})


def resolve(spec: ir.Spec) -> ir.Spec:
    enums = {e.name: e for e in spec.enums}
    if not enums:
        return spec
    return spec.model_copy(update={
        "session": _typed(spec.session, enums),
        "pages": tuple(_page(p, enums) for p in spec.pages),
        "tasks": tuple(t.model_copy(update={"params": _typed(t.params, enums)}) for t in spec.tasks),
    })
