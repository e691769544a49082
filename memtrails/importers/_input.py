"""Open an input as one byte stream: a file, a .gz/.bz2/.xz file, a pipe or standard input."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import sys
import threading
import zlib
from pathlib import Path
from typing import IO, Any, BinaryIO, cast

from .._exceptions import SourceError
from ._fifo import is_fifo, open_fifo
from ._regular import NotRegularFile, open_named, open_regular

__all__ = [
    "COMPRESSED_SUFFIXES",
    "DamagedInput",
    "Input",
    "NotRegularFile",
    "cannot_read_further",
    "compression_of",
    "open_input",
    "open_regular",
    "read_file",
    "strip_compression",
]

#: File name endings of the compressed forms read as streams, and their formats.
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_HEAD = 64 * 1024
_PIECE = 8 * 1024  # decompressed bytes read at a time


def compression_of(head: bytes) -> str | None:
    """Return ``"gzip"``, ``"bzip2"`` or ``"xz"`` when ``head`` starts like one, else None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def strip_compression(name: str) -> str:
    """Return a file name without its compression ending (``list.mbox.gz`` -> ``list.mbox``)."""
    for suffix in COMPRESSED_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


class DamagedInput(OSError):
    """The compressed data of an input is damaged or cut short: nothing after it can be read.

    Everything decompressed before the damage has been handed out. An ``OSError``, so that
    code catching read errors catches it; importers report it as the input's one error
    ("cannot read further") and keep the records read before it.
    """


def cannot_read_further(exc: OSError, resumes: bool, unit: str = "line") -> str:
    """Say why an input read record by record stops part-way, and what becomes of the rest.

    Damaged compressed data is said in its own words (:class:`DamagedInput`); a disk read
    error says that the records before it are kept and what to do: nothing when the next
    run goes on from the record it cut (``resumes``: a plain file), else read it again once
    the disk gives it. ``unit`` names a record (``line``, ``message``).
    """
    if isinstance(exc, DamagedInput):
        damage = str(exc)
    else:
        then = f"the next run goes on from this {unit}" if resumes else "add it again once it reads"
        damage = (
            f"the file cannot be read ({exc.strerror or exc}); the {unit}s before are kept, {then}"
        )
    return f"cannot read further: {damage}"


# What decompressors raise on bad data: zlib and lzma their own errors, gzip ``BadGzipFile``
# (an OSError: a bad CRC, garbage after the data), bz2 an OSError, all ``EOFError`` when the
# data is cut short.
_DAMAGE: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error, lzma.LZMAError)


def _damage(name: str, exc: Exception) -> str:
    """Say what is wrong with the ``name`` data, in words, with the decompressor's own."""
    if isinstance(exc, OSError) and exc.errno is not None:  # the disk, not the data
        return f"cannot read the {name} file ({exc.strerror or exc})"
    if isinstance(exc, EOFError):
        return f"the {name} data is cut short ({exc})"
    if name == "gzip" and "Not a gzipped file" in str(exc):
        return f"bytes after the end of the gzip data are not gzip ({exc})"
    return f"the {name} data is damaged ({exc})"


class _Counting(io.RawIOBase):
    """A raw reader that counts the bytes it hands out (how far into a pipe reading is)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            super().close()


class _Replay(io.RawIOBase):
    """A raw reader that can look at the first bytes of a stream and then hand them out again.

    Kind detection reads the start of a pipe; the importer must still get those bytes.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._kept = b""
        self._at = 0

    def readable(self) -> bool:
        return True

    def head(self, n: int) -> bytes:
        """Return up to ``n`` first bytes, reading (and keeping) as many as needed."""
        if self._at != 0:
            raise ValueError("head() after reading started")
        while len(self._kept) < n:
            try:
                more = self._stream.read(n - len(self._kept))
            except DamagedInput:
                break  # what came before the damage; reading the rest raises it again
            if not more:
                break
            self._kept += more
        return self._kept[:n]

    def readinto(self, buffer: Any) -> int:
        if 0 <= self._at < len(self._kept):
            data = self._kept[self._at : self._at + len(buffer)]
            self._at += len(data)
            if self._at >= len(self._kept):
                self._kept, self._at = b"", -1  # replayed: free it, never keep again
        else:
            self._at = -1
            data = self._stream.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            super().close()


class _Guarded(io.RawIOBase):
    """A decompressor's output, every way it can fail turned into one :class:`DamagedInput`.

    The one place where decompression errors are caught: what reads an :class:`Input` (the
    kind detection, every importer) sees one exception type. Once damaged, every later read
    raises the same error again: a decompressor's state after a failure is undefined.
    """

    def __init__(
        self, name: str, decompressor: gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile
    ) -> None:
        self._name = name
        self._inner = decompressor
        self.damage: str | None = None  # what is wrong, once a read met it

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.damage is not None:
            raise DamagedInput(self.damage)
        try:
            # A little at a time (``read1``, 8 KiB at most): what one read decompressed
            # before it met the damage is lost with it (measured on an xz file damaged
            # 3/4 in: 64 KiB reads kept 151 of its 222 intact lines, 8 KiB reads 215).
            data = self._inner.read1(min(len(buffer), _PIECE))
        except _DAMAGE as exc:
            self.damage = _damage(self._name, exc)
            raise DamagedInput(self.damage) from exc
        n = len(data)
        buffer[:n] = data
        return n

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            super().close()


def _decompressor(name: str, fileobj: IO[bytes]) -> _Guarded:
    inner: gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile
    if name == "gzip":
        inner = gzip.GzipFile(fileobj=fileobj, mode="rb")
    elif name == "bzip2":
        inner = bz2.BZ2File(fileobj, mode="rb")
    else:
        inner = lzma.LZMAFile(fileobj, mode="rb")  # noqa: SIM115 (closed by _Guarded)
    return _Guarded(name, inner)


def read_file(path: Path, limit: int) -> bytes | None:
    """Return a file's bytes, decompressed when its first bytes say it is compressed, or None
    when there are more than ``limit`` of them.

    For a file read whole (one saved message): at most ``limit`` + 1 bytes are ever held,
    however far a small compressed file would unpack, and a plain file over ``limit`` is
    not read at all.

    Raises:
        OSError: the file cannot be read; :class:`DamagedInput` when its compressed data is
            damaged or cut short; :class:`NotRegularFile` when it is no longer a regular
            file (a FIFO put in its place is never waited on).
    """
    with open_regular(path) as raw:
        compression = compression_of(raw.read(8))
        if compression is None:
            if os.fstat(raw.fileno()).st_size > limit:
                return None
            raw.seek(0)
            data = raw.read(limit + 1)
        else:
            raw.seek(0)
            with io.BufferedReader(_decompressor(compression, raw)) as unpacked:
                data = unpacked.read(limit + 1)
    return None if len(data) > limit else data


class Input:
    """An opened input: its (decompressed) bytes, their first bytes, and how far reading is.

    Build one with :func:`open_input`. ``file`` is what importers read: the plain file
    itself (seekable) for an uncompressed regular file, else a forward-only stream.
    ``position()`` may be called from another thread while a worker reads ``file``.
    """

    def __init__(
        self,
        given: str,
        file: BinaryIO,
        *,
        fd: int | None,
        regular: bool,
        size: int | None,
        compression: str | None,
        counted: _Counting | None,
        replay: _Replay | None,
        raw: IO[bytes] | None = None,
        guard: _Guarded | None = None,
    ) -> None:
        self.given = given
        self.file = file
        self.regular = regular
        self.size = size
        self.compression = compression
        self._fd = fd
        self._counted = counted
        self._replay = replay
        self._raw = raw  # a decompressor does not close the file it reads
        self._guard = guard
        self._lock = threading.Lock()
        self._closed = False

    @property
    def seekable(self) -> bool:
        """Whether positions can be saved and resumed (an uncompressed regular file)."""
        return self.regular and self.compression is None

    @property
    def damage(self) -> str | None:
        """What is wrong with the compressed data, once reading (or ``head``) met it."""
        return self._guard.damage if self._guard is not None else None

    @property
    def path(self) -> Path | None:
        """The file's path, or None for standard input."""
        return None if self.given == "-" else Path(self.given)

    def head(self, n: int = _HEAD) -> bytes:
        """Return the first ``n`` bytes of the (decompressed) stream without consuming them.

        Compressed data damaged within them gives those before the damage (maybe none):
        the importer that reads the input next meets the damage and reports it.

        Raises:
            ValueError: reading has already started.
        """
        if self._replay is not None:
            return self._replay.head(n)
        here = self.file.tell()
        try:
            self.file.seek(0)
            return self.file.read(n)
        finally:
            self.file.seek(here)

    def position(self) -> int:
        """Return the bytes of the underlying file or pipe read so far (compressed bytes)."""
        with self._lock:
            if self._closed:
                return self.size or 0
            if self._counted is not None:
                return self._counted.count
            if self._fd is not None:
                try:
                    return os.lseek(self._fd, 0, os.SEEK_CUR)
                except OSError:
                    return 0
            return 0

    def close(self) -> None:
        """Close the stream and the file under it (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        try:
            self.file.close()
        finally:
            if self._raw is not None:
                self._raw.close()

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _raw_open(given: str, source: str) -> tuple[IO[bytes], os.stat_result]:
    try:
        if given == "-":
            fd = os.dup(sys.stdin.fileno())
            raw: IO[bytes] = open(fd, "rb", buffering=0)  # noqa: SIM115 (closing it leaves stdin open)
        elif is_fifo(Path(given).expanduser()):  # never wait forever on one with no writer
            raw = open_fifo(Path(given).expanduser(), source)
        else:
            raw = open_named(Path(given).expanduser(), source)
    except FileNotFoundError as exc:
        raise SourceError(source, "cannot open: no such file") from exc
    except IsADirectoryError as exc:
        raise SourceError(source, "is a folder, not a file") from exc
    except PermissionError as exc:
        raise SourceError(source, "cannot open: permission denied") from exc
    except (OSError, ValueError, io.UnsupportedOperation) as exc:
        raise SourceError(source, f"cannot open: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        st = os.fstat(raw.fileno())
    except OSError as exc:
        raw.close()
        raise SourceError(source, f"cannot read: {exc.strerror or exc}") from exc
    if stat.S_ISDIR(st.st_mode):
        raw.close()
        raise SourceError(source, "is a folder, not a file")
    return raw, st


def open_input(path: str | os.PathLike[str] | Input, source: str | None = None) -> Input:
    """Open a file, a compressed file, a pipe or ``-`` (standard input) as one byte stream.

    Compression (gzip, bzip2, xz) is recognised by the first bytes, whatever the name.
    A pipe is read once: its first bytes are kept so that looking at them (``head``) does
    not take them from the importer. Blocking: call it from a worker thread in async code.

    Args:
        path: the input, or an already opened ``Input`` (returned as it is).
        source: the name used in errors (default: the path as given).

    Raises:
        SourceError: the input is missing, a folder, or cannot be read.

    Returns:
        The opened input; close it (or use ``with``) when done.
    """
    if isinstance(path, Input):
        return path
    given = os.fspath(path)
    name = source or given
    raw, st = _raw_open(given, name)
    regular = stat.S_ISREG(st.st_mode)
    guard: _Guarded | None = None
    try:
        if regular:
            magic = os.pread(raw.fileno(), 8, 0)
            compression = compression_of(magic)
            if compression is None:
                file: BinaryIO
                if given == "-":  # stdin redirected from a file: it has no name to reopen
                    file = cast(BinaryIO, io.BufferedReader(raw))  # closes the dup, not stdin
                else:
                    # the file opened, not its name again (a FIFO may be there by now)
                    file = open(os.dup(raw.fileno()), "rb")  # noqa: SIM115 (owned by Input)
                    raw.close()
                return Input(
                    given,
                    file,
                    fd=file.fileno(),
                    regular=True,
                    size=st.st_size,
                    compression=None,
                    counted=None,
                    replay=None,
                )
            guard = _decompressor(compression, raw)
            replay = _Replay(cast("IO[bytes]", guard))
            return Input(
                given,
                cast(BinaryIO, io.BufferedReader(replay, buffer_size=_HEAD)),
                fd=raw.fileno(),
                regular=True,
                size=st.st_size,
                compression=compression,
                counted=None,
                replay=replay,
                raw=raw,
                guard=guard,
            )
        counted = _Counting(raw)
        outer = _Replay(io.BufferedReader(counted))
        compression = compression_of(outer.head(8))
        if compression is not None:
            guard = _decompressor(compression, io.BufferedReader(outer))
            outer = _Replay(cast("IO[bytes]", guard))
        return Input(
            given,
            cast(BinaryIO, io.BufferedReader(outer, buffer_size=_HEAD)),
            fd=None,
            regular=False,
            size=None,
            compression=compression,
            counted=counted,
            replay=outer,
            raw=raw,
            guard=guard,
        )
    except OSError as exc:
        raw.close()
        raise SourceError(name, f"cannot read: {exc.strerror or exc}") from exc
