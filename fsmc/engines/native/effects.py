"""Lowers one move to small ints: its guard, its effects as updates of stored values, and its navigation.

What each effect and navigation does (its kind, clamp bounds, carried variables) is decided once in
`fsmc.semantics.lowered`; this module only encodes those decisions over the variables' small-int layout.
"""

from __future__ import annotations

from fsmc import ir
from fsmc.engines.native.encoding import LVar, fail
from fsmc.engines.native.lexpr import VD, B, Cond, K, LExpr, Pre, U, V, add, conj, reads
from fsmc.engines.native.lower import (
    PAGE,
    Const,
    ExprLowerer,
    LMove,
    LNav,
    LUpdate,
    MapRef,
    Mask,
    ModelBuilder,
    _Fallback,
)
from fsmc.semantics import Move
from fsmc.semantics.lowered import LEffect, LGoto


def lower_move(b: ModelBuilder, mv: Move) -> LMove:
    pi = b.machine.page_index[mv.page]
    action = mv.action
    low = ExprLowerer(b, pi, b.scope_for(pi, action.params), action.params, mv.args)
    guard: LExpr = B("==", PAGE, K(pi))
    if action.requires:
        chain = action.requires[0]
        for r in action.requires[1:]:
            chain = ir.Binary(op="and", left=chain, right=r, span=r.span)
        guard = conj(guard, low.boolean(chain))
    args = ", ".join(f"{p.name}={v!r}" for p, v in zip(action.params, mv.args, strict=True))
    out = LMove(mv.index, pi, f"{mv.page}.{action.name}({args})", guard)
    writer = _EffectWriter(b, low, out)
    for le in b.machine.lowered.effects(action, pi):
        eff = le.source
        try:
            writer.effect(le)
        except _Fallback as f:
            raise fail(eff, f"the effect '{eff.op} {eff.var}'", str(f)) from None
    goto = b.machine.lowered.goto(action, pi)
    if goto is not None:
        out.nav = _navigation(b, pi, action, goto)
    return out


def _navigation(b: ModelBuilder, pi: int, action: ir.Action, goto: LGoto) -> LNav:
    """The carried variables of `goto` as (target, source) variable ids; the others start from their defaults."""
    nsess = len(b.layout.session)
    carry = []
    for j, src_slot in enumerate(goto.fresh):
        if src_slot is None:
            continue
        dst = b.layout.vars[b.layout.page_vars[goto.page][j]]
        src = b.layout.vars[b.layout.page_vars[pi][src_slot - 1 - nsess]]
        if (src.kind, src.domain, src.vdomain, src.offset) != (dst.kind, dst.domain, dst.vdomain, dst.offset):
            raise fail(action, f"carrying '{dst.decl.name}'", "the two pages declare it with different domains")
        carry.append((dst.id, src.id))
    return LNav(goto.page, tuple(carry))


class _EffectWriter:
    """Turns effects into updates; right-hand sides read the pre-state through Pre slots."""

    def __init__(self, b: ModelBuilder, low: ExprLowerer, out: LMove):
        self.b, self.low, self.out = b, low, out

    def pre(self, e: LExpr) -> LExpr:
        if not reads(e):
            return e
        self.out.pre.append(e)
        return Pre(len(self.out.pre) - 1)

    def var(self, eff: ir.Effect) -> LVar:
        var = self.low.by_name.get(eff.var)
        if var is None:
            raise fail(eff, f"the effect on '{eff.var}'", "no such variable on this page")
        return var

    def put(self, var: LVar, value: LExpr, slot: int | LExpr | None = None, check: tuple[int, int] | None = None) -> None:
        self.out.updates.append(LUpdate(var.id, value, slot, check))

    def effect(self, le: LEffect) -> None:
        var = self.var(le.source)
        handler = {"assign": self.assign, "assign_set": self.assign, "assign_map": self.assign,
                   "put_entry": self.assign, "add_clamped": self.incdec, "add_entry": self.incdec,
                   "toggle": self.toggle, "insert": self.add, "discard": self.remove, "discard_key": self.remove,
                   "empty": self.clear, "none": self.clear, "default": self.clear}[le.kind]
        handler(var, le)

    # -------- assign
    def assign(self, var: LVar, le: LEffect) -> None:
        eff = le.source
        assert eff.value is not None
        if eff.key is not None:
            return self.assign_entry(var, eff)
        x = self.low.value(eff.value)
        if var.kind == "scalar":
            code, check = self.low.to_code(x, eff.value, var.decl.type)
            bounds = None if check is None else (check[0] + var.offset, check[1] + var.offset)
            return self.put(var, self.pre(add(code, K(var.offset))), check=bounds)
        if var.kind == "set":
            return self.put(var, self.pre(self._mask_of(var, x, eff)))
        if isinstance(x, Const) and isinstance(x.value, tuple):
            slots = [0] * var.nslots
            for pair in x.value:
                if not isinstance(pair, tuple) or len(pair) != 2:
                    raise fail(eff, f"assigning to map '{var.decl.name}'", "the value is not a list of pairs")
                k, v = pair
                if k not in var.domain or v not in var.vdomain:
                    raise fail(eff, f"assigning to map '{var.decl.name}'", "a key or value lies outside its domain")
                slots[var.domain.index(k)] = var.vdomain.index(v) + 1
            for i, c in enumerate(slots):
                self.put(var, K(c), slot=i)
            return None
        if isinstance(x, MapRef) and (x.var.domain, x.var.vdomain) == (var.domain, var.vdomain):
            for i in range(var.nslots):
                self.put(var, self.pre(V(x.var.id, i)), slot=i)
            return None
        raise fail(eff, f"assigning this value to map '{var.decl.name}'", "only literals and maps of the same type")

    def _mask_of(self, var: LVar, x: object, eff: ir.Effect) -> LExpr:
        if isinstance(x, Mask) and x.domain == var.domain:
            return x.code
        if isinstance(x, Const) and isinstance(x.value, tuple) and all(e in var.domain for e in x.value):
            return K(sum(1 << var.domain.index(e) for e in set(x.value)))
        raise fail(eff, f"assigning this value to set '{var.decl.name}'", "only literals and sets of the same type")

    def assign_entry(self, var: LVar, eff: ir.Effect) -> None:
        assert eff.value is not None and eff.key is not None
        if var.kind != "map" or not isinstance(var.decl.type, ir.MapType):
            raise fail(eff, f"'{var.decl.name}[...] :='", "only maps have entries")
        slot = self.slot(var, eff.key)
        x = self.low.value(eff.value)
        code, check = self.low.to_code(x, eff.value, ir.OptionalType(inner=var.decl.type.value))
        self.put(var, self.pre(code), slot=slot, check=check)

    def slot(self, var: LVar, key: ir.Expr) -> int | LExpr:
        found = self.low.index_in(self.low.value(key), var.domain)
        if found is None or found[1] != K(1):
            raise fail(key, f"this key of map '{var.decl.name}'", "it may lie outside the key domain or be none")
        idx = found[0]
        return idx.value if isinstance(idx, K) else self.pre(idx)

    # -------- inc / dec
    def incdec(self, var: LVar, le: LEffect) -> None:
        eff = le.source
        assert eff.value is not None
        by = self.pre(self.low.as_int(self.low.value(eff.value)))
        op = "+" if le.sign > 0 else "-"
        if eff.key is not None:
            return self.incdec_entry(var, le, by, op)
        if not isinstance(var.decl.type, ir.IntType) or le.bounds is None:
            raise fail(eff, f"'{eff.op}' on '{var.decl.name}'", "only ints (and map entries) can be incremented")
        lo, hi = le.bounds
        nv = B(op, V(var.id, None, True), by)
        self.put(var, Cond(B(">", nv, K(hi)), K(hi), Cond(B("<", nv, K(lo)), K(lo), nv)))
        return None

    def incdec_entry(self, var: LVar, le: LEffect, by: LExpr, op: str) -> None:
        eff = le.source
        assert eff.key is not None
        vt = var.decl.type.value if isinstance(var.decl.type, ir.MapType) else None
        if not isinstance(vt, ir.IntType) or le.bounds is None:
            raise fail(eff, f"'{eff.op}' on an entry of '{var.decl.name}'", "the map's values must be ints")
        lo, hi = le.bounds
        slot = self.slot(var, eff.key)
        cur = V(var.id, slot, True) if isinstance(slot, int) else VD(var.id, slot, True)
        value = Cond(B("==", cur, K(0)), K(0), add(cur, K(lo - 1)))
        nv = B(op, value, by)
        new = Cond(B("<", nv, K(lo)), K(0), Cond(B(">", nv, K(hi)), K(hi - lo + 1), add(nv, K(1 - lo))))
        self.put(var, new, slot=slot)

    # -------- toggle, add, remove, clear
    def toggle(self, var: LVar, le: LEffect) -> None:
        eff = le.source
        if not isinstance(var.decl.type, ir.BoolType):
            raise fail(eff, f"toggle '{var.decl.name}'", "only a bool can be toggled")
        self.put(var, B("-", K(1), V(var.id, None, True)))

    def add(self, var: LVar, le: LEffect) -> None:
        eff = le.source
        assert eff.value is not None
        if var.kind != "set":
            raise fail(eff, f"add to '{var.decl.name}'", "only sets take 'add'")
        found = self.low.index_in(self.low.value(eff.value), var.domain)
        if found is None or found[1] != K(1):
            raise fail(eff, f"add to '{var.decl.name}'", "the value may lie outside the element domain or be none")
        bit = self.pre(B("<<", K(1), found[0]))
        self.put(var, B("|", V(var.id, None, True), bit))

    def remove(self, var: LVar, le: LEffect) -> None:
        eff = le.source
        assert eff.value is not None
        x = self.low.value(eff.value)
        if var.kind == "map":
            found = self.low.index_in(x, var.domain)
            if found is None:
                return
            if found[1] != K(1):
                raise fail(eff, f"remove from '{var.decl.name}'", "the key may be none")
            idx = found[0]
            self.put(var, K(0), slot=idx.value if isinstance(idx, K) else self.pre(idx))
            return
        if var.kind != "set":
            raise fail(eff, f"remove from '{var.decl.name}'", "only sets and maps take 'remove'")
        found = self.low.index_in(x, var.domain, allow_none=True)
        if found is None:
            return
        cur = V(var.id, None, True)
        bit = self.pre(B("<<", K(1), found[0]))
        nonnull = self.pre(found[1])
        cleared = B("&", cur, U("~", bit))
        self.put(var, cleared if nonnull == K(1) else Cond(nonnull, cleared, cur))

    def clear(self, var: LVar, le: LEffect) -> None:
        if le.kind == "empty":
            for i in range(var.nslots):
                self.put(var, K(0), slot=i if var.kind == "map" else None)
        elif le.kind == "none":
            self.put(var, K(0))  # none is code 0 of an optional's domain
        else:
            self.put(var, K(self.b.layout.default(var)[0]))


__all__ = ["lower_move"]
