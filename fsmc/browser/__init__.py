"""Chromium under our control and a site's files on loopback: what the browser-driven backends stand on."""

from fsmc.browser.chromium import (
    CHROMIUM_ARGS,
    HIDE_CARET,
    VIEWPORT,
    BrowserMissing,
    Chromium,
    Isolation,
    chromium_path,
    launch,
    open_site,
)
from fsmc.browser.server import SiteServer, find_dist
from fsmc.browser.sink import Sink

__all__ = ["CHROMIUM_ARGS", "HIDE_CARET", "VIEWPORT", "BrowserMissing", "Chromium", "Isolation", "SiteServer", "Sink", "chromium_path",
           "find_dist", "launch", "open_site"]
