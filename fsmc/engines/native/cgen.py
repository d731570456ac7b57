"""Renders a lowered model as a C explorer: packed states, an open-addressing hash set, BFS in index order.

The generated library exports fsmc_new / fsmc_explore / fsmc_free and accessors for the arrays
(states, parent, move, level starts, enabled moves); fsmc/engines/native/space.py wraps them.
"""

from __future__ import annotations

from fsmc.engines.native.encoding import LVar
from fsmc.engines.native.lexpr import VD, B, Cond, K, LExpr, Pop, Pre, Tab, U, V
from fsmc.engines.native.lower import LModel, LMove, LUpdate
from fsmc.engines.native.packing import Field, Packing

RUNTIME = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*progress_fn)(uint64_t expanded, uint64_t discovered, uint32_t depth);

typedef struct {
  uint64_t *states; uint32_t *parent; move_t *move;
  uint64_t n, cap, max_states;
  uint32_t *table; uint64_t tcap;
  uint64_t *levels; uint64_t nlevels, lcap;
  uint8_t enabled[NMOVES > 0 ? NMOVES : 1];
  uint64_t per_page[NPAGES], page_cap;
  int complete, oom, probe; /* probe: only look successors up (the depth cap's level), never store them */
  int64_t error_move;
} ctx_t;

static inline uint64_t hash_state(const uint64_t *w) {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < W; i++) { h ^= w[i]; h *= 0xbf58476d1ce4e5b9ULL; h ^= h >> 31; }
  h *= 0x94d049bb133111ebULL; h ^= h >> 29;
  return h;
}

static inline int same(const uint64_t *a, const uint64_t *b) {
  for (int i = 0; i < W; i++) if (a[i] != b[i]) return 0;
  return 1;
}

static int grow_table(ctx_t *c) {
  uint64_t ncap = c->tcap ? c->tcap * 2 : 1024;
  uint32_t *t = calloc(ncap, sizeof *t);
  if (!t) { c->oom = 1; return 0; }
  for (uint64_t k = 0; k < c->n; k++) {
    uint64_t i = hash_state(c->states + k * W) & (ncap - 1);
    while (t[i]) i = (i + 1) & (ncap - 1);
    t[i] = (uint32_t)(k + 1);
  }
  free(c->table); c->table = t; c->tcap = ncap;
  return 1;
}

static int grow_states(ctx_t *c) {
  uint64_t ncap = c->cap ? c->cap + c->cap / 2 + 1024 : 4096;
  if (ncap > c->max_states) ncap = c->max_states;
  uint64_t *s = realloc(c->states, ncap * W * sizeof *s);
  if (s) c->states = s;
  uint32_t *p = realloc(c->parent, ncap * sizeof *p);
  if (p) c->parent = p;
  move_t *m = realloc(c->move, ncap * sizeof *m);
  if (m) c->move = m;
  if (!s || !p || !m) { c->oom = 1; return 0; }
  c->cap = ncap;
  return 1;
}

/* 1 if s is new (stored as state n), 0 if seen or not stored (a cap, or probing). */
static inline int insert(ctx_t *c, const uint64_t *s, uint32_t parent, move_t mv) {
  uint64_t mask = c->tcap - 1, i = hash_state(s) & mask;
  for (;;) {
    uint32_t e = c->table[i];
    if (!e) break;
    if (same(c->states + (uint64_t)(e - 1) * W, s)) return 0;
    i = (i + 1) & mask;
  }
  uint64_t pg = PAGE_OF(s);
  if (c->probe || c->n >= c->max_states || c->per_page[pg] >= c->page_cap) { c->complete = 0; return 0; }
  if (c->n == c->cap && !grow_states(c)) return 0;
  memcpy(c->states + c->n * W, s, W * sizeof *s);
  c->parent[c->n] = parent; c->move[c->n] = mv;
  c->table[i] = (uint32_t)(c->n + 1);
  c->per_page[pg]++;
  c->n++;
  if (c->n * 10 > c->tcap * 7) grow_table(c);
  return 1;
}

static inline int64_t chk(ctx_t *c, int64_t x, int64_t mv) {
  if (x < 0 && c && c->error_move < 0) c->error_move = mv;
  return x < 0 ? 0 : x;
}

#define GET(s, w, sh, m) ((int64_t)(((s)[w] >> (sh)) & (m)))
#define PUT(n, w, sh, m, v) ((n)[w] = ((n)[w] & ~((uint64_t)(m) << (sh))) | (((uint64_t)(v) & (m)) << (sh)))
"""

API = r"""
static int push_level(ctx_t *c, uint64_t start) {
  if (c->nlevels == c->lcap) {
    uint64_t ncap = c->lcap ? c->lcap * 2 : 64;
    uint64_t *l = realloc(c->levels, ncap * sizeof *l);
    if (!l) { c->oom = 1; return 0; }
    c->levels = l; c->lcap = ncap;
  }
  c->levels[c->nlevels++] = start;
  return 1;
}

ctx_t *fsmc_new(void) {
  ctx_t *c = calloc(1, sizeof *c);
  if (c) { c->complete = 1; c->error_move = -1; }
  return c;
}

void fsmc_free(ctx_t *c) {
  if (!c) return;
  free(c->states); free(c->parent); free(c->move); free(c->table); free(c->levels); free(c);
}

/* 0 done, 1 stopped by the progress callback, 2 a value left its domain (see error_move), 3 out of memory.
   max_depth < 0: no depth cap; page_cap < 0: no cap on the states kept per page. */
int fsmc_explore(ctx_t *c, uint64_t max_states, int64_t max_depth, int64_t page_cap, progress_fn cb) {
  if (max_states > 0xFFFFFFFEULL) max_states = 0xFFFFFFFEULL;
  if (max_states < 1) max_states = 1;
  c->max_states = max_states;
  c->page_cap = UINT64_MAX;
  if (!grow_table(c) || !grow_states(c)) return 3;
  uint64_t s0[W] = INITIAL;
  insert(c, s0, UINT32_MAX, NO_MOVE);  /* the initial state is kept whatever the caps */
  if (page_cap >= 0) c->page_cap = (uint64_t)page_cap;
  if (!push_level(c, 0)) return 3;
  uint64_t level_end = 1;
  uint32_t depth = 0;
  uint64_t cur[W];
  uint8_t fired[NMOVES > 0 ? NMOVES : 1];
  for (uint64_t head = 0; head < c->n; head++) {
    if (head == level_end) {
      depth++; level_end = c->n;
      if (!push_level(c, head)) return 3;
    }
    memcpy(cur, c->states + head * W, sizeof cur);
    if (max_depth >= 0 && depth >= (uint64_t)max_depth) {
      /* beyond the cap only whether some successor is new matters (it makes the search incomplete);
         the moves fired while probing are not counted as enabled, as the reference engine does */
      if (!c->complete) continue;
      if (!c->probe) { memcpy(fired, c->enabled, sizeof fired); c->probe = 1; }
      expand(c, cur, (uint32_t)head);
      if (c->error_move >= 0) return 2;
      continue;
    }
    expand(c, cur, (uint32_t)head);
    if (c->error_move >= 0) return 2;
    if (c->oom) return 3;
    if (cb && ((head + 1) & 0xFFFFF) == 0 && cb(head + 1, c->n, depth)) { c->complete = 0; return 1; }
  }
  if (c->probe) { memcpy(c->enabled, fired, sizeof fired); c->probe = 0; }
  if (cb) cb(c->n, c->n, depth);
  return 0;
}

int64_t fsmc_lookup(ctx_t *c, const uint64_t *s) {
  if (!c->tcap) return -1;
  uint64_t mask = c->tcap - 1, i = hash_state(s) & mask;
  for (;;) {
    uint32_t e = c->table[i];
    if (!e) return -1;
    if (same(c->states + (uint64_t)(e - 1) * W, s)) return (int64_t)e - 1;
    i = (i + 1) & mask;
  }
}

uint64_t fsmc_count(ctx_t *c) { return c->n; }
const uint64_t *fsmc_states(ctx_t *c) { return c->states; }
const uint32_t *fsmc_parents(ctx_t *c) { return c->parent; }
const move_t *fsmc_moves(ctx_t *c) { return c->move; }
const uint64_t *fsmc_levels(ctx_t *c) { return c->levels; }
uint64_t fsmc_nlevels(ctx_t *c) { return c->nlevels; }
const uint8_t *fsmc_enabled(ctx_t *c) { return c->enabled; }
int fsmc_complete(ctx_t *c) { return c->complete; }
int64_t fsmc_error_move(ctx_t *c) { return c->error_move; }
uint64_t fsmc_bytes(ctx_t *c) {
  return c->cap * (W * 8 + sizeof(uint32_t) + sizeof(move_t)) + c->tcap * sizeof(uint32_t) + c->lcap * 8;
}
int fsmc_words(void) { return W; }
int fsmc_move_bytes(void) { return (int)sizeof(move_t); }
"""


def _ctype(values: tuple[int, ...]) -> str:
    lo, hi = min(values, default=0), max(values, default=0)
    for bits in (8, 16, 32):
        if -(1 << (bits - 1)) <= lo and hi < (1 << (bits - 1)):
            return f"int{bits}_t"
    return "int64_t"


class _Expr:
    """Renders lexpr trees as C over the unpacked locals of one page function."""

    def __init__(self, model: LModel):
        self.model = model
        self.written: set[int] = set()
        self.move = -1

    def __call__(self, e: LExpr) -> str:
        if isinstance(e, K):
            return f"{e.value}LL" if abs(e.value) > 0x7FFFFFFF else str(e.value)
        if isinstance(e, V):
            if e.var < 0:
                return "pg"
            name = self.local(e.var, e.running)
            return name if e.slot is None else f"{name}[{e.slot}]"
        if isinstance(e, VD):
            return f"{self.local(e.var, e.running)}[{self(e.idx)}]"
        if isinstance(e, B):
            if e.op == "<<":
                return f"((int64_t)1 << {self(e.right)})" if e.left == K(1) else f"((int64_t){self(e.left)} << {self(e.right)})"
            return f"({self(e.left)} {e.op} {self(e.right)})"
        if isinstance(e, U):
            return f"({e.op}{self(e.operand)})"
        if isinstance(e, Cond):
            return f"({self(e.test)} ? {self(e.then)} : {self(e.other)})"
        if isinstance(e, Pop):
            return f"(int64_t)__builtin_popcountll((uint64_t){self(e.mask)})"
        if isinstance(e, Pre):
            return f"p{e.index}"
        return self.table(e)

    def table(self, e: Tab) -> str:
        lookup = f"(int64_t)tab{e.table}[{self(e.idx)}]"
        return f"chk(c, {lookup}, {self.move})" if e.checked else lookup

    def local(self, var: int, running: bool) -> str:
        return f"r{var}" if running and var in self.written else f"v{var}"


def _get(f: Field, offset: int = 0) -> str:
    code = f"GET(s, {f.word}, {f.shift}, {f.mask:#x}ULL)"
    return f"({code} + {offset})" if offset else code


def _put(f: Field, value: str, target: str = "n") -> str:
    return f"PUT({target}, {f.word}, {f.shift}, {f.mask:#x}ULL, {value});"


class CWriter:
    def __init__(self, model: LModel, packing: Packing):
        self.model, self.packing = model, packing
        self.layout = model.layout
        self.ex = _Expr(model)

    def unpack(self, page: int) -> list[str]:
        out = []
        for v in self.layout.visible(page):
            var = self.layout.vars[v]
            fields = self.packing.var_fields(var)
            if var.kind == "map":
                init = ", ".join(_get(f) for f in fields)
                out.append(f"  int64_t v{v}[{var.nslots}] = {{{init}}};")
            else:
                out.append(f"  const int64_t v{v} = {_get(fields[0], var.offset)};")
        return out

    def page_functions(self, page: int) -> list[str]:
        moves = [mv for mv in self.model.moves if mv.page == page]
        head = ["  (void)c; (void)head;", "  const int64_t pg = " + str(page) + "; (void)pg;", *self.unpack(page)]
        unused = [f"  (void)v{v};" for v in self.layout.visible(page)]
        out = [f"static void expand_{page}(ctx_t *c, const uint64_t *s, uint32_t head) {{", *head, *unused]
        for mv in moves:
            out += self.move(mv)
        out.append("}")
        return out

    def move(self, mv: LMove) -> list[str]:
        written = {u.var for u in mv.updates}
        self.ex.written, self.ex.move = set(), mv.index
        out = [f"  /* {mv.label.replace('*/', '* /')} */", f"  if ({self.ex(mv.guard)}) {{",
               f"    c->enabled[{mv.index}] = 1;"]
        out += [f"    const int64_t p{i} = {self.ex(e)};" for i, e in enumerate(mv.pre)]
        for v in sorted(written):
            var = self.layout.vars[v]
            if var.kind == "map":
                out.append(f"    int64_t r{v}[{var.nslots}]; memcpy(r{v}, v{v}, sizeof r{v});")
            else:
                out.append(f"    int64_t r{v} = v{v};")
        self.ex.written = written
        for u in mv.updates:
            out += self.update(u, mv)
        out += ["    uint64_t n[W];", *self.successor(mv, written), f"    insert(c, n, head, {mv.index});", "  }"]
        return out

    def update(self, u: LUpdate, mv: LMove) -> list[str]:
        target = f"r{u.var}"
        if u.slot is not None:
            target += f"[{u.slot if isinstance(u.slot, int) else self.ex(u.slot)}]"
        out = [f"    {target} = {self.ex(u.value)};"]
        if u.check is not None:
            lo, hi = u.check
            out.append(f"    if ({target} < {lo} || {target} > {hi}) {{ chk(c, -1, {mv.index}); return; }}")
        return out

    def successor(self, mv: LMove, written: set[int]) -> list[str]:
        pk, lay = self.packing, self.layout
        if mv.nav is None:
            out = ["    memcpy(n, s, sizeof n);"]
            return out + [line for v in sorted(written) for line in self.put_var(lay.vars[v], f"r{v}")]
        nav = mv.nav
        const = [0] * pk.words
        const[pk.page.word] |= nav.page << pk.page.shift
        carried = dict(nav.carry)
        for v in lay.page_vars[nav.page]:
            if v not in carried:
                var = lay.vars[v]
                for f, stored in zip(pk.var_fields(var), lay.default(var), strict=True):
                    code = stored - var.offset if var.kind == "scalar" else stored
                    const[f.word] |= code << f.shift
        out = [f"    n[{w}] = (s[{w}] & {pk.session_mask[w]:#x}ULL) | {const[w]:#x}ULL;" for w in range(pk.words)]
        for v in sorted(written):
            if lay.vars[v].page is None:
                out += self.put_var(lay.vars[v], f"r{v}")
        for dst, src in nav.carry:
            out += self.put_var(lay.vars[dst], f"r{src}" if src in written else f"v{src}")
        return out

    def put_var(self, var: LVar, value: str) -> list[str]:
        fields = self.packing.var_fields(var)
        if var.kind == "map":
            return [f"    {_put(f, f'{value}[{i}]')}" for i, f in enumerate(fields)]
        v = f"{value} - {var.offset}" if var.offset else value
        return [f"    {_put(fields[0], v)}"]


def render_c(model: LModel, packing: Packing) -> str:
    nmoves = len(model.moves)
    move_t = "uint16_t" if nmoves < 0xFFFF else "uint32_t"
    no_move = "UINT16_MAX" if move_t == "uint16_t" else "UINT32_MAX"
    initial = _initial_words(model, packing)
    head = [f"/* {model.layout.spec.site.name}: native explorer generated by fsmc; do not edit. */",
            "#include <stdint.h>", f"#define W {packing.words}", f"#define NMOVES {nmoves}",
            f"typedef {move_t} move_t;", f"#define NO_MOVE {no_move}", f"#define NPAGES {max(1, model.layout.npages)}",
            f"#define PAGE_OF(s) (((s)[{packing.page.word}] >> {packing.page.shift}) & {packing.page.mask:#x}ULL)",
            "#define INITIAL {" + ", ".join(f"{w:#x}ULL" for w in initial) + "}"]
    tables = [f"static const {_ctype(t)} tab{i}[{max(1, len(t))}] = {{{', '.join(map(str, t)) or '0'}}};"
              for i, t in enumerate(model.tables)]
    writer = CWriter(model, packing)
    pages = [line for pi in range(model.layout.npages) for line in writer.page_functions(pi)]
    dispatch = _dispatch(model, packing)
    return "\n".join([*head, RUNTIME, *tables, *pages, *dispatch, API])


def _dispatch(model: LModel, packing: Packing) -> list[str]:
    f = packing.page
    get = f"(s[{f.word}] >> {f.shift}) & {f.mask:#x}ULL"
    out = ["static void expand(ctx_t *c, const uint64_t *s, uint32_t head) {", f"  switch ({get}) {{"]
    out += [f"  case {pi}: expand_{pi}(c, s, head); break;" for pi in range(model.layout.npages)]
    out += ["  }", "}"]
    return out


def _initial_words(model: LModel, packing: Packing) -> list[int]:
    return packing.pack(model.machine.initial())
