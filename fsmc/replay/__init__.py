"""`fsmc replay`: enumerated trajectories executed in Chromium through a built site, grounded and filtered.

    from fsmc.replay import replay
    summary = replay("out/shop", "generated_sites/shop", "data/shop")

`replay` acts on the generated site, or, without a site, on the backend the spec declares (a cloned
application: `backend app "SIDECAR.toml"`; a capture read by its extractors: `backend capture "FOLDER"`), or, with `app=`, on
an AutoWebWorld app folder of the same world, built and verified (`report.json`'s `agreement`: how many trajectories
execute on it and agree with the semantics); `Replayer` acts on any `fsmc.backends.Backend`.

DATA/ receives trajectories.jsonl (every input trajectory, in input order: kept ones with their
atomic steps, rejected ones with the reason), screens/ (content-addressed JPEG or PNG screenshots, 1280×720),
report.json (counts by outcome and reason), manifest.json, and runs.jsonl (one line per run: time,
browser work done, requests blocked). The same inputs give the same files, whether the run was
interrupted and resumed or not; progress.jsonl is the journal that makes resuming possible.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fsmc import __version__, ir
from fsmc.atomic import write_atomic
from fsmc.backends import (
    IMAGE_FORMATS,
    REASONS,
    AwmApp,
    Backend,
    BackendError,
    GeneratedSite,
    ImageFormat,
    spec_backend,
)
from fsmc.browser import Chromium, find_dist
from fsmc.replay.engine import SCREENS, Replayer, Stats
from fsmc.replay.inputs import InputError, Trajectory, fingerprint, read_trajectories
from fsmc.replay.journal import JOURNAL, Journal

OUTPUTS = ("trajectories.jsonl", "report.json", "manifest.json")


def _dist(site: str | Path) -> Path:
    dist = find_dist(site)
    if dist is None:
        raise InputError(f"{site}: no built site there (looked for dist/index.html); run `fsmc build SPEC` first")
    return dist


def enumerated_spec(out_dir: Path) -> tuple[ir.Spec, Path]:
    """The spec OUT was enumerated from, and its file; InputError if it is gone, changed or has errors."""
    from fsmc.diagnostics import SpecError
    from fsmc.enumerate.verify import VerifyError, load_checked_spec

    try:
        manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
        spec, path = load_checked_spec(out_dir, manifest, None)
    except (OSError, ValueError, KeyError, TypeError, VerifyError) as err:
        raise InputError(f"{out_dir}: cannot find the spec it was enumerated from ({err}); name a built site with "
                         "--site") from None
    except SpecError as err:
        raise InputError(f"{out_dir}: the spec it was enumerated from has errors: "
                         + "; ".join(str(d.message) for d in err.diagnostics[:3])) from None
    return spec, Path(path)


def declared_backend(out_dir: Path, image: ImageFormat) -> Backend:
    """The backend the spec OUT was enumerated from declares (replay without a site)."""
    spec, path = enumerated_spec(out_dir)
    if not spec.backends:
        raise InputError(f"{path} declares no backend: name the built site with --site")
    return open_declared(spec, image)


def open_declared(spec: ir.Spec, image: ImageFormat, chromium: Chromium | None = None) -> Backend:
    """The backend `spec` declares (`fsmc.backends.spec_backend`); InputError for a capture missing or damaged."""
    from fsmc.archive.folder import CaptureError

    try:
        return spec_backend(spec, image, chromium)
    except CaptureError as err:
        raise InputError(f"{spec.backends[0].span.file}: {err}") from None


def app_backend(out_dir: Path, web: str | Path, image: ImageFormat) -> AwmApp:
    """An AutoWebWorld app folder, built (`fsmc.codegen.awm_app`), acted on for the world OUT was enumerated from.
    AppFolderError (exit 2) when the folder is not such an app, BuildError (exit 1) when npm or Vite fails."""
    from fsmc.codegen.awm_app import build_app, declared_fields
    from fsmc.formats.awm.importer import fsmc_name

    spec, _ = enumerated_spec(out_dir)
    dist, declared = build_app(web), {fsmc_name(f) for f in declared_fields(web)}
    unread = frozenset(v.name for p in spec.pages for v in (*spec.session, *p.vars) if v.name not in declared)
    return AwmApp(dist, spec, fsmc_name, image=image, unread=unread)


def agreement(results: list[dict[str, Any]]) -> dict[str, Any]:
    """How many trajectories a site fsmc did not generate executes, how many agree with the semantics at every step,
    and, for each that does not, where the states first differed (its move, the action, the variables)."""
    first = []
    for r in results:
        where = r if r.get("reason") == "state_diverged" else r.get("disagreed")
        if where is None:
            continue
        moves = r.get("moves") or []
        initial = where["detail"].startswith("the initial state")
        first.append({"trajectory": r["id"], "move": None if initial else where["failed_move"],
                      "action": None if initial or where["failed_move"] >= len(moves) else moves[where["failed_move"]]["action"],
                      "difference": where["detail"]})
    return {"trajectories": len(results), "agree": sum(r["status"] == "kept" for r in results),
            "executed": sum(r["status"] == "kept" or bool(r.get("executed")) for r in results), "disagreements": first}


def _dumps(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The deterministic report of a finished replay: outcomes, reasons, dataset size."""
    kept = [r for r in results if r["status"] == "kept"]
    reasons = Counter(r["reason"] for r in results if r["status"] != "kept")
    screens = {s["screenshot"] for r in kept for s in r["steps"] if s.get("screenshot")}
    return {
        "trajectories": len(results),
        "kept": len(kept),
        "rejected": sum(reasons.values()),
        "rejected_by_reason": {reason: reasons.get(reason, 0) for reason in REASONS},
        "steps": sum(len(r["steps"]) for r in kept),
        "screenshots": len(screens | {r["final_screenshot"] for r in kept}),
        "rejected_examples": {reason: next(f"{r['id']}: {r['detail']}" for r in results if r.get("reason") == reason)
                              for reason in sorted(reasons)},
    }


def _finish(data_dir: Path, trajectories: list[Trajectory], done: dict[str, dict[str, Any]],
            manifest: dict[str, Any], verified: bool = False) -> dict[str, Any]:
    results = [{**t.record, **done[t.id]} for t in trajectories]
    lines = "".join(json.dumps(r, sort_keys=True, ensure_ascii=False) + "\n" for r in results)
    write_atomic(data_dir / "trajectories.jsonl", lines.encode("utf-8"))
    summary = summarise(results) | ({"agreement": agreement(results)} if verified else {})
    write_atomic(data_dir / "report.json", _dumps(summary))
    write_atomic(data_dir / "manifest.json", _dumps(manifest))
    used = {s["screenshot"] for r in results if r["status"] == "kept" for s in r["steps"] if s.get("screenshot")}
    used |= {r["final_screenshot"] for r in results if r["status"] == "kept"}
    for path in (data_dir / SCREENS).glob("*"):  # views of rejected work, and files a kill left half-written
        if f"{SCREENS}/{path.name}" not in used:
            path.unlink()
    return summary


def _clear(data_dir: Path) -> None:
    shutil.rmtree(data_dir / SCREENS, ignore_errors=True)
    for name in (JOURNAL, "runs.jsonl", *OUTPUTS):
        (data_dir / name).unlink(missing_ok=True)


def _backend(out_dir: Path, site: str | Path | None, app: str | Path | None, image: ImageFormat) -> Backend:
    if app is not None:
        return app_backend(out_dir, app, image)
    return GeneratedSite(_dist(site), image=image) if site is not None else declared_backend(out_dir, image)


def replay(out_dir: str | Path, site: str | Path | None, data_dir: str | Path, *, workers: int = 3, limit: int | None = None,
           image_format: str = "jpeg", restart: bool = False, audit_every: int = 25,
           on_progress: Callable[[Stats], None] | None = None, app: str | Path | None = None) -> tuple[dict[str, Any], Stats]:
    """Replay OUT's trajectories on the built site (None: the spec's declared backend; or `app`, an AutoWebWorld app
    folder, built and verified: every trajectory acted out to its end, the report's `agreement` says how many
    execute and agree) into DATA; returns the report and this run's statistics. Raises InputError on unusable inputs,
    BackendError when the backend fails, AppFolderError and BuildError for an app folder that cannot be built."""
    if image_format not in IMAGE_FORMATS:
        raise InputError(f"unknown image format {image_format!r}: choose one of {', '.join(IMAGE_FORMATS)}")
    out_dir, data_dir = Path(out_dir), Path(data_dir)
    image = IMAGE_FORMATS[image_format]
    backend = _backend(out_dir, site, app, image)
    trajectories = list(read_trajectories(out_dir, limit))
    options = {"limit": limit, "image_format": image_format}
    print_ = fingerprint(out_dir, backend, options)
    data_dir.mkdir(parents=True, exist_ok=True)
    if restart:
        _clear(data_dir)
    replayer = Replayer(backend, data_dir, workers=workers, audit_every=audit_every, on_progress=on_progress,
                        run_through=app is not None)
    with Journal(data_dir, print_) as journal:
        asyncio.run(replayer.run(trajectories, journal))
        source = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
        manifest = {"fsmc_version": __version__, "fingerprint": print_, "options": options,
                    "spec": source.get("spec", {}), "enumerate_options": source.get("options", {})}
        summary = _finish(data_dir, trajectories, journal.done, manifest, verified=app is not None)
    with (data_dir / "runs.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps(replayer.stats.to_json(), sort_keys=True) + "\n")
    return summary, replayer.stats


__all__ = ["BackendError", "InputError", "Replayer", "Stats", "agreement", "app_backend", "declared_backend", "enumerated_spec",
           "open_declared", "replay", "summarise"]
