"""Turn whatever a source yields into clean records or per-record errors."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Mapping
from dataclasses import replace
from typing import Any

from aiostream import pipable_operator, streamcontext

from ..js import js_trim, utf16_cut, utf16_len
from ..records import MemoryRecord, RecordError, Seen, SourceState

__all__ = ["MAX_TEXT_UNITS", "MAX_TITLE_UNITS", "normalise", "normalise_item"]

MAX_TEXT_UNITS = 1_000_000
MAX_TITLE_UNITS = 500
_FIELDS = ("id", "text", "kind", "author", "title", "at", "source", "thread", "meta")


def _from_mapping(obj: Mapping[str, Any], source: str) -> MemoryRecord:
    unknown = [k for k in obj if k not in _FIELDS]
    if unknown:
        raise ValueError(
            f"unknown field(s) {', '.join(sorted(map(str, unknown)))}; records take {', '.join(_FIELDS)}"
        )
    if "id" not in obj:
        raise ValueError("missing `id`")
    if "text" not in obj:
        raise ValueError("missing `text`")
    fields = dict(obj)
    fields["id"] = _as_id(fields["id"])
    fields.setdefault("source", source)
    for name in ("kind", "author", "title", "thread", "source"):
        value = fields.get(name)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"`{name}` must be a string, got {type(value).__name__}")
    if fields.get("kind") is None:
        fields.pop("kind", None)
    if fields.get("meta") is None:
        fields.pop("meta", None)
    elif not isinstance(fields["meta"], Mapping):
        raise ValueError(f"`meta` must be an object, got {type(fields['meta']).__name__}")
    return MemoryRecord(**fields)


def _as_id(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"`id` must be a string or an integer, got {type(value).__name__}")
    return str(value)


def _clean(text: str | None, limit: int) -> str | None:
    if text is None:
        return None
    text = js_trim(text.replace("\x00", ""))
    if utf16_len(text) > limit:
        text = utf16_cut(text, limit)
    return text or None


def normalise_item(
    item: Any, source: str, position: int
) -> MemoryRecord | RecordError | Seen | SourceState:
    """Return ``item`` as a clean record (trimmed, cut to size, source filled) or an error.

    Args:
        item: a ``MemoryRecord``, a mapping with record fields, or an item that passes
            through untouched (``RecordError``, ``Seen``, ``SourceState``).
        source: the source name given to records that name none.
        position: the item's number in its source, for error messages.
    """
    if isinstance(item, RecordError | Seen | SourceState):
        return item
    try:
        if isinstance(item, MemoryRecord):
            record = item if item.source else replace(item, source=source)
        elif isinstance(item, Mapping):
            record = _from_mapping(item, source)
        elif hasattr(item, "keys") and hasattr(item, "__getitem__"):  # sqlite3.Row, asyncpg Record
            record = _from_mapping({k: item[k] for k in item.keys()}, source)  # noqa: SIM118  rows iterate values
        else:
            raise ValueError(f"expected a MemoryRecord or a mapping, got {type(item).__name__}")
    except (ValueError, TypeError) as exc:
        return RecordError(source, f"item {position}", str(exc))
    text = _clean(record.text, MAX_TEXT_UNITS) or ""
    title = _clean(record.title, MAX_TITLE_UNITS)
    if not text and not title:
        return RecordError(
            record.source, f"record {record.id!r}", "record has no text and no title"
        )
    if text != record.text or title != record.title:
        record = replace(record, text=text, title=title)
    return record


@pipable_operator
async def normalise(
    source: AsyncIterable[Any], name: str = "custom"
) -> AsyncIterator[MemoryRecord | RecordError | Seen | SourceState]:
    """Yield each item of ``source`` as a clean record or a ``RecordError``; never raise for one item.

    Args:
        source: what a source yields: records, errors or mappings with record fields.
        name: the source name for records that carry none.
    """
    position = 0
    async with streamcontext(source) as items:
        async for item in items:
            position += 1
            yield normalise_item(item, name, position)
