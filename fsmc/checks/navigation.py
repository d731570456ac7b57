"""Every carried name is a variable of both pages with a fitting domain, and no GUI event of a page leads to two different pages."""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks import _span
from fsmc.checks._gui import Collision, collisions
from fsmc.checks._index import PageIndex, SpecIndex, index_of
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic
from fsmc.types.domains import domain_size, domain_values

LISTED = 1_000_000  # the most values of two domains compared one by one


def within(a: ir.Type, b: ir.Type, spec: ir.Spec) -> bool | None:
    """Whether every value of domain a is a value of domain b (None when that cannot be told)."""
    if isinstance(a, ir.SetType) and isinstance(b, ir.SetType):
        return within(a.elem, b.elem, spec)
    if isinstance(a, ir.MapType) and isinstance(b, ir.MapType):
        keys, values = within(a.key, b.key, spec), within(a.value, b.value, spec)
        return None if None in (keys, values) else bool(keys and values)
    if isinstance(a, (ir.SetType, ir.MapType)) or isinstance(b, (ir.SetType, ir.MapType)):
        return False
    if isinstance(a, ir.IntType) and isinstance(b, ir.IntType):  # by their bounds: a range may be huge (E221 says so)
        return a.lo > a.hi or b.lo <= a.lo <= a.hi <= b.hi
    try:
        if max(domain_size(a, spec), domain_size(b, spec)) > LISTED:
            return None  # too many values to list; the domains check reports the range
        return set(domain_values(a, spec)) <= set(domain_values(b, spec))
    except (KeyError, ValueError, OverflowError):
        return None


def _carry(idx: SpecIndex, src: PageIndex, action: ir.Action, name: str) -> Diagnostic | None:
    target = idx.pages.get(action.goto or "")
    if target is None:
        return None  # unknown page: the references check reports it
    span = _span.word(action.span, name, after="carry")
    if name not in src.vars:
        why = "a session variable, which is kept anyway" if name in idx.session else \
            f"not a variable of page '{src.page.name}'"
        return Diagnostic("E320", f"cannot carry '{name}': it is {why}", span,
                          hint="carry copies a variable of this page into the same-named variable of the target")
    if name not in target.vars:
        return Diagnostic("E320", f"cannot carry '{name}': page '{target.page.name}' has no variable '{name}'", span,
                          hint=f"declare `var {name}: ...` on page '{target.page.name}' or drop it from `carry`")
    if within(src.vars[name].type, target.vars[name].type, idx.spec) is False:
        return Diagnostic("E321", f"'{name}' of page '{src.page.name}' can hold values that '{name}' of page "
                          f"'{target.page.name}' cannot", span, hint="give both variables the same type",
                          notes=((src.vars[name].span, "declared here"), (target.vars[name].span, "and here")))
    return None


def _carries(idx: SpecIndex) -> Iterator[Diagnostic]:
    for pi in idx.pages.values():
        for action in pi.page.actions:
            for name in action.carry:
                d = _carry(idx, pi, action, name)
                if d is not None:
                    yield d


def _target(action: ir.Action) -> str:
    return f"page '{action.goto}'" if action.goto else "the same page"


def ambiguous(c: Collision) -> Diagnostic:
    a, b = c.first, c.second
    return Diagnostic("E322", f"ambiguous navigation on page '{c.page.name}': {b.event} fires both '{a.action.name}' "
                      f"(to {_target(a.action)}) and '{b.action.name}' (to {_target(b.action)})", b.op.span,
                      hint="give each action its own data-testid, or make their preconditions exclusive "
                      "(`require x` in one, `require not x` in the other)",
                      notes=((a.op.span, f"'{a.action.name}' is fired here"),))


def navigation_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    yield from _carries(index_of(ctx))
    for c in collisions(ctx):
        if c.first.action is not c.second.action and c.first.action.goto != c.second.action.goto:
            yield ambiguous(c)
