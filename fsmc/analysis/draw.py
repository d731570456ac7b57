"""Pictures of the page graph: a layered drawing with matplotlib (SVG, PNG, PDF) or Graphviz DOT text.

Pages are laid out in columns by the longest cycle-free navigation path from the entry page (pages no
path reaches come last, greyed), ordered within a column to limit crossings; all actions between two
pages, both ways, share one labelled arrow, and actions that reload their own page are listed in its box. Matplotlib is pure Python, so this works wherever fsmc installs; `dot` is
used only when asked for.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from fsmc import ir
from fsmc.analysis.pages import page_graph
from fsmc.errors import FsmcError

FORMATS = ("svg", "png", "pdf", "dot")
COLOURS = {"entry": "#c7e9c0", "terminal": "#fcbba1", "page": "#dbe9f6", "unreachable": "#eeeeee"}
EDGES = {"entry": "#238b45", "terminal": "#cb181d", "page": "#4a6f99", "unreachable": "#999999"}
MAX_LABELS = 3


class DrawError(FsmcError):
    """The picture cannot be made (unknown format, Graphviz missing or failing)."""


@dataclass(frozen=True)
class Edge:
    """The navigating actions between two pages, both ways, drawn as one arrow (source: the earlier column)."""

    source: str
    target: str
    forward: tuple[str, ...]  # actions from source to target
    backward: tuple[str, ...] = ()  # actions from target to source

    def label(self, same_column: bool = False) -> str:
        there, back = ("\u2193", "\u2191") if same_column else ("\u2192", "\u2190")
        lines = [f"{there} {a}" for a in _shorten(self.forward)] if self.backward else list(_shorten(self.forward))
        if self.backward:
            lines += [f"{back} {a}" for a in _shorten(self.backward)]
        return "\n".join(lines)


def _shorten(actions: tuple[str, ...]) -> list[str]:
    shown = list(actions[:MAX_LABELS])
    if len(actions) > MAX_LABELS:
        shown.append(f"+{len(actions) - MAX_LABELS} more")
    return shown


# ---------------------------------------------------------------- what to draw


def page_kind(spec: ir.Spec, page: str, reachable: set[str]) -> str:
    if page == spec.site.entry:
        return "entry"
    if page not in reachable:
        return "unreachable"
    return "terminal" if page in spec.site.terminals else "page"


def actions_between(graph: nx.MultiDiGraph) -> dict[tuple[str, str], tuple[str, ...]]:
    """The navigating actions of each ordered page pair (self-loops included), in declaration order."""
    found: dict[tuple[str, str], list[str]] = {}
    for u, v, data in graph.edges(data=True):
        found.setdefault((u, v), []).append(str(data.get("action", "")))
    return {pair: tuple(names) for pair, names in found.items()}


def merged_edges(graph: nx.MultiDiGraph, column: dict[str, int]) -> list[Edge]:
    """One edge per unordered pair of distinct pages, oriented from the earlier column (or the first declared)."""
    between = actions_between(graph)
    order = {n: i for i, n in enumerate(graph.nodes)}
    out: list[Edge] = []
    for u, v in between:
        if u == v:
            continue
        a, b = (u, v) if (column[u], order[u]) <= (column[v], order[v]) else (v, u)
        if (a, b) != (u, v) and (a, b) in between:
            continue  # drawn with its reverse
        out.append(Edge(a, b, between.get((a, b), ()), between.get((b, a), ())))
    return out


def layers(spec: ir.Spec, graph: nx.MultiDiGraph) -> list[list[str]]:
    """Pages in columns by the longest cycle-free navigation path from the entry; unreachable pages last."""
    entry = spec.site.entry
    if entry not in graph:
        return [[p.name for p in spec.pages]]
    reachable = {entry, *nx.descendants(graph, entry)}
    dag = nx.DiGraph()
    dag.add_nodes_from(p.name for p in spec.pages if p.name in reachable)
    dag.add_edges_from((u, v) for u, v in graph.edges() if u in reachable and u != v)
    dag.remove_edges_from(_cycle_edges(dag, entry))
    depth: dict[str, int] = {}
    for n in nx.topological_sort(dag):
        depth[n] = max((depth[p] + 1 for p in dag.predecessors(n)), default=0)
    columns: list[list[str]] = [[] for _ in range(max(depth.values(), default=0) + 1)]
    rest: list[str] = []
    for page in spec.pages:
        (columns[depth[page.name]] if page.name in depth else rest).append(page.name)
    return [c for c in columns if c] + ([rest] if rest else [])


def _cycle_edges(dag: nx.DiGraph, entry: str) -> list[tuple[str, str]]:
    """The edges of a depth-first walk from the entry that go back to a page still on the walk's stack."""
    out: list[tuple[str, str]] = []
    on_stack = {entry}
    for u, v, kind in nx.dfs_labeled_edges(dag, source=entry):
        if kind == "forward" and u != v:
            on_stack.add(v)
        elif kind == "reverse":
            on_stack.discard(v)
        elif kind == "nontree" and v in on_stack:
            out.append((u, v))
    return out


def order_columns(columns: list[list[str]], graph: nx.MultiDiGraph, sweeps: int = 4) -> list[list[str]]:
    """Reorder each column by the mean position of its neighbours in the column before (barycentre)."""
    columns = [list(c) for c in columns]
    undirected = graph.to_undirected(as_view=True)
    for sweep in range(sweeps):
        order = range(1, len(columns)) if sweep % 2 == 0 else range(len(columns) - 2, -1, -1)
        for i in order:
            ref = columns[i - 1] if sweep % 2 == 0 else columns[i + 1]
            pos = {p: k - (len(ref) - 1) / 2 for k, p in enumerate(ref)}

            def centre(page: str, current: float, pos: dict[str, float] = pos) -> float:
                near = [pos[n] for n in undirected.neighbors(page) if n in pos]
                return sum(near) / len(near) if near else current

            mid = (len(columns[i]) - 1) / 2
            ranked = sorted((centre(p, k - mid), k, p) for k, p in enumerate(columns[i]))
            columns[i] = [p for _, _, p in ranked]
    return columns


def node_text(page: ir.Page, loops: Iterable[str]) -> str:
    title = page.title or page.name
    lines = [title] if title == page.name else [title, f"({page.name})"]
    lines += [f"\u21ba {name}" for name in loops]
    return "\n".join(lines)


# ---------------------------------------------------------------- DOT


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_LEGEND = {"entry": "entry page", "page": "page", "terminal": "terminal page", "unreachable": "unreachable page"}
_DOT_STYLE = {
    "entry": 'style="rounded,filled,bold" penwidth=2',
    "terminal": 'style="rounded,filled" peripheries=2',
    "page": 'style="rounded,filled"',
    "unreachable": 'style="rounded,filled,dashed" fontcolor="#777777"',
}


def to_dot(spec: ir.Spec) -> str:
    """The page graph as Graphviz DOT text, with the same marks and legend as the drawing."""
    graph = page_graph(spec)
    reachable = {spec.site.entry, *nx.descendants(graph, spec.site.entry)} if spec.site.entry in graph else set()
    lines = [f"digraph {_dot_id(spec.site.name)} {{", "  rankdir=LR;",
             f"  label={_dot_id((spec.site.title or spec.site.name) + ': page graph')}; labelloc=t; fontname=Helvetica;",
             "  node [shape=box fontname=Helvetica fontsize=11]; edge [fontname=Helvetica fontsize=9];"]
    for page in spec.pages:
        kind = page_kind(spec, page.name, reachable)
        lines.append(f"  {_dot_id(page.name)} [label={_dot_id(node_text(page, ()))} "
                     f"fillcolor=\"{COLOURS[kind]}\" {_DOT_STYLE[kind]}];")
    for (u, v), actions in actions_between(graph).items():
        lines.append(f"  {_dot_id(u)} -> {_dot_id(v)} [label={_dot_id(chr(10).join(_shorten(actions)))}];")
    lines.append('  subgraph cluster_legend { label="legend"; fontsize=10; style=dashed;')
    for kind, text in _LEGEND.items():
        lines.append(f"    legend_{kind} [label={_dot_id(text)} fillcolor=\"{COLOURS[kind]}\" {_DOT_STYLE[kind]}];")
    lines += ['    legend_entry -> legend_page -> legend_terminal [label="navigating action"];', "  }", "}"]
    return "\n".join(lines) + "\n"


def render_with_graphviz(spec: ir.Spec, out: Path, fmt: str) -> None:
    """Render the DOT text with Graphviz's `dot`, which must be installed."""
    dot = shutil.which("dot")
    if dot is None:
        raise DrawError("Graphviz `dot` is not installed; install it (e.g. apt-get install graphviz) "
                        "or leave out --engine graphviz to draw with matplotlib")
    result = subprocess.run([dot, f"-T{fmt}", "-o", str(out)], input=to_dot(spec), text=True,  # noqa: S603
                            capture_output=True, check=False, timeout=120)
    if result.returncode != 0:
        raise DrawError(f"dot failed: {result.stderr.strip()}")


# ---------------------------------------------------------------- layout and matplotlib


@dataclass
class Layout:
    """What the drawing shows and where: page kinds, merged edges, box sizes and centres in inches."""

    columns: list[list[str]]
    kinds: dict[str, str]
    edges: list[Edge]
    text: dict[str, str]
    size: dict[str, tuple[float, float]]
    pos: dict[str, tuple[float, float]]
    column_of: dict[str, int]


def text_size(text: str, fontsize: float) -> tuple[float, float]:
    """Width and height in inches of (multi-line) text, measured without a figure."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    prop, measure = FontProperties(size=fontsize), TextToPath()
    lines = text.split("\n")
    width = max(measure.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines)
    return width / 72, len(lines) * fontsize * 1.25 / 72


def layout(spec: ir.Spec, fontsize: float = 9) -> Layout:
    """Columns by cycle-free distance from the entry, rows ordered against crossings, boxes sized to their text."""
    graph = page_graph(spec)
    entry = spec.site.entry
    reachable = {entry, *nx.descendants(graph, entry)} if entry in graph else set()
    columns = order_columns(layers(spec, graph), graph)
    column_of = {p: i for i, c in enumerate(columns) for p in c}
    edges = merged_edges(graph, column_of)
    loops = {u: names for (u, v), names in actions_between(graph).items() if u == v}
    text = {p.name: node_text(p, loops.get(p.name, ())) for p in spec.pages}
    size = {}
    for name, body in text.items():
        w, h = text_size(body, fontsize)
        size[name] = (w + 0.3, h + 0.2)
    labels = [text_size(e.label(), fontsize - 2)[0] for e in edges if column_of[e.target] - column_of[e.source] == 1]
    col_gap = max((w for w, _ in size.values()), default=1.0) + max(labels, default=0.0) + 0.8
    row_gap = max((h for _, h in size.values()), default=0.5) + 0.55
    pos = {page: (i * col_gap, -(k - (len(column) - 1) / 2) * row_gap)
           for i, column in enumerate(columns) for k, page in enumerate(column)}
    kinds = {p.name: page_kind(spec, p.name, reachable) for p in spec.pages}
    return Layout(columns, kinds, edges, text, size, pos, column_of)


def curvature(e: Edge, lay: Layout) -> float:
    """Straight between neighbouring columns, bowed to the right within a column, and over longer spans
    bowed just enough (up or down, whichever is less) to clear the pages of the columns in between."""
    span = lay.column_of[e.target] - lay.column_of[e.source]
    if span == 1:
        return 0.0
    if span == 0:
        return -0.35 if lay.pos[e.target][1] < lay.pos[e.source][1] else 0.35
    (x1, y1), (x2, y2) = lay.pos[e.source], lay.pos[e.target]
    up = down = 0.15
    for page, (x, y) in lay.pos.items():
        if page in (e.source, e.target) or not x1 < x < x2:
            continue
        s = (x - x1) / (x2 - x1)
        line, half, bow = y1 + s * (y2 - y1), lay.size[page][1] / 2 + 0.25, 2 * s * (1 - s) * (x2 - x1)
        up = max(up, (y + half - line) / bow)
        down = max(down, (line - (y - half)) / bow)
    return -min(up, 0.7) if up <= down else min(down, 0.7)


def _label_point(a: tuple[float, float], b: tuple[float, float], rad: float) -> tuple[float, float]:
    """The middle of matplotlib's arc3 curve from a to b (a quadratic Bezier)."""
    (x1, y1), (x2, y2) = a, b
    cx, cy = (x1 + x2) / 2 + rad * (y2 - y1), (y1 + y2) / 2 - rad * (x2 - x1)
    return 0.25 * x1 + 0.5 * cx + 0.25 * x2, 0.25 * y1 + 0.5 * cy + 0.25 * y2


def _draw_nodes(ax: Any, lay: Layout) -> dict[str, Any]:
    from matplotlib.patches import FancyBboxPatch

    boxes = {}
    for name, (x, y) in lay.pos.items():
        kind, (w, h) = lay.kinds[name], lay.size[name]
        boxes[name] = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.08",
                                     facecolor=COLOURS[kind], edgecolor=EDGES[kind], zorder=2,
                                     linewidth=2.4 if kind in ("entry", "terminal") else 1.0,
                                     linestyle="--" if kind == "unreachable" else "-")
        ax.add_patch(boxes[name])
        ax.text(x, y, lay.text[name], ha="center", va="center", zorder=3, linespacing=1.25,
                fontweight="bold" if kind == "entry" else "normal",
                color="#666666" if kind == "unreachable" else "#111111")
    return boxes


def _draw_edges(ax: Any, lay: Layout, boxes: dict[str, Any]) -> None:
    from matplotlib.patches import FancyArrowPatch

    for e in lay.edges:
        rad = curvature(e, lay)
        a, b = lay.pos[e.source], lay.pos[e.target]
        style = "<|-|>" if e.backward and e.forward else "<|-" if e.backward else "-|>"
        ax.add_patch(FancyArrowPatch(a, b, patchA=boxes[e.source], patchB=boxes[e.target], zorder=1,
                                     arrowstyle=style, mutation_scale=11, linewidth=1.0, color="#555555",
                                     connectionstyle=f"arc3,rad={rad}", shrinkA=1, shrinkB=1))
        lx, ly = _label_point(a, b, rad)
        same = lay.column_of[e.source] == lay.column_of[e.target]
        ax.text(lx, ly, e.label(same), ha="center", va="center", fontsize=7, color="#333333", zorder=4,
                linespacing=1.2, bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none",
                                       "alpha": 0.85})


def _draw_legend(fig: Any, lay: Layout) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    present = [k for k in _LEGEND if k in lay.kinds.values()]
    handles: list[Any] = [Patch(facecolor=COLOURS[k], edgecolor=EDGES[k], label=_LEGEND[k]) for k in present]
    handles.append(Line2D([], [], color="#555555", marker=">", label="navigating actions (\u2192 / \u2190: each way)"))
    if any("\u21ba" in t for t in lay.text.values()):
        handles.append(Line2D([], [], linestyle="none", marker="$\u21ba$", color="#333333",
                              label="action that reloads its own page"))
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), frameon=False, fontsize=8)


def draw_matplotlib(spec: ir.Spec, path: Path, fmt: str) -> None:
    """Draw the page graph with matplotlib (no GUI, no global pyplot state); one data unit is one inch."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lay = layout(spec)
    bows = [_label_point(lay.pos[e.source], lay.pos[e.target], curvature(e, lay)) for e in lay.edges]
    xs = [x for x, _ in (*lay.pos.values(), *bows)] or [0.0]
    ys = [y for _, y in (*lay.pos.values(), *bows)] or [0.0]
    half_w = max((w for w, _ in lay.size.values()), default=1.0) / 2 + 0.4
    half_h = max((h for _, h in lay.size.values()), default=0.5) / 2 + 0.6
    x0, x1, y0, y1 = min(xs) - half_w, max(xs) + half_w, min(ys) - half_h, max(ys) + half_h
    top, bottom = 0.6, 0.6  # inches for the title and the legend
    width, height = max(x1 - x0, 8.0), y1 - y0 + top + bottom
    x0 -= (width - (x1 - x0)) / 2
    rc: Any = {"svg.fonttype": "none", "svg.hashsalt": "fsmc", "font.size": 9}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        ax = fig.add_axes((0.0, bottom / height, 1.0, (y1 - y0) / height))
        ax.set_xlim(x0, x0 + width)
        ax.set_ylim(y0, y1)
        ax.set_axis_off()
        _draw_edges(ax, lay, _draw_nodes(ax, lay))
        fig.suptitle(f"{spec.site.title or spec.site.name}: page graph", y=1 - 0.2 / height, fontsize=12)
        _draw_legend(fig, lay)
        metadata: dict[str, Any] = {"svg": {"Date": None}, "pdf": {"CreationDate": None}}.get(fmt, {})
        fig.savefig(path, format=fmt, dpi=150, metadata=metadata)


def draw(spec: ir.Spec, out: str | Path, fmt: str | None = None, engine: str = "matplotlib") -> Path:
    """Write a picture of the page graph to `out`; the format comes from `fmt` or the file's suffix."""
    path = Path(out)
    fmt = (fmt or path.suffix.lstrip(".") or "svg").lower()
    if fmt not in FORMATS:
        raise DrawError(f"unknown picture format '{fmt}'; use one of {', '.join(FORMATS)}")
    if fmt == "dot":
        path.write_text(to_dot(spec), encoding="utf-8")
    elif engine == "graphviz":
        render_with_graphviz(spec, path, fmt)
    else:
        draw_matplotlib(spec, path, fmt)
    return path


__all__ = ["FORMATS", "DrawError", "Layout", "draw", "layout", "to_dot"]
