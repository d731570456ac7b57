"""Serving a built site on 127.0.0.1 and driving it in Chromium: screenshots and agent-style GUI operations."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from fsmc.codegen.npm import BuildError

VIEWPORT = {"width": 1280, "height": 720}
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's signature
        pass


def make_server(dist: Path, port: int = 0) -> ThreadingHTTPServer:
    """An HTTP server for dist/ bound to 127.0.0.1 only (port 0: any free port)."""
    handler = functools.partial(_QuietHandler, directory=str(dist))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


@contextmanager
def serving(dist: Path) -> Iterator[str]:
    """Serve dist/ in a background thread; yields the base URL."""
    server = make_server(dist)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def launch_browser(pw: Any) -> Any:
    """Debian's Chromium through Playwright, kept off the network by its flags."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise BuildError("Chromium was not found on PATH; install Debian's `chromium` package")
    return pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)


def open_page(browser: Any, base_url: str) -> Any:
    """A 1280×720 page on the site whose every request to anywhere else is blocked."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(base_url)
                  else route.abort("blockedbyclient"))
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_function("() => window.__fsmc !== undefined")
    return page


@contextmanager
def browser_page(base_url: str) -> Iterator[Any]:
    """One page of a freshly launched Chromium on the site at base_url."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise BuildError("playwright is not installed: `pip install playwright` (no browser download needed)") from None
    with sync_playwright() as pw:
        browser = launch_browser(pw)
        try:
            yield open_page(browser, base_url)
        finally:
            browser.close()


class ElementMissing(AssertionError):
    """A GUI operation's element is not on the page (or not visible) when it is needed."""


def _box(page: Any, testid: str) -> dict[str, float]:
    loc = page.locator(f'[data-testid="{testid}"]')
    if loc.count() != 1:
        raise ElementMissing(f"{loc.count()} elements with data-testid={testid!r}")
    if not loc.is_visible():
        raise ElementMissing(f"data-testid={testid!r} is not visible")
    loc.scroll_into_view_if_needed(timeout=2000)
    box = loc.bounding_box()
    if box is None or box["width"] <= 0 or box["height"] <= 0:
        raise ElementMissing(f"data-testid={testid!r} is not visible")
    return box


def _centre(box: dict[str, float]) -> tuple[float, float]:
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def visible(page: Any, testid: str) -> bool:
    loc = page.locator(f'[data-testid="{testid}"]')
    return loc.count() == 1 and loc.is_visible()


def perform(page: Any, op: str, selector: str | None, text: str | None = None, until: str | None = None,
            limit: int | None = None) -> None:
    """One atomic GUI operation at the element's bounding-box centre, as an agent would act."""
    if op == "wait":
        page.wait_for_timeout(min(int(text or 0), 50))
        return
    assert selector is not None
    if op == "repeat_click":
        for _ in range(limit or 0):
            if until and visible(page, until):
                return
            page.mouse.click(*_centre(_box(page, selector)))
        return
    if op == "scroll_until_visible":
        _box(page, selector)
        return
    if op == "select":
        _box(page, selector)
        page.locator(f'[data-testid="{selector}"]').select_option(value=text or "")
        return
    if op == "press":
        _press(page, selector, text or "Enter")
        return
    x, y = _centre(_box(page, selector))
    if op == "click":
        page.mouse.click(x, y)
    elif op == "hover":
        page.mouse.move(0, 0)  # leave first, so that hovering the element it is already over still enters it
        page.mouse.move(x, y)
    elif op == "type":
        page.mouse.click(x, y)
        page.keyboard.press("ControlOrMeta+A")
        if text:
            page.keyboard.type(text)
        else:
            page.keyboard.press("Backspace")
    elif op == "drag":
        page.mouse.move(x, y)
        page.mouse.down()
        tx, ty = _centre(_box(page, text or ""))
        page.mouse.move(tx, ty, steps=4)
        page.mouse.up()
    else:
        raise ValueError(f"unknown GUI operation {op!r}")


def _press(page: Any, selector: str, key: str) -> None:
    """Press a key in an element: focused already (after typing), clicked if it is a field, else focused."""
    box = _box(page, selector)
    focused = page.evaluate("(t) => document.activeElement?.dataset?.testid === t", selector)
    if not focused:
        tag = page.evaluate("(t) => document.querySelector(`[data-testid=\"${t}\"]`).tagName", selector)
        if tag in ("INPUT", "TEXTAREA", "SELECT"):
            page.mouse.click(*_centre(box))
        else:
            page.locator(f'[data-testid="{selector}"]').focus()
    page.keyboard.press(key)


def screenshots(dist: Path, out: Path, states: list[dict[str, Any]]) -> list[Path]:
    """A PNG per given state (set through the harness), named after its page."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    with serving(dist) as url, browser_page(url) as page:
        for state in states:
            page.evaluate("(s) => window.__fsmc.reset(s)", state)
            page.wait_for_timeout(50)
            path = out / f"{state['page']}.png"
            page.screenshot(path=str(path))
            paths.append(path)
    return paths


__all__ = ["CHROMIUM_ARGS", "VIEWPORT", "ElementMissing", "browser_page", "launch_browser", "open_page", "make_server", "perform", "screenshots",
           "serving", "visible"]
