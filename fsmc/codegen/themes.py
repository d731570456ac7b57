"""Site themes: layout, palette, typography and density; the default is seeded from the spec's reference."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
from typing import Any

from fsmc import ir


@dataclass(frozen=True)
class Theme:
    name: str
    sidebar: bool  # filters and forms in a left sidebar, or in a bar above the content
    columns: int  # cards per row
    bg: str
    surface: str
    text: str
    muted: str
    accent: str
    accent_text: str
    border: str
    banner_bg: str
    font: str
    heading_font: str
    font_size: int  # px
    radius: int  # px
    gap: int  # px: density
    header_style: str  # bar | centered | split


THEMES: dict[str, Theme] = {t.name: t for t in (
    Theme("harbor", sidebar=True, columns=3, bg="#f4f6f9", surface="#ffffff", text="#1c2430", muted="#5d6b7e",
          accent="#1f5fbf", accent_text="#ffffff", border="#d7dee8", banner_bg="#e3ecfa",
          font="'Helvetica Neue', Arial, sans-serif", heading_font="'Helvetica Neue', Arial, sans-serif",
          font_size=15, radius=8, gap=16, header_style="bar"),
    Theme("bazaar", sidebar=True, columns=4, bg="#fffaf3", surface="#ffffff", text="#2b2118", muted="#7a6a58",
          accent="#d9480f", accent_text="#ffffff", border="#efdcc6", banner_bg="#ffe8cc",
          font="Verdana, Geneva, sans-serif", heading_font="'Trebuchet MS', sans-serif",
          font_size=13, radius=3, gap=8, header_style="split"),
    Theme("gazette", sidebar=False, columns=2, bg="#fbf8f1", surface="#fffdf8", text="#222222", muted="#6b6459",
          accent="#7a1f2b", accent_text="#fffdf8", border="#ddd3c2", banner_bg="#f1e8d6",
          font="Georgia, 'Times New Roman', serif", heading_font="'Palatino Linotype', Palatino, serif",
          font_size=16, radius=0, gap=22, header_style="centered"),
    Theme("midnight", sidebar=False, columns=4, bg="#14171f", surface="#1e2330", text="#e8ecf3", muted="#9aa5b8",
          accent="#37c89b", accent_text="#0d1f19", border="#2e3546", banner_bg="#22304a",
          font="'DejaVu Sans', 'Segoe UI', sans-serif", heading_font="'DejaVu Sans Mono', monospace",
          font_size=14, radius=12, gap=12, header_style="bar"),
)}


def default_theme(spec: ir.Spec) -> str:
    """A theme chosen from the spec's reference site (or its name), stable across runs."""
    seed = spec.site.reference or spec.site.name
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    names = sorted(THEMES)
    return names[digest[0] % len(names)]


def theme_json(theme: Theme) -> dict[str, Any]:
    return asdict(theme)


__all__ = ["THEMES", "Theme", "default_theme", "theme_json"]
