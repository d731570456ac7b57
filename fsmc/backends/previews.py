"""Screenshots of chosen states of a built site (what `fsmc build --screenshots` saves for a person to look at)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fsmc.backends.protocol import PNG
from fsmc.backends.site import GeneratedSite


async def _shoot(dist: Path, out: Path, states: list[dict[str, Any]]) -> list[Path]:
    paths = []
    async with GeneratedSite(dist, image=PNG) as site:
        episode = await site.open()
        for state in states:
            await episode.reset(state)
            path = out / f"{state['page']}{PNG.suffix}"
            path.write_bytes(await episode.screenshot())
            paths.append(path)
    return paths


def screenshot_states(dist: Path, out: Path, states: list[dict[str, Any]]) -> list[Path]:
    """A 1280×720 PNG per state (in the harness's JSON form), each named after its page, written to out/."""
    out.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_shoot(dist, out, states))
