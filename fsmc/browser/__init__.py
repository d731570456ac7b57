"""The browser side shared by build previews, conformance tests and replay: serve, launch, act."""

from fsmc.browser.actor import REASONS, SETTLE_MS, Actor, Box, Op, ReplayFailure
from fsmc.browser.chromium import CHROMIUM_ARGS, VIEWPORT, BrowserMissing, Isolation, chromium_path, launch, open_site
from fsmc.browser.server import SiteServer, find_dist
from fsmc.browser.snapshots import screenshot_states

__all__ = ["CHROMIUM_ARGS", "REASONS", "SETTLE_MS", "VIEWPORT", "Actor", "Box", "BrowserMissing", "Isolation", "Op",
           "ReplayFailure", "SiteServer", "chromium_path", "find_dist", "launch", "open_site", "screenshot_states"]
