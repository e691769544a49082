"""Read the text files under a folder (notes, docs, source) as records, honouring .gitignore."""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, cast

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..records import At, Item, MemoryRecord, RecordError, Seen, SourceState

__all__ = ["NOTE_SUFFIXES", "from_files"]

# Prose is a "note"; everything else (source, config, data) is a "file".
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".txt", ".text", ".rst", ".org", ".adoc"})
_HEADING_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".rst", ".adoc"})
_SNIFF = 8192
# Bytes that do not occur in text: C0 controls other than \t \n \v \f \r and ESC (ANSI colours).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27)) + b"\x7f"
_MAX_CONTROL_SHARE = 0.05
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_SETEXT = re.compile(r"^ {0,3}(=+|-+|~+|\^+|\*+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_MAX_TITLE_LINES = 200
# A file modified this recently may change again within the same mtime tick after it is read,
# leaving size and mtime as saved but the content not (git's "racily clean" entries): its
# stat is not trusted next run, so it is hashed again (its content still decides).
_RACY_NS = 2_000_000_000
_UNTRUSTED = -1  # the size saved for such a file: no stat matches it
_BAD_STATE = "the saved position is not one this version reads"


# -- .gitignore ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _glob_segment(segment: str) -> str:
    """Translate one path segment of a gitignore glob into a regex (no ``/`` inside)."""
    out: list[str] = []
    i, n = 0, len(segment)
    while i < n:
        c = segment[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(segment[i + 1]))
            i += 2
            continue
        if c == "*":
            while i < n and segment[i] == "*":  # "a**b" inside a segment is just "*"
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            negate = j < n and segment[j] in "!^"
            j += negate
            if j < n and segment[j] == "]":  # a "]" right after "[" is a member, not the end
                j += 1
            end = segment.find("]", j)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = segment[i + 1 + negate : end]
                members = "".join(ch if ch == "-" else re.escape(ch) for ch in body)
                out.append(f"[{'^/' if negate else ''}{members}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _compile(line: str) -> _Rule | None:
    """Read one .gitignore line; None for blanks and comments."""
    if not line or line.startswith("#"):
        return None
    # Trailing spaces are dropped unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    negate = line.startswith("!")
    if negate or line.startswith("\\!") or line.startswith("\\#"):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # a slash at the start or in the middle anchors to the file's folder
    line = line.lstrip("/")
    segments = line.split("/")
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".+" if last else "(?:.*/)?")
        else:
            parts.append(_glob_segment(segment) + ("" if last else "/"))
    pattern = "".join(parts)
    if not anchored:
        pattern = "(?:.*/)?" + pattern
    return _Rule(re.compile(pattern, re.DOTALL), negate, dir_only)


@dataclass(frozen=True, slots=True)
class _IgnoreFile:
    base: str  # the folder holding the .gitignore, relative to the root ("" for the root)
    rules: tuple[_Rule, ...]


def _read_ignore(path: Path, base: str) -> _IgnoreFile | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    rules = tuple(rule for line in lines if (rule := _compile(line.rstrip("\r"))) is not None)
    return _IgnoreFile(base, rules) if rules else None


def _ignored(rel: str, is_dir: bool, stack: list[_IgnoreFile]) -> bool:
    """Whether ``rel`` is ignored: the last matching rule wins, deeper files after shallower."""
    result = False
    for ignore in stack:
        sub = rel[len(ignore.base) + 1 :] if ignore.base else rel
        for rule in ignore.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.negate == result and rule.regex.fullmatch(sub):
                result = not rule.negate
    return result


# -- reading one file ----------------------------------------------------------------------


def _looks_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL))
    return controls / len(head) > _MAX_CONTROL_SHARE


def _decode(data: bytes) -> tuple[str, str] | None:
    """Return ``(text, encoding)``, or None when the bytes are not text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                return None
            # Binary data can start with a BOM by chance; decoded, it shows as control chars.
            head = text[:_SNIFF].encode("utf-8", "replace")
            return None if _looks_binary(head) else (text, encoding)
    if _looks_binary(data[:_SNIFF]):
        return None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        # The five bytes cp1252 leaves undefined; latin-1 maps every byte.
        return data.decode("latin-1"), "latin-1"


def _atx_heading(line: str) -> str | None:
    """The text of a ``# Heading`` line (CommonMark rules), without regex backtracking."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return None
    hashes = len(s) - len(s.lstrip("#"))
    if not 1 <= hashes <= 6 or (len(s) > hashes and s[hashes] not in " \t"):
        return None
    content = s[hashes:].strip(" \t")
    closed = content.rstrip("#")
    if closed != content and (not closed or closed.endswith((" ", "\t"))):
        content = closed.strip(" \t")
    return content or None


def _title(text: str, name: str, suffix: str) -> str:
    """The first heading of a Markdown/reStructuredText file, else the file name."""
    if suffix not in _HEADING_SUFFIXES:
        return name
    lines = text.splitlines()[:_MAX_TITLE_LINES]
    start = 0
    if lines and lines[0].strip() == "---":  # YAML front matter may name the title
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
            key, _, value = lines[i].partition(":")
            if key.strip() == "title" and value.strip():
                return value.strip().strip("\"'")
    in_fence = False
    previous = ""
    for line in lines[start:]:
        if _FENCE.match(line):
            in_fence = not in_fence
            previous = ""
            continue
        if in_fence:
            continue
        atx = _atx_heading(line)
        if atx:
            return atx
        if previous.strip() and _SETEXT.match(line) and not previous.startswith((" ", "\t")):
            return previous.strip()
        previous = line
    return name


# -- the walk ------------------------------------------------------------------------------


def _saved_files(state: Mapping[str, Any] | None) -> tuple[dict[str, list[Any]], str | None]:
    """Return the per-file stamps of the last run, and why they cannot be used (or None)."""
    if state is None:
        return {}, None
    files = state.get("files")
    if not isinstance(files, Mapping):
        return {}, _BAD_STATE
    saved: dict[str, list[Any]] = {}
    for rel, stamp in files.items():
        if not (
            isinstance(rel, str)
            and isinstance(stamp, list | tuple)
            and len(stamp) in (3, 4)
            and all(isinstance(n, int) and not isinstance(n, bool) for n in stamp[:2])
            and all(isinstance(s, str) for s in stamp[2:])
        ):
            return {}, _BAD_STATE
        saved[rel] = list(stamp)
    return saved, None


def _read_bytes(path: Path, limit: int) -> bytes:
    """Read at most ``limit`` bytes of a file: the one place the walk reads file contents."""
    with path.open("rb") as f:
        return f.read(limit)


class _Walk:
    def __init__(
        self,
        root: Path,
        source: str,
        max_bytes: int,
        state: Mapping[str, Any] | None,
        checkpoint_every: int,
    ) -> None:
        self.root = root
        self.source = source
        self.max_bytes = max_bytes
        self.checkpoint_every = checkpoint_every
        self.saved, self.why = _saved_files(state)
        self.mode = "incremental" if state is not None and self.why is None else "full"
        # rel path -> [size, mtime_ns, sha256] (+ the reason for a file that is not text)
        self.stamps: dict[str, list[Any]] = {}
        self.complete = True  # until part of the tree cannot be listed
        self.unsaved = 0  # files read since the last position

    def items(self) -> Iterator[Item]:
        stack: list[_IgnoreFile] = []
        exclude = _read_ignore(self.root / ".git" / "info" / "exclude", "")
        if exclude is not None:
            stack.append(exclude)
        yield from self._folder(self.root, "", stack)
        yield self._position(final=True)

    def _position(self, final: bool) -> SourceState:
        if final:
            return SourceState(
                self.source, {"files": self.stamps}, self.mode, self.complete, self.why
            )
        # Files not reached yet keep last run's stamps: they are still true of the folder,
        # so a run killed after this point re-reads only what changed.
        merged = {**self.saved, **self.stamps}
        return SourceState(self.source, {"files": merged}, self.mode, False, self.why)

    def _folder(self, folder: Path, rel: str, stack: list[_IgnoreFile]) -> Iterator[Item]:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            # Its files are unknown: records from them must not be pruned as gone.
            self.complete = False
            yield RecordError(self.source, rel or ".", f"cannot read the folder ({exc})")
            return
        if any(e.name == ".gitignore" for e in entries):
            ignore = _read_ignore(folder / ".gitignore", rel)
            if ignore is not None:
                stack = [*stack, ignore]
        for entry in entries:
            # Hidden entries (.git, .venv, .env, editor state) are never part of the notes.
            if entry.name.startswith("."):
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            try:
                # Symlinks are left out: they can loop or lead outside the folder.
                if entry.is_symlink():
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError as exc:
                self.complete = False  # a file or a whole folder: unknown, so prune nothing
                yield RecordError(self.source, child, f"cannot read ({exc})")
                continue
            if not (is_dir or is_file) or _ignored(child, is_dir, stack):
                continue
            if is_dir:
                yield from self._folder(Path(entry.path), child, stack)
                continue
            yield self._file(Path(entry.path), child)
            # Only reads are worth saving: a file skipped by its stat costs nothing to skip
            # again, and an unchanged tree then writes its (large) position once, at the end.
            if self.unsaved >= self.checkpoint_every:
                self.unsaved = 0
                yield self._position(final=False)  # after the file's item, never before

    def _error(self, rel: str, reason: str) -> RecordError:
        # The id lets a prune keep the record the folder already has for this file.
        return RecordError(self.source, rel, reason, id=rel)

    def _file(self, path: Path, rel: str) -> Item:
        try:
            st = path.stat()
        except OSError as exc:
            return self._error(rel, f"cannot read the file ({exc})")
        saved = self.saved.get(rel)
        if saved is not None and saved[0] == st.st_size and saved[1] == st.st_mtime_ns:
            # Same size and mtime as when it was read: unchanged, and not read again.
            self.stamps[rel] = saved
            return self._error(rel, saved[3]) if len(saved) > 3 else Seen(self.source, rel)
        if st.st_size > self.max_bytes:
            return self._error(rel, f"larger than max_bytes ({st.st_size} bytes)")
        self.unsaved += 1
        try:
            data = _read_bytes(path, self.max_bytes + 1)
        except OSError as exc:
            return self._error(rel, f"cannot read the file ({exc})")
        if len(data) > self.max_bytes:  # it grew after stat()
            return self._error(rel, f"larger than max_bytes ({len(data)} bytes)")
        sha = hashlib.sha256(data).hexdigest()
        # Trust this stat next run only if it surely describes the bytes just read.
        racy = len(data) != st.st_size or time.time_ns() - st.st_mtime_ns < _RACY_NS
        stamp = [_UNTRUSTED if racy else st.st_size, st.st_mtime_ns, sha]
        decoded = _decode(data)
        if decoded is None:
            self.stamps[rel] = [*stamp, "binary file"]
            return self._error(rel, "binary file")
        self.stamps[rel] = stamp
        if saved is not None and len(saved) == 3 and saved[2] == sha:
            # Touched or copied over, same bytes: the record the folder has is still right
            # (rebuilding it would change its mtime, hence its fingerprint, and re-embed it).
            return Seen(self.source, rel)
        text, encoding = decoded
        suffix = PurePosixPath(rel).suffix.lower()
        name = PurePosixPath(rel).name
        return MemoryRecord(
            id=rel,
            text=text,
            kind="note" if suffix in NOTE_SUFFIXES else "file",
            title=_title(text, name, suffix),
            at=At(st.st_mtime_ns // 1_000_000),
            source=self.source,
            meta={
                "path": str(path),
                "size": len(data),
                "mtime_ns": st.st_mtime_ns,
                "encoding": encoding,
                "sha256": sha,
            },
        )


def _open(
    folder: Path,
    source: str | None,
    max_bytes: int,
    state: Mapping[str, Any] | None,
    checkpoint_every: int,
) -> _Walk:
    root = folder.expanduser().resolve()
    src = source if source is not None else str(root)
    if not root.exists():
        raise SourceError(src, "no such folder")
    if not root.is_dir():
        raise SourceError(src, "not a folder")
    return _Walk(root, src, max_bytes, state, checkpoint_every)


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


async def from_files(
    folder: str | os.PathLike[str],
    *,
    max_bytes: int = 1_000_000,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 1000,
) -> AsyncGenerator[Item, None]:
    """Yield one record per text file under a folder, in sorted path order.

    Walks the folder in worker threads, one file at a time. Hidden files and folders
    (``.git``, ``.venv``, ...) and symlinks are left out, and so is whatever the folder's
    ``.gitignore`` files (at any depth) and ``.git/info/exclude`` ignore: globs, ``**``,
    trailing ``/`` for folders, leading ``/`` anchoring, ``!`` negation and comments.
    The encoding is read from a BOM, else tried as UTF-8, else cp1252 (latin-1 for the few
    bytes cp1252 lacks). Binary files (a NUL byte or many control bytes in the first 8 KiB)
    and files over ``max_bytes`` become a :class:`RecordError` ("binary file",
    "larger than max_bytes (N bytes)") so the import report counts them.

    Each record has ``id`` = the path relative to ``folder`` with ``/`` separators,
    ``kind="note"`` for prose (``.md``, ``.txt``, ``.rst``, ... see :data:`NOTE_SUFFIXES`)
    and ``"file"`` for everything else, ``title`` = the first heading of a Markdown or
    reStructuredText file (or its front-matter title), else the file name, ``at`` = the
    modification time, and ``meta`` with ``path`` (absolute), ``size``, ``mtime_ns``,
    ``encoding`` and ``sha256`` (of the file's bytes).

    Re-runs (``state``): the whole tree is always walked (a ``stat`` per file), so the run is
    always complete and a prune may forget the records of files that are gone. A file whose
    size and mtime (to the nanosecond) equal last run's is not read: it is yielded as
    :class:`~memtrails.records.Seen` (or as its error again, for a binary file). A file whose
    stat changed is read and hashed: same SHA-256 as last run gives ``Seen`` (touched, not
    edited), else a record. A file modified less than 2 s before it was read, or that changed
    size while being read, is hashed again next run whatever its stat says. There is no full
    fallback beyond that: a state this version cannot read (``why`` says so) just means
    every file is read. The stat check trusts the file system, as make and rsync do: other
    bytes of the same size given the old mtime to the nanosecond (``cp -p``, ``rsync -t``,
    ``tar x`` of another copy) are not seen as changed. ``Seen`` also trusts the memory to
    hold the version read last, which fails only if a run that wrote a newer one was killed
    before its next position and the file then went back to the older bytes. After such
    tools or accidents, run once without ``state`` (``--full``).

    Every item carries the source; at the end comes a
    :class:`~memtrails.records.SourceState` with ``{"files": {rel_path: [size, mtime_ns,
    sha256]}}`` (a fourth item, the reason, for a binary file; size -1 for a stat not to
    trust), ``mode="incremental"`` when ``state`` was used, and ``complete=True`` unless a
    folder or entry could not be listed. After every ``checkpoint_every`` files read, a
    position with the files done so far (and last run's stamps for the rest) lets an import
    killed half-way resume without reading again what it had finished.

    Args:
        folder: the folder to read.
        max_bytes: files larger than this are skipped with an error.
        source: the source name on every record; defaults to the resolved folder path.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).
        checkpoint_every: files read between two intermediate positions.

    Raises:
        SourceError: the folder does not exist or is not a folder.
        ValueError: ``max_bytes`` or ``checkpoint_every`` is not positive.

    Returns:
        An async iterator of records, ``Seen`` records, per-file errors (each with
        ``id`` = the path) and source states.

    Example::

        async with aclosing(from_files("~/notes", state=memory.source_state(name))) as items:
            async for item in items:
                print(item)
    """
    if max_bytes < 1:
        raise ValueError(f"`max_bytes` must be at least 1, got {max_bytes}")
    if checkpoint_every < 1:
        raise ValueError(f"`checkpoint_every` must be at least 1, got {checkpoint_every}")
    walk = await asyncio.to_thread(_open, Path(folder), source, max_bytes, state, checkpoint_every)
    # Close the walk as soon as the consumer stops, not when GC runs.
    async with aclosing(_generator(iterate_in_thread(walk.items, chunk=16))) as items:
        async for item in items:
            yield item
