"""Walk a folder in sorted order, leaving out what is ignored, and read what changed."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ..._exceptions import SourceError
from ...records import At, Item, MemoryRecord, RecordError, Seen, SourceState
from .._guard import RecordStep
from .._resume import unusable_position
from ..documents import (
    DocumentReader,
    content_format,
    document_limit,
    is_document,
    is_document_file,
    read_document,
    shown_path,
)
from ._doubt import doubt
from ._entries import (
    MEMORY_FOLDER,
    NotRegularFile,
    file_id,
    is_memory_folder,
    list_folder,
    os_reason,
    read_regular,
    too_large,
)
from ._ignore import IgnoreFile, ignored, read_ignore
from ._text import NOTE_SUFFIXES, decode, format_of, title_of

__all__ = ["Walk", "open_walk"]

# A file modified this recently may change again within the same mtime tick after it is read,
# leaving size and mtime as saved but the content not (git's "racily clean" entries): its
# stat is not trusted next run, so it is hashed again (its content still decides).
_RACY_NS = 2_000_000_000
_UNTRUSTED = -1  # the size saved for such a file: no stat matches it
_BAD_STATE = "the saved position is not one this version reads"
_FILE = RecordStep("notes", "file")


def _saved_files(state: Mapping[str, Any] | None) -> tuple[dict[str, list[Any]], str | None]:
    """Return the per-file stamps of the last run, and why they cannot be used (or None)."""
    if state is None:
        return {}, None
    files = state.get("files")
    if not isinstance(files, Mapping):
        return {}, unusable_position(state, "files", ("files",))
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
    """Read at most ``limit`` bytes of a file: the one place the walk reads file contents.

    Raises:
        NotRegularFile: it is no longer a regular file (never opened in a way that blocks).
    """
    return read_regular(path, limit)[0]


# One entry of a folder being walked: its path, its path relative to the root, and "dir",
# "file" or why it is left out.
_Entry = tuple[Path, str, str]


class Walk:
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
        self._stacks: dict[str, list[IgnoreFile]] = {}  # the ignore rules of folders listed
        self.documents = DocumentReader()  # its worker starts on the first document
        self.only: str | None = None  # the one document to read, given instead of a folder

    def items(self) -> Iterator[Item]:
        stack: list[IgnoreFile] = []
        exclude = read_ignore(self.root / ".git" / "info" / "exclude", "")
        if exclude is not None:
            stack.append(exclude)
        try:
            if self.only is not None:
                yield self._guarded(self.root / self.only, self.only)
            else:
                yield from self._folder(self.root, stack)
            yield self._position(final=True)
        finally:
            self.documents.close()

    def _position(self, final: bool) -> SourceState:
        if final:
            return SourceState(
                self.source, {"files": self.stamps}, self.mode, self.complete, self.why
            )
        # Files not reached yet keep last run's stamps: they are still true of the folder,
        # so a run killed after this point re-reads only what changed.
        merged = {**self.saved, **self.stamps}
        return SourceState(self.source, {"files": merged}, self.mode, False, self.why)

    def _entries(self, folder: Path, rel: str, stack: list[IgnoreFile]) -> Iterator[Item | _Entry]:
        """Yield a folder's entries in name order (its errors as items), with its ignore stack."""
        try:
            listing = list_folder(folder)
        except OSError as exc:
            # Its files are unknown: records from them must not be pruned as gone.
            self.complete = False
            why = os_reason(exc, folder)
            yield RecordError(self.source, file_id(rel or "."), f"cannot read the folder ({why})")
            return
        if listing.has_gitignore:
            ignore = read_ignore(folder / ".gitignore", rel)
            if ignore is not None:
                stack = [*stack, ignore]
        kinds = [(d, "dir") for d in listing.dirs] + [(f, "file") for f in listing.files]
        for name, kind in sorted(kinds + listing.special):
            child = f"{rel}/{name}" if rel else name
            if ignored(child, kind == "dir", stack):
                continue
            if kind == "dir":
                self._stacks[child] = stack
            yield folder / name, child, kind

    def _folder(self, root: Path, stack: list[IgnoreFile]) -> Iterator[Item]:
        """Walk the tree depth first in name order, without recursion (any depth is fine)."""
        frames = [self._entries(root, "", stack)]
        while frames:
            entry = next(frames[-1], None)
            if entry is None:
                frames.pop()
                continue
            if not isinstance(entry, tuple):
                yield entry
                continue
            path, child, kind = entry
            if kind == "dir":
                stack = self._stacks.pop(child)
                if is_memory_folder(path):
                    yield RecordError(self.source, file_id(child), MEMORY_FOLDER)
                else:
                    frames.append(self._entries(path, child, stack))
                continue
            if kind != "file":
                if kind.startswith("cannot read"):
                    self.complete = False  # a file or a whole folder: unknown, so prune nothing
                yield RecordError(self.source, file_id(child), kind)
                continue
            yield self._guarded(path, child)
            # Only reads are worth saving: a file skipped by its stat costs nothing to skip
            # again, and an unchanged tree then writes its (large) position once, at the end.
            if self.unsaved >= self.checkpoint_every:
                self.unsaved = 0
                yield self._position(final=False)  # after the file's item, never before

    def _error(self, rel: str, reason: str) -> RecordError:
        # The id lets a prune keep the record the folder already has for this file.
        return RecordError(self.source, rel, reason, id=rel)

    def _guarded(self, path: Path, listed: str) -> Item:
        """Return :meth:`_file`'s item; an unexpected exception is this file's error."""
        rel = file_id(listed)
        return _FILE.run(self.source, rel, self._unstamped_if_failed, path, listed, id=rel)

    def _unstamped_if_failed(self, path: Path, listed: str) -> Item:
        try:
            return self._file(path, listed)
        except BaseException:
            # No stamp for a file whose record was never made: the next run reads it again
            # instead of taking it for unchanged.
            self.stamps.pop(file_id(listed), None)
            raise

    def _file(self, path: Path, listed: str) -> Item:
        rel = file_id(listed)
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError as exc:
            return self._error(rel, f"cannot read the file ({os_reason(exc, path)})")
        if not stat.S_ISREG(st.st_mode):
            return RecordError(self.source, rel, "no longer a regular file: not read")
        saved = self.saved.get(rel)
        if saved is not None and saved[0] == st.st_size and saved[1] == st.st_mtime_ns:
            # Same size and mtime as when it was read: unchanged, and not read again.
            self.stamps[rel] = saved
            return self._error(rel, saved[3]) if len(saved) > 3 else Seen(self.source, rel)
        limit = document_limit(rel, self.max_bytes)
        if st.st_size > limit:
            return self._error(rel, too_large(st.st_size, limit))
        self.unsaved += 1
        try:
            data = _read_bytes(path, limit + 1)
        except NotRegularFile as exc:
            return RecordError(self.source, rel, f"no longer a regular file: {exc}")
        except OSError as exc:
            return self._error(rel, f"cannot read the file ({os_reason(exc, path)})")
        if len(data) > limit:  # it grew after stat()
            return self._error(rel, too_large(None, limit))
        sha = hashlib.sha256(data).hexdigest()
        # Trust this stat next run only if it surely describes the bytes just read.
        racy = len(data) != st.st_size or time.time_ns() - st.st_mtime_ns < _RACY_NS
        stamp = [_UNTRUSTED if racy else st.st_size, st.st_mtime_ns, sha]
        # PDF, Office, OpenDocument, RTF, HTML, EPUB: read by a worker; so is a document
        # under a note's name (report.txt that is a PDF), as the format its bytes are
        named_as = is_document(rel, data)
        if named_as or content_format(data) is not None:
            fields = {
                "path": str(path),
                "size": len(data),
                "mtime_ns": st.st_mtime_ns,
                "sha256": sha,
            }
            item, reason = read_document(
                self.documents, data, rel=rel, meta=fields, saved=saved, source=self.source
            )
            if reason and not named_as and (saved is None or saved[2] != sha):
                # why it failed, and that it is a document the name does not say
                name = PurePosixPath(shown_path(rel)).name
                reason = f"{format_of(data) or 'a document'} under the name {name!r}: {reason}"
                item = RecordError(self.source, rel, reason, id=rel)
            self.stamps[rel] = [*stamp, reason] if reason else stamp
            return item
        form = format_of(data)
        decoded = decode(data) if form is None else None
        if decoded is None:
            why = "binary file"
            named = PurePosixPath(shown_path(rel)).name
            if form is not None and PurePosixPath(named).suffix.lower() in NOTE_SUFFIXES:
                why += f" ({form} under the name {named!r})"  # a PDF saved as .md: say so
            self.stamps[rel] = [*stamp, why]
            return self._error(rel, why)
        unsure = doubt(data, decoded[1])
        if unsure is not None:  # a legacy charset guessed: refused, not kept as mojibake
            self.stamps[rel] = [*stamp, unsure]
            return self._error(rel, unsure)
        self.stamps[rel] = stamp
        if saved is not None and len(saved) == 3 and saved[2] == sha:
            # Touched or copied over, same bytes: the record the folder has is still right
            # (rebuilding it would change its mtime, hence its fingerprint, and re-embed it).
            return Seen(self.source, rel)
        text, encoding = decoded
        # A name that is not UTF-8 keeps its bytes in hex after its id's "//": its ending is
        # before them.
        shown = PurePosixPath(shown_path(rel))
        suffix, name = shown.suffix.lower(), shown.name
        return MemoryRecord(
            id=rel,
            text=text,
            kind="note" if suffix in NOTE_SUFFIXES else "file",
            title=title_of(text, name, suffix),
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


def open_walk(
    folder: Path,
    source: str | None,
    max_bytes: int,
    state: Mapping[str, Any] | None,
    checkpoint_every: int,
) -> Walk:
    root = folder.expanduser().resolve()
    src = source if source is not None else str(root)
    if not root.exists():
        raise SourceError(src, "no such folder")
    if root.is_file() and is_document_file(root):  # ``memtrails add report.pdf``
        walk = Walk(root.parent, src, max_bytes, state, checkpoint_every)
        walk.only = root.name
        return walk
    if not root.is_dir():
        raise SourceError(src, "not a folder")
    if is_memory_folder(root):
        raise SourceError(
            src,
            "is a memtrails memory folder; a memory is never imported as notes (import the "
            "folders its records came from, or open it with --home)",
        )
    return Walk(root, src, max_bytes, state, checkpoint_every)
