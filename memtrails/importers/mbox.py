"""Stream the messages of an mbox file as mail records, in bounded memory, off the event loop."""

from __future__ import annotations

import io
import os
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import IO, Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState
from ._input import Input, cannot_read_further, open_input
from ._mbox_compressed import read_compressed
from ._resume import prefix_marks, unfinished, why_not_resumable
from ._shared import Closing, as_generator, default_source
from .contract import resumable_importer
from .documents import DocumentReader
from .mail import MAX_MESSAGE_BYTES, MailBook, message_to_item
from .mbox_lines import (
    ESCAPED_FROM,
    LINE_LIMIT,
    RUN_TOGETHER_REASON,
    GivenBack,
    continues_body,
    is_separator,
    lines_of,
    message_bytes,
    runs_together,
    separator_time,
)

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
    so memory stays bounded whatever the file's size; a message over 64 MiB is reported as
    a RecordError and skipped without being held in memory.

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
       (``x em y``, ``x chez y``: one word between the two), or
    3. it is Mozilla's ``From -`` or a bare ``From `` (nothing after but blanks), or
    4. it is a lone address with no date (``From 1844347792267117879@xxx``, Gmail Takeout).

    A blank line before the separator is *not* required (``twisted-divunal-list`` has 385 of
    399 separators directly after text, ``mimekit-simple`` uses ``From -`` after text). Body
    lines such as ``From the Protocol object, ...`` or ``From Russia with love`` do not match
    and stay in the message. Lines matching ``^>+From `` lose one ``>`` (mboxrd unescaping).
    A ``Content-Length`` header (mboxcl2) is believed where it ends at a separator or the
    end of the file: a separator-like line inside that body stays body text. The ``From_`` line itself is never decoded
    (it may hold 8-bit bytes in any charset) and is not part of the message.
    A file whose lines end in CR alone (classic Mac OS mail; CRs and no LF in its first
    64 KiB) is split at CR, its separators included, as though each CR were an LF.

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
    if not isinstance(path, Input) and Path(path).is_dir():
        raise SourceError(
            source, "is a folder, not an mbox file (use from_eml for a folder of .eml)"
        )
    with open_input(path, source) as stream:
        handle = stream.file
        lines = lines_of(stream)
        if stream.compression is not None and stream.regular and stream.path is not None:
            split = _split(lines, source, max_message=max_message, documents=documents, units=units)
            yield from read_compressed(stream.path, split, source, state)
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
        mode = "incremental" if state and why is None else "full"
        skipped = 0
        book = MailBook()
        if state and mode == "incremental":
            start = int(state["offset"])
            skipped = int(state.get("records", 0))
            book.pin(state.get("last"))  # the message read again becomes what it was

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
            if last is not None:  # the message there is read again next time
                marks["last"] = last
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
            documents=documents,
            units=units,
        )


def _split(
    handle: IO[bytes],
    source: str,
    *,
    start: int = 0,
    max_message: int | None = None,
    checkpoint: Callable[..., SourceState] | None = None,
    every: int = 256,
    book: MailBook | None = None,
    documents: DocumentReader | None = None,
    units: int = Limits().max_text_units,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Yield an item per message, holding at most one message (up to ``max_message``).

    With ``checkpoint``, a position is yielded every ``every`` messages, always after the
    message before it, and one at the end (where the last message starts), each with the
    number of distinct records before it; without, one ``{"records": N}`` state at the end.
    A read error ends it with one error and a state not complete, at the message it cut.
    A message that repeats an earlier one (same Message-ID, same content give or take what
    lists and archives change: list archives hold many) is not yielded again and is counted
    in the states' ``duplicates``; one that reuses a Message-ID for other content gets an id
    of its own (see :class:`~memtrails.importers.mail.book.MailBook`).
    """
    limit = MAX_MESSAGE_BYTES if max_message is None else max_message
    if start:
        handle.seek(start)  # only when asked: a pipe (``<(zcat a.mbox.gz)``) cannot seek
    pos = start
    count = 0
    separators = 0
    offset: int | None = None  # where the current message's separator (or text) starts
    stored: bytes | None = None  # that separator line: its date is the time of last resort
    # The message's bytes, in one buffer: a list of its lines cost ~120 bytes a line more
    # (a 60 MB mail of 8M short lines took 1.5 GB).
    kept = io.BytesIO()
    size = 0
    oversize = False
    at_line_start = True
    first = True
    skipping = start > 0  # resumed mid-file: ignore text until the first separator
    book = book if book is not None else MailBook()  # ids, contents, threads met this pass
    records = 0  # distinct records yielded, for the positions
    last_counted = False  # the last message gave a record (read again on resume)
    pending: deque[GivenBack] = deque()  # lines read ahead and given back
    in_headers = False  # reading the current message's header block
    declared: int | None = None  # its Content-Length
    body_end: int | None = None  # where that says its body ends
    after_text = False  # the line before was a body line with text on it
    rest_of_separator = False  # reading the rest of a separator line over LINE_LIMIT

    def read() -> tuple[int, bytes]:
        nonlocal pos
        while pending:
            at, line = pending[0].readline()
            if line:
                break
            pending.popleft()
        else:
            at, line = pos, handle.readline(LINE_LIMIT)
        pos = at + len(line)
        return at, line

    def held_as_body(at: int, line: bytes) -> int | None:
        """Read a Content-Length body on from a separator-like line inside it (mboxcl2).

        The length is believed only when it ends at a line end followed by the end of the
        file or by a separator (after one blank line at most): then the lines read are the
        message's, and their size is returned. Otherwise every line read ahead is given
        back, to be split as usual, and None is returned.
        """
        assert body_end is not None
        mark = kept.tell()
        kept.write(line)  # kept where a believed length puts it: no second copy of the body
        while pos < body_end:
            chunk = read()[1]
            if not chunk:
                break  # the file ends before the length does
            kept.write(chunk)
        ends_at_line = pos == body_end
        peek = [read()]
        if peek[0][1] in (b"\n", b"\r\n"):
            peek.append(read())
        following = peek[-1][1]
        believed = ends_at_line and (not following or is_separator(following))
        back = [GivenBack(a, chunk) for a, chunk in peek if chunk]
        if not believed:
            with kept.getbuffer() as view:
                back.insert(0, GivenBack(at, bytes(view[mark:])))
            kept.truncate(mark)
            kept.seek(mark)
        pending.extendleft(reversed(back))
        return kept.tell() - mark if believed else None

    def quoted() -> bool:
        """Tell whether the next line (read ahead, given back) makes a separator-like line
        after a body line body text too (see :func:`~.mbox_lines.continues_body`)."""
        at, following = read()
        if following:
            pending.appendleft(GivenBack(at, following))
        return continues_body(following)

    def finish() -> MemoryRecord | RecordError | None:
        nonlocal count, records, last_counted, kept
        last_counted = False
        book.last = None
        if offset is None:
            return None
        count += 1
        where = f"message {count} at byte {offset}"
        if oversize:
            return RecordError(
                source,
                where,
                f"message is larger than {limit} bytes ({size} bytes); skipped",
            )
        raw = message_bytes(kept)
        kept = io.BytesIO()  # the buffer is now raw's: a big message is held once
        if b">From " in raw:  # the regex is costly on big messages; most have no escape
            raw = ESCAPED_FROM.sub(rb"\1", raw)
        if separators == 0 and runs_together(raw):
            return RecordError(source, where, RUN_TOGETHER_REASON)
        item = message_to_item(
            raw,
            source=source,
            where=where,
            meta={},
            book=book,
            documents=documents,
            stored=separator_time(stored) if stored is not None else None,
            max_text_units=units,
        )
        if isinstance(item, MemoryRecord):
            placed = book.place(item)
            if placed is None:
                return None  # the same message archived twice
            item = placed
            last_counted = True
            records += 1
        return item

    try:
        while True:
            line_at, line = read()
            if not line:
                break
            if first:
                first = False
                if start == 0 and line.startswith(_BOM):
                    line = line[len(_BOM) :]
                if line.startswith(b"From "):
                    skipping = False
                    separators += 1
                    offset, kept, size, oversize = line_at, io.BytesIO(), 0, False
                    in_headers, declared, body_end, stored = True, None, None, line
                    at_line_start = line.endswith(b"\n")
                    rest_of_separator = not at_line_start
                    continue
            if rest_of_separator:  # no header: the separator's trailing junk
                rest_of_separator = not line.endswith(b"\n")
                at_line_start = not rest_of_separator
                continue
            starts_line, at_line_start = at_line_start, line.endswith(b"\n")
            # A crash leaves NULs where a write stopped: the next separator may follow them.
            probe = line.lstrip(b"\x00") if line[:1] == b"\x00" else line
            if (
                starts_line
                and body_end is not None
                and line_at < body_end
                and line.startswith(b"From ")
                and is_separator(line)
            ):
                held = held_as_body(line_at, line)
                body_end = None
                if held is not None:
                    size += held
                    if size > limit:
                        oversize, kept = True, io.BytesIO()
                    at_line_start = True
                    continue
                line_at, line = read()  # the same line, given back: split as usual
            if (
                starts_line
                and probe.startswith(b"From ")
                and is_separator(probe)
                and not (after_text and quoted())
            ):
                done = count
                item = finish()
                if item is not None:
                    yield item
                if checkpoint is not None and count > done and count % every == 0:
                    yield checkpoint(line_at, records, duplicates=book.duplicates)
                skipping = False
                separators += 1
                offset, kept, size, oversize = line_at, io.BytesIO(), 0, False
                in_headers, declared, body_end, stored = True, None, None, probe
                after_text, rest_of_separator = False, not line.endswith(b"\n")
                continue
            after_text = not in_headers and starts_line and bool(line.strip())
            if skipping:
                continue
            if offset is None:
                if not line.strip():
                    continue  # blank lines before the first message
                offset = line_at  # an mbox that does not start with a separator
            size += len(line)
            if oversize:
                continue
            if size > limit:
                oversize = True
                kept = io.BytesIO()  # drop what was kept; count the rest, not holding it
                continue
            kept.write(line)
            if in_headers:
                if not line.strip():
                    in_headers = False
                    if declared is not None and declared <= limit:
                        body_end = pos + declared
                elif line[:15].lower() == b"content-length:":
                    value = line[15:].strip()
                    declared = int(value) if value.isdigit() else None
    except _READ_ERRORS as exc:
        # Damaged compressed data or a disk read error: the messages before it are kept.
        where = f"byte {pos}" if offset is None else f"message {count + 1} at byte {offset}"
        yield RecordError(
            source, where, cannot_read_further(exc, checkpoint is not None, "message")
        )
        # Not complete, even from the start: a prune would forget what is past it.
        if checkpoint is None:
            yield SourceState(source, {"records": records}, duplicates=book.duplicates)
        else:  # the message cut was not yielded: read again from its start next time
            at = offset if offset is not None else start
            yield checkpoint(at, records, duplicates=book.duplicates, cut=True)
        return
    last_start = offset
    item = finish()
    if item is not None:
        yield item
    if checkpoint is None:
        yield SourceState(source, {"records": records}, complete=True, duplicates=book.duplicates)
        return
    # The next run starts at the last message again: it is not counted before that point.
    at = last_start if last_start is not None else start
    last = book.last if last_start is not None else None
    yield checkpoint(
        at, records - last_counted, complete=start == 0, duplicates=book.duplicates, last=last
    )
