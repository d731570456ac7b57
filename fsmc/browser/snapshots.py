"""Screenshots of chosen states of a built site (what `fsmc build --screenshots` saves for a person to look at)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fsmc.browser.actor import Actor
from fsmc.browser.chromium import Isolation, launch, open_site
from fsmc.browser.server import SiteServer


async def _shoot(dist: Path, out: Path, states: list[dict[str, Any]]) -> list[Path]:
    from playwright.async_api import async_playwright

    paths = []
    with SiteServer(dist) as server:
        async with async_playwright() as pw:
            browser = await launch(pw)
            try:
                page = await open_site(browser, server.url, Isolation(server.url.rstrip("/")))
                actor = Actor(page, image_format="png")
                for state in states:
                    await page.evaluate("(s) => window.__fsmc.reset(s)", state)
                    await actor.settle()
                    path = out / f"{state['page']}.png"
                    path.write_bytes(await actor.screenshot())
                    paths.append(path)
            finally:
                await browser.close()
    return paths


def screenshot_states(dist: Path, out: Path, states: list[dict[str, Any]]) -> list[Path]:
    """A 1280×720 PNG per state (in the harness's JSON form), each named after its page, written to out/."""
    out.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_shoot(dist, out, states))
