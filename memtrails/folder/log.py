"""``records.jsonl``: the append-only log that is the memory folder's source of truth."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from .._exceptions import FolderFormatError
from ..portable import js_stringify

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "TAIL_BYTES",
    "LogEntry",
    "RecordLog",
    "holds_memory_records",
    "record_line",
    "sync_file",
    "tombstone_line",
]

TAIL_BYTES = 4096  # how much of the log before an offset its tail digest covers

# Every line starts with uid then fp (or the tombstone flag), so that opening a large log
# needs no full JSON parse: these fixed prefixes are sliced, not decoded.
_UID_PREFIX = b'{"uid":"'
_FP_PREFIX = b'","fp":"'
_SOURCE_PREFIX = b'","source":'
_DELETED = b'","deleted":true'
_UID_END = len(_UID_PREFIX) + 32
_FP_END = _UID_END + len(_FP_PREFIX) + 64


def holds_memory_records(folder: Path) -> bool:
    """Tell whether ``folder`` holds a memtrails record log: a ``records.jsonl`` whose first
    line starts as every line memtrails writes does (a uid, then a fingerprint or the
    tombstone flag), not a file of the same name that is someone else's (blocking)."""
    try:
        with open(folder / "records.jsonl", "rb") as f:
            head = f.read(_FP_END)
    except OSError:
        return False
    uid = head[len(_UID_PREFIX) : _UID_END]
    return (
        head.startswith(_UID_PREFIX)
        and len(uid) == 32
        and all(c in b"0123456789abcdef" for c in uid)
        and head[_UID_END:].startswith((_FP_PREFIX, _DELETED))
    )


def record_line(uid: str, fp: str, content: dict[str, Any]) -> bytes:
    """Return the log line of one version of a record (``content`` is the record's JSON)."""
    line = {"uid": uid, "fp": fp, "source": content["source"]}
    line.update((k, v) for k, v in content.items() if k != "source")
    body = js_stringify(line)
    return body.encode("utf-8") + b"\n"


def tombstone_line(uid: str, source: str, id: str) -> bytes:
    """Return the log line that marks a record as forgotten."""
    body = js_stringify({"uid": uid, "deleted": True, "source": source, "id": id})
    return body.encode("utf-8") + b"\n"


@dataclass(frozen=True, slots=True)
class LogEntry:
    """What opening a folder needs from one log line, read without a full parse."""

    offset: int
    uid: str
    fp: str | None  # None for a tombstone
    source: str


def _parse_entry(line: bytes, offset: int) -> LogEntry:
    entry = _entry(line, offset)
    # uid and fingerprint are stored as bytes: a damaged one is this line's fault, said here.
    if len(entry.uid) != 32 or (entry.fp is not None and len(entry.fp) != 64):
        raise ValueError("uid or fingerprint of the wrong length")
    bytes.fromhex(entry.uid + (entry.fp or ""))
    return entry


def _entry(line: bytes, offset: int) -> LogEntry:
    if (
        line.startswith(_UID_PREFIX)
        and line[_UID_END : _UID_END + len(_FP_PREFIX)] == _FP_PREFIX
        and line[_FP_END : _FP_END + len(_SOURCE_PREFIX)] == _SOURCE_PREFIX
    ):
        uid = line[len(_UID_PREFIX) : _UID_END].decode("ascii")
        fp = line[_UID_END + len(_FP_PREFIX) : _FP_END].decode("ascii")
        text = line.decode("utf-8")
        # Byte and character positions agree up to here: the prefix is ASCII.
        source, _ = scanstring(text, _FP_END + len(_SOURCE_PREFIX) + 1)
        return LogEntry(offset, uid, fp, source)
    obj = json.loads(line)
    if not isinstance(obj, dict) or not isinstance(obj.get("uid"), str):
        raise ValueError("not a memtrails log line")
    if obj.get("deleted") is True:
        return LogEntry(offset, obj["uid"], None, str(obj.get("source") or ""))
    return LogEntry(offset, obj["uid"], str(obj["fp"]), str(obj.get("source") or ""))


def sync_file(fd: int) -> None:
    """Make what was written to ``fd`` durable: ``fsync``, and on macOS ``F_FULLFSYNC``
    (its ``fsync`` leaves the data in the drive's cache, where a power cut loses it, and
    the file's end then reads as NUL bytes)."""
    full = getattr(fcntl, "F_FULLFSYNC", None) if fcntl is not None else None
    if full is not None:
        try:
            fcntl.fcntl(fd, full)
            return
        except OSError:  # a filesystem that does not take it (a network one): fsync
            pass
    os.fsync(fd)


def _sync_folder(path: Path) -> None:
    """Make a new file's name in its folder durable (on POSIX; Windows has no such call)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class RecordLog:
    """Append-only JSON Lines file; every append is fsynced before it returns.

    Blocking: call the methods from a worker thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        created = not path.exists()
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        if created:  # else a crash may lose the file's name, and every record with it
            _sync_folder(path.parent)
        self.size = os.fstat(self._fd).st_size
        # NUL bytes the last repair() found at the log's end (a zeroed tail), cut with it.
        self.zeroed = 0

    def _zeroed_from(self) -> int:
        """Return where the run of NUL bytes the log ends with starts (its size: none)."""
        end = self.size
        while end > 0:
            start = max(0, end - (1 << 16))
            chunk = os.pread(self._fd, end - start, start)
            kept = chunk.rstrip(b"\0")
            if kept:
                return start + len(kept)
            end = start
        return 0

    def repair(self) -> int:
        """Cut a torn last line (a write interrupted by a crash); return the bytes dropped.

        A torn line was never fsynced as a whole, so its record was never reported added.
        A run of NUL bytes at the end (a crash on a filesystem that had made the file
        longer but not yet written its last block: ext4, XFS, APFS) is cut too, with the
        line it cut short; ``zeroed`` says how many there were.
        """
        self.zeroed = 0
        if self.size == 0:
            return 0
        end = self._zeroed_from()
        self.zeroed = self.size - end
        keep = 0  # after the last newline before the NUL bytes, if any
        while end > 0:
            start = max(0, end - (1 << 16))
            chunk = os.pread(self._fd, end - start, start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                keep = start + nl + 1
                break
            end = start
        dropped = self.size - keep
        if dropped:
            os.ftruncate(self._fd, keep)
            sync_file(self._fd)
            self.size = keep
        return dropped

    def append(self, lines: Sequence[bytes]) -> tuple[int, list[int]]:
        """Append lines in one write and fsync; return the end offset and each line's offset."""
        offsets = []
        pos = self.size
        for line in lines:
            offsets.append(pos)
            pos += len(line)
        data = b"".join(lines)
        try:
            _write_all(self._fd, data)
            sync_file(self._fd)
        except BaseException:
            # A part of the lines may be in the file (a full disk, a failed fsync): cut it,
            # or the next append would land after a torn line. Nothing here was reported.
            with contextlib.suppress(OSError):  # else repair() cuts it on the next open
                os.ftruncate(self._fd, self.size)
            raise
        self.size = pos
        return pos, offsets

    def tail(self, offset: int) -> str:
        """Return a digest of the ``TAIL_BYTES`` before ``offset``: a mark that the log up to
        there is still the log that was read (saved with the checkpoint and positions)."""
        if offset <= 0:
            return ""
        start = max(0, offset - TAIL_BYTES)
        data = os.pread(self._fd, offset - start, start)
        if len(data) != offset - start:
            return ""  # the log is shorter than offset: no mark can match
        return hashlib.sha256(data).hexdigest()[:32]

    def ends_line_at(self, offset: int) -> bool:
        """Tell whether ``offset`` is the start of a line (0, or just after a newline)."""
        return offset == 0 or (
            0 < offset <= self.size and os.pread(self._fd, 1, offset - 1) == b"\n"
        )

    def read_line(self, offset: int) -> dict[str, Any]:
        """Return the parsed line that starts at ``offset``."""
        chunks = []
        pos = offset
        while True:
            chunk = os.pread(self._fd, 1 << 16, pos)
            if not chunk:
                break
            nl = chunk.find(b"\n")
            if nl >= 0:
                chunks.append(chunk[:nl])
                break
            chunks.append(chunk)
            pos += len(chunk)
        try:
            obj = json.loads(b"".join(chunks))
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise FolderFormatError(
                f"{self.path}: the line at byte {offset} is damaged ({exc}); `memtrails check` "
                "lists the damaged lines"
            ) from exc
        if not isinstance(obj, dict):
            raise FolderFormatError(f"{self.path}: line at byte {offset} is not an object")
        return obj

    def around(self, offset: int, reach: int = 1 << 14) -> tuple[int | None, int | None]:
        """Return the offsets of the lines just before and just after the line at ``offset``.

        Read-only, for search's neighbour context: each side reads at most ``reach`` bytes, and
        a neighbour farther than that (a long line between) is None, as is a missing one.
        """
        before = None
        if offset > 0:
            start = max(0, offset - 1 - reach)
            data = os.pread(self._fd, offset - 1 - start, start)
            nl = data.rfind(b"\n")
            if nl >= 0:
                before = start + nl + 1
            elif start == 0:
                before = 0
        data = os.pread(self._fd, reach, offset)
        nl = data.find(b"\n")
        after = offset + nl + 1 if nl >= 0 and offset + nl + 1 < self.size else None
        return before, after

    def scan(self, start: int = 0, end: int | None = None) -> Iterator[LogEntry]:
        """Yield the entry of every line from ``start`` up to ``end`` (default: the end)."""
        yield from (entry for entry, _ in self._lines(start, end, parse=_parse_entry))

    def lines(
        self, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int, dict[str, Any]]]:
        """Yield ``(offset, next offset, parsed line)`` from ``start``, to re-index past a checkpoint."""
        for (obj, length), offset in self._lines(
            start, end, parse=lambda line, _off: (json.loads(line), len(line))
        ):
            yield offset, offset + length + 1, obj

    def raw_lines(self, start: int = 0, end: int | None = None) -> Iterator[tuple[int, bytes]]:
        """Yield ``(offset, line without its newline)`` from ``start``, unparsed (for checks)."""
        for line, offset in self._lines(start, end, parse=lambda line, _off: line):
            yield offset, line

    def _lines(self, start: int, end: int | None, parse: Any) -> Iterator[tuple[Any, int]]:
        end = self.size if end is None else end
        pos = start
        rest = b""
        while pos < end:
            chunk = os.pread(self._fd, min(1 << 20, end - pos), pos)
            if not chunk:
                break
            data = rest + chunk
            line_start = pos - len(rest)
            pos += len(chunk)
            cut = 0
            while True:
                nl = data.find(b"\n", cut)
                if nl < 0:
                    break
                line = data[cut:nl]
                offset = line_start + cut
                try:
                    yield parse(line, offset), offset
                except (ValueError, KeyError, UnicodeDecodeError) as exc:
                    raise FolderFormatError(
                        f"{self.path}: line at byte {offset} is not a memtrails log line "
                        f"({exc}); {_foreign_line_hint(self.path, offset, len(line), self.size)}"
                    ) from exc
                cut = nl + 1
            rest = data[cut:]

    def close(self) -> None:
        os.close(self._fd)


def _foreign_line_hint(path: Path, offset: int, length: int, size: int) -> str:
    """What to do about a log line memtrails did not write (an edit, another program)."""
    if offset + length + 1 >= size:
        return (
            f"it is the last line: cut it off with `truncate -s {offset} {path}` (keep a copy "
            "of the file first) and run the command again"
        )
    return (
        "move that line out of the file by hand (keep a copy of the file first) and run the "
        "command again, or restore the folder from a backup"
    )
