"""Stream the messages of an mbox file as mail records, in bounded memory, off the event loop."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncGenerator, Callable, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import IO, Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..records import MemoryRecord, RecordError, SourceState
from ._resume import prefix_marks, why_not_resumable
from ._shared import Closing, as_generator, default_source
from .mail import MAX_MESSAGE_BYTES, message_to_item

__all__ = ["from_mbox"]

_BOM = b"\xef\xbb\xbf"
_LINE_LIMIT = 1 << 20  # read at most 1 MiB per readline: a newline-free file stays bounded
_CHUNK = 16  # items per worker-thread hop; each carries only decoded text, not attachments

_DAY = rb"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)"
_MON = rb"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_ZONE = rb"(?:[A-Z]{1,5}|[+-]\d{4})"
_ASCTIME = (
    rb"(?:" + _DAY + rb",?\s+)?" + _MON + rb"\s+\d{1,2}\s+\d{1,2}:\d\d(?::\d\d)?"
    rb"(?:\s+" + _ZONE + rb")?\s+\d{4}"
)
_RFC2822 = rb"(?:" + _DAY + rb",?\s+)?\d{1,2}\s+" + _MON + rb"\s+\d{4}\s+\d{1,2}:\d\d(?::\d\d)?"
_SEPARATOR = re.compile(
    rb"From (?:"
    rb"\S*(?: at \S+)?\s+(?:" + _ASCTIME + rb"|" + _RFC2822 + rb")(?:\s.*)?"
    rb"|-[ \t]*"
    rb"|[^\s@]*@\S+[ \t]*"
    rb")\r?\n?",
)
_ESCAPED_FROM = re.compile(rb"^>(>*From )", re.MULTILINE)


def is_separator(line: bytes) -> bool:
    """Tell whether an mbox line (with its line ending) is a message separator by shape."""
    return _SEPARATOR.fullmatch(line) is not None


async def from_mbox(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    start: int = 0,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 256,
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
       pipermail ``x at y`` pair, or
    3. it is Mozilla's ``From -`` (nothing after the dash but blanks), or
    4. it is a lone address with no date (``From 1844347792267117879@xxx``, Gmail Takeout).

    A blank line before the separator is *not* required (``twisted-divunal-list`` has 385 of
    399 separators directly after text, ``mimekit-simple`` uses ``From -`` after text). Body
    lines such as ``From the Protocol object, ...`` or ``From Russia with love`` do not match
    and stay in the message. Lines matching ``^>+From `` lose one ``>`` (mboxrd unescaping).
    ``Content-Length`` headers (mboxcl) are ignored. The ``From_`` line itself is never decoded
    (it may hold 8-bit bytes in any charset) and is not part of the message.

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
        start: byte offset to begin at, e.g. a ``SourceState``'s ``offset``. If it is not
            at a separator, reading skips to the next one.
        state: the position the last run reported (``Memory.source_state``).
        checkpoint_every: messages between two ``SourceState`` items.

    Raises:
        SourceError: the file is missing, is a folder, or cannot be read.
        ValueError: ``start`` is negative.

    Returns:
        An async generator; close it (``contextlib.aclosing``) to stop early and free the file.

    Example:
        >>> from contextlib import aclosing
        >>> async with aclosing(from_mbox("archive.mbox")) as items:  # doctest: +SKIP
        ...     async for item in items:
        ...         print(item.id if isinstance(item, MemoryRecord) else item)
    """
    if start < 0:
        raise ValueError(f"`start` must be a byte offset of at least 0, got {start}")
    name = source if source is not None else default_source(path)
    file_path = Path(path)

    if checkpoint_every < 1:
        raise ValueError("`checkpoint_every` must be at least 1")

    def make() -> Iterator[MemoryRecord | RecordError | SourceState]:
        # The file is opened by the generator on its first step, inside its own ``with``:
        # if the consumer is cancelled before that step, nothing is left open.
        return Closing(_read_mbox(file_path, name, start, state, checkpoint_every), None)

    # Close the thread-side iterator (and so the file) as soon as this generator is closed,
    # not whenever the inner generator happens to be garbage-collected.
    async with aclosing(as_generator(iterate_in_thread(make, chunk=_CHUNK))) as items:
        async for item in items:
            yield item


def _open(path: Path, source: str) -> IO[bytes]:
    if path.is_dir():
        raise SourceError(
            source, "is a folder, not an mbox file (use from_eml for a folder of .eml)"
        )
    try:
        return open(path, "rb")
    except FileNotFoundError as exc:
        raise SourceError(source, "no such file") from exc
    except PermissionError as exc:
        raise SourceError(source, "permission denied") from exc
    except OSError as exc:
        raise SourceError(source, f"cannot open: {exc.strerror or exc}") from exc


def _read_mbox(
    path: Path,
    source: str,
    start: int,
    state: Mapping[str, Any] | None,
    every: int,
    max_message: int | None = None,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Split an mbox into messages and convert each one (blocking; run in a thread)."""
    with _open(path, source) as handle:
        if not handle.seekable():  # a pipe: no position to save or resume
            yield from _split(handle, source, start=start, max_message=max_message)
            return
        why = why_not_resumable(handle, state) if state is not None else None
        mode = "incremental" if state is not None and why is None else "full"
        skipped = 0
        if state is not None and mode == "incremental":
            start = int(state["offset"])
            skipped = int(state.get("records", 0))

        def position(offset: int, records: int, complete: bool = False) -> SourceState:
            marks = {**prefix_marks(handle, offset), "records": skipped + records}
            return SourceState(
                source, marks, mode=mode, complete=complete, why=why, skipped=skipped
            )

        yield from _split(
            handle, source, start=start, max_message=max_message, checkpoint=position, every=every
        )


def _split(
    handle: IO[bytes],
    source: str,
    *,
    start: int = 0,
    max_message: int | None = None,
    checkpoint: Callable[..., SourceState] | None = None,
    every: int = 256,
) -> Iterator[MemoryRecord | RecordError | SourceState]:
    """Yield an item per message, holding at most one message (up to ``max_message``).

    With ``checkpoint``, a position is yielded every ``every`` messages, always after the
    message before it, and one at the end (where the last message starts), each with the
    number of records before it.
    """
    limit = MAX_MESSAGE_BYTES if max_message is None else max_message
    if start:
        handle.seek(start)  # only when asked: a pipe (``<(zcat a.mbox.gz)``) cannot seek
    pos = start
    count = 0
    offset: int | None = None  # where the current message's separator (or text) starts
    lines: list[bytes] = []
    size = 0
    oversize = False
    at_line_start = True
    first = True
    skipping = start > 0  # resumed mid-file: ignore text until the first separator

    records = 0  # records yielded, for the positions

    def finish(end: int) -> MemoryRecord | RecordError | None:
        nonlocal count
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
        raw = b"".join(lines)
        lines.clear()  # free the pieces before parsing: a big message is then held once
        # The blank line before the next separator belongs to the mbox, not the message.
        if raw.endswith(b"\n\n"):
            raw = raw[:-1]
        elif raw.endswith(b"\r\n\r\n"):
            raw = raw[:-2]
        if b">From " in raw:  # the regex is costly on big messages; most have no escape
            raw = _ESCAPED_FROM.sub(rb"\1", raw)
        return message_to_item(raw, source=source, where=where, meta={})

    while True:
        line = handle.readline(_LINE_LIMIT)
        if not line:
            break
        line_at = pos
        pos += len(line)
        if first:
            first = False
            if start == 0 and line.startswith(_BOM):
                line = line[len(_BOM) :]
            if line.startswith(b"From "):
                skipping = False
                offset, lines, size, oversize = line_at, [], 0, False
                at_line_start = line.endswith(b"\n")
                continue
        starts_line, at_line_start = at_line_start, line.endswith(b"\n")
        if starts_line and line.startswith(b"From ") and is_separator(line):
            item = finish(line_at)
            if item is not None:
                yield item
                records += isinstance(item, MemoryRecord)
                if checkpoint is not None and count % every == 0:
                    yield checkpoint(line_at, records)
            skipping = False
            offset, lines, size, oversize = line_at, [], 0, False
            continue
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
            lines = []  # drop what was kept; count the rest without holding it
            continue
        lines.append(line)
    last_start = offset
    item = finish(pos)
    if item is not None:
        yield item
    if checkpoint is not None:
        # The next run starts at the last message again: `records` does not count it yet.
        at = last_start if last_start is not None else start
        yield checkpoint(at, records, complete=start == 0)
