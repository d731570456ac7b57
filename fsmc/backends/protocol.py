"""The backend protocol: what a trajectory or an episode is acted out on, and the values its operations speak.

A `Backend` is started once and opens `Episode`s, each with a view of its own (a browser context and
page for the sites). An episode is put in a state (`reset`), acted on one GUI operation at a time
(`perform`, which says what it did: the element's box, the point acted at, the view before it), comes
to rest after a move (`settle`), and reports its state as a value in the semantics' JSON form
(`state`) and its view as an image (`screenshot`). Replay, the conformance tests and the build's
previews use only this; the generated site (`fsmc.backends.site`) is the first implementation.

What the later backends need fits the same shape: a captured site (served from a WARC archive) resets
by loading the page a state names and reads its state through extractors; a cloned application resets
by restoring a database snapshot and reads its state through an SDK adapter. Both act through the same
browser operations (`fsmc.backends.actor`), so only `reset`, `state` and the start-up differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import TracebackType
from typing import Any, Protocol, Self, runtime_checkable

from fsmc.errors import FsmcError

# Why an operation, a move or a trajectory failed; replay counts rejections by these.
REASONS = ("element_missing", "not_visible", "state_diverged", "navigation_failed", "timeout")


class BackendError(FsmcError):
    """The backend itself failed, not one move: it did not start, its state adapter raised. Replay stops on it."""


class EpisodeFailure(FsmcError):
    """An operation could not be done or its result is wrong; `reason` is one of REASONS."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class ImageFormat:
    """How views are encoded: the one place that names a format, its file suffix and its quality."""

    name: str
    suffix: str
    quality: int | None = None  # lossy formats only


# JPEG (the default) is about twice as fast to take and a third of the size of PNG on pages with
# images; PNG is lossless. Both encoders are deterministic.
JPEG = ImageFormat("jpeg", ".jpg", quality=90)
PNG = ImageFormat("png", ".png")
IMAGE_FORMATS = {f.name: f for f in (JPEG, PNG)}


class Capture(Enum):
    """Which steps `Episode.perform` takes the view before."""

    EVERY = "every"
    UNSETTLED = "unsettled"  # all but a step taken from the settled view, which the caller holds already
    NONE = "none"  # no images: only the state matters (conformance)


@dataclass(frozen=True)
class Op:
    """One concrete atomic operation, its selectors already rendered (a `gui` entry of trajectories.jsonl)."""

    op: str
    selector: str | None = None
    text: str | None = None
    until: str | None = None
    limit: int | None = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Op:
        return cls(d["op"], d.get("selector"), d.get("text"), d.get("until"), d.get("limit"))


@dataclass(frozen=True)
class Box:
    """An element's box in pixels of the view: left, top, width, height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[int, int]:
        return round(self.x + self.w / 2), round(self.y + self.h / 2)

    def rounded(self) -> list[int]:
        return [round(self.x), round(self.y), round(self.w), round(self.h)]


@dataclass(frozen=True)
class Step:
    """One agent step an operation took: what it did, where, and the view before it."""

    op: str  # click, hover, type, press, select, drag or scroll
    selector: str | None
    url: str  # the view's location without its origin: `/#/cart`
    size: tuple[int, int]  # the view's width and height in pixels
    point: tuple[int, int] | None = None  # where the mouse acted
    box: Box | None = None  # the element acted on
    image: bytes | None = field(default=None, repr=False)  # the view before the step, as `Capture` asked
    settled: bool = False  # the view before the step was the settled view of the state (nothing done since)
    details: Mapping[str, Any] = field(default_factory=dict)  # element, text, key, to, to_selector, to_bbox, …

    def to_json(self, screenshot: str | None) -> dict[str, Any]:
        """The step as replay records it, with the name its view is stored under."""
        rec: dict[str, Any] = {"op": self.op, "selector": self.selector, "screenshot": screenshot, "url": self.url}
        if self.point is not None:
            (x, y), (width, height) = self.point, self.size
            rec.update(x=x, y=y, nx=round(x / width, 4), ny=round(y / height, 4))
        if self.box is not None:
            rec["bbox"] = self.box.rounded()
        rec.update(self.details)
        return rec


class Hasher(Protocol):
    def update(self, data: bytes, /) -> None: ...


class Episode(Protocol):
    """One agent's view of a backend: a state, acted on one operation at a time."""

    async def reset(self, state: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Put the episode in `state` (JSON form; None: the initial state), settled, nothing focused or selected;
        the state it then shows (what `state()` would answer, read in the same round trip where the backend can)."""
        ...

    async def perform(self, op: Op, capture: Capture = Capture.EVERY) -> list[Step]:
        """Do one operation as an agent would; the steps it took (a scroll may take several, a wait none).

        Raises EpisodeFailure when the element is missing, ambiguous, hidden or covered.
        """
        ...

    async def settle(self) -> None:
        """After a move: the episode at rest, its view the settled view of its state (the pointer gone from the page)."""

    async def state(self) -> dict[str, Any]:
        """The state, in the semantics' JSON form (`Machine.to_json`)."""
        ...

    async def screenshot(self) -> bytes:
        """The view as it is, encoded in the backend's image format."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class AgentPaced(Protocol):
    """An episode whose page an agent may act on directly, outside `perform` (the environments' pixel actions): `expect`
    is called before such an action, and `rest` after it, with the action's kind: it waits for a page load the action
    started (a link, a form posted), then lets the page come to rest as after each of the actor's own actions (the
    pointer leaves the page after all but a hover, `fsmc.backends.pointer.lifts`). Every Chromium backend's episodes
    are."""

    def expect(self) -> None: ...

    async def rest(self, kind: str) -> None: ...


class Backend(Protocol):
    """What episodes are opened on: started once, closed once (closing it closes its episodes)."""

    image: ImageFormat
    jumps: bool = True  # `Episode.reset` reaches any state; False: the initial state alone (a cloned application)
    max_episodes: int | None = None  # episodes open at once (None: any; a cloned application has one database)
    unread: frozenset[str] = frozenset()  # variables it cannot read: replay takes them as the semantics have them

    @property
    def blocked_requests(self) -> int:
        """Requests to anywhere but the backend itself, refused."""
        ...

    def fingerprint(self, h: Hasher) -> None:
        """Feed `h` everything the backend's behaviour depends on (replay refuses to mix runs of two)."""

    async def start(self) -> None: ...

    async def open(self) -> Episode: ...

    async def close(self) -> None: ...

    async def __aenter__(self) -> Self:
        try:
            await self.start()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()
