"""Where a page's requests go: to the live site and into the archive (capture), or to the archive alone (offline).

Requests are held by Chromium itself (the DevTools Fetch domain, one session per page) until a handler
here answers them. That sees every request of the page, the ones a redirect leads to and the favicon
included, which Playwright's own `route` does not (it hands redirects to the network unseen). Requests
outside the site's origin are refused and counted in both modes (a capture holds one origin). Both
answer from the same stored form of a response, so a live page during the capture and the same page
offline receive the same bytes. Pages also get a `Sink` as their proxy: anything that escapes the
handlers (a popup's page offline, the browser's own services such as form autofill) reaches it, is
counted and refused, and never leaves the machine.
"""

from __future__ import annotations

import asyncio
import base64
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from fsmc.archive.rules import Rules
from fsmc.archive.warc import ArchiveWriter, Exchange, plain_headers

MISS_STATUS = 404
MISS_TYPE = "text/plain; charset=utf-8"
KEPT_URLS = 20  # how many blocked or missed URLs are kept for the messages
FETCH_TIMEOUT_MS = 30_000  # how long a capture waits for the live site's answer to one request


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class Tally:
    """What a route handler did: requests answered, refused for leaving the origin, missed in the archive."""

    served: int = 0
    blocked: int = 0
    misses: int = 0
    blocked_urls: list[str] = field(default_factory=list)
    missed_urls: list[str] = field(default_factory=list)

    def block(self, url: str) -> None:
        self.blocked += 1
        if len(self.blocked_urls) < KEPT_URLS:
            self.blocked_urls.append(url)

    def miss(self, key: str) -> None:
        self.misses += 1
        if len(self.missed_urls) < KEPT_URLS:
            self.missed_urls.append(key)


@dataclass
class Paused:
    """A request Chromium holds until it is answered (`Fetch.requestPaused`)."""

    cdp: Any
    id: str
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    kind: str = ""  # what the page asked it for: Document, Image, XHR... (DevTools' resource type)

    @classmethod
    def from_event(cls, cdp: Any, event: dict[str, Any]) -> Paused:
        request = event["request"]
        entries = request.get("postDataEntries") or []
        body = b"".join(base64.b64decode(e.get("bytes", "")) for e in entries) or None
        return cls(cdp, event["requestId"], request["method"], request["url"], dict(request["headers"]), body,
                   event.get("resourceType", ""))

    @property
    def vital(self) -> bool:
        """A request a user's step stands on: a change to the site, or the page it loads."""
        return self.method.upper() not in SAFE_METHODS or self.kind == "Document"

    async def fulfill(self, status: int, headers: Iterable[tuple[str, str]], body: bytes) -> None:
        await self.cdp.send("Fetch.fulfillRequest", {
            "requestId": self.id, "responseCode": status, "body": base64.b64encode(body).decode("ascii"),
            "responseHeaders": [{"name": k, "value": v} for k, v in headers]})

    async def refuse(self) -> None:
        await self.cdp.send("Fetch.failRequest", {"requestId": self.id, "errorReason": "BlockedByClient"})

    async def pass_on(self) -> None:
        await self.cdp.send("Fetch.continueRequest", {"requestId": self.id})


class Routes:
    """Answers every request of the pages it is attached to: lets the origin's through to `answer`, refuses the rest."""

    def __init__(self, origin: str):
        self.origin, self.tally = origin.rstrip("/"), Tally()
        self._tasks: set[asyncio.Task[None]] = set()

    def allows(self, url: str) -> bool:
        return url == self.origin or url.startswith(self.origin + "/")

    async def attach(self, page: Any) -> None:
        """Hold every request of `page` for this handler (before the page loads anything)."""
        cdp = await page.context.new_cdp_session(page)
        cdp.on("Fetch.requestPaused", lambda event: self._spawn(Paused.from_event(cdp, event)))
        await cdp.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]})

    def _spawn(self, request: Paused) -> None:
        task = asyncio.ensure_future(self._handle(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, request: Paused) -> None:
        try:
            if request.url.startswith(("data:", "blob:")):
                await request.pass_on()
            elif not self.allows(request.url):
                self.tally.block(request.url)
                await request.refuse()
            else:
                await self.answer(request)
        except Exception as err:  # Playwright's own Error: the page or context closed while the request was held
            if "closed" not in str(err) and "No tab" not in str(err) and "Invalid InterceptionId" not in str(err):
                raise

    async def answer(self, request: Paused) -> None:
        raise NotImplementedError


class RecordingRoutes(Routes):
    """Fetches each request from the live site (redirects are not followed: the browser follows them, through
    here again) and writes the exchange (if a writer); answers the page as the capture will answer it offline
    (`Recording.answer`), so the views taken now are the views offline."""

    def __init__(self, origin: str, writer: ArchiveWriter | None = None, rules: Rules | None = None):
        super().__init__(origin)
        self.writer = writer
        self.recorded = Recording((), rules)  # what the page is answered from: as it will be offline
        self.statuses: Counter[int] = Counter()
        self.failures: dict[str, str] = {}  # URL → why the live site did not answer
        self.lost: list[tuple[Paused, str]] = []  # the requests the live site did not answer, in order, and why
        self.waiting: dict[str, Paused] = {}  # the requests sent to the live site and not answered yet, by id
        self.changes: list[Exchange] = []  # the requests that could change the site, in order, with their answers
        self._fetch: Any = None

    async def attach(self, page: Any) -> None:
        self._fetch = page.context.request  # the context's cookies go with the request, and come back to it
        await super().attach(page)

    async def answer(self, request: Paused) -> None:
        self.waiting[request.id] = request
        try:
            response = await self._fetch.fetch(request.url, method=request.method, headers=request.headers,
                                               data=request.body, max_redirects=0, timeout=FETCH_TIMEOUT_MS)
            body = await response.body()
        except Exception as err:  # Playwright's own Error: refused, reset, timed out
            self.failures[request.url] = str(err).splitlines()[0].removeprefix("APIRequestContext.fetch: ")
            self.lost.append((request, self.failures[request.url]))
            await request.refuse()
            return
        finally:
            del self.waiting[request.id]
        x = Exchange(request.method, request.url, response.status,
                     plain_headers((h["name"], h["value"]) for h in response.headers_array), body,
                     tuple(request.headers.items()), request.body, request.kind.lower())
        self.statuses[x.status] += 1
        self.tally.served += 1
        if self.writer is not None:
            self.writer.write(x)
        if x.method.upper() not in SAFE_METHODS:
            self.changes.append(x)
        position = self.recorded.epoch
        self.recorded.add(x)
        shown = self.recorded.respond(x.method, self.recorded.key(x.method, x.url, x.request_body), position)[0] or x
        await request.fulfill(shown.status, shown.headers, shown.body)


class LiveRoutes(Routes):
    """Lets requests within the origin go to the live site untouched (refusing the rest): the live reference."""

    async def answer(self, request: Paused) -> None:
        self.tally.served += 1
        await request.pass_on()


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")  # requests that do not change the site (RFC 9110's safe methods)


class Recording:
    """The archive's exchanges by request key, each with its epoch: how many requests that could change the site
    (POST, PUT, PATCH, DELETE) came before it. The changes are a state machine of recorded responses, as Weblica's
    record/replay is: an episode's position in it starts at 0 (the capture's start) and only a change moves it.

    A change is answered in the order recorded: with the next recording of its key at or after the position, which
    moves the position to just after that recording; a change asked more often than recorded gets its last answer
    again, the position kept. Any other request is answered with the response it got first in the latest epoch, up to
    the position, that has one: a page asked twice with nothing changed in between looks the same twice (the
    server's own noise, such as a query time, is not replayed), and after the same changes as in the capture it looks
    as it did then.
    """

    def __init__(self, exchanges: Iterable[Exchange] = (), rules: Rules | None = None):
        self.rules = rules or Rules()
        self.by_key: dict[str, list[tuple[int, Exchange]]] = defaultdict(list)
        self.epoch = 0
        for x in exchanges:
            self.add(x)

    def key(self, method: str, url: str, body: bytes | None) -> str:
        return self.rules.key(method, url, body)

    def add(self, x: Exchange) -> None:
        self.by_key[self.key(x.method, x.url, x.request_body)].append((self.epoch, x))
        if x.method.upper() not in SAFE_METHODS:
            self.epoch += 1

    def respond(self, method: str, key: str, position: int) -> tuple[Exchange | None, int]:
        """The answer to a request at `position`, and the position after it (None: the archive lacks the request)."""
        if method.upper() in SAFE_METHODS:
            return self.answer(key, position), position
        versions = self.by_key.get(key)
        if not versions:
            return None, position
        later = [v for v in versions if v[0] >= position]
        return (later[0][1], later[0][0] + 1) if later else (versions[-1][1], position)

    def answer(self, key: str, epoch: int) -> Exchange | None:
        """The response `key` got first in the latest epoch up to `epoch` that has one (else its first)."""
        versions = self.by_key.get(key)
        if not versions:
            return None
        best = versions[0]
        for version in versions:
            if version[0] > epoch:
                break
            if version[0] > best[0]:
                best = version
        return best[1]

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_key.values())


class OfflineRoutes(Routes):
    """Answers from the recording alone (`Recording.respond`), at the episode's own position among the recorded
    changes; a request the archive lacks gets a deterministic 404, counted (and changes nothing)."""

    def __init__(self, origin: str, recording: Recording):
        super().__init__(origin)
        self.recording = recording
        self.epoch = 0

    def restart(self) -> None:
        """Start over from the capture's beginning: nothing changed yet (a new episode)."""
        self.epoch = 0

    async def answer(self, request: Paused) -> None:
        key = self.recording.key(request.method, request.url, request.body)
        x, self.epoch = self.recording.respond(request.method, key, self.epoch)
        if x is None:
            self.tally.miss(key)
            await request.fulfill(MISS_STATUS, [("Content-Type", MISS_TYPE)], f"fsmc: not in the capture: {key}\n".encode())
            return
        self.tally.served += 1
        await request.fulfill(x.status, x.headers, x.body)
