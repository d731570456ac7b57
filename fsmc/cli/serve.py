"""`fsmc serve`: serve a built site's dist/ on 127.0.0.1 until interrupted."""

from __future__ import annotations

import argparse
import contextlib
import sys

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK

NAME = "serve"
HELP = "Serve a built site (a site name under generated_sites, its folder, or its dist/) on 127.0.0.1."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site", help="site name (e.g. shop), generated_sites/<site> or its dist/ folder")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")
    parser.add_argument("-o", "--out", default="generated_sites", help="where sites are built (default: generated_sites)")


def run(args: argparse.Namespace) -> int:
    from fsmc.browser import SiteServer, find_dist

    dist = find_dist(args.site, args.out)
    if dist is None:
        print(f"error: no built site at '{args.site}' (looked for dist/index.html); run `fsmc build SPEC` first",
              file=sys.stderr)
        return EXIT_ERRORS
    if not 0 <= args.port <= 65535:
        print(f"error: port {args.port} is out of range", file=sys.stderr)
        return EXIT_ERRORS
    try:
        server = SiteServer(dist, args.port)
    except OSError as err:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {err.strerror}", file=sys.stderr)
        return EXIT_ERRORS
    print(f"serving {dist} at {server.url} (Ctrl-C to stop)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return EXIT_OK
