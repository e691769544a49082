"""A JSON document's record arrays as records: each object read as ``from_jsonl`` reads a
line, with what exporters write beside its defaults (an author object, a ``created_date``),
then given its array's thread, time and a stable id."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from ..records import MemoryRecord, RecordError
from ._guard import RecordStep
from ._json_doc_find import (
    AUTHOR_KEYS,
    MORE_TEXT_KEYS,
    TEXT_KEYS,
    Found,
    record_arrays,
    spoken_value,
    textual,
)
from ._json_doc_text import PIECE_KEYS, is_html, plain_text
from ._jsonl_dates import DayOrder
from ._jsonl_ids import ID_KEYS
from .documents._html import html_to_text
from .jsonl import _DEFAULTS, _record

__all__ = ["items_of"]

_ITEM = RecordStep("JSON", "item")
_NUMBERED_DAY = re.compile(r"\s*\d{1,2}[/-]\d{1,2}[/-]\d{4}")  # what DayOrder learns from
_UNNAMED = "\x00"  # the name from_jsonl's record ids fall back to: replaced by the item's place
# from_jsonl's author keys, best first (AUTHOR_KEYS starts with them).
_JSONL_AUTHORS = _DEFAULTS["author"]
_NAME_KEYS = (
    "name", "display_name", "displayName", "global_name", "nickname", "full_name",
    "fullName", "username", "login", "screen_name", "handle", "email", "role",
)  # fmt: skip
# An id key of a record besides from_jsonl's: ``dia_id``, ``message_id``, ``msgId``.
_OWN_ID = re.compile(r"(^|_)id$|Id$|^id_str$", re.I)
_NOT_OWN_ID = re.compile(r"reply|parent|thread|conversation|chat|channel|session|user|author|"
                         r"sender|from|to_|guild|room|group|sample", re.I)  # fmt: skip


def _name(value: Mapping[str, Any]) -> tuple[str, str] | None:
    """The key and the value that name an author object, or None."""
    for key in _NAME_KEYS:
        name = value.get(key)
        if isinstance(name, str) and name.strip():
            return key, name
    # Microsoft Graph's {"from": {"user": {"displayName": ..}}}: the name one level down.
    for child in value.values():
        if isinstance(child, dict):
            for key in _NAME_KEYS:
                name = child.get(key)
                if isinstance(name, str) and name.strip():
                    return key, name
    return None


def _shaped(obj: dict[str, Any], nested: list[str]) -> dict[str, Any]:
    """Return the object as ``from_jsonl`` reads it: its author an object's name, its text
    pieces one string, its own record arrays (replies) left to be records of their own."""
    out = {k: v for k, v in obj.items() if k not in nested}
    for key in AUTHOR_KEYS:
        value = out.get(key)
        if isinstance(value, dict):
            named = _name(value)
            del out[key]
            out[f"{key}_info"] = value  # what else it says stays in meta
            if named is not None:
                # {"role": "user"} alone: a conversation's speaker, as a line's role is
                out["role" if named[0] == "role" and "role" not in out else key] = named[1]
    if not any(out.get(k) is not None for k in _JSONL_AUTHORS):
        for key in AUTHOR_KEYS[len(_JSONL_AUTHORS) :]:
            value = out.get(key)
            if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
                # sender_name is Messenger's turn author: a sender, so a chat turn
                out["sender" if key == "sender_name" else "author"] = out.pop(key)
                break
    if not any(k in out for k in TEXT_KEYS):
        for key in MORE_TEXT_KEYS:
            if key in out:
                out["text"] = out.pop(key)
                break
        else:
            for key in PIECE_KEYS:
                if isinstance(out.get(key), list) and plain_text(out[key]) is not None:
                    out["text"] = out.pop(key)
                    break
            else:
                if spoken_value(out):
                    out["text"] = out.pop("value")
    for key in TEXT_KEYS:
        if key in out:
            joined = plain_text(out[key])
            if joined is not None:
                out[key] = joined
            elif isinstance(out[key], str) and is_html(out):
                out[key] = html_to_text(out[key])  # Teams' "RichText/Html", a "format": "html"
            break
    return out


def _unwrapped(obj: dict[str, Any]) -> dict[str, Any]:
    """The object a record is read from: a wrapper's inner object (``{"tweet": {..}}``),
    with what the wrapper itself says beside it (its id, its time) but its ``kind``."""
    where = textual(obj)
    if where is None or where[0] is None:
        return obj
    key, inner = where
    around = {
        k: v
        for k, v in obj.items()
        if k != key
        and k not in inner
        and k not in ("kind", "type")
        and not isinstance(v, dict | list)
    }
    return {**inner, **around}


def _id_key(items: list[Any]) -> str | None:
    """An id key other than from_jsonl's that every object has, with a value of its own
    (``dia_id``): none when the objects have one of from_jsonl's."""
    objects = [o for o in items if isinstance(o, dict)]
    if not objects or any(k in o for o in objects for k in ID_KEYS):
        return None
    for key in objects[0]:
        if not _OWN_ID.search(key) or _NOT_OWN_ID.search(key):
            continue
        values = [o.get(key) for o in objects]
        named = all(
            isinstance(v, str | int) and not isinstance(v, bool) and v != "" for v in values
        )
        if named and len(set(values)) == len(values):
            return str(key)
    return None


def items_of(
    doc: Any,
    arrays: list[Found],
    name: str,
    source: str,
    fields: Mapping[str, str],
    kind: str | None,
    one: bool = False,
) -> Iterator[MemoryRecord | RecordError]:
    """Yield the records of ``arrays`` (or of ``doc``, a top-level array of objects without
    text, when there are none), each with its thread, time and id.

    ``one``: ``doc`` is one object written whole, a list of it here: its record is
    ``from_jsonl``'s for a file of that one line (id ``FILE:1``).
    """
    if one:
        yield _ITEM.run(source, "line 1", _one, doc[0], name, source, fields, kind)
        return
    if not arrays:
        arrays = [Found(doc, None, None, False, by_text=False)]
    day_first = _day_first(arrays)
    for found in arrays:
        objects = [_unwrapped(o) for o in found.items if isinstance(o, dict)]
        id_key = None if "id" in fields else _id_key(objects)
        for n, obj in enumerate(found.items):
            place = f"{found.thread or ''}[{n}]"
            yield _ITEM.run(
                source, place, _item, obj, found, n, name, source, fields, kind, id_key, day_first
            )


def _day_first(arrays: list[Found]) -> frozenset[str]:
    """The order of the days in numbers the document writes, as its items' values show
    ("25/12/2023" under a key: "05/08/2023" there is 5 August), read by ``DayOrder`` as a
    JSON Lines file's lines are."""
    order = DayOrder()
    for found in arrays:
        for obj in found.items:
            if not isinstance(obj, dict):
                continue
            for key, value in _unwrapped(obj).items():
                if isinstance(value, str) and _NUMBERED_DAY.match(value) is not None:
                    order.saw(json.dumps({key: value}).encode())
    return order.keys()


def _one(
    obj: Any, name: str, source: str, fields: Mapping[str, str], kind: str | None
) -> MemoryRecord | RecordError:
    try:
        return _record(obj, 1, name, source, fields, kind, frozenset())
    except (ValueError, TypeError) as exc:
        return RecordError(source, "line 1", str(exc))


def _item(
    obj: Any,
    found: Found,
    n: int,
    name: str,
    source: str,
    fields: Mapping[str, str],
    kind: str | None,
    id_key: str | None,
    day_first: frozenset[str],
) -> MemoryRecord | RecordError:
    place = f"{found.thread or ''}[{n}]"
    if not isinstance(obj, dict):
        return RecordError(source, place, f"expected a JSON object, got {type(obj).__name__}")
    shaped = _shaped(_unwrapped(obj), record_arrays(obj, True))
    if found.by_text and textual(obj) is None and "text" not in fields:
        # No text among texts (a chat's root node, a photo): a record without text, left
        # out and counted as a JSON Lines line with an empty text is, not its keys as text.
        shaped["text"] = ""
    mapping = dict(fields)
    if id_key is not None:
        mapping["id"] = id_key
    try:
        record = _record(shaped, n, _UNNAMED, source, mapping, kind, day_first)
    except (ValueError, TypeError) as exc:
        return RecordError(source, place, str(exc))
    if record.id == f"{_UNNAMED}:{n}":
        record_id = f"{name}:{place}"
    elif found.thread is not None:
        # Ids restart per chat (Telegram's), or are unique per sample only (a dialogue's
        # "D1:3"): under their thread they name one record of the file.
        record_id = f"{found.thread}/{record.id}"
    else:
        record_id = record.id
    changes: dict[str, Any] = {"id": record_id}
    if record.thread is None and found.thread is not None:
        changes["thread"] = found.thread
    if record.at is None and found.when is not None:
        changes["at"] = found.when
    if (
        kind is None
        and found.chat
        and record.kind == "note"
        and record.author
        and "kind" not in shaped
        and "kind" not in fields
    ):
        changes["kind"] = "chat"
    return replace(record, **changes)
