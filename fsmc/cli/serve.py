"""`fsmc serve`: serve a built site's dist/ on 127.0.0.1 until interrupted."""

from __future__ import annotations

import argparse
import contextlib

from fsmc.cli.common import EXIT_OK, Failure

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
        raise Failure(f"error: no built site at '{args.site}' (looked for dist/index.html); run `fsmc build SPEC` first")
    if not 0 <= args.port <= 65535:
        raise Failure(f"error: port {args.port} is out of range")
    try:
        server = SiteServer(dist, args.port)
    except OSError as err:
        raise Failure(f"error: cannot listen on 127.0.0.1:{args.port}: {err.strerror}") from None
    print(f"serving {dist} at {server.url} (Ctrl-C to stop)")
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return EXIT_OK
