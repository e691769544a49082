"""JSON documents that hold records: a chat export, an API dump, a dataset of conversations.

The document is parsed whole (up to a size), and each array of objects with text in it is
read as records, one per object, with ``from_jsonl``'s field defaults; the objects around
the array give its thread and the time of items without one. A document with no such
array (``package.json``, a settings file) is one note, as a lone text file is.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..items import RawItem
from ..limits import Limits
from ..records import MemoryRecord, RecordError, SourceState
from ._guard import RecordStep
from ._input import DamagedInput, compression_of, read_file
from ._json_doc_find import find_arrays
from ._json_doc_items import items_of
from ._json_doc_text import document_text, mojibake_hook
from ._shared import default_source
from .contract import resumable_importer
from .files.lone import note_of
from .jsonl import from_jsonl

__all__ = ["DEFAULT_MAX_DOCUMENT_BYTES", "from_json"]

DEFAULT_MAX_DOCUMENT_BYTES = 128 * 1024 * 1024
"""The largest JSON document read when ``Limits.max_file_bytes`` is not set. Parsed, a
document takes several times its size in memory (measured in docs/sources.md)."""

_FIELDS = frozenset({"id", "text", "title", "author", "at", "thread", "kind"})
_DOCUMENT = RecordStep("JSON", "document")


@resumable_importer()
def from_json(
    path: str | os.PathLike[str],
    *,
    fields: Mapping[str, str] | None = None,
    kind: str | None = None,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
) -> AsyncGenerator[Any, None]:
    """Yield the records of a JSON document: one per object of each array of records in it.

    An array of records is a list of objects most of which have a text key (``text``,
    ``content``, ``body``, ``message``; a list of strings and ``{"text": ..}`` pieces, as
    Telegram writes formatted text, is joined). It may be the document itself (``gh issue
    list --json``, ``mongoexport --jsonArray``) or anywhere in it: a Discord channel's
    ``messages``, each chat of a Telegram export, each session of a dataset's conversation.
    Each object is read as :func:`~memtrails.importers.jsonl.from_jsonl` reads a line (the
    same defaults and ``fields``), and also: author from ``sender_name`` or an object's
    ``name`` (``{"author": {"name": ..}}``, ``{"creator": {"name": ..}}``); time from a key
    naming a date (``created_date``); kind ``chat`` for an object with an author in an array
    of messages, turns or a session. The thread is named by the objects around the array
    (their name, title or id) and its key (``conv-1/session_2``; a Discord channel's
    ``general``); an item without a time takes the one beside its array
    (``session_2_date_time``) or its enclosing object's. The record id is the object's id
    under its thread (ids restart per chat), else its place (``FILE:conv-1/session_2[3]``):
    an unchanged document imports as unchanged, an edited item updates its record alone.

    A record may sit inside a wrapper object (``[{"tweet": {"full_text": ..}}]``, a ChatGPT
    node's ``message`` whose ``content.parts`` hold its text), and an object mapping ids to
    records is an array of them (ChatGPT's ``mapping``); a turn's ``value`` beside its
    author is its text (``{"from": "human", "value": ..}``). A record's own arrays of
    records (an issue's comments) are records of their own, threaded by it; an item without
    text is a record without text (left out and counted, as from_jsonl's empty lines are).

    A top-level array of objects none of which has text is read as JSON Lines would read
    its lines. A document with no records (``package.json``) is one note, as a lone text
    file is; one object on one line, or JSON Lines, under a ``.json`` name is read by
    ``from_jsonl``, as before. ``fields`` maps the keys of records, and the arrays are
    found by its ``text`` key too (``fields={"text": "msg"}`` finds ``[{"msg": ..}]``).

    Args:
        path: the ``.json`` file (``.gz``, ``.bz2`` or ``.xz`` compressed too).
        fields: record field -> JSON key, as for ``from_jsonl``.
        kind: the records' kind (default: ``chat`` or ``note``, as above).
        source: the source name (default: the file's absolute path).
        state: a position ``from_jsonl`` saved, for a ``.json`` file of JSON Lines; a
            document is read whole each time (dedup keeps it cheap).
        limits: ``max_file_bytes`` is the largest document read (default 128 MiB);
            ``max_depth`` how deep records are looked for.

    Returns:
        An async iterator of records, errors and a last position. A document over the size
        limit, or that is not JSON (the error gives its line and column), is one
        ``RecordError``; the import goes on with other inputs.
    """
    file = Path(path)
    name = source or default_source(file)
    unknown = set(fields or {}) - _FIELDS
    if unknown:
        raise ValueError(
            f"`fields` has unknown record fields {sorted(unknown)}; use {sorted(_FIELDS)}"
        )
    return _from_json(file, fields or {}, kind, name, state, limits or Limits())


async def _from_json(
    file: Path,
    fields: Mapping[str, str],
    kind: str | None,
    source: str,
    state: Mapping[str, Any] | None,
    limits: Limits,
) -> AsyncGenerator[Any, None]:
    if file.is_dir():
        raise SourceError(source, "is a folder, not a JSON document")
    lines = False

    def read() -> Iterator[RawItem]:
        nonlocal lines
        for item in _read(file, fields, kind, source, limits):
            if item is None:
                lines = True  # JSON Lines under a .json name
                return
            yield item

    async with aclosing(iterate_in_thread(read, chunk=256)) as items:
        async for item in items:
            yield item
    if lines:
        async with aclosing(
            from_jsonl(file, fields=fields, kind=kind, source=source, state=state, limits=limits)
        ) as rows:
            async for row in rows:
                yield row


def _read(
    file: Path, fields: Mapping[str, str], kind: str | None, source: str, limits: Limits
) -> Iterator[RawItem | None]:
    """Yield the document's items; None alone when it is JSON Lines, not one document."""
    limit = limits.max_file_bytes or DEFAULT_MAX_DOCUMENT_BYTES
    try:
        data = read_file(file, limit)
    except (OSError, DamagedInput) as exc:
        raise SourceError(source, f"cannot read: {exc}") from exc
    if data is None:
        yield RecordError(source, file.name, _too_large(file, limit))
        return
    try:
        text = _script_value(document_text(data))
    except UnicodeDecodeError as exc:
        yield RecordError(source, file.name, f"{file.name} is not JSON: {exc}")
        return
    del data  # parsed from the text alone: the bytes are not held beside the objects
    one_line = "\n" not in text.strip()
    try:
        doc = json.loads(text, object_pairs_hook=mojibake_hook(text))
    except RecursionError:
        yield RecordError(source, file.name, f"nests deeper than Python can parse; {_INSTEAD}")
        return
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and _lines_from(text, exc.pos):
            yield None
            return
        where = f"line {exc.lineno} column {exc.colno}"
        yield RecordError(source, where, f"{file.name} is not JSON: {_why(exc, text)}")
        return
    except ValueError as exc:
        yield RecordError(source, file.name, f"{file.name} is not JSON: {exc}")
        return
    del text
    text_key = fields.get("text")
    arrays = find_arrays(doc, limits.max_depth, (text_key,) if text_key else ())
    if arrays or (isinstance(doc, list) and doc and all(isinstance(v, dict) for v in doc)):
        yield from items_of(doc, arrays, file.name, source, fields, kind)
    elif isinstance(doc, dict) and one_line:
        # One object on one line: a JSON Lines file of one record, read as it always was.
        yield None
        return
    elif isinstance(doc, dict) and any(k in doc for k in ("text", "content", "body", "message")):
        # One record, written whole: as from_jsonl read it from its one line.
        yield from items_of([doc], [], file.name, source, fields, kind, one=True)
    else:
        yield _DOCUMENT.run(source, file.name, _note, file, source, limits)
    yield SourceState(source, {}, mode="full", complete=True)


# A JavaScript file that assigns one JSON value: a Twitter archive's ``data/tweets.js``
# (``window.YTD.tweets.part0 = [ ... ]``).
_ASSIGNED = re.compile(r"\s*(?:(?:var|let|const)\s+)?[A-Za-z_$][\w$]*(?:\.[\w$]+)*\s*=\s*(?=[\[{])")


def _script_value(text: str) -> str:
    """The JSON a script's one assignment holds, else ``text`` as it is."""
    m = _ASSIGNED.match(text)
    if m is None:
        return text
    return text[m.end() :].rstrip().removesuffix(";")


def _why(exc: json.JSONDecodeError, text: str) -> str:
    """What is wrong where the parse stopped, in words for what JSON5 and JavaScript allow."""
    before = text[: exc.pos].rstrip()
    here = text[exc.pos : exc.pos + 2]
    if before.endswith(",") and here[:1] in ("]", "}"):
        return f"{exc.msg}: a comma before a closing bracket (JSON allows none)"
    if here in ("//", "/*"):
        return f"{exc.msg}: a comment (JSON has none; JSON5 and JSONC do)"
    return exc.msg


def _lines_from(text: str, pos: int) -> bool:
    """Whether the value that ended before ``pos`` (where more JSON starts) ended its line:
    JSON Lines, not one document with something after it."""
    head = text[:pos]
    return "\n" in head[len(head.rstrip()) :]


def _note(file: Path, source: str, limits: Limits) -> MemoryRecord | RecordError:
    """The one note a document without records is, as a lone text file of no kind is."""
    try:
        note = note_of(file, limits.max_file_bytes)
    except SourceError as exc:
        return RecordError(source, file.name, exc.reason)
    if note is None:
        return RecordError(source, file.name, "holds no records and is not text to read as a note")
    return replace(note, source=source)


_INSTEAD = "write its records one a line (`jq -c '.[]' FILE > FILE.jsonl`) and add that"


def _too_large(file: Path, limit: int) -> str:
    try:
        with file.open("rb") as head:
            packed = compression_of(head.read(8))
        size = f"{file.stat().st_size:,} bytes"
    except OSError:
        packed, size = None, "its size"
    if packed is not None:
        # Its own size may be small: it is what it unpacks to that is over.
        size = f"{packed}-compressed and unpacks to more than the {limit:,} bytes"
    else:
        size = f"{size}, over the {limit:,}"
    return (
        f"{file.name} is {size} a JSON document is parsed whole up to "
        f"(Limits.max_file_bytes, --max-file-bytes): {_INSTEAD.replace('FILE', file.name)}, "
        "or raise the limit"
    )
