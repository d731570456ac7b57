"""Deterministic SVG pictures for table rows: the hash of the key picks colours and shapes (no network)."""

from __future__ import annotations

import hashlib
from xml.sax.saxutils import escape

W, H = 320, 240


def _initials(title: str) -> str:
    """Up to two initials of a title's words, escaped for SVG text ("?" for a title without words)."""
    words = [w for w in title.split() if w[:1].isalnum()]
    return escape("".join(w[0] for w in words[:2]).upper() or "?")


def _hsl(h: int, s: int, lightness: int) -> str:
    return f"hsl({h % 360},{s}%,{lightness}%)"


def item_svg(table: str, key: object, title: str) -> str:
    """A 320×240 SVG: a two-tone background, three shapes and the title's initials, all from the key's hash."""
    d = hashlib.sha256(f"{table}:{key}".encode()).digest()
    hue = d[0] * 360 // 256
    shapes = []
    for i in range(3):
        x, y, r = 40 + d[1 + i] % 240, 30 + d[4 + i] % 180, 18 + d[7 + i] % 50
        colour = _hsl(hue + 40 * (i + 1) + d[10 + i] % 60, 55 + d[13 + i] % 30, 45 + d[16 + i] % 25)
        if d[19 + i] % 3 == 0:
            shapes.append(f'<circle cx="{x}" cy="{y}" r="{r}" fill="{colour}" opacity="0.85"/>')
        elif d[19 + i] % 3 == 1:
            shapes.append(f'<rect x="{x - r}" y="{y - r}" width="{2 * r}" height="{int(1.4 * r)}" rx="6" fill="{colour}" opacity="0.85"/>')
        else:
            shapes.append(f'<polygon points="{x},{y - r} {x + r},{y + r} {x - r},{y + r}" fill="{colour}" opacity="0.85"/>')
    initials = _initials(title)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">'
            f'<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">'
            f'<stop offset="0" stop-color="{_hsl(hue, 45, 88)}"/><stop offset="1" stop-color="{_hsl(hue + 30, 50, 74)}"/>'
            f'</linearGradient></defs><rect width="{W}" height="{H}" fill="url(#g)"/>{"".join(shapes)}'
            f'<text x="16" y="44" font-family="sans-serif" font-size="34" '
            f'font-weight="700" fill="{_hsl(hue + 180, 40, 25)}" opacity="0.8">{initials}</text></svg>')


def logo_svg(table: str, key: object, title: str) -> str:
    """A 96×96 badge (an airline's, a brand's): the title's initials on a colour from the key's hash."""
    d = hashlib.sha256(f"{table}:{key}".encode()).digest()
    hue = d[0] * 360 // 256
    initials = _initials(title)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">'
            f'<rect width="96" height="96" rx="20" fill="{_hsl(hue, 55, 42)}"/>'
            f'<path d="M0 70 Q48 40 96 62 V96 H0 Z" fill="{_hsl(hue + 25, 60, 55)}" opacity="0.6"/>'
            f'<text x="48" y="58" text-anchor="middle" font-family="sans-serif" font-size="34" font-weight="700" '
            f'fill="#ffffff">{initials}</text></svg>')


__all__ = ["item_svg", "logo_svg"]
