"""`fsmc serve-env`: the environments of built sites over HTTP (FastAPI + uvicorn)."""

from __future__ import annotations

import argparse
import os
import sys

from fsmc.cli.common import Failure, Unreadable, Usage, positive

NAME = "serve-env"
HELP = ("Serve built sites (or the backend a spec declares) as live environments over HTTP: sessions per site and "
        "task, step, screenshot, close (see docs/env.md).")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("outputs", nargs="+", metavar="OUT", help="`fsmc enumerate` output folders, one per site")
    p.add_argument("--sites", default="generated_sites", help="where the built sites are (default: generated_sites)")
    p.add_argument("--dist", help="the built site's dist/ (with one OUT only; default: the backend the spec declares, "
                                  "if it declares one, else SITES/<site>/dist)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; others need a token)")
    p.add_argument("--port", type=int, default=8400)
    p.add_argument("--token", default=os.environ.get("FSMC_ENV_TOKEN"),
                   help="required as `Authorization: Bearer TOKEN` (default: $FSMC_ENV_TOKEN)")
    p.add_argument("--lease", type=float, default=120.0, help="seconds an untouched session lives (default 120)")
    p.add_argument("--max-sessions", type=positive, default=64, help="sessions open at once; one more gets 429")
    p.add_argument("--max-steps", type=int, default=30, help="steps before an episode is truncated (default 30)")
    p.add_argument("--concurrency", type=int, default=8, help="requests of one kind handled at once (default 8)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from fsmc.backends import BackendError
    from fsmc.diagnostics import SpecError
    from fsmc.enumerate.verify import VerifyError
    from fsmc.env.pool import Site
    from fsmc.env.server import Settings, check_host, create_app
    from fsmc.replay.inputs import InputError

    try:
        check_host(args.host, args.token)
    except ValueError as err:
        raise Usage(f"fsmc serve-env: {err}") from None
    if args.dist and len(args.outputs) > 1:
        raise Usage("fsmc serve-env: --dist goes with one OUT only")
    try:
        sites = [Site.find(out, args.dist, args.sites) for out in args.outputs]
    except (FileNotFoundError, VerifyError, InputError) as err:  # no enumerate output or no built site there
        raise Unreadable(f"fsmc serve-env: {err}") from None
    except (ValueError, SpecError, BackendError) as err:
        raise Failure(f"fsmc serve-env: {err}") from None
    n = args.concurrency
    settings = Settings(lease_s=args.lease, max_sessions=args.max_sessions, max_steps=args.max_steps, token=args.token,
                        limits={"create": max(1, n // 2), "reset": n, "step": n, "screenshot": n})
    print(f"fsmc serve-env: {', '.join(s.name for s in sites)} on http://{args.host}:{args.port}", file=sys.stderr)
    uvicorn.run(create_app(sites, settings), host=args.host, port=args.port, log_level="warning")
    return 0
