"""`fsmc capture`: record a live site into a WARC archive by crawling it in Chromium; check a capture offline."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK, Failure, Usage, writing

NAME = "capture"
HELP = "Record a live site (crawled in Chromium within its origin) into a WARC capture; --check replays one offline."
DESCRIPTION = HELP + """

  fsmc capture http://127.0.0.1:8001/ -o captures/zoo --depth 2 --pages 30
  fsmc capture --check captures/zoo

A capture folder holds capture.warc.gz (every HTTP exchange, in order, readable by any WARC tool),
manifest.json (the pages, their statuses and the links that led to them, counts, the rules' digest),
rules.toml (what is volatile in a request: cache busters, timestamps, nonces, session ids; extend the
defaults with --rules FILE) and screens/ (each page as captured, 1280x720 PNG). --flows FILE acts
out scripted operations after the crawl (forms, filters: see `fsmc.capture.flows`), keeping the view
after each. Pages are loaded with time and randomness pinned, so the same page offline gives the same
pixels. The folder appears only when the capture is complete: a failed or interrupted capture leaves
nothing behind.

--check loads every page (and acts out every flow) again from the archive alone, with no network:
requests the capture lacks get a deterministic 404 and are counted, requests off the site's origin are
refused and counted, and each view is compared with the captured one. Exit 0 when every page is served whole and looks
the same, 1 otherwise, 2 for a folder that is no readable capture.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("url", nargs="?", help="the live site's start page (http or https)")
    parser.add_argument("-o", "--out", help="the capture folder to write (captures/NAME)")
    parser.add_argument("--depth", type=int, default=2, help="links followed from the start page (default 2)")
    parser.add_argument("--pages", type=int, default=20, help="at most this many HTML pages (default 20)")
    parser.add_argument("--rules", help="a TOML file of normalisation rules extending the defaults")
    parser.add_argument("--flows", help="a JSON file of flows (a start page and GUI operations with CSS selectors) "
                                        "acted out after the crawl")
    parser.add_argument("--force", action="store_true", help="replace the capture folder if it exists")
    parser.add_argument("--check", metavar="CAPTURE", help="replay the capture CAPTURE offline and compare its views")
    parser.add_argument("--screens", help="with --check: write the offline views to this folder")
    parser.add_argument("--json", action="store_true", help="with --check: the report as JSON on stdout")


def run(args: argparse.Namespace) -> int:
    from fsmc.browser import BrowserMissing
    from fsmc.capture import CaptureError

    try:
        if args.check:
            return _check(args)
        if not args.url or not args.out:
            raise Usage("fsmc capture: give the site's URL and -o FOLDER (or --check CAPTURE)")
        return _capture(args)
    except (CaptureError, BrowserMissing) as err:
        raise Failure(f"fsmc capture: error: {err}", err) from None


def _capture(args: argparse.Namespace) -> int:
    from fsmc.capture import Options, capture

    def show(page: dict[str, Any]) -> None:
        print(f"  {page['status']}  {page['url']}", file=sys.stderr)

    options = Options(depth=args.depth, pages=args.pages, rules=args.rules, flows=args.flows, replace=args.force)
    with writing(args.out, NAME):
        manifest = capture(args.url, args.out, options, on_page=show if sys.stderr.isatty() else None)
    flows = f", {len(manifest['flows'])} flows" if manifest["flows"] else ""
    print(f"{args.out}: {len(manifest['pages'])} pages{flows}, {manifest['exchanges']} requests "
          f"({manifest['responses']} responses, {manifest['revisits']} repeats), {manifest['blocked']} off-site "
          f"requests refused")
    for error in manifest["page_errors"]:  # the application's own bugs: the capture goes on, as a browser would
        print(f"fsmc capture: note: {error['url']}: the page's own script failed: {error['error']}", file=sys.stderr)
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from fsmc.capture import check

    if args.url:
        raise Usage("fsmc capture: --check takes the capture folder alone, not a URL")
    report = check(args.check, rules=args.rules, screens=args.screens)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for page in report.pages:
            mark = "ok" if page.ok else "FAIL"
            why = page.error or ", ".join(
                w for w, bad in ((f"status {page.status} (captured {page.expected})", page.status != page.expected),
                                 (f"{page.misses} requests missed", page.misses > 0),
                                 ("looks different", not page.same_view)) if bad)
            print(f"{mark:4}  {page.url}" + (f"  ({why})" if why else ""))
        print(f"{args.check}: {sum(p.ok for p in report.pages)}/{len(report.pages)} pages as captured, fidelity "
              f"{report.fidelity:.1%}, {report.misses} misses, {report.blocked} off-site requests refused, "
              f"{report.escaped} escaped to the sink")
        for key in report.missed:
            print(f"  missed: {key}", file=sys.stderr)
    return EXIT_OK if report.ok else EXIT_ERRORS
