"""A spec declares at most one backend, of a known kind, whose sidecar or capture folder is there and fits the spec.

`backend app "FILE"` names a cloned application's TOML sidecar (fsmc/backends/sidecar.py: how to start,
reset and read it), checked against the spec's pages and variables; `backend capture "FOLDER"` names a
capture made by `fsmc capture`, whose `extract.toml` (fsmc/backends/extractors.py), where there is one, fits the spec. Paths are relative to the spec. Every problem is reported at the declaration.
"""

from __future__ import annotations

from collections.abc import Iterator

from fsmc import ir
from fsmc.checks.context import CheckContext
from fsmc.diagnostics import Diagnostic

SIDECAR_HINT = "see docs/language.md, Backends, for the sidecar's keys"


def _app(b: ir.Backend, spec: ir.Spec) -> Iterator[Diagnostic]:
    from fsmc.backends.sidecar import declared_path, read_sidecar  # only specs that declare one pay for the import

    path = declared_path(b)
    if not path.is_file():
        yield Diagnostic("E603", f"the sidecar {b.source!r} of `backend app` is not there (looked for {path})", b.span,
                         hint="write the TOML file that says how to start the application, or fix the path "
                              "(relative to the spec)")
        return
    for problem in read_sidecar(path, spec)[1]:
        yield Diagnostic("E604", f"the sidecar {b.source!r}: {problem}", b.span, hint=SIDECAR_HINT)


def _capture(b: ir.Backend, spec: ir.Spec) -> Iterator[Diagnostic]:
    from fsmc.backends.extractors import EXTRACT_FILE, read_extractors
    from fsmc.backends.sidecar import declared_path

    path = declared_path(b)
    if not (path / "manifest.json").is_file():
        yield Diagnostic("E603", f"the capture {b.source!r} of `backend capture` is not there (no manifest.json in "
                         f"{path})", b.span, hint=f"record it first: `fsmc capture URL -o {b.source}`")
        return
    if (path / EXTRACT_FILE).is_file():  # without extractors the capture is only named; replay asks for them
        for problem in read_extractors(path / EXTRACT_FILE, spec)[1]:
            yield Diagnostic("E604", f"the extractors {b.source}/{EXTRACT_FILE}: {problem}", b.span,
                             hint="see docs/language.md, Backends, for the extractors")


def backends_check(ctx: CheckContext) -> Iterator[Diagnostic]:
    first = ctx.spec.backends[0] if ctx.spec.backends else None
    for b in ctx.spec.backends:
        if b is not first and first is not None:
            yield Diagnostic("E602", "a spec declares at most one backend", b.span,
                             hint="keep the one the spec is acted out on; without any, it is the generated site",
                             notes=((first.span, "the first backend is declared here"),))
        if b.kind == "app":
            yield from _app(b, ctx.spec)
        elif b.kind == "capture":
            yield from _capture(b, ctx.spec)
        else:
            yield Diagnostic("E601", f"unknown backend kind '{b.kind}'", b.span,
                             hint='write `backend app "SIDECAR.toml"` (a running application) or '
                                  '`backend capture "FOLDER"` (a capture)')
