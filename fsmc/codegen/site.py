"""Writes a spec's Vite + Vue 3 project: decides everything in Python, renders it with the Jinja2 templates."""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from fsmc import ir
from fsmc.codegen.app_images import app_pictures
from fsmc.codegen.images import item_svg, logo_svg
from fsmc.codegen.js import compile_runtime
from fsmc.codegen.layout import PageLayout, decide_layout, layout_json
from fsmc.codegen.npm import NODE_MODULES, TEMPLATES
from fsmc.codegen.present import columns_json, decide_pictures, price_index, site_copy, site_title, title_index
from fsmc.codegen.themes import THEMES, Theme, default_theme, style_notes, theme_json, with_style_notes
from fsmc.types import domains as T

SITE_TEMPLATES = TEMPLATES / "site"
MANIFEST = ".fsmc-manifest.json"
MAX_IMAGE_ROWS = 2000
# Files copied as they are: generic for every site.
STATIC = ("src/fsmc/lib.js", "src/fsmc/machine.js", "src/fsmc/store.js", "src/fsmc/format.js")
_CURRENCY = re.compile(r"[£€$¥]")


@dataclass
class SiteProject:
    """A generated project: its folder and, per generated file, the template and spec place it came from."""

    root: Path
    theme: str
    sources: dict[str, dict[str, str]] = field(default_factory=dict)


def _pascal(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", name) if w) or "Page"


def _env() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(SITE_TEMPLATES)), autoescape=jinja2.select_autoescape(("html.j2", "vue.j2")),
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def _js_const(name: str, value: Any) -> str:
    return f"export const {name} = {json.dumps(value, ensure_ascii=False, separators=(',', ':'))}\n"


class SiteWriter:
    """Collects the files of one project, then writes only those that changed and removes stale ones."""

    def __init__(self, spec: ir.Spec, root: Path, theme: Theme):
        self.spec, self.root, self.theme = spec, root, theme
        self.files: dict[str, bytes] = {}
        self.sources: dict[str, dict[str, str]] = {}
        self.env = _env()
        self.layouts = decide_layout(spec)

    def add(self, rel: str, text: str | bytes, template: str, span: ir.Span | None = None, verbatim: bool = False) -> None:
        self.files[rel] = text.encode("utf-8") if isinstance(text, str) else text
        self.sources[rel] = {"template": template, "spec": str(span or self.spec.site.span)}
        if verbatim:
            self.sources[rel]["verbatim"] = "yes"

    def render(self, rel: str, template: str, span: ir.Span | None = None, **ctx: Any) -> None:
        self.add(rel, self.env.get_template(template).render(**ctx), f"templates/site/{template}", span)

    # ---------------------------------------------------------------- decisions
    def tables_data(self) -> tuple[dict[str, Any], dict[str, dict[str, str]]]:
        data: dict[str, Any] = {}
        images: dict[str, dict[str, str]] = {}
        given = app_pictures(self.spec)
        pictures = decide_pictures(self.spec, frozenset(given))
        for t in self.spec.tables:
            cols = [c.name for c in t.columns]
            title = cols[title_index(t)]
            data[t.name] = {"key": t.key, "columns": cols, "title": title, "price": price_index(t), "show": columns_json(t),
                            "refs": [c.type[4:] if c.type.startswith("ref:") else None for c in t.columns],
                            "nums": [c.type == "num" for c in t.columns], "rows": [list(r) for r in t.rows]}
            if t.name not in pictures.own | pictures.logos or len(t.rows) > MAX_IMAGE_ROWS:
                continue
            k, ti = cols.index(t.key) if t.key in cols else 0, cols.index(title)
            draw = logo_svg if t.name in pictures.logos else item_svg
            images[t.name] = {}
            for i, r in enumerate(t.rows):
                if str(r[k]) in given.get(t.name, {}):  # the world's own picture, where its app serves it
                    path, file = given[t.name][str(r[k])]
                    images[t.name][str(r[k])] = path
                    self.add(f"public/{path}", file.read_bytes(), "the world's app folder (public/)", t.span, verbatim=True)
                    continue
                path = f"img/{t.name}/{i}.svg"
                images[t.name][str(r[k])] = path
                self.add(f"public/{path}", draw(t.name, r[k], str(r[ti] or "")), "fsmc/codegen/images.py", t.span)
        return data, images

    def header_info(self) -> dict[str, Any]:
        """Session values a site's header shows: the cart's size and who is signed in."""
        cart = user = None
        for i, v in enumerate(self.spec.session):
            base = T.strip_optional(v.type)
            if (cart is None and isinstance(base, ir.MapType) and isinstance(T.strip_optional(base.key), ir.RefType)
                    and isinstance(T.strip_optional(base.value), ir.IntType)):
                cart = {"slot": 1 + i}
            elif user is None and isinstance(v.type, ir.OptionalType) and isinstance(base, ir.RefType):
                user = {"slot": 1 + i, "table": base.table}
        return {"cart": cart, "user": user}

    def site_meta(self) -> dict[str, Any]:
        title = site_title(self.spec)
        symbols = _CURRENCY.findall(" ".join(t.instruction for t in self.spec.tasks))
        currency = symbols[0] if symbols else "$"
        return {"name": self.spec.site.name, "title": title, "currency": currency, "header": self.header_info(),
                **site_copy(self.spec, title, currency)}

    def page_context(self, page: ir.Page, lay: PageLayout) -> dict[str, Any]:
        return {"name": page.name, "index": lay.index, "span": str(page.span), "structure": lay.structure,
                "detail": lay.detail_mode == "full", "views": [{"hidden": v.hidden} for v in lay.views]}

    # ---------------------------------------------------------------- files
    def collect(self) -> None:
        site = self.spec.site
        self.render("index.html", "index.html.j2", site.span, title=self.site_meta()["title"])
        self.render("vite.config.mjs", "vite.config.mjs.j2", site.span)
        self.render("src/main.js", "src/main.js.j2", site.span, site=site.name)
        self.render("src/style.css", "src/style.css.j2", site.span, t=self.theme)
        components = []
        for page, lay in zip(self.spec.pages, self.layouts, strict=True):
            comp = f"{_pascal(page.name)}Page{lay.index}"
            components.append({"component": comp})
            self.render(f"src/pages/{comp}.vue", "src/pages/Page.vue.j2", page.span, page=self.page_context(page, lay))
        self.render("src/App.vue", "src/App.vue.j2", site.span, pages=components, theme=self.theme.name)
        self.add("src/fsmc/runtime.js", compile_runtime(self.spec), "fsmc/codegen/js.py")
        tables, images = self.tables_data()
        self.add("src/data.js", _js_const("TABLES", tables) + _js_const("IMAGES", images)
                 + "for (const t of Object.values(TABLES)) {\n  const k = t.columns.indexOf(t.key)\n"
                 "  t.byKey = Object.create(null)\n  for (const r of t.rows) t.byKey[r[k]] = r\n}\n",
                 "fsmc/codegen/site.py", site.span)
        self.add("src/site.js", _js_const("SITE", self.site_meta()) + _js_const("THEME", theme_json(self.theme))
                 + _js_const("LAYOUT", layout_json(self.layouts)),
                 "fsmc/codegen/layout.py", site.span)
        for rel in STATIC:
            self.add(rel, (SITE_TEMPLATES / rel).read_bytes(), f"templates/site/{rel}", verbatim=True)
        for vue in sorted((SITE_TEMPLATES / "src" / "components").glob("*.vue")):
            rel = f"src/components/{vue.name}"
            self.add(rel, vue.read_bytes(), f"templates/site/{rel}", verbatim=True)

    def write(self) -> SiteProject:
        self.collect()
        self.root.mkdir(parents=True, exist_ok=True)
        for rel, data in self.files.items():
            path = self.root / rel
            if path.is_file() and path.read_bytes() == data:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        for folder in ("src", "public"):
            for path in sorted((self.root / folder).rglob("*"), reverse=True):
                rel = path.relative_to(self.root).as_posix()
                if path.is_file() and rel not in self.files:
                    path.unlink()
                elif path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
        (self.root / MANIFEST).write_text(json.dumps({"site": self.spec.site.name, "theme": self.theme.name,
                                                      "sources": self.sources}, indent=1), encoding="utf-8")
        _link_node_modules(self.root)
        return SiteProject(self.root, self.theme.name, self.sources)


def _link_node_modules(root: Path) -> None:
    """node_modules in the project is a link to the shared install, never a per-site npm install."""
    link = root / "node_modules"
    target = Path(os.path.relpath(NODE_MODULES, root))
    if link.is_symlink() and Path(os.readlink(link)) == target:
        return
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        shutil.rmtree(link)
    link.symlink_to(target, target_is_directory=True)


def generate(spec: ir.Spec, out: Path | str = "generated_sites", theme: str | None = None) -> SiteProject:
    """Write the Vite project for a spec to OUT/<site>/; raises KeyError for an unknown theme."""
    name = theme or default_theme(spec)
    if name not in THEMES:
        raise KeyError(f"unknown theme '{name}'; choose one of {', '.join(sorted(THEMES))}")
    chosen, notes = THEMES[name], style_notes(spec) if theme is None else None  # a theme asked for is taken as it is
    if notes is not None:
        chosen = with_style_notes(chosen, notes.read_text(encoding="utf-8", errors="replace"))
    return SiteWriter(spec, Path(out) / spec.site.name, chosen).write()


__all__ = ["SiteProject", "generate"]
