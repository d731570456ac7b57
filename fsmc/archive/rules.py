"""Normalisation rules: which parts of a request are volatile, so that a replayed request finds its recording.

A page asks again for what it asked during the capture, but not always in the same words: a cache
buster (`?_=1716...`), a timestamp, a nonce, a session id or a form's CSRF token differs from run to run.
A request is matched by its key: the method, the URL with such parts removed or rewritten, and (for a
request with a body) a digest of the body, a form's fields dropped by the same rules as the query's (as
Weblica's cache keys leave volatile parameters out of URLs and POST bodies alike). The rules are TOML,
the defaults below; a user's file adds to them:

    drop_params = ["_", "t", "ts", "cb", "nonce", "sessionid"]   # query parameters, by exact name
    drop_param_patterns = ["^utm_"]                                # query parameters, by regular expression

    [[rewrite]]                                                    # regular expression over the whole URL
    pattern = "/build-[0-9a-f]{8}/"
    replacement = "/build/"

A capture keeps the rules it was made with (rules.toml) and is read back with those, plus any given then.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from fsmc.errors import FsmcError

RULES_FILE = "rules.toml"

DEFAULT_RULES = """\
# fsmc capture: parts of a request that change from run to run and are left out when requests are matched.
# Add your own in a file of this form and pass it with `fsmc capture --rules FILE`.

# query parameters and form fields dropped by exact name (case-insensitive): cache busters, timestamps, nonces,
# sessions, forms' CSRF tokens
drop_params = ["_", "t", "ts", "timestamp", "time", "cb", "cachebust", "cachebuster", "cache_buster", "rnd",
               "rand", "random", "nonce", "sessionid", "session_id", "sid", "phpsessid", "jsessionid", "_ga", "_gl",
               "fbclid", "gclid", "csrfmiddlewaretoken", "csrf_token", "_csrf", "csrf", "authenticity_token", "_token",
               "__form_token"]
# query parameters dropped when their name matches one of these regular expressions
drop_param_patterns = ["^utm_"]

# regular expressions replaced over the whole URL, in order (none by default); for example
# [[rewrite]]
# pattern = ";jsessionid=[^/?#]*"
# replacement = ""
"""


# a time of day (10:30, 2026-11-28T18:07), a Unix timestamp in seconds or milliseconds, a nonce (20 or more letters
# and digits, both present, no word of five letters)
_VOLATILE = re.compile(r"\d{1,2}:\d{2}|\d\dT\d\d|^1\d{9}(\d{3})?$|^(?=.*\d)(?=.*[A-Za-z])(?!.*[a-z]{5})[\w-]{20,}$")


class RulesError(FsmcError, ValueError):
    """A rules file that cannot be read or says something that is not a rule; the message names the file."""


@dataclass(frozen=True)
class Rules:
    """What is volatile in a request: query parameters dropped by name or pattern, rewrites over the URL."""

    drop_params: frozenset[str] = frozenset()
    drop_param_patterns: tuple[str, ...] = ()
    rewrites: tuple[tuple[str, str], ...] = ()

    def extend(self, other: Rules) -> Rules:
        return Rules(self.drop_params | other.drop_params, _unique(self.drop_param_patterns + other.drop_param_patterns),
                     _unique(self.rewrites + other.rewrites))

    def dropped(self, name: str) -> bool:
        return name.lower() in self.drop_params or any(re.search(p, name) for p in self.drop_param_patterns)

    def volatile(self, name: str, value: str) -> bool:
        """A query parameter that changes from run to run: one the rules drop, or a value that holds a time of day,
        a Unix timestamp or a nonce (a date alone is not volatile: a calendar's month is a state)."""
        return self.dropped(name) or bool(_VOLATILE.search(value))

    def url(self, url: str) -> str:
        """`url` without its volatile parts or its fragment; the query's remaining parameters sorted."""
        for pattern, replacement in self.rewrites:
            url = re.sub(pattern, replacement, url)
        parts = urlsplit(url)
        query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not self.dropped(k))
        return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", urlencode(query), ""))

    def key(self, method: str, url: str, body: bytes | None = None) -> str:
        """What a request is matched by: `GET http://host/path?q=1`, and a digest of its body when it has one."""
        key = f"{method.upper()} {self.url(url)}"
        return f"{key} body:{hashlib.sha256(self.body(body)).hexdigest()[:16]}" if body else key

    def body(self, body: bytes) -> bytes:
        """A form's body (`a=1&csrf_token=...`) without its volatile fields; a multipart one as the same pairs (its
        boundary differs at every post), a file as `file:NAME:DIGEST`; any other body as it is."""
        parts = multipart(body)
        if parts is not None:
            return urlencode([(n, v.decode("utf-8", "replace") if f is None else
                               f"file:{f}:{hashlib.sha256(v).hexdigest()[:16]}")
                              for n, f, v in parts if not self.dropped(n)]).encode("ascii")
        try:
            pairs = parse_qsl(body.decode("ascii"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            return body
        kept = [(k, v) for k, v in pairs if not self.dropped(k)]
        return urlencode(kept).encode("ascii") if len(kept) != len(pairs) else body

    def to_toml(self) -> str:
        """The rules as a file `parse` reads back: what a capture keeps beside its archive."""
        lines = ["# the rules this capture was made with (fsmc capture); extend them with --rules FILE",
                 f"drop_params = {_toml_list(sorted(self.drop_params))}",
                 f"drop_param_patterns = {_toml_list(list(self.drop_param_patterns))}"]
        for pattern, replacement in self.rewrites:
            lines += ["", "[[rewrite]]", f"pattern = {_toml_str(pattern)}", f"replacement = {_toml_str(replacement)}"]
        return "\n".join(lines) + "\n"

    def digest(self) -> str:
        return hashlib.sha256(self.to_toml().encode("utf-8")).hexdigest()


_NAME, _FILENAME = re.compile(rb'\bname="([^"]*)"'), re.compile(rb'\bfilename="([^"]*)"')


def multipart(body: bytes) -> list[tuple[str, str | None, bytes]] | None:
    """A multipart/form-data body's parts: each field's name, its file's name (None for a text field) and its content.
    The boundary is the body's first line, so no header is needed; None where the body is no such form."""
    boundary = body.partition(b"\r\n")[0]
    if len(boundary) < 3 or not boundary.startswith(b"--") or not body.rstrip(b"\r\n").endswith(boundary + b"--"):
        return None
    parts = []
    for chunk in (b"\r\n" + body).split(b"\r\n" + boundary)[1:-1]:
        head, blank, content = chunk.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        name, filename = _NAME.search(head), _FILENAME.search(head)
        if not blank or name is None:
            return None
        try:
            parts.append((name[1].decode("utf-8"), filename[1].decode("utf-8") if filename else None, content))
        except UnicodeDecodeError:
            return None
    return parts


def _unique(items: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(items))


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(_toml_str(s) for s in items) + "]"


def parse(text: str, origin: str = "rules") -> Rules:
    """Rules from TOML text; RulesError naming `origin` for anything that is not a rule."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RulesError(f"{origin}: not TOML: {err}") from None
    unknown = sorted(set(data) - {"drop_params", "drop_param_patterns", "rewrite"})
    if unknown:
        raise RulesError(f"{origin}: unknown key {unknown[0]!r} (known: drop_params, drop_param_patterns, [[rewrite]])")
    params = _strings(data.get("drop_params", []), origin, "drop_params")
    patterns = _strings(data.get("drop_param_patterns", []), origin, "drop_param_patterns")
    rewrites = []
    for i, entry in enumerate(data.get("rewrite", [])):
        if not isinstance(entry, dict) or not isinstance(entry.get("pattern"), str):
            raise RulesError(f"{origin}: [[rewrite]] number {i + 1} needs a pattern (a string)")
        rewrites.append((entry["pattern"], str(entry.get("replacement", ""))))
    for pattern in [*patterns, *(p for p, _ in rewrites)]:
        try:
            re.compile(pattern)
        except re.error as err:
            raise RulesError(f"{origin}: {pattern!r} is not a regular expression: {err}") from None
    return Rules(frozenset(p.lower() for p in params), tuple(patterns), tuple(rewrites))


def _strings(value: Any, origin: str, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RulesError(f"{origin}: {name} must be a list of strings")
    return value


def default_rules() -> Rules:
    return parse(DEFAULT_RULES, "the default rules")


def load_rules(path: str | Path | None = None, base: Rules | None = None) -> Rules:
    """`base` (the defaults if None) extended with the rules of the file at `path`, if given."""
    rules = default_rules() if base is None else base
    if path is None:
        return rules
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RulesError(f"{path}: cannot read the rules file: {getattr(err, 'strerror', None) or err}") from None
    return rules.extend(parse(text, str(path)))
