"""JSON Lines: one record per line, with a field mapping and defaults a user would expect."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator, Mapping
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..records import At, MemoryRecord, RecordError
from ._threaded import iterate_in_thread

__all__ = ["from_jsonl"]

_DEFAULTS: dict[str, tuple[str, ...]] = {
    "id": ("id",),
    "text": ("text", "content", "body", "message"),
    "title": ("title", "subject"),
    "author": ("author", "user", "from"),
    "at": ("at", "timestamp", "date", "created_at", "time"),
    "thread": ("thread", "thread_id"),
    "kind": ("kind",),
}
_BOM = b"\xef\xbb\xbf"


def _pick(obj: Mapping[str, Any], field: str, mapping: Mapping[str, str]) -> tuple[str | None, Any]:
    if field in mapping:
        key = mapping[field]
        return key, obj.get(key)
    for key in _DEFAULTS[field]:
        if key in obj:
            return key, obj[key]
    return None, None


def _string(field: str, key: str | None, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(
            f"field {key!r} (mapped to {field}) must be a string, got {type(value).__name__}"
        )
    return value


def _record(
    obj: Any, line_no: int, name: str, source: str, mapping: Mapping[str, str], kind: str
) -> MemoryRecord:
    if not isinstance(obj, dict):
        raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
    used: set[str] = set()
    id_key, id_value = _pick(obj, "id", mapping)
    if id_value is None:
        if "id" in mapping:
            raise ValueError(f"missing id field {mapping['id']!r}")
        record_id = f"{name}:{line_no}"
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
    at_key, at_value = _pick(obj, "at", mapping)
    at: At | None = None
    if at_value is not None:
        if isinstance(at_value, bool) or not isinstance(at_value, str | int | float):
            raise ValueError(
                f"field {at_key!r} (mapped to at) must be a date string or epoch milliseconds"
            )
        try:
            at = At.of(at_value)
        except ValueError as exc:
            raise ValueError(f"field {at_key!r}: {exc}") from None
        used.add(at_key or "")
    text_key, text_value = _pick(obj, "text", mapping)
    if text_key is not None and text_value is not None:
        text = _string("text", text_key, text_value) or ""
        used.add(text_key)
    elif "text" in mapping:
        raise ValueError(f"missing text field {mapping['text']!r}")
    else:
        # No text field: the object's string fields, one "key: value" line each.
        parts = [f"{k}: {v}" for k, v in obj.items() if isinstance(v, str) and k not in used]
        used.update(k for k, v in obj.items() if isinstance(v, str))
        text = "\n".join(parts)
    meta = {k: v for k, v in obj.items() if k not in used}
    return MemoryRecord(
        id=record_id,
        text=text,
        kind=fields["kind"] or kind,
        author=fields["author"],
        title=fields["title"],
        at=at,
        source=source,
        thread=fields["thread"],
        meta=meta,
    )


def _read(
    path: Path, source: str, mapping: Mapping[str, str], kind: str
) -> Iterator[MemoryRecord | RecordError]:
    try:
        f = path.open("rb")
    except OSError as exc:
        raise SourceError(source, f"cannot open: {exc.strerror or exc}") from exc
    with f:
        line_no = 0
        for raw in f:
            line_no += 1
            if line_no == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if not raw.strip():
                continue
            where = f"line {line_no}"
            try:
                obj = json.loads(raw)
            except ValueError as exc:
                truncated = not raw.endswith(b"\n")
                reason = (
                    "truncated last line (no newline at end of file)"
                    if truncated
                    else f"not JSON: {exc}"
                )
                yield RecordError(source, where, reason)
                continue
            try:
                yield _record(obj, line_no, path.name, source, mapping, kind)
            except (ValueError, TypeError) as exc:
                yield RecordError(source, where, str(exc))


async def from_jsonl(
    path: str | os.PathLike[str],
    *,
    fields: Mapping[str, str] | None = None,
    kind: str = "note",
    source: str | None = None,
) -> AsyncIterator[MemoryRecord | RecordError]:
    """Yield one record per line of a JSON Lines file.

    Each line is a JSON object. Record fields come from the object's keys, through
    ``fields`` when given (``{"id": "qid", "text": "question"}``), else by these defaults:
    id from ``id`` (else ``<file name>:<line number>``); text from ``text``, ``content``,
    ``body`` or ``message`` (else the object's other string fields as ``key: value`` lines);
    title from ``title``/``subject``; author from ``author``/``user``/``from``; at from
    ``at``/``timestamp``/``date``/``created_at``/``time``; thread from ``thread``/``thread_id``.
    Keys not used go into ``meta``. Blank lines and a UTF-8 BOM are skipped. A line that is
    not a JSON object, or whose mapped field has the wrong type, becomes a ``RecordError``
    naming the line, and the import goes on.

    Args:
        path: the ``.jsonl`` file.
        fields: record field -> JSON key, for keys that differ from the defaults.
        kind: the records' kind when the line has no ``kind``.
        source: the source name (default: the file's absolute path).

    Raises:
        SourceError: the file cannot be opened.

    Example::

        await memory.ingest(from_jsonl("tickets.jsonl", fields={"id": "key", "text": "summary"}))
    """
    file = Path(path)
    name = source or str(file.resolve())
    unknown = set(fields or {}) - set(_DEFAULTS)
    if unknown:
        raise ValueError(
            f"`fields` has unknown record fields {sorted(unknown)}; use {sorted(_DEFAULTS)}"
        )
    if file.is_dir():
        raise SourceError(name, "is a folder, not a JSON Lines file")
    async for item in iterate_in_thread(lambda: _read(file, name, fields or {}, kind), chunk=256):
        yield item
