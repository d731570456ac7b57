"""Live sites recorded into WARC archives (`fsmc capture`) and served from them with no network.

    from fsmc.capture import Options, capture, check
    capture("http://127.0.0.1:8001/", "captures/zoo", Options(depth=2, pages=30, flows="flows.json"))
    report = check("captures/zoo")     # every page and flow again, offline: misses, and pixels equal or not

The archive itself (rules, WARC, routes, pinning, the folder on disk) is `fsmc.archive`, below this package
and `fsmc.backends` alike. Here: crawl and flows (what the browser does while capturing), check (the capture
served offline and compared). A draft spec from a capture (`fsmc import`): dom (a page's links and forms), sitemap (its
locations clustered into URL templates), moves (the links and submitted forms as candidate actions),
importer (the draft spec and its extractors). Offline episodes on a capture are
`fsmc.backends.CapturedSite`.
"""

from fsmc.archive.folder import CaptureError, CaptureFolder, Page
from fsmc.archive.routes import Recording
from fsmc.archive.rules import DEFAULT_RULES, Rules, RulesError, load_rules
from fsmc.archive.warc import ArchiveError, Exchange, read_exchanges
from fsmc.capture.check import PageCheck, Report, check
from fsmc.capture.crawl import Options, capture
from fsmc.capture.flows import Flow, load_flows

__all__ = ["DEFAULT_RULES", "ArchiveError", "CaptureError", "CaptureFolder", "Exchange", "Flow", "Options", "Page",
           "PageCheck", "Recording", "Report", "Rules", "RulesError", "capture", "check", "load_flows", "load_rules",
           "read_exchanges"]
