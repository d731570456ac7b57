"""Site themes: layout, palette, typography and density; the default is seeded from the spec's reference."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from fsmc import ir


@dataclass(frozen=True)
class Theme:
    name: str
    sidebar: str  # where filters go: left | right | top (a bar above the results)
    columns: int  # cards per row
    card: str  # shadow | outline | flat
    header_style: str  # bar | split (coloured) | centered | stacked (brand above a navigation strip)
    bg: str
    surface: str
    text: str
    muted: str
    accent: str
    accent_text: str
    border: str
    banner_bg: str
    banner_text: str
    font: str
    heading_font: str
    font_size: int  # px
    radius: int  # px
    gap: int  # px: density
    width: int  # px: the content column's width at 1280 wide


THEMES: dict[str, Theme] = {t.name: t for t in (
    Theme("harbor", sidebar="left", columns=3, card="shadow", header_style="bar",
          bg="#f4f6f9", surface="#ffffff", text="#1c2430", muted="#5d6b7e", accent="#1f5fbf", accent_text="#ffffff",
          border="#d7dee8", banner_bg="#1c2430", banner_text="#e9eef6",
          font="'Liberation Sans', Arial, Helvetica, sans-serif", heading_font="'Liberation Sans', Arial, sans-serif",
          font_size=15, radius=8, gap=16, width=1200),
    Theme("bazaar", sidebar="left", columns=4, card="flat", header_style="split",
          bg="#fffaf3", surface="#ffffff", text="#2b2118", muted="#7a6a58", accent="#d9480f", accent_text="#ffffff",
          border="#efdcc6", banner_bg="#ffe8cc", banner_text="#7a2e05",
          font="'DejaVu Sans', Verdana, Geneva, sans-serif", heading_font="'DejaVu Sans Condensed', 'DejaVu Sans', sans-serif",
          font_size=13, radius=3, gap=9, width=1264),
    Theme("gazette", sidebar="top", columns=2, card="outline", header_style="centered",
          bg="#fbf8f1", surface="#fffdf8", text="#222222", muted="#6b6459", accent="#7a1f2b", accent_text="#fffdf8",
          border="#ddd3c2", banner_bg="#efe6d2", banner_text="#4a3b22",
          font="'Liberation Serif', Georgia, 'Times New Roman', serif", heading_font="'DejaVu Serif', Georgia, serif",
          font_size=16, radius=0, gap=22, width=1040),
    Theme("midnight", sidebar="right", columns=4, card="shadow", header_style="stacked",
          bg="#14171f", surface="#1e2330", text="#e8ecf3", muted="#9aa5b8", accent="#37c89b", accent_text="#0d1f19",
          border="#2e3546", banner_bg="#37c89b", banner_text="#0d1f19",
          font="'DejaVu Sans', 'Segoe UI', sans-serif", heading_font="'Liberation Sans Narrow', 'DejaVu Sans Condensed', sans-serif",
          font_size=14, radius=12, gap=13, width=1232),
)}


def default_theme(spec: ir.Spec) -> str:
    """A theme chosen from the spec's reference site (or its name), stable across runs."""
    seed = spec.site.reference or spec.site.name
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    names = sorted(THEMES)
    return names[digest[0] % len(names)]


STYLE_NOTES = "style.txt"  # AutoWebWorld's style notes beside a world (its app folder, web/)
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def style_notes(spec: ir.Spec) -> Path | None:
    """The style notes beside the spec's file (in its folder, or its app folder `web/`), if any."""
    source = Path(spec.site.span.file) if spec.site.span.file else None
    if source is None:
        return None
    for folder in (source.parent, source.parent / "web", source.parent / source.stem / "web"):
        if (folder / STYLE_NOTES).is_file():
            return folder / STYLE_NOTES
    return None


def _readable_on(colour: str) -> str:
    """Text that reads on a colour: near-black or white, whichever contrasts more (WCAG's contrast ratio)."""
    def channel(k: int) -> float:
        c = int(colour[k:k + 2], 16) / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    lum = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)
    dark = 0.0056  # the luminance of #111111
    return "#111111" if (lum + 0.05) / (dark + 0.05) > 1.05 / (lum + 0.05) else "#ffffff"  # the higher contrast


def with_style_notes(theme: Theme, notes: str) -> Theme:
    """The theme with what style notes say plainly: the colour of primary buttons (the first colour on a line that
    speaks of buttons, else on a line that says primary) as its accent, and the font family as its fonts' first
    choice. Notes that say neither leave the theme as it is."""
    lines = notes.splitlines()
    accent = next((m.group(0) for pick in ("button", "primary") for line in lines
                   if pick in line.lower() and (m := _HEX.search(line))), None)
    font = next((line.split(":", 1)[1] for line in lines if "font family" in line.lower() and ":" in line), "")
    families = [f.strip(" *`.") for f in font.split(",")]
    families = [f for f in families if f and re.fullmatch(r"[\w '\"-]+", f)]
    changes: dict[str, Any] = {}
    if accent:
        changes.update(accent=accent.lower(), accent_text=_readable_on(accent))
    if families:
        changes.update(font=", ".join([*families[:4], theme.font]), heading_font=", ".join([*families[:4],
                                                                                          theme.heading_font]))
    return replace(theme, **changes)


def theme_json(theme: Theme) -> dict[str, Any]:
    return asdict(theme)


__all__ = ["STYLE_NOTES", "THEMES", "Theme", "default_theme", "style_notes", "theme_json", "with_style_notes"]
