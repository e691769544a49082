"""JSON Lines: one record per line, with a field mapping and defaults a user would expect."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from .._measure import measure
from .._threads import chunks_in_thread, iterate_in_thread
from ..items import RawItem, RawLine
from ..limits import Limits
from ..record_values import exact_ints, float_id
from ..records import MemoryRecord, RecordError, SourceState
from ._guard import RecordStep
from ._input import Input, cannot_read_further, open_input, strip_compression
from ._jsonl_dates import DATE_KEYS, DayOrder, record_time
from ._jsonl_ids import ID_KEYS, IdReader, Versions, read_ahead, unwrap_id
from ._jsonl_media import media_words
from ._jsonl_source import (
    UTF16_BOMS,
    JsonlSource,
    bounded_lines,
    line_digest,
    line_values,
    torn_line,
    utf16_lines,
)
from ._resume import prefix_marks, unfinished, why_not_resumable
from ._shared import default_source, too_long_number
from ._unknown import unknown_content
from .contract import resumable_importer

__all__ = ["JsonlSource", "from_jsonl"]

_DEFAULTS: dict[str, tuple[str, ...]] = {
    "id": ID_KEYS,
    "text": ("text", "content", "body", "message"),
    "title": ("title", "subject"),
    "author": ("author", "user", "from", "speaker", "sender", "role"),
    "at": DATE_KEYS,
    "thread": ("thread", "thread_id", "session_id", "conversation_id", "session", "conversation"),
    "kind": ("kind",),
}
# An author under one of these keys is a conversation's speaker: such a line is a chat turn
# unless it or the caller says otherwise, so the search links it to the turns around it
# (folder/turns.py). Measured on the dev set's chats written without sessions: read as
# notes, hit@1/5/10 .446/.748/.863; as chat turns .633/.921/.950 (benchmarks/README.md).
_CHAT_AUTHORS = frozenset({"speaker", "sender", "role"})
_NAMING = frozenset({"title", "author", "thread"})  # fields an integer may give, as a string
_BOM = b"\xef\xbb\xbf"
_LOOK = 512  # first bytes that tell a format memtrails does not unpack (a tar's at 257)
_LINE = RecordStep("JSON Lines", "line")
#: The most JSON values (objects, arrays, numbers, strings...) one line may hold. Parsed,
#: each costs Python 30-90 bytes, so a 64 MB line of ``{},{},...`` would take 1.5 GB: such a
#: line is refused before it is parsed. No record holds this many (one is refused past
#: ``Limits.max_record_bytes`` anyway).
MAX_LINE_VALUES = 2_000_000


def _pick(obj: Mapping[str, Any], field: str, mapping: Mapping[str, str]) -> tuple[str | None, Any]:
    if field in mapping:
        key = mapping[field]
        return key, obj.get(key)
    for key in _DEFAULTS[field]:
        # A "session" or "conversation" holding an object (its settings, its people) names no
        # thread: it stays in meta, as it did before those keys named one.
        if key in obj and not (field == "thread" and isinstance(obj[key], dict | list)):
            return key, obj[key]
    return None, None


def _strings(value: Any) -> bool:
    """Whether ``value`` is a non-empty list of strings (chat turns, paragraphs)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _string(field: str, key: str | None, value: Any) -> str | None:
    if value is None:
        return None
    # A number names a thread, an author or a title as well as a string does (a chat log's
    # session 17, a user id): a record is not refused for it.
    if isinstance(value, int) and not isinstance(value, bool) and field in _NAMING:
        return str(value)
    if isinstance(value, float) and field in _NAMING and value.is_integer():
        return float_id(f"field {key!r} (mapped to {field})", value)  # 17.0: "17"
    if not isinstance(value, str):
        raise ValueError(
            f"field {key!r} (mapped to {field}) must be a string, got {type(value).__name__}"
        )
    return value


def _record(
    obj: Any,
    line_no: int,
    name: str,
    source: str,
    mapping: Mapping[str, str],
    kind: str | None,
    day_first: frozenset[str],
) -> MemoryRecord:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    used: set[str] = set()
    id_key, given = _pick(obj, "id", mapping)
    id_value = unwrap_id(given)
    if id_key not in ("id", mapping.get("id")) and not (
        id_value and isinstance(id_value, str | int)
    ):
        id_key = id_value = None  # a "_id" or "uuid" that is no id: the line names the record
    if id_value is None:
        if "id" in mapping:
            raise ValueError(f"missing id field {mapping['id']!r}")
        record_id = f"{name}:{line_no}"
    elif isinstance(id_value, float):  # 12.0 from pandas or a SQL tool: the id 12
        record_id = float_id(f"field {id_key!r} (mapped to id)", id_value)
        used.add(id_key or "")
    elif isinstance(id_value, bool) or not isinstance(id_value, str | int):
        raise ValueError(
            f"field {id_key!r} (mapped to id) must be a string or an integer, got {type(id_value).__name__}"
        )
    else:
        record_id = str(id_value)
        used.add(id_key or "")
    fields: dict[str, str | None] = {}
    for field in ("title", "author", "thread", "kind"):
        key, value = _pick(obj, field, mapping)
        fields[field] = _string(field, key, value)
        if key is not None:
            used.add(key)
        if field == "author" and kind is None:
            kind = "chat" if key in _CHAT_AUTHORS and fields[field] else "note"
    at_keys, at = record_time(obj, mapping.get("at"), day_first)
    used.update(at_keys)
    text_key, text_value = _pick(obj, "text", mapping)
    if text_key is not None and text_value is not None:
        # A text given as a list of strings (paragraphs, turns) is one text, a blank line apart.
        joined = "\n\n".join(text_value) if _strings(text_value) else text_value
        text = _string("text", text_key, joined) or ""
        used.add(text_key)
        # A picture's caption or alt text beside the turn: what it shows, in words (a text
        # field named by the caller is the whole text).
        if "text" not in mapping and (media := media_words(obj, used)):
            text = (
                "\n\n".join([text, *media.values()])
                if text.strip()
                else "\n\n".join(media.values())
            )
            used.update(media)
    elif "text" in mapping:
        raise ValueError(f"missing text field {mapping['text']!r}")
    else:
        # No text field: the object's string fields, one "key: value" line each, and its lists
        # of strings (a prompt's turns) one line per item, so none of its words are unsearchable.
        texts = {
            k: v if isinstance(v, str) else "\n".join(v)
            for k, v in obj.items()
            if k not in used and (isinstance(v, str) or _strings(v))
        }
        used.update(texts)
        text = "\n".join(f"{k}: {v}" for k, v in texts.items())
    # An integer past 2**53 as its digits: as a number its fingerprint would be a double's.
    meta = exact_ints({k: v for k, v in obj.items() if k not in used})
    return MemoryRecord(
        id=record_id,
        text=text,
        kind=fields["kind"] or kind or "note",
        author=fields["author"],
        title=fields["title"],
        at=at,
        source=source,
        thread=fields["thread"],
        meta=meta,
    )


def _item(
    raw: bytes,
    line_no: int,
    path: Path,
    source: str,
    mapping: Mapping[str, str],
    kind: str | None,
    limits: Limits,
    day_first: frozenset[str],
) -> MemoryRecord | RecordError | None:
    if not raw.strip():
        return None
    where = f"line {line_no}"
    if line_values(raw, MAX_LINE_VALUES) > MAX_LINE_VALUES:
        return RecordError(
            source,
            where,
            f"holds more JSON values than one record may ({MAX_LINE_VALUES:,}, "
            "importers.jsonl.MAX_LINE_VALUES); not read",
        )
    try:
        obj = json.loads(raw)
    except RecursionError:
        return RecordError(source, where, _too_deep(limits))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        if not raw.endswith(b"\n"):
            return RecordError(source, where, "truncated last line (no newline at end of file)")
        return RecordError(source, where, f"not JSON: {exc}")
    except ValueError:
        # Python's own words would tell the user to change the interpreter's limit.
        keep = "(write it as a JSON string to keep it)"
        return RecordError(source, where, f"{too_long_number()} {keep}; not read")
    # Only a line with that many brackets can nest that deep: most lines skip the walk.
    if (
        raw.count(b"[") + raw.count(b"{") > limits.max_depth
        and measure(obj, limits.max_depth, max_low=sys.maxsize).too_deep
    ):
        return RecordError(source, where, _too_deep(limits))
    try:
        return _record(obj, line_no, path.name, source, mapping, kind, day_first)
    except (ValueError, TypeError) as exc:
        return RecordError(source, where, str(exc))


def _guarded(
    raw: bytes,
    line_no: int,
    path: Path,
    source: str,
    mapping: Mapping[str, str],
    kind: str | None,
    limits: Limits,
    day_first: frozenset[str],
) -> MemoryRecord | RecordError | None:
    """Return :func:`_item`'s item; an unexpected exception is this line's error.
    ``day_first``: the keys whose slashed days this file writes day first (``DayOrder``)."""
    args = (raw, line_no, path, source, mapping, kind, limits, day_first)
    return _LINE.run(source, f"line {line_no}", _item, *args)


def _too_deep(limits: Limits) -> str:
    return f"nests deeper than {limits.max_depth} levels (Limits.max_depth)"


def _read(
    path: Path | Input,
    source: str,
    mapping: Mapping[str, str],
    kind: str | None,
    state: Mapping[str, Any] | None,
    checkpoint_every: int,
    limits: Limits,
    salt: bytes | None = None,
    following: bool = False,
) -> Iterator[RawItem]:
    """Yield the file's records (with ``salt``: its record lines unparsed, as ``RawLine``)."""
    stream = open_input(path, source)  # a compressed file or a pipe reads in full
    f = stream.file
    name = Path(strip_compression(stream.given))
    with stream:
        head = stream.head(_LOOK)
        clause, readable = unknown_content(head, stream.compression, str(stream.given))
        if head and not readable:
            # A .zst or .lz4 file, an archive, gzip inside gzip: its bytes, read as lines,
            # would be one "not JSON" error after another; say what it is instead.
            raise SourceError(source, clause)
        # A UTF-16 file is read as its text, re-encoded: its byte offsets are not the lines'.
        utf16 = head[:2] in UTF16_BOMS
        seekable = stream.seekable and not utf16
        lines = utf16_lines(f) if utf16 else f
        why = why_not_resumable(f, state, ("lines",)) if seekable else "not a plain file"
        if why is None and state is not None:  # its counts are checked: ints, 0 or more
            mode, offset, line_no = "incremental", int(state["offset"]), int(state["lines"])
            skipped = int(state.get("records", 0))
        else:
            mode, offset, line_no, skipped = "full", 0, 0, 0
        why = None if not state else why  # an empty position is none (a run that met damage)
        records = skipped  # records before `offset`, this run's included
        order = DayOrder(state if mode == "incremental" else None)  # "05/08/2023": which first

        def position(complete: bool = False) -> SourceState:
            marks = prefix_marks(f, offset) | {"lines": line_no, "records": records} | order.marks()
            return SourceState(
                source,
                marks,
                mode=mode,
                complete=complete,
                why=why,
                skipped=skipped,
                duplicates=versions.duplicates,
            )

        if salt is not None:
            digest = line_digest(salt, source, name, mapping, kind, limits, order.keys)
            # A line without its id key may be named by its line number: its digest then
            # covers the number too (a longer key is never wrong, only less often found).
            needle = json.dumps(mapping.get("id", "id"), ensure_ascii=False).encode()

            def parse(raw: bytes, where: int) -> tuple[MemoryRecord | RecordError | None, bool]:
                item = make(raw, where)
                # Kept only when the digest makes the record: it covers the line number, or
                # the record is not named by it.
                return item, isinstance(item, MemoryRecord) and (
                    needle not in raw or item.id != f"{name.name}:{where}"
                )

        # A line whose id a later line's record has too is an older version of it: the ids
        # are read ahead, from the file opened once more (an opened Input or a pipe cannot).
        def make(raw: bytes, number: int) -> MemoryRecord | RecordError | None:
            return _guarded(raw, number, name, source, mapping, kind, limits, order.keys())

        limit = limits.max_line_bytes
        keys = (mapping["id"],) if "id" in mapping else ID_KEYS
        read_id = IdReader(keys, lambda raw: line_values(raw, MAX_LINE_VALUES) > MAX_LINE_VALUES)
        versions = Versions.stream(read_id, make)  # a stream: the first line with an id is kept
        if isinstance(path, Path) and stream.regular and stream.given != "-":
            start = (offset, line_no) if seekable else (0, 0)
            versions = (
                read_ahead(path, source, utf16, start, limit, read_id, make, order) or versions
            )
        if seekable:
            f.seek(offset)
        try:
            for raw, size in bounded_lines(lines, limits.max_line_bytes):
                finished = raw.endswith(b"\n")
                if following and not finished and size <= limits.max_line_bytes and torn_line(raw):
                    break  # still being written: it is read whole after the next change
                item: RawItem | None
                if size > limits.max_line_bytes:
                    item = RecordError(
                        source,
                        f"line {line_no + 1}",
                        f"line of {size:,} bytes is over {limits.max_line_bytes:,} "
                        "(Limits.max_line_bytes); not read",
                    )
                else:
                    if line_no == 0 and raw.startswith(_BOM):
                        raw = raw[len(_BOM) :]
                    verdict = versions.verdict(raw, line_no + 1) if raw.strip() else None
                    if verdict is not None:  # another line gives its id: "" if a copy
                        item = (
                            RecordError(source, f"line {line_no + 1}", verdict) if verdict else None
                        )
                    elif salt is None:
                        item = make(raw, line_no + 1)
                    elif raw.strip():
                        # Parsed later, and only when the digest is not one the folder knows;
                        # the position below counts it as a record until then (``settle``).
                        where = line_no + 1
                        key = digest(raw, 0 if needle in raw else where)
                        item = RawLine(key, source, raw, where, parse)
                    else:
                        item = None
                if item is not None:
                    yield item
                if not finished:
                    break  # a last line still being written: read again next time
                records += isinstance(item, MemoryRecord | RawLine)
                line_no += 1
                offset += size
                # After the line's record, never before: a saved position covers only records
                # that reach the folder ahead of it.
                if line_no % checkpoint_every == 0 and seekable:
                    yield position()
        except OSError as exc:
            # Damaged compressed data, or a disk read error: the lines before it are read,
            # the rest cannot be. Not complete: nothing is pruned for what was not read.
            yield RecordError(source, f"line {line_no + 1}", cannot_read_further(exc, seekable))
            try:
                end = position() if seekable else None
            except OSError:  # the marks cannot be read either
                end = None
            yield end or unfinished(source, state, mode=mode, why=why, skipped=skipped)
            return
        if seekable:
            yield position(complete=mode == "full")


@resumable_importer()
def from_jsonl(
    path: str | os.PathLike[str] | Input,
    *,
    fields: Mapping[str, str] | None = None,
    kind: str | None = None,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 1000,
    limits: Limits | None = None,
    following: bool = False,
) -> JsonlSource:
    """Yield one record per line of a JSON Lines file.

    Each line is a JSON object. Record fields come from the object's keys, through
    ``fields`` when given (``{"id": "qid", "text": "question"}``), else by these defaults:
    id from ``id`` (else ``<file name>:<line number>``); text from ``text``, ``content``,
    ``body`` or ``message``, followed by a picture's caption or alt text under a key of its
    own (``caption``, ``blip_caption``, ``alt_text``, ...) (else the object's other string
    fields as ``key: value`` lines); title from ``title``/``subject``; author from ``author``/``user``/``from``/``speaker``/
    ``sender``/``role``; at from the first of ``at``/``timestamp``/``date``/``created_at``/
    ``time`` and the other keys of ``_jsonl_dates.DATE_KEYS`` (``ts``, ``created``,
    ``createdAt``, ``datetime``, ``sent_at``, ``@timestamp``, ..., in any case) that holds a
    date (0, an empty string or a flag is none; docs/sources.md says how each is read); thread
    from ``thread``/``thread_id``/``session_id``/``conversation_id``/``session``/
    ``conversation`` (a string or an integer); kind from ``kind``.
    Keys not used go into ``meta``. A line giving an id a later line gives again is an
    older version of that record: it is not kept (an error naming the later line, or a
    duplicate when the same bytes); a pipe, read once, keeps the first line instead. Lines end with LF or CRLF, or with a lone CR in a file
    without LF (classic Mac OS). Blank lines and a UTF-8 BOM are skipped; a file that
    starts with a UTF-16 byte order mark is read as UTF-16 (in full, without positions). A
    line that is not a JSON object, or whose mapped field has the wrong type, becomes a
    ``RecordError`` naming the line, and the import goes on. Damaged or cut-short compressed
    data, or a read error of the disk, ends the file with one ``RecordError`` (``cannot read
    further: ...``) at the line where it starts; the lines before it are read. The run is
    then not complete (nothing is pruned for it, a stream's included); a plain file's
    position is that line: the next run goes on from there.

    Args:
        path: the ``.jsonl`` file (``.gz``, ``.bz2`` or ``.xz`` compressed, a pipe, or an
            opened ``Input``: read in full, without positions).
        fields: record field -> JSON key, for keys that differ from the defaults.
        kind: the records' kind when the line has no ``kind``. By default ``"chat"`` for a
            line whose author is its ``speaker``, ``sender`` or ``role`` (a conversation's
            turn: the search links it to the turns around it), else ``"note"``.
        source: the source name (default: the file's absolute path).
        state: the position a previous run reported (``Memory.source_state``): when the
            part of the file read then is unchanged (same first and last 64 KiB before
            the offset, file not shorter), only the lines after it are read. Otherwise,
            or without a state, the whole file is read.
        checkpoint_every: yield a ``SourceState`` every this many lines, so an import
            killed half-way resumes near where it stopped.
        limits: ``max_line_bytes`` and ``max_depth`` apply here (default: ``Limits()``): a
            longer line is a ``RecordError`` and is never read into memory whole; a line
            nesting deeper is a ``RecordError`` too. Pass the same ``Limits`` to
            ``Memory.ingest`` for the others.
        following: the file is being written (a watched source): a last line that has no
            newline yet and is not yet JSON is left for the next run, without an error. Else
            it is the ``RecordError`` "truncated last line" (a file cut short); either way the
            saved position stays before it, so it is read again once it is whole.

    Raises:
        SourceError: the file cannot be opened (when iteration starts).

    Returns:
        An async iterator of records, errors and positions (a :class:`JsonlSource`).

    Example::

        await memory.ingest(from_jsonl("tickets.jsonl", fields={"id": "key", "text": "summary"}))
    """
    settings = (path, fields, kind, source, state, checkpoint_every, limits)
    return JsonlSource(lambda salt: _from_jsonl(*settings, salt=salt, following=following))


async def _from_jsonl(
    path: str | os.PathLike[str] | Input,
    fields: Mapping[str, str] | None,
    kind: str | None,
    source: str | None,
    state: Mapping[str, Any] | None,
    checkpoint_every: int,
    limits: Limits | None,
    salt: bytes | None,
    following: bool = False,
) -> AsyncGenerator[Any, None]:
    file = path if isinstance(path, Input) else Path(path)
    name = source or default_source(file.given if isinstance(file, Input) else file)
    unknown = set(fields or {}) - set(_DEFAULTS)
    if unknown:
        raise ValueError(
            f"`fields` has unknown record fields {sorted(unknown)}; use {sorted(_DEFAULTS)}"
        )
    if isinstance(file, Path) and file.is_dir():
        raise SourceError(name, "is a folder, not a JSON Lines file")
    if checkpoint_every < 1:
        raise ValueError("`checkpoint_every` must be at least 1")

    def read() -> Iterator[RawItem]:
        return _read(
            file,
            name,
            fields or {},
            kind,
            state,
            checkpoint_every,
            limits or Limits(),
            salt,
            following,
        )

    if salt is None:
        async with aclosing(iterate_in_thread(read, chunk=256)) as items:
            async for item in items:
                yield item
    else:
        async with aclosing(chunks_in_thread(read, chunk=256)) as chunks:
            async for chunk in chunks:
                yield chunk
