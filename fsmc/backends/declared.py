"""The backend a spec declares (`backend capture "FOLDER"`, `backend app "SIDECAR.toml"`), opened for acting on."""

from __future__ import annotations

from fsmc import ir
from fsmc.backends.protocol import Backend, ImageFormat
from fsmc.browser import Chromium


def spec_backend(spec: ir.Spec, image: ImageFormat, chromium: Chromium | None = None) -> Backend:
    """The backend `spec` declares (a capture, a cloned application), in `chromium` if given (else one of its own).
    CaptureError (`fsmc.archive.folder`): a declared capture that is missing or damaged."""
    from fsmc.backends.cloned import ClonedApp
    from fsmc.backends.sidecar import declared_path

    declared = spec.backends[0]
    if declared.kind == "capture":
        from fsmc.backends.captured_spec import CapturedSpec

        return CapturedSpec(declared_path(declared), spec, image=image, chromium=chromium)
    return ClonedApp(declared_path(declared), spec, image=image, chromium=chromium)
