"""A spec's source: one file's text, read once within limits, with its digest and line index; remembered by name."""

from __future__ import annotations

import bisect
import hashlib
import re
import stat
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from fsmc import ir
from fsmc.diagnostics import Diagnostic, SpecError
from fsmc.errors import EXIT_UNREADABLE, FsmcError

__all__ = ["MAX_BYTES", "FileRefused", "Source", "read_limited", "read_source", "recall", "remember"]

MAX_BYTES = 16 * 1024 * 1024
"""The largest file fsmc reads: a spec or a table file."""

REMEMBERED = 128
"""How many sources `remember` keeps, the most recently used first out when it is full."""

_BOM = "\ufeff"
_NEWLINE = re.compile("\n")
_NOT_A_SPEC = "pass a .fsm, fsmc IR .json or AutoWebWorld fsm.json file"


@dataclass(frozen=True)
class Source:
    """The text of one file under the name its spans give it (a leading byte order mark set aside in `bom`; the
    line ends of a file whose lines end with a carriage return alone, as classic Mac OS wrote them, read as '\\n',
    with `cr` set).

    Lines and columns count from 1, lines end at '\\n' only: positions as lark and the diagnostics give them.
    """

    name: str
    text: str
    bom: bool = False
    cr: bool = False

    @classmethod
    def from_bytes(cls, name: str, data: bytes) -> Source:
        """The source of these bytes; UnicodeDecodeError when they are not UTF-8."""
        return cls.from_text(name, data.decode("utf-8"))

    @classmethod
    def from_text(cls, name: str, text: str) -> Source:
        """The source of a file's text as decoded: its byte order mark and CR-only line ends set aside."""
        bom, text = text.startswith(_BOM), text.removeprefix(_BOM)
        cr = "\r" in text and "\n" not in text  # else a line of `# comment` would run to the end of the file
        return cls(name, text.replace("\r", "\n") if cr else text, bom=bom, cr=cr)

    @cached_property
    def data(self) -> bytes:
        """The bytes read: UTF-8 decodes losslessly, so encoding the text again gives them back."""
        text = self.text.replace("\n", "\r") if self.cr else self.text
        return ((_BOM if self.bom else "") + text).encode("utf-8", errors="surrogatepass")

    @cached_property
    def digest(self) -> str:
        """sha256 of the bytes, in hex."""
        return hashlib.sha256(self.data).hexdigest()

    @cached_property
    def line_starts(self) -> tuple[int, ...]:
        """The offset in `text` where each line starts."""
        return (0, *(m.end() for m in _NEWLINE.finditer(self.text)))

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column) of a character offset in `text`."""
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def offset(self, line: int, col: int) -> int:
        """The character offset of (line, column), the line clamped to the text's lines."""
        starts = self.line_starts
        return starts[min(max(line, 1), len(starts)) - 1] + max(col, 1) - 1

    def line(self, number: int) -> str:
        """The text of line `number` (from 1) without its '\\n'; '' past the end."""
        starts = self.line_starts
        if not 1 <= number <= len(starts):
            return ""
        end = starts[number] - 1 if number < len(starts) else len(self.text)
        return self.text[starts[number - 1]:end]


# ---------------------------------------------------------------- reading files


class FileRefused(FsmcError, ValueError):
    """The path exists but is no file fsmc reads: a directory, a device or pipe, or a file over the size limit."""

    exit_code = EXIT_UNREADABLE


def read_limited(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; OSError if it cannot be read, FileRefused if it should not.

    A device (/dev/zero) or a named pipe would never end or never start: neither is read.
    """
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise FileRefused("is a directory, not a file")
    if not stat.S_ISREG(mode):
        raise FileRefused("is not a regular file (a device, pipe or socket)")
    with path.open("rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        size = max(path.stat().st_size, len(data))
        raise FileRefused(f"file is {size:,} bytes; fsmc reads files of at most {limit:,} bytes")
    return data


def _unreadable(file: str, message: str, hint: str | None = None) -> SpecError:
    return SpecError([Diagnostic("E002", message, ir.Span(file=file, line=1, col=1), hint=hint)])


def _not_utf8(data: bytes, err: UnicodeDecodeError, file: str) -> SpecError:
    line_start = data.rfind(b"\n", 0, err.start) + 1
    line = data.count(b"\n", 0, err.start) + 1
    col = len(data[line_start:err.start].decode("utf-8", errors="replace")) + 1
    latin = " (it looks like Latin-1 or Windows-1252)" if data[err.start] >= 0xA0 and "end" not in err.reason else ""
    return SpecError([Diagnostic("E002", f"file is not valid UTF-8: byte 0x{data[err.start]:02x} at offset {err.start}{latin}",
                                 ir.Span(file=file, line=line, col=col, end_line=line, end_col=col + 1),
                                 hint="save the spec as UTF-8")])


def _read_bytes(path: str | Path) -> bytes:
    file = str(path)
    try:
        return read_limited(Path(path))
    except FileNotFoundError:
        raise _unreadable(file, "no such file") from None
    except FileRefused as err:
        raise _unreadable(file, str(err), hint=_NOT_A_SPEC) from None
    except OSError as err:
        raise _unreadable(file, f"cannot read file: {err.strerror or err}") from None


def read_source(path: str | Path) -> Source:
    """The source of a spec file, or SpecError(E002) if it is missing, huge, binary, not UTF-8, empty or no regular file."""
    file = str(path)
    data = _read_bytes(path)
    if b"\x00" in data:
        raise _unreadable(file, "file is binary, not a spec", hint=_NOT_A_SPEC)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise _not_utf8(data, err, file) from None
    if not text.strip():
        raise _unreadable(file, "file is empty", hint="a spec starts with `site NAME { entry PAGE }`")
    return Source.from_text(file, text)


# ---------------------------------------------------------------- remembered sources

_remembered: OrderedDict[str, Source] = OrderedDict()


def remember(source: Source) -> Source:
    """Keep `source` findable by its name (as Python's linecache keeps the files of tracebacks); returns it.

    Loading a spec remembers the spec and its table files, so that rendering diagnostics, narrowing
    spans to a word and the manifest's digest use the text that was parsed instead of reading the disk again.
    """
    _remembered[source.name] = source
    _remembered.move_to_end(source.name)
    while len(_remembered) > REMEMBERED:
        _remembered.popitem(last=False)
    return source


def recall(name: str) -> Source | None:
    """The source last remembered under `name`, or None."""
    source = _remembered.get(name)
    if source is not None:
        _remembered.move_to_end(name)
    return source
