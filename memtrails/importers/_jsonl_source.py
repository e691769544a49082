"""What ``from_jsonl`` opens: its records one by one, or its lines unparsed for the digests;
and how it reads lines, bounded, from any stream."""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ..items import RawItem
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState

__all__ = [
    "UTF16_BOMS",
    "JsonlSource",
    "Lines",
    "bounded_lines",
    "line_digest",
    "line_values",
    "torn_line",
    "utf16_lines",
]

#: The byte order marks a UTF-16 file starts with (little- and big-endian).
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SKIP_PIECE = 1 << 20  # how much of an over-long line is read at a time, to pass over it
_CR_PIECE = 64 * 1024  # how much more of a file of lone CRs is read at a time, at least
_LINE_END = re.compile(rb"[\r\n]")


class Lines(Protocol):
    """What lines are read from: a binary file or stream, or :func:`utf16_lines`."""

    def readline(self, size: int = -1, /) -> bytes: ...


def bounded_lines(f: Lines, limit: int) -> Iterator[tuple[bytes, int]]:
    """Yield each line (at most ``limit`` bytes of it) and its full length in bytes.

    A longer line is never held whole: only its first ``limit + 1`` bytes are kept, the rest
    is read past in pieces.

    Lines end with LF (or CRLF). When the first ``limit + 1`` bytes hold no LF but a CR with
    more after it, the lines end with a lone CR (classic Mac OS; JSON allows a CR only
    between values, and no line is that long): from there on each CR (or LF) ends a line,
    handed out as an LF of the same length, so that offsets stay those of the file.
    """
    first = True
    while True:
        raw = f.readline(limit + 1)
        if first and not raw.endswith(b"\n") and 0 <= raw.find(b"\r") < len(raw) - 1:
            f = _LoneCrLines(f, raw)
            raw = f.readline(limit + 1)
        first = False
        if not raw:
            return
        size = len(raw)
        if size > limit and not raw.endswith(b"\n"):
            rest, ended = _pass_line(f)
            size += rest
            raw = b"\n" if ended else b""  # only whether it ended matters now
        yield raw, size


def _pass_line(f: Lines) -> tuple[int, bool]:
    """Read past the rest of a line; return its length and whether it ended with a newline.

    By ``readline`` pieces, never a seek back: a compressed file or a pipe cannot seek.
    """
    size = 0
    while piece := f.readline(_SKIP_PIECE):
        size += len(piece)
        if piece.endswith(b"\n"):
            return size, True
    return size, False


class _LoneCrLines:
    """The lines of a stream that ends them with a lone CR, each CR handed out as an LF.

    An LF ends a line too (lines appended since with other line ends). Holds what a line
    asked for needs, about twice ``size`` at most: reading a long line, each read takes as
    much as is held already, so it is copied a few times, never once per piece.
    """

    def __init__(self, f: Lines, start: bytes) -> None:
        self._f = f
        self._held = start
        self._at = 0  # where the next line starts in `_held`
        self._ended = False

    def readline(self, size: int = -1, /) -> bytes:
        while True:
            held = self._held
            stop = len(held) if size < 0 else min(len(held), self._at + size)
            end = _LINE_END.search(held, self._at, stop)
            if end is not None:
                line = held[self._at : end.start()] + b"\n"
                self._at = end.end()
                return line
            if stop < len(held) or self._ended:  # ``size`` bytes with no end, or the last
                line = held[self._at : stop]
                self._at = stop
                return line
            rest = held[self._at :]
            more = self._f.readline(max(_CR_PIECE, len(rest)))
            self._ended = not more
            self._held, self._at = rest + more, 0


class _Utf8Lines:
    """A UTF-16 file's lines, handed out encoded as UTF-8."""

    def __init__(self, f: BinaryIO) -> None:
        self._text = io.TextIOWrapper(f, encoding="utf-16", errors="replace", newline="\n")

    def readline(self, size: int = -1, /) -> bytes:
        return self._text.readline(size).encode("utf-8")

    def close(self) -> None:
        """Close the text reader and the file under it."""
        self._text.close()


def utf16_lines(f: BinaryIO) -> _Utf8Lines:
    """Return the lines of a UTF-16 file (with its byte order mark) as UTF-8 bytes.

    ``readline``'s size counts characters here: a line's UTF-8 bytes stay bounded (four a
    character at most). Bytes that are not UTF-16 (an odd byte at the end) become U+FFFD.
    """
    return _Utf8Lines(f)


def line_digest(
    salt: bytes,
    source: str,
    name: Path,
    mapping: Mapping[str, str],
    kind: str | None,
    limits: Limits,
    day_first: Callable[[], frozenset[str]] = frozenset,
) -> Callable[[bytes, int], bytes]:
    """Return the digest function of ``from_jsonl``'s lines: BLAKE2b keyed by what else makes a
    record, over the line's bytes and, when not 0, its number. ``day_first()``, the keys
    whose days the file writes day first, is asked at the first line, once read ahead."""
    keys: list[bytes] = []

    def digest(raw: bytes, number: int) -> bytes:
        if not keys:
            settings: list[Any] = [salt.hex(), source, str(name), sorted(mapping.items()), kind]
            settings += [limits.max_depth, limits.max_line_bytes]
            settings += [sorted(order)] if (order := day_first()) else []
            text = json.dumps(settings, ensure_ascii=True).encode("ascii")
            keys.append(hashlib.blake2b(text, digest_size=32).digest())
        key = keys[0]
        if not number:
            return hashlib.blake2b(raw, digest_size=16, key=key).digest()
        h = hashlib.blake2b(raw, digest_size=16, key=key, person=b"line number")
        h.update(b"\n%d" % number)
        return h.digest()

    return digest


class JsonlSource(AsyncIterator[MemoryRecord | RecordError | SourceState]):
    """What :func:`from_jsonl` returns: its records one by one, or its lines unparsed.

    Iterated, it is the importer as documented. ``Memory.ingest`` asks for
    :meth:`raw_lines` instead, so that a line whose digest the folder already holds is
    never parsed, normalised or scrubbed. Either way is taken once.
    """

    def __init__(self, make: Callable[[bytes | None], AsyncGenerator[Any, None]]) -> None:
        self._make = make
        self._gen: AsyncGenerator[Any, None] | None = None

    def _started(self, salt: bytes | None) -> AsyncGenerator[Any, None]:
        if self._gen is None:
            self._gen = self._make(salt)
        return self._gen

    def __aiter__(self) -> JsonlSource:
        return self

    async def __anext__(self) -> MemoryRecord | RecordError | SourceState:
        item: MemoryRecord | RecordError | SourceState = await self._started(None).__anext__()
        return item

    async def asend(self, value: None) -> MemoryRecord | RecordError | SourceState:
        """Resume the reader (as an async generator's ``asend``)."""
        item: MemoryRecord | RecordError | SourceState = await self._started(None).asend(value)
        return item

    async def athrow(self, *args: Any) -> MemoryRecord | RecordError | SourceState:
        """Raise inside the reader (as an async generator's ``athrow``)."""
        item: MemoryRecord | RecordError | SourceState = await self._started(None).athrow(*args)
        return item

    async def aclose(self) -> None:
        """Stop reading and close the file."""
        if self._gen is not None:
            await self._gen.aclose()

    def raw_lines(self, salt: bytes) -> AsyncIterator[list[RawItem]]:
        """Yield the record lines unparsed, as :class:`~memtrails.items.RawLine` keyed with
        ``salt``, in lists of up to 256 (one hop from the reading thread each).

        Errors the reader finds without parsing (an over-long line) and positions come as
        usual; a position counts every ``RawLine`` before it as a record: :meth:`settle`
        corrects it once the lines that were not records are known.

        Raises:
            RuntimeError: iteration has already started.
        """
        if self._gen is not None:
            raise RuntimeError("this JSON Lines source is already being read")
        return self._started(salt)

    @staticmethod
    def settle(state: SourceState, not_records: int) -> SourceState:
        """Return a position of :meth:`raw_lines` counting only the lines that were records."""
        if not not_records or "records" not in state.state:
            return state
        marks = {**state.state, "records": int(state.state["records"]) - not_records}
        return SourceState(
            state.source,
            marks,
            mode=state.mode,
            complete=state.complete,
            why=state.why,
            skipped=state.skipped,
            duplicates=state.duplicates,
        )


def line_values(raw: bytes, most: int) -> int:
    """Count (from above) the JSON values a line holds, without parsing it.

    Every value but the first follows a ``,`` or opens with ``[``/``{``. Only when that quick
    count is over ``most`` are those inside strings (text, not values) taken out, one string
    at a time: at most ``most`` strings, since each is a value too.
    """
    quick = raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    if quick <= most:
        return quick
    if b"\\" in raw:  # an escaped quote or backslash is not where a string ends
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    if raw.count(b'"') // 2 > most:
        return raw.count(b'"') // 2
    inside = 0
    end = -1
    while (start := raw.find(b'"', end + 1)) >= 0:
        end = raw.find(b'"', start + 1)
        if end < 0:
            break
        inside += sum(raw.count(c, start, end) for c in (b",", b"[", b"{"))
    return quick - inside


def torn_line(raw: bytes) -> bool:
    """Whether a last line without its newline is not yet JSON (a writer is part-way)."""
    try:
        json.loads(raw)
    except RecursionError:
        return False  # whole, and too deep: reported as such
    except (json.JSONDecodeError, UnicodeDecodeError):
        return bool(raw.strip())
    except ValueError:
        return False  # whole, with a number too long to read: reported as such
    return False
