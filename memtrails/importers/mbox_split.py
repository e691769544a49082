"""Split an mbox into messages, one at a time, and read each one into a mail record."""

from __future__ import annotations

import io
import os
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from .._exceptions import SourceError
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState
from ._input import Input, cannot_read_further, open_input
from .documents import DocumentReader
from .mail import MAX_MESSAGE_BYTES, MailBook, message_to_item
from .mail.message import cut_to_limit
from .mbox_lines import (
    ESCAPED_FROM,
    LINE_LIMIT,
    MMDF,
    RUN_TOGETHER_REASON,
    GivenBack,
    continues_body,
    is_loose_separator,
    is_separator,
    lines_of,
    message_bytes,
    runs_together,
    separator_time,
)

__all__ = ["plan", "split"]

_BOM = b"\xef\xbb\xbf"

# Damaged compressed data comes as one OSError (``_input.DamagedInput``), whatever the format.
_READ_ERRORS = OSError


def plan(path: Path | Input, source: str, start: int, book: MailBook, limit: int | None) -> None:
    """Show ``book`` the headers of every message from ``start`` on (a first pass).

    Given the import's own opened file (a seekable :class:`Input` whose lines end in LF),
    the pass reads it through a duplicate of its descriptor, which shares the file's
    offset: its ``position()``, which the progress display shows, moves through the file
    during the pass (minutes on a large mbox). The offset is set back after it, so the
    import's own reads go on as if the pass had not been. A compressed :class:`Input` is
    one opened for this pass alone, read from its start.
    """
    try:
        if isinstance(path, Input) and path.compression is not None:
            # opened for this pass alone: its ``position()`` is the compressed bytes read
            _plan(lines_of(path), source, start, book, limit)
            return
        if isinstance(path, Input):
            try:
                fd: int | None = path.file.fileno()
            except (OSError, ValueError):  # no descriptor: the file by its name
                fd = None
            if fd is not None:
                before = os.lseek(fd, 0, os.SEEK_CUR)
                try:
                    with os.fdopen(os.dup(fd), "rb") as file:
                        file.seek(start)
                        _plan(file, source, start, book, limit)
                finally:
                    os.lseek(fd, before, os.SEEK_SET)
                return
            if path.path is None:
                return
            path = path.path
        with open_input(path, source) as stream:
            _plan(lines_of(stream), source, start, book, limit)
    except (SourceError, OSError):
        return  # the reading pass meets the same trouble and says where


def _plan(lines: IO[bytes], source: str, start: int, book: MailBook, limit: int | None) -> None:
    for _ in split(lines, source, start=start, max_message=limit, book=book, planning=True):
        pass


def split(
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
    plan: Callable[[], None] | None = None,
    planning: bool = False,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Yield an item per message, holding at most one message (up to ``max_message``).

    With ``checkpoint``, a position is yielded every ``every`` messages, always after the
    message before it, and one at the end (where the last message starts), each with the
    number of distinct records before it; without, one ``{"records": N}`` state at the end.
    A read error ends it with one error and a state not complete, at the message it cut.
    A message that repeats an earlier one (same Message-ID, same content give or take what
    lists and archives change: list archives hold many) is not yielded again and is counted
    in the states' ``duplicates``; one that reuses a Message-ID for other content gets an id
    of its own (see :class:`~memtrails.importers.mail.book.MailBook`). ``plan`` is called
    first: it shows ``book`` every message's headers (a pass with ``planning``, that only
    does that), so that threads do not depend on the order of the messages.
    """
    if plan is not None:
        plan()
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
    mmdf = False  # the file separates its messages by MMDF's lines (MMDF)
    closed: int | None = None  # where the last message an MMDF line closed started

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

    def ahead() -> bytes:
        """Return the next line, read ahead and given back."""
        at, following = read()
        if following:
            pending.appendleft(GivenBack(at, following))
        return following

    def finish() -> MemoryRecord | RecordError | None:
        nonlocal count, records, last_counted, kept
        last_counted = False
        book.last = None
        if offset is None:
            return None
        count += 1
        where = f"message {count} at byte {offset}"
        too_big = f"message is larger than {limit} bytes ({size} bytes)"
        raw = message_bytes(kept)
        kept = io.BytesIO()  # the buffer is now raw's: a big message is held once
        if planning:
            book.plan(raw)
            return None
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
        if oversize:
            item = cut_to_limit(item, size - len(raw), too_big)
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
            if starts_line and line.rstrip(b"\r\n") == MMDF:
                mmdf = True  # From_ lines are text from here on
                if offset is not None:  # a message's closing line
                    done, closed = count, offset
                    item = finish()
                    if item is not None:
                        yield item
                    if checkpoint is not None and count > done and count % every == 0:
                        yield checkpoint(pos, records, duplicates=book.duplicates)  # after it
                    offset = None
                else:  # an opening line: the message starts here (where a resume starts)
                    offset, closed = line_at, None
                skipping, separators, after_text = False, separators + 1, False
                kept, size, oversize = io.BytesIO(), 0, False
                in_headers, declared, body_end, stored = True, None, None, None
                continue
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
                        oversize = True
                        kept.truncate(limit)  # its first bytes are read, the rest counted
                        kept.seek(limit)
                    at_line_start = True
                    continue
                line_at, line = read()  # the same line, given back: split as usual
            if (
                starts_line
                and not mmdf
                and probe.startswith(b"From ")
                and (
                    # after a body line, a separator-like line a header does not follow is
                    # quoted text (see :func:`~.mbox_lines.continues_body`)
                    (is_separator(probe) and not (after_text and continues_body(ahead())))
                    or (not in_headers and is_loose_separator(probe, ahead(), after_text))
                )
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
                # Its first bytes are kept (the headers and, before a big attachment, the
                # text): the rest is counted, not held.
                oversize = True
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
    if offset is None and closed is not None:
        last_start = closed  # closed by its MMDF line, and given: the next run reads it again
    else:
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
