"""Stream the messages of an mbox file as mail records, in bounded memory, off the event loop."""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState
from ._first_pass import FirstPass, first_pass
from ._input import Input, open_input
from ._mbox_compressed import read_compressed
from ._resume import prefix_marks, unfinished, why_not_resumable
from ._shared import Closing, as_generator, default_source
from .contract import resumable_importer
from .documents import DocumentReader
from .mail import MAX_MESSAGE_BYTES, MailBook
from .mail.sniff import utf16_codec
from .mbox_lines import is_separator as is_separator  # where callers have found it
from .mbox_lines import lines_of
from .mbox_split import plan as plan_threads
from .mbox_split import split as _split

__all__ = ["from_mbox"]

_BOM = b"\xef\xbb\xbf"
_CHUNK = 16  # items per worker-thread hop; each carries only decoded text, not attachments

# Damaged compressed data comes as one OSError (``_input.DamagedInput``), whatever the format.
_READ_ERRORS = OSError


@resumable_importer()
async def from_mbox(
    path: str | os.PathLike[str] | Input,
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 256,
    limits: Limits | None = None,
) -> AsyncGenerator[MemoryRecord | RecordError | SourceState, None]:
    """Yield one mail record (or RecordError) per message of an mbox file, streaming it.

    The file is read incrementally in a worker thread, a few messages ahead of the consumer,
    so memory stays bounded whatever the file's size; a message over 64 MiB is read from its
    first 64 MiB (its headers and, before a large attachment, its text), the rest counted
    and not held: its record has ``TooLargeDefect`` in ``meta["defects"]`` and the bytes
    left in ``meta["bytes_cut"]``. The same holds for ``.eml`` files and Maildir messages.

    How messages are split (the ``From_`` rule):
    An mbox separates messages by lines that start with ``From ``. Real files break every
    variant of the rule (mboxo, mboxrd, mboxcl): some writers leave no blank line before the
    separator, some do not escape ``From `` at the start of body lines. So a line starting with
    ``From `` separates messages when it is at the start of a line and

    1. it is the first line of the file (after a UTF-8 BOM) or where reading resumes, or
    2. it carries a date the way separators do: ``From <sender> <date>`` where the date is
       asctime-like (``Tue Apr  1 12:21:37 2003``, optionally a zone before the year, trailing
       extra text allowed) or RFC 2822-like (``1 Apr 2003 12:21``); the sender is one word or a
       pipermail ``x at y`` pair in any of its languages
       (``x em y``, ``x chez y``, ``x a bildua y``: up to two words between the two, or
       none: ``x  y``, ``x aty``), or
    3. it is Mozilla's ``From -`` or a bare ``From `` (nothing after but blanks), or
    4. it is a lone address with no date (``From 1844347792267117879@xxx``, Gmail Takeout), or
    5. it has a time on it and a mail header follows (after a line of text, one only a
       delivery writes, ``Received:``, or a ``From:`` naming the sender it starts with:
       pipermail's date in the list's language and order, ``From x at y  Lun  5 Jan ...``).

    A blank line before the separator is *not* required (``twisted-divunal-list`` has 385 of
    399 separators directly after text, ``mimekit-simple`` uses ``From -`` after text). Body
    lines such as ``From the Protocol object, ...`` or ``From Russia with love`` do not match
    and stay in the message. Lines matching ``^>+From `` lose one ``>`` (mboxrd unescaping).
    A ``Content-Length`` header (mboxcl2) is believed where it ends at a separator or the
    end of the file: a separator-like line inside that body stays body text. The ``From_`` line itself is never decoded
    (it may hold 8-bit bytes in any charset) and is not part of the message.
    A file whose lines end in CR alone (classic Mac OS mail; CRs and no LF in its first
    64 KiB) is split at CR, its separators included, as though each CR were an LF.
    An MMDF mailbox (each message opened and closed by a line of four Ctrl-A characters,
    ``\x01\x01\x01\x01``) is split at those lines; from the first of them on, a ``From ``
    line is body text.

    Threads:
    A file (not a pipe) is read twice: first the thread headers of its messages
    (``Message-ID``, ``References``, ``In-Reply-To``), then the messages. A mail's thread is
    so the same whatever order the file holds the mails in (a reply before its parent, a
    file written newest first); see :class:`~memtrails.importers.mail.threads.ThreadPlan`.

    Positions:
    Every ``checkpoint_every`` messages, and at the end, a ``SourceState`` gives the byte
    offset where the next message starts (at the end: where the last message starts, so a
    message still being appended is read again next time) with hashes of the first and last
    64 KiB before it. Handed back as ``state=``, the next run starts there when that part of
    the file is unchanged and falls back to a full pass when it is not (the file shrank, or
    was rewritten: a mail client compacting the mbox) or when no state is given. Offsets are
    kept out of the records, so a full pass over a rewritten file still finds every unchanged
    message unchanged. A ``RecordError`` names ``message N at byte OFFSET``; N counts from 1
    at the place reading started.

    Args:
        path: the mbox file.
        source: the records' source; defaults to the file's resolved path.
        state: the position the last run reported (``Memory.source_state``).
        checkpoint_every: messages between two ``SourceState`` items.
        limits: the limits records are held to: a mail far over ``max_text_units`` is cut
            before it is parsed (see :func:`~memtrails.importers.mail.message_to_item`).

    Raises:
        SourceError: the file is missing, is a folder, or cannot be read.

    Returns:
        An async generator; close it (``contextlib.aclosing``) to stop early and free the file.

    Example:
        >>> from contextlib import aclosing
        >>> async with aclosing(from_mbox("archive.mbox")) as items:  # doctest: +SKIP
        ...     async for item in items:
        ...         print(item.id if isinstance(item, MemoryRecord) else item)
    """
    given = path.given if isinstance(path, Input) else path
    name = source if source is not None else default_source(given)

    if checkpoint_every < 1:
        raise ValueError("`checkpoint_every` must be at least 1")

    def make() -> Iterator[MemoryRecord | RecordError | SourceState]:
        # The file is opened by the generator on its first step, inside its own ``with``:
        # if the consumer is cancelled before that step, nothing is left open.
        # One document reader (a worker process, started on the first attachment) per import.
        documents = DocumentReader()
        units = (limits or Limits()).max_text_units
        read = _read_mbox(path, name, state, checkpoint_every, documents, units=units)
        return Closing(read, documents)

    # Close the thread-side iterator (and so the file) as soon as this generator is closed,
    # not whenever the inner generator happens to be garbage-collected.
    async with aclosing(as_generator(iterate_in_thread(make, chunk=_CHUNK))) as items:
        async for item in items:
            yield item


def _read_mbox(
    path: str | os.PathLike[str] | Input,
    source: str,
    state: Mapping[str, Any] | None,
    every: int,
    documents: DocumentReader | None = None,
    max_message: int | None = None,
    units: int = Limits().max_text_units,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Split an mbox into messages and convert each one (blocking; run in a thread)."""
    start = 0
    max_message = MAX_MESSAGE_BYTES if max_message is None else max_message
    if not isinstance(path, Input) and Path(path).is_dir():
        raise SourceError(
            source, "is a folder, not an mbox file (use from_eml for a folder of .eml)"
        )
    with open_input(path, source) as stream:
        handle = stream.file
        _refuse_utf16(stream, source)
        lines = lines_of(stream)
        book = MailBook()
        again = stream.path if stream.regular else None  # a file read twice: threads planned

        def plan(at: int = 0) -> None:
            if again is None:
                return
            if stream.seekable and lines is stream.file:
                # through the file the import reads, so that its position (the progress
                # bar's) moves during this first pass too
                plan_threads(stream, source, at, book, max_message)
            else:
                plan_threads(again, source, at, book, max_message)

        if stream.compression is not None and again is not None:
            # The first pass reads the file anew: the display follows its compressed bytes
            # read (the import's own position stays at the start until it is over).
            with first_pass(source, stream.size or 0, begun=False) as shown:
                split = _split(
                    lines,
                    source,
                    max_message=max_message,
                    book=book,
                    plan=lambda: _plan_compressed(again, source, book, max_message, shown),
                    documents=documents,
                    units=units,
                )
                yield from read_compressed(again, split, source, state)
            return
        if not stream.seekable:  # a pipe: no position to save or resume
            for item in _split(
                lines,
                source,
                start=start,
                max_message=max_message,
                documents=documents,
                units=units,
            ):
                if not isinstance(item, SourceState):
                    yield item
                elif not item.complete:  # cut short: said, so that nothing is pruned
                    yield unfinished(source, None, mode="full", why=None)
            return
        why = why_not_resumable(handle, state) if state else None  # empty: a run cut short
        if state and why is None and not isinstance(state.get("ids"), list):
            # Without the Message-IDs read before, a mail appended that reuses one would
            # take the place of the earlier mail: read once more from the start.
            why = "saved by an older version, without the Message-IDs read before"
        mode = "incremental" if state and why is None else "full"
        skipped = 0
        if state and mode == "incremental":
            start = int(state["offset"])
            skipped = int(state.get("records", 0))
            book.recall(state.get("ids"))  # a mail that reuses one of these gets its own id
            book.pin(state.get("last"))  # the message read again becomes what it was
        # The threads of replies earlier runs read: a reply appended since that names only
        # its parent (In-Reply-To) joins the parent's thread.
        kept = _saved_threads(state) if mode == "incremental" else {}
        for plain, thread in kept.items():
            book.known(plain, thread)

        def position(
            offset: int,
            records: int,
            complete: bool = False,
            duplicates: int = 0,
            last: list[str | None] | None = None,
            cut: bool = False,
        ) -> SourceState:
            try:
                marks = prefix_marks(handle, offset)
            except OSError:  # a read error, and the marks unreadable too: the old one holds
                if not cut:
                    raise
                return unfinished(source, state, mode=mode, why=why, skipped=skipped)
            marks["records"] = skipped + records
            marks["ids"] = book.placed_ids()
            if last is not None:  # the message there is read again next time
                marks["last"] = last
                marks["threads"] = book.threads(kept)
            elif kept:  # a checkpoint: what earlier runs knew, so a resumed run knows it
                marks["threads"] = kept
            return SourceState(
                source,
                marks,
                mode=mode,
                complete=complete,
                why=why,
                skipped=skipped,
                duplicates=duplicates,
            )

        yield from _split(
            lines,
            source,
            start=start,
            max_message=max_message,
            checkpoint=position,
            every=every,
            book=book,
            plan=lambda: plan(start),
            documents=documents,
            units=units,
        )


_ICONV = {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE"}


def _refuse_utf16(stream: Input, source: str) -> None:
    """Stop at an mbox saved as UTF-16 text (some Windows tools do): its separators are not
    the bytes ``From``, so it would read as one message that is not mail; say what to do."""
    try:
        head = stream.head()
        codec = utf16_codec(head)
    except (OSError, ValueError):
        return  # reading meets the same trouble and says where
    if codec is not None:
        name = stream.path.name if stream.path is not None else "FILE"
        # iconv's "UTF-16" reads the byte order mark, and drops it; with none, say which.
        given = "UTF-16" if head[:2] in (b"\xff\xfe", b"\xfe\xff") else _ICONV[codec]
        raise SourceError(
            source,
            "the mbox is UTF-16 text (as some Windows tools save one), not mail's bytes: "
            f"convert it to UTF-8 and import that (iconv -f {given} -t UTF-8 {name} > "
            f"utf8-{name})",
        )


def _plan_compressed(path: Path, source: str, book: MailBook, limit: int, shown: FirstPass) -> None:
    """The first pass over a compressed mbox, its compressed bytes read shown as it goes."""
    try:
        with open_input(path, source) as first:
            shown.follow(first.position)
            plan_threads(first, source, 0, book, limit)
    except (SourceError, OSError):
        pass  # the reading pass meets the same trouble and says where
    finally:
        shown.follow(None)
        shown.done = shown.total


def _saved_threads(state: Mapping[str, Any] | None) -> dict[str, str]:
    """The reply threads a saved position keeps (see :meth:`MailBook.threads`)."""
    saved = (state or {}).get("threads")
    if not isinstance(saved, Mapping):
        return {}
    return {k: v for k, v in saved.items() if isinstance(k, str) and isinstance(v, str)}
