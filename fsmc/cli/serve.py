"""`fsmc serve`: serve a built site's dist/ on 127.0.0.1 until interrupted."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fsmc.cli.common import EXIT_ERRORS, EXIT_OK

NAME = "serve"
HELP = "Serve a built site (a site name under generated_sites, its folder, or its dist/) on 127.0.0.1."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("site", help="site name (e.g. shop), generated_sites/<site> or its dist/ folder")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000; 0 picks a free one)")
    parser.add_argument("--out", default="generated_sites", help="where sites are built (default: generated_sites)")


def find_dist(site: str, out: str) -> Path | None:
    for candidate in (Path(site), Path(site) / "dist", Path(out) / site / "dist"):
        if (candidate / "index.html").is_file() and candidate.name == "dist":
            return candidate
    return None


def run(args: argparse.Namespace) -> int:
    from fsmc.codegen.preview import make_server

    dist = find_dist(args.site, args.out)
    if dist is None:
        print(f"error: no built site at '{args.site}' (looked for dist/index.html); run `fsmc build SPEC` first",
              file=sys.stderr)
        return EXIT_ERRORS
    if not 0 <= args.port <= 65535:
        print(f"error: port {args.port} is out of range", file=sys.stderr)
        return EXIT_ERRORS
    try:
        server = make_server(dist, args.port)
    except OSError as err:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {err.strerror}", file=sys.stderr)
        return EXIT_ERRORS
    print(f"serving {dist} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return EXIT_OK
