"""The capture's archive: HTTP exchanges written to and read from WARC (ISO 28500) with warcio.

Each exchange is a `response` record and a `request` record pointing at it (WARC-Concurrent-To), in
the order the browser made them. A request asked again that got byte-identical content is written as
a `revisit` record (the standard identical-payload-digest profile) instead of a second copy; one that
got something different gets a response of its own, so the archive keeps every version, in order.
Bodies are stored as the browser received them after transfer decoding, so Content-Encoding and
Transfer-Encoding are dropped from the stored headers and Content-Length is the stored body's.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from fsmc.archive.rules import Rules
from fsmc.errors import FsmcError

WARC_FILE = "capture.warc.gz"
# what the stored body no longer has, or what the stored body's length replaces
UNSTORED_HEADERS = {"content-encoding", "transfer-encoding", "content-length"}


class ArchiveError(FsmcError, ValueError):
    """A WARC that cannot be read, or that lacks a response for a request it holds; the message names which."""


RESOURCE_TYPE = "WARC-Resource-Type"  # a request record's: what the page asked it for (as Browsertrix writes it)


@dataclass(frozen=True)
class Exchange:
    """One HTTP request and the response it got."""

    method: str
    url: str
    status: int
    headers: tuple[tuple[str, str], ...]  # the response's
    body: bytes = field(repr=False)
    request_headers: tuple[tuple[str, str], ...] = ()
    request_body: bytes | None = field(default=None, repr=False)
    kind: str = ""  # what the page asked it for, as DevTools names it (document, xhr, fetch, image…); "" not known

    @property
    def content_type(self) -> str:
        return next((v for k, v in self.headers if k.lower() == "content-type"), "")


def plain_headers(headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Response headers without the transfer encodings and the length: what a page is answered with."""
    return tuple((k, v) for k, v in headers if k.lower() not in UNSTORED_HEADERS)


def stored_headers(headers: Iterable[tuple[str, str]], length: int) -> list[tuple[str, str]]:
    """The response headers as the archive stores them: plain, with the stored body's length."""
    return [*plain_headers(headers), ("Content-Length", str(length))]


class ArchiveWriter:
    """Writes exchanges to a gzipped WARC as they happen; identical repeats become revisit records."""

    def __init__(self, stream: BinaryIO, rules: Rules, info: dict[str, str]):
        from warcio.warcwriter import WARCWriter

        self._writer, self._rules = WARCWriter(stream, gzip=True), rules
        self._last: dict[str, tuple[int, str, str, str]] = {}  # key → status, payload digest, uri, date
        self.responses = self.revisits = 0
        self._writer.write_record(self._writer.create_warcinfo_record("capture.warc.gz", info))

    def write(self, x: Exchange) -> None:
        from warcio.statusandheaders import StatusAndHeaders

        key = self._rules.key(x.method, x.url, x.request_body)
        reason = _reason(x.status)
        http = StatusAndHeaders(f"{x.status} {reason}", stored_headers(x.headers, len(x.body)), protocol="HTTP/1.1")
        last = self._last.get(key)
        digest = _digest(x.body)
        if last is not None and last[0] == x.status and last[1] == digest:
            record = self._writer.create_revisit_record(x.url, digest, last[2], last[3], http_headers=http)
            self.revisits += 1
        else:
            record = self._writer.create_warc_record(x.url, "response", payload=io.BytesIO(x.body), length=len(x.body),
                                                     http_headers=http)
            self.responses += 1
        self._writer.write_record(record)
        date = record.rec_headers.get_header("WARC-Date")
        if last is None or record.rec_type == "response":
            self._last[key] = (x.status, digest, x.url, date)
        self._write_request(x, record.rec_headers.get_header("WARC-Record-ID"))

    def _write_request(self, x: Exchange, response_id: str) -> None:
        from warcio.statusandheaders import StatusAndHeaders

        parts = urlsplit(x.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        body = x.request_body or b""
        http = StatusAndHeaders(f"{x.method} {target} HTTP/1.1", list(x.request_headers), is_http_request=True)
        self._writer.write_record(self._writer.create_warc_record(
            x.url, "request", payload=io.BytesIO(body), length=len(body), http_headers=http,
            warc_headers_dict={"WARC-Concurrent-To": response_id} | ({RESOURCE_TYPE: x.kind} if x.kind else {})))


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _digest(body: bytes) -> str:
    """The payload digest as WARC writes it (sha1, base32), so a revisit names the record it repeats."""
    import base64
    import hashlib

    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")


def read_exchanges(path: Path) -> Iterator[Exchange]:
    """The exchanges of a WARC in the order they were recorded (a revisit with the content it repeats).

    ArchiveError names the file and the request for an archive that cannot be read, a revisit of content
    the archive does not hold, or a request without its response.
    """
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    responses: dict[str, tuple[int, tuple[tuple[str, str], ...], bytes]] = {}
    payloads: dict[str, bytes] = {}
    try:
        with path.open("rb") as stream:
            for record in ArchiveIterator(stream):
                yield from _record(path, record, responses, payloads)
        if responses:
            raise ArchiveError(f"{path}: {len(responses)} response(s) without the request they answer: the archive "
                               "was cut short (capture the site again)")
    except ArchiveLoadFailed as err:
        raise ArchiveError(f"{path}: not a readable WARC archive: {err}") from None
    except (OSError, EOFError, ValueError) as err:
        if isinstance(err, ArchiveError):
            raise
        raise ArchiveError(f"{path}: the archive is damaged: {err}") from None


def _record(path: Path, record: Any, responses: dict[str, tuple[int, tuple[tuple[str, str], ...], bytes]],
            payloads: dict[str, bytes]) -> Iterator[Exchange]:
    uri = record.rec_headers.get_header("WARC-Target-URI")
    rid = record.rec_headers.get_header("WARC-Record-ID")
    digest = record.rec_headers.get_header("WARC-Payload-Digest")
    if record.rec_type in ("response", "revisit"):
        status = int(record.http_headers.get_statuscode())
        headers = plain_headers(record.http_headers.headers)
        if record.rec_type == "response":
            body = record.content_stream().read()
            payloads[digest] = body
        elif digest in payloads:
            body = payloads[digest]
        else:
            raise ArchiveError(f"{path}: a revisit of {uri} repeats content the archive does not hold ({digest})")
        responses[rid] = (status, headers, body)
    elif record.rec_type == "request":
        answered = record.rec_headers.get_header("WARC-Concurrent-To")
        method = record.http_headers.protocol
        if answered not in responses:
            raise ArchiveError(f"{path}: the request {method} {uri} has no response in the archive "
                               "(the capture is incomplete: capture the site again)")
        status, headers, body = responses.pop(answered)
        sent = record.content_stream().read()
        yield Exchange(method, uri, status, headers, body, tuple(record.http_headers.headers), sent or None,
                       record.rec_headers.get_header(RESOURCE_TYPE) or "")
