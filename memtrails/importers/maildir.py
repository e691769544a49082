"""Read a Maildir (cur/ and new/, Maildir++ and nested folders) as mail records, new files only."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..limits import Limits
from ..records import Item, MemoryRecord, RecordError, Seen, SourceState
from ._first_pass import FirstPass, first_pass
from ._mail_files import in_box_folder, left_out, not_regular
from ._resume import unusable_position
from ._shared import Closing, as_generator, default_source, entry_may_be_file
from .contract import resumable_importer
from .documents import DocumentReader
from .mail import MailBook, message_file, message_to_item
from .mail.book import core_digest
from .mail.message import as_read

__all__ = ["FLAG_TAGS", "from_maildir", "is_maildir", "message_count"]

#: Maildir info flags (after ``:2,`` in a file name) and the tags records get for them.
FLAG_TAGS = {
    "D": "draft",
    "F": "flagged",
    "P": "passed",
    "R": "replied",
    "S": "seen",
    "T": "trashed",
}
# ":" by the spec; "!" or ";" where ":" is not allowed (mbsync, Dovecot on Windows); U+F03A
# where Cygwin or MSYS2 wrote ":" on NTFS (the names keep it when read elsewhere).
_INFO_SEPARATORS = (":", "!", ";", "\uf03a")
_CHUNK = 16


def is_maildir(path: Path) -> bool:
    """Tell whether a folder is a Maildir: it has a ``cur`` or ``new`` folder."""
    return (path / "cur").is_dir() or (path / "new").is_dir()


def _split_name(name: str) -> tuple[str, str]:
    """Return a file name's unique part and its flags (``1.M2.host:2,RS`` -> ``1.M2.host``, ``RS``)."""
    for sep in _INFO_SEPARATORS:
        unique, found, info = name.partition(sep + "2,")
        if found:
            return unique, info
    for sep in _INFO_SEPARATORS:
        unique, found, _ = name.partition(sep)
        if found:
            return unique, ""
    return name, ""


def _folder_label(rel: str) -> str:
    """Return a folder's label: ``INBOX`` for the root, Maildir++ ``.Lists.python`` as ``Lists/python``."""
    if not rel or rel == ".":
        return "INBOX"
    parts: list[str] = []
    for part in rel.split("/"):
        if part.startswith("."):  # Maildir++: dots separate the levels of one folder name
            parts.extend(p for p in part.split(".") if p)
        else:
            parts.append(part)
    return "/".join(parts) or "INBOX"


def message_count(root: Path) -> int:
    """Return how many items a full read of the Maildir yields (a message or an error each).

    Raises:
        SourceError: the folder cannot be read.
    """
    listing = _messages(root, str(root))
    return len(listing.messages) + len(listing.unlisted) + len(listing.special)


@dataclass(slots=True)
class _Listing:
    """What a walk of a Maildir found: its message files, and the folders it could not list."""

    messages: list[tuple[str, str, str, Path]] = field(default_factory=list)
    unlisted: list[tuple[str, str]] = field(default_factory=list)  # (relative path, why)
    # (relative path, why): FIFOs, sockets, devices in cur/ or new/, never opened
    special: list[tuple[str, str]] = field(default_factory=list)


def _is_box(box: Path) -> bool:
    """Tell whether ``cur``/``new`` is a folder; raise OSError when that cannot be told."""
    try:
        return stat.S_ISDIR(os.stat(box).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _box_names(box: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Return the names of a box's message files, sorted, and (name, why) of the entries
    left out unopened (a FIFO, a socket, a device, a link to nothing, a folder); raise
    OSError if it cannot be listed.

    An entry that cannot be looked at (a symlink loop, a name too long, no permission) is
    listed too: reading it gives its error, instead of the box losing it silently.
    """
    names: list[str] = []
    special: list[tuple[str, str]] = []
    with os.scandir(box) as entries:
        for e in entries:
            if e.name[0] == ".":
                continue
            if entry_may_be_file(e):
                names.append(e.name)
            elif (why := left_out(e)) is not None:  # opening a FIFO would wait forever
                special.append((e.name, why))
            elif _is_folder(e):  # said, not left out unsaid: its files are no messages here
                special.append((e.name, in_box_folder(e, box.name)))
    return sorted(names), sorted(special)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _messages(root: Path, source: str) -> _Listing:
    """List every message of the Maildir, sorted, and the folders that could not be listed.

    Raises:
        SourceError: the root itself cannot be read.
    """
    listing = _Listing()
    try:
        with os.scandir(root):  # the root must be readable; deeper failures are reported
            pass
    except OSError as exc:
        raise SourceError(source, f"cannot read: {exc.strerror or exc}") from exc

    def unlisted(path: Path, exc: OSError) -> None:
        rel = path.relative_to(root).as_posix()
        listing.unlisted.append((rel, f"cannot list the folder: {exc.strerror or exc}"))

    def walk_error(exc: OSError) -> None:
        unlisted(Path(exc.filename), exc)

    # A folder that is a link (an archive moved to another disk) is followed, as mail
    # servers do; each real folder is read once, so a link back into the tree ends there.
    walked: set[str] = set()
    for folder, dirs, _files in os.walk(root, onerror=walk_error, followlinks=True):
        real = os.path.realpath(folder)
        if real in walked:
            dirs[:] = []
            continue
        walked.add(real)
        dirs[:] = sorted(d for d in dirs if d not in ("cur", "new", "tmp"))
        here = Path(folder)
        label = _folder_label(here.relative_to(root).as_posix())
        for sub in ("new", "cur"):
            box = here / sub
            try:
                if not _is_box(box):
                    continue
                names, special = _box_names(box)
            except OSError as exc:
                unlisted(box, exc)
                continue
            listing.messages.extend((label, sub, name, box / name) for name in names)
            rel = box.relative_to(root).as_posix()
            listing.special.extend((f"{rel}/{name}", why) for name, why in special)
    return listing


def _known_entry(entry: Any) -> list[Any] | None:
    """Return a saved message entry, or None if it is not one.

    ``[record id, tags, reason]``, and for a mail, its Message-ID (or hash), the start of
    its :func:`~memtrails.importers.mail.book.core_digest` (a copy of another message:
    record id None) and its thread after them; entries saved before the last three were
    kept have three items, before the thread was kept five.
    """
    return list(entry) if isinstance(entry, list) and len(entry) in (3, 5, 6) else None


def _note_known(book: MailBook, known: Mapping[str, Any], listed: set[str]) -> None:
    """Tell ``book`` what the mails still in the Maildir said when an earlier run read them,
    so that a new mail reusing one's Message-ID is told apart (or found to be a copy), and
    a new reply to one joins its thread (the mails an earlier run read are not read again)."""
    for key in sorted(listed):
        entry = _known_entry(known.get(key))
        if entry is None or len(entry) < 5 or not isinstance(entry[3], str):
            continue
        if len(entry) == 6 and isinstance(entry[5], str) and entry[5]:
            book.known(entry[3], entry[5])
        try:
            book.note(entry[3], str(entry[4]))
        except ValueError:  # not hex: a position from elsewhere; the mail is read anew
            continue


#: The threads of messages gone from the Maildir (deleted or moved away after an earlier
#: run read them) that the position keeps, newest last: a reply that comes later still
#: joins its parent's thread. About 100 bytes each.
THREADS_KEPT = 20_000


def _gone_threads(
    state: Mapping[str, Any] | None, known: Mapping[str, Any], listed: set[str]
) -> dict[str, str]:
    """Return the threads of the messages an earlier run read that are no longer listed
    (Message-ID -> thread, for a reply only: a root's thread is its own id), the last
    run's first, at most :data:`THREADS_KEPT`."""
    saved = (state or {}).get("threads")
    gone = (
        {k: v for k, v in saved.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(saved, Mapping)
        else {}
    )
    for key in sorted(set(known) - listed):
        entry = _known_entry(known.get(key))
        if entry is None or len(entry) < 6 or not isinstance(entry[3], str):
            continue
        if isinstance(entry[5], str) and entry[5] and entry[5] != entry[3]:
            gone.pop(entry[3], None)
            gone[entry[3]] = entry[5]
    return dict(list(gone.items())[-THREADS_KEPT:])


def _stamp(sub: str, flags: str) -> tuple[list[str], str]:
    """Return a message's tags (its flags as words, ``new`` in ``new/``) and them as saved."""
    tags = sorted(
        {FLAG_TAGS[f] for f in flags if f in FLAG_TAGS} | ({"new"} if sub == "new" else set())
    )
    return tags, ",".join(tags)


def _plan(book: MailBook, listing: _Listing, known: Mapping[str, Any], shown: FirstPass) -> None:
    """Show ``book`` the headers of every message this run reads, before it reads them, so
    that a reply's thread does not depend on which of its folder's files comes first
    (``new/`` is read before ``cur/``, where its parent often is). ``shown`` counts the
    files passed, for the progress display (minutes on a large Maildir, before any record)."""
    for done, (label, sub, name, path) in enumerate(listing.messages):
        shown.done = done  # the files passed before this one
        unique, flags = _split_name(name)
        before = _known_entry(known.get(f"{label}\x00{unique}"))
        if before is not None and before[1] == _stamp(sub, flags)[1]:
            continue  # not read again: its thread is known
        try:
            raw = message_file(path)
        except OSError:
            continue  # the reading pass says why
        book.plan(raw)
    shown.done = shown.total


def _read(
    root: Path,
    source: str,
    state: Mapping[str, Any] | None,
    every: int,
    documents: DocumentReader | None = None,
    units: int = Limits().max_text_units,
) -> Iterator[Item]:
    listing = _messages(root, source)
    # The first pass (every message's thread headers) is shown as it goes, then as done.
    with first_pass(source, len(listing.messages)) as shown:
        yield from _read_listed(root, source, state, every, documents, units, listing, shown)


def _read_listed(
    root: Path,
    source: str,
    state: Mapping[str, Any] | None,
    every: int,
    documents: DocumentReader | None,
    units: int,
    listing: _Listing,
    shown: FirstPass,
) -> Iterator[Item]:
    known: Mapping[str, Any] = (state or {}).get("messages") or {}
    if not isinstance(known, Mapping):
        known = {}
    mode = "incremental" if known else "full"
    why = unusable_position(state, "maildir", ("messages",)) if state and not known else None
    done: dict[str, list[Any]] = {}
    ids: set[str] = set()  # a message kept in two folders counts once, as in the memory
    read = 0
    for rel, reason in listing.unlisted:
        yield RecordError(source, rel, f"{reason}; its messages were not read")
    for rel, reason in listing.special:
        yield RecordError(source, rel, reason)
    # Whether a message may be missing from this run without being gone: then nothing is
    # pruned (a folder not listed, a file not read whose record is not known).
    unsure = bool(listing.unlisted)
    # Message-IDs are made distinct and copies folded as in an mbox: without, a second mail
    # reusing a Message-ID (or the same mail in two folders) was refused by the pipeline as
    # "the same id and other content", and the mail was lost.
    book = MailBook()
    listed = {f"{m[0]}\x00{_split_name(m[2])[0]}" for m in listing.messages}
    _note_known(book, known, listed)
    gone = _gone_threads(state, known, listed)
    for plain, thread in gone.items():
        book.known(plain, thread)  # after the listed ones': a message listed again wins
    _plan(book, listing, known, shown)
    for label, sub, name, path in listing.messages:
        unique, flags = _split_name(name)
        tags, stamp = _stamp(sub, flags)
        key = f"{label}\x00{unique}"
        rel = path.relative_to(root).as_posix()
        before = _known_entry(known.get(key))
        if before is not None and before[1] == stamp:
            done[key] = before
            record_id, reason = before[0], before[2]
            if record_id and record_id not in ids:
                ids.add(record_id)
                yield Seen(source, record_id)
            elif reason:
                yield RecordError(source, rel, reason)
            continue
        try:
            raw = message_file(path)
        except OSError as exc:
            # Not read this run: the next run tries again, and the record it made stays.
            record_id = before[0] if before is not None and before[0] else None
            if before is not None:
                done[key] = before
            unsure = unsure or record_id is None
            yield RecordError(source, rel, _why_unread(exc), id=record_id)
            continue
        meta = {"path": rel, "folder": label, "tags": tags}
        # The book threads a reply by every id it names, as the mbox and .eml readers do:
        # one that names only its parent (In-Reply-To) joins the parent's thread.
        item = message_to_item(
            raw,
            source=source,
            where=rel,
            meta=meta,
            book=book,
            documents=documents,
            max_text_units=units,
        )
        item = as_read(item, raw)  # a message over the size limit: its first bytes
        if isinstance(item, MemoryRecord):
            digest = core_digest(item)[:16]
            same = before is not None and len(before) >= 5 and before[3:5] == [item.id, digest]
            placed = book.keep(item, before[0]) if same and before else book.place(item)
            thread = item.thread or ""
            done[key] = [placed.id if placed else None, stamp, None, item.id, digest, thread]
            if placed is not None:
                ids.add(placed.id)
                yield placed
        else:
            done[key] = [None, stamp, item.reason]
            yield item
        read += 1
        if read % every == 0:
            # Files not reached yet keep last run's entries, so a killed run resumes here.
            merged = {**known, **done}
            yield SourceState(
                source,
                {"messages": merged, "threads": gone},
                mode=mode,
                why=why,
                duplicates=book.duplicates,
            )
    # A run that missed messages keeps last run's entries for them, as a checkpoint does.
    end = {**known, **done} if unsure else done
    yield SourceState(
        source,
        {"messages": end, "threads": gone},
        mode=mode,
        complete=not unsure,
        why=why,
        duplicates=book.duplicates,
    )


def _why_unread(exc: OSError) -> str:
    if (why := not_regular(exc)) is not None:  # a FIFO in its place since it was listed
        return why
    if isinstance(exc, FileNotFoundError):
        return "the file went away while reading (moved by a mail client?)"
    return f"cannot read the file: {exc.strerror or exc}"


@resumable_importer(prunes_incrementally=True)
async def from_maildir(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 500,
    limits: Limits | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one mail record per message of a Maildir, reading only files new since last run.

    Every folder under ``path`` that holds ``cur/`` or ``new/`` is read (``tmp/``, where
    messages are still being delivered, is not): the root is the folder ``INBOX``, a
    Maildir++ subfolder ``.Lists.python`` is ``Lists/python``, a nested Maildir ``work/cur``
    is ``work``; a folder that is a symbolic link (an archive moved to another disk) is
    followed, each real folder read once. Records carry ``meta["folder"]``,
    ``meta["tags"]`` (the flags after ``:2,`` as words: ``seen``, ``replied``, ``flagged``,
    ``passed``, ``draft``, ``trashed``, and ``new`` for a message in ``new/``) and
    ``meta["path"]``. Where a file name cannot hold ``:`` the flags follow ``!`` or ``;``
    (mbsync, Dovecot on Windows) or U+F03A (Cygwin's ``:`` on NTFS), read alike.

    Re-runs (``state``): a message is known by its folder and the unique part of its file
    name (before ``:2,``), which stays the same when a mail client moves it from ``new/`` to
    ``cur/`` or changes its flags. A known message whose tags are unchanged is not read: it is
    yielded as :class:`~memtrails.records.Seen`; one whose tags changed is read again (its
    record is updated). The whole tree is listed every run, so the run is complete and a
    prune forgets messages that were deleted.

    Threads are found as in an mbox (:class:`~memtrails.importers.mail.MailBook`): every
    message's headers are read first, so a reply joins the thread of the messages it names
    in ``References`` or ``In-Reply-To`` whatever the order files are read in (``new/``
    before ``cur/``); one naming only its parent joins its parent's thread. The position
    keeps each message's thread, so a reply that arrives after its parent was read joins it
    too.

    A folder that cannot be listed, or a file that cannot be read (a symlink loop, no
    permission), is a :class:`~memtrails.records.RecordError` naming it, and the rest is
    read. A file not read keeps the record it made (the error carries its id) and is read
    again next run; where a message may be missing without being gone (a folder not listed,
    a file not read that made no known record) the run is not ``complete``: nothing is pruned.

    Args:
        path: the Maildir (or a folder of Maildirs).
        source: the records' source; defaults to the resolved path.
        state: the position the last run reported (``Memory.source_state``).
        checkpoint_every: messages read between two intermediate positions.
        limits: the limits records are held to: a mail far over ``max_text_units`` is cut
            before it is parsed (``meta["bytes_cut"]``), as :func:`from_mbox` does.

    Raises:
        SourceError: the folder is missing or cannot be read.
        ValueError: ``checkpoint_every`` is not positive.

    Returns:
        An async generator; close it (``contextlib.aclosing``) to stop early.

    Example::

        async with aclosing(from_maildir("~/Maildir")) as items:
            async for item in items:
                print(item)
    """
    if checkpoint_every < 1:
        raise ValueError(f"`checkpoint_every` must be at least 1, got {checkpoint_every}")
    root = Path(path).expanduser()
    name = source if source is not None else default_source(root)
    if not root.is_dir():
        raise SourceError(name, "no such folder" if not root.exists() else "not a folder")

    def make() -> Iterator[Item]:
        documents = DocumentReader()  # a worker process, started on the first attachment
        units = (limits or Limits()).max_text_units
        return Closing(_read(root, name, state, checkpoint_every, documents, units), documents)

    async with aclosing(as_generator(iterate_in_thread(make, chunk=_CHUNK))) as items:
        async for item in items:
            yield item
