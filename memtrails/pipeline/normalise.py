"""Turn whatever a source yields into clean records or per-record errors."""

from __future__ import annotations

import re
import sys
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from dataclasses import replace
from typing import Any

from aiostream import pipable_operator

from .._measure import NotJSON, json_bytes, measure, str_bounds, well_formed_value
from ..limits import CUT_KEY, Limits
from ..portable import JS_WHITESPACE, js_stringify, js_trim, js_well_formed, utf16_cut, utf16_len
from ..record_values import exact_ints, id_value, meta_value, plain_meta, row_fields, text_value
from ..records import RECORD_FIELDS, MemoryRecord, RecordError, Seen, SourceState
from ._stage import Stage, StageContext, each

__all__ = [
    "CUT_MARGIN",
    "MAX_TEXT_UNITS",
    "MAX_TITLE_UNITS",
    "NORMALISE",
    "normalise",
    "normalise_item",
]

_DEFAULT_LIMITS = Limits()
MAX_TEXT_UNITS = _DEFAULT_LIMITS.max_text_units
MAX_TITLE_UNITS = _DEFAULT_LIMITS.max_title_units
_NAME_FIELDS = ("id", "source", "kind", "author", "thread")
# Keys, quotes, colons, commas and a timestamp of a stored record: well under this many bytes.
_RECORD_OVERHEAD = 200
_NOT_SPACE = re.compile("[^" + re.escape(JS_WHITESPACE) + "]")
_NOTE_BYTES = 200  # one entry of meta["_cut"], at most
CUT_MARGIN = 64 * 1024
"""UTF-16 units an import keeps past a text or title limit until secrets are scrubbed: far
more than any secret (a PEM block of a 4096-bit key is about 3,300)."""


def _from_mapping(obj: Mapping[str, Any], source: str) -> MemoryRecord:
    # Keys that are not record fields go into meta, as a JSON Lines line's do (a row's
    # extra column is a fact about the record, not a mistake); an explicit meta wins.
    extra = {k: obj[k] for k in obj if k not in RECORD_FIELDS}
    if any(not isinstance(k, str) for k in extra):
        raise ValueError(f"field names must be strings, got {sorted(map(repr, extra))[0]}")
    if extra:
        meta = obj.get("meta")
        if meta is not None and not isinstance(meta, Mapping):
            raise ValueError(f"`meta` must be an object, got {type(meta).__name__}")
        obj = {k: obj[k] for k in obj if k in RECORD_FIELDS}
        # A driver's Decimal, UUID, bytes or date: as JSON holds it (record_values).
        obj["meta"] = {**{k: meta_value(k, v) for k, v in extra.items()}, **(meta or {})}
    if "id" not in obj:
        raise ValueError("missing `id`")
    if "text" not in obj:
        raise ValueError("missing `text`")
    fields = dict(obj)
    fields["id"] = id_value("id", fields["id"])
    fields.setdefault("source", source)
    for name in ("text", "kind", "author", "title", "thread", "source"):
        value = fields.get(name)
        if value is None or isinstance(value, str):
            continue
        value = id_value(name, value) if name == "thread" else text_value(name, value)
        if name != "text" and not isinstance(value, str):
            raise ValueError(f"`{name}` must be a string, got {type(value).__name__}")
        fields[name] = value
    if fields.get("kind") is None:
        fields.pop("kind", None)
    if fields.get("meta") is None:
        fields.pop("meta", None)
    elif not isinstance(fields["meta"], Mapping):
        raise ValueError(f"`meta` must be an object, got {type(fields['meta']).__name__}")
    else:
        fields["meta"] = exact_ints(fields["meta"])  # an int past 2**53: its digits
    return MemoryRecord(**fields)


def _clean_cut(
    text: str | None, field: str, limit: int, cuts: list[dict[str, Any]], margin: int = 0
) -> str | None:
    """Return ``text`` without NULs, trimmed, cut to ``limit`` UTF-16 units (noted), well-formed.

    With a ``margin``, ``margin`` units past the limit are kept: the scrubber then sees a
    secret that straddles the limit whole, and the fit stage makes the cut the note names.
    """
    if text is None:
        return None
    keep = limit + margin
    if len(text) > 2 * keep and "\x00" not in text:
        # Far too long: trim and cut without copying the whole text (the copy alone would
        # double a 200 MB text's memory). Same result as trimming first, then cutting.
        lead = _NOT_SPACE.search(text)
        if lead is None:
            return None
        start = lead.start()
        end = len(text)
        while text[end - 1] in JS_WHITESPACE:
            end -= 1
        units = utf16_len(text) - start - (len(text) - end)  # whitespace is one unit each
        if units <= limit:
            return js_well_formed(text[start:end])
        kept = utf16_cut(text[start : start + keep], keep)
        cuts.append({"field": field, "unit": "UTF-16", "was": units, "kept": min(limit, units)})
        return js_well_formed(kept)
    # str.replace and strip return the string itself when they change nothing.
    text = js_trim(text.replace("\x00", ""))
    units = utf16_len(text)
    if units > limit:
        text = utf16_cut(text, keep) if units > keep else text
        cuts.append({"field": field, "unit": "UTF-16", "was": units, "kept": limit})
    return js_well_formed(text) or None


def _small_str(record: MemoryRecord, limits: Limits) -> RecordError | MemoryRecord:
    """Refuse a record whose id or name fields are over ``max_field_bytes``; fix lone surrogates."""
    fixed: dict[str, Any] = {}
    for name in _NAME_FIELDS:
        value = getattr(record, name)
        if value is None:
            continue
        if 6 * len(value) + 2 > limits.max_field_bytes and (
            len(value) + 2 > limits.max_field_bytes or json_bytes(value) > limits.max_field_bytes
        ):
            return _refuse(
                record,
                f"`{name}` is over {limits.max_field_bytes:,} bytes (Limits.max_field_bytes)",
            )
        good = js_well_formed(value)
        if good is not value:
            fixed[name] = good
    return replace(record, **fixed) if fixed else record


def _refuse(record: MemoryRecord, reason: str) -> RecordError:
    # The id as a string field may be huge or ill-formed itself: name the record by a prefix.
    shown = js_well_formed(utf16_cut(record.id, 80))
    return RecordError(js_well_formed(record.source), f"record {shown!r}", reason)


class _TooDeep(ValueError):
    """A meta entry nests deeper than ``max_depth``."""


def _fit_meta(
    meta: Mapping[str, Any], limits: Limits, cuts: list[dict[str, Any]]
) -> tuple[dict[str, Any] | None, int, int]:
    """Return ``meta`` within the limits (None: unchanged as it is) and bounds on its size.

    Entries over ``max_field_bytes`` are left out (and noted in ``cuts``); lone surrogates in
    keys and strings become U+FFFD, keys keeping their places.

    Raises:
        _TooDeep: an entry nests deeper than ``max_depth``; nothing recursive has seen it yet.
    """
    try:
        whole = measure(meta, limits.max_depth, limits.max_field_bytes)
    except NotJSON as exc:
        # A Decimal, a datetime, a UUID: read as a row's extra column is (record_values).
        plain = plain_meta(meta, limits.max_depth)
        if plain is meta:
            raise ValueError(_not_json(meta, exc)) from None
        fitted, low, high = _fit_meta(plain, limits, cuts)
        return (dict(plain) if fitted is None else fitted), low, high
    ordered = _sets_sorted(meta) if _holds_set(meta, limits.max_depth) else None
    if not (whole.too_deep or whole.too_big or whole.surrogates) and (
        whole.high <= limits.max_field_bytes
    ):
        # Nothing to fix and even all of it fits in one field: the usual case, in one walk.
        return ordered, whole.low, whole.high
    meta = ordered if ordered is not None else meta
    kept: list[tuple[str, Any]] = []
    changed = ordered is not None
    low = high = 2
    for key, value in meta.items():
        name = key if isinstance(key, str) else str(key)
        good_name = js_well_formed(name)
        m = measure(value, limits.max_depth, limits.max_field_bytes, depth=1)
        if m.too_deep:
            raise _TooDeep(
                f"meta {good_name!r} nests deeper than {limits.max_depth} levels (Limits.max_depth)"
            )
        k_low, k_high = str_bounds(name)
        # An entry's size is its stored JSON: `"key":value`.
        if m.too_big or (
            m.high + k_high + 1 > limits.max_field_bytes
            and json_bytes(name) + 1 + json_bytes(value) > limits.max_field_bytes
        ):
            changed = True
            cuts.append(
                {"field": f"meta.{good_name}", "unit": "bytes", "limit": limits.max_field_bytes}
            )
            continue
        if m.surrogates:
            value = well_formed_value(value)
            changed = True
        changed = changed or good_name is not key
        kept.append((good_name, value))
        low += m.low + k_low + 1
        high += m.high + k_high + 1
    return (dict(kept) if changed else None), low, high


def _holds_set(value: Any, max_depth: int) -> bool:
    """Tell whether a set or frozenset lies in ``value``, which nests at most ``max_depth``
    deep (deeper, or cyclic: False, and the entry is refused as too deep)."""
    found = False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, str):
            continue
        if isinstance(v, Mapping | list | tuple | set | frozenset):
            if depth >= max_depth:
                return False
            found = found or isinstance(v, set | frozenset)
            items = v.values() if isinstance(v, Mapping) else v
            stack.extend((x, depth + 1) for x in items)
    return found


def _sets_sorted(value: Any) -> Any:
    """Return ``value`` with every set a list in the order of its items' JSON.

    A set is stored as a list, and its iteration order follows the hash seed: a re-run in
    another process would find the record changed and embed it again. Recursive: call it
    only on a value :func:`_holds_set` has walked.
    """
    if isinstance(value, Mapping):
        return {k: _sets_sorted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_sets_sorted(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_sets_sorted(v) for v in value), key=js_stringify)
    return value


def _not_json(meta: Mapping[str, Any], exc: NotJSON) -> str:
    """Name the meta entry holding a value JSON cannot hold, and say what to do."""
    key = "?"
    for name, value in meta.items():
        try:
            measure(value, sys.maxsize, sys.maxsize)
        except NotJSON as found:  # this entry's own kind, not the one the walk met first
            key, exc = js_well_formed(str(name)), found
            break
    return (
        f"meta {key!r} holds a {exc.kind}, which JSON cannot hold: store it as a string or a number "
        "(date.isoformat(), str(decimal), bytes.decode())"
    )


def _well_formed_item(item: RecordError | Seen | SourceState) -> RecordError | Seen | SourceState:
    """Return ``item`` with its names well-formed, so that they match its records' (and print)."""
    fields: tuple[str, ...] = ("source",)
    if isinstance(item, RecordError):
        fields = ("source", "where", "reason", "id")
    elif isinstance(item, Seen):
        fields = ("source", "id")
    fixed: dict[str, Any] = {}
    for name in fields:
        value = getattr(item, name)
        if value is not None and js_well_formed(value) is not value:
            fixed[name] = js_well_formed(value)
    return replace(item, **fixed) if fixed else item


def normalise_item(
    item: Any, source: str, position: int, limits: Limits | None = None, margin: int = 0
) -> MemoryRecord | RecordError | Seen | SourceState:
    """Return ``item`` as a clean record (trimmed, within ``limits``, source filled) or an error.

    Text and title longer than their limits are cut, and meta entries larger than
    ``max_field_bytes`` left out: the record's ``meta["_cut"]`` then lists each cut
    (``{"field": "text", "unit": "UTF-16", "was": 52428800, "kept": 1000000}``). Lone
    surrogates in any string become U+FFFD, as JavaScript's ``TextEncoder`` makes them, so
    every later stage (and the keys) sees text that UTF-8 can hold.

    Args:
        item: a ``MemoryRecord``, a mapping with record fields, or an item that passes
            through untouched (``RecordError``, ``Seen``, ``SourceState``).
        source: the source name given to records that name none.
        position: the item's number in its source, for error messages.
        limits: the limits records are held to (default: ``Limits()``).
        margin: keep this many UTF-16 units past the text and title limits, for the scrub
            stage to see a secret there whole; the fit stage then cuts (an import uses
            :data:`CUT_MARGIN`; 0 cuts here).
    """
    if isinstance(item, RecordError | Seen | SourceState):
        return _well_formed_item(item)
    limits = limits or _DEFAULT_LIMITS
    try:
        if isinstance(item, MemoryRecord):
            record = item if item.source else replace(item, source=source)
        elif isinstance(item, Mapping):
            record = _from_mapping(item, source)
        elif hasattr(item, "keys") and hasattr(item, "__getitem__"):  # sqlite3.Row, asyncpg Record
            record = _from_mapping(row_fields(item), source)  # a join's two ``id``: ``id_2``
        else:
            hint = (
                ": a tuple row needs its column names; pass the DB-API cursor itself (its "
                "description names them) or set a row factory (sqlite3.Row)"
                if isinstance(item, tuple)
                else ""
            )
            raise ValueError(
                f"expected a MemoryRecord or a mapping, got {type(item).__name__}{hint}"
            )
    except (ValueError, TypeError) as exc:
        return RecordError(js_well_formed(source), f"item {position}", js_well_formed(str(exc)))
    try:
        return _fit(record, limits, margin)
    except (ValueError, TypeError) as exc:  # a meta value JSON cannot hold, say
        return _refuse(record, js_well_formed(str(exc)))


def _fit(record: MemoryRecord, limits: Limits, margin: int) -> MemoryRecord | RecordError:
    if not isinstance(record.meta, Mapping):
        raise TypeError(f"`meta` must be a mapping, got {type(record.meta).__name__}")
    checked = _small_str(record, limits)
    if isinstance(checked, RecordError):
        return checked
    record = checked
    cuts: list[dict[str, Any]] = []
    try:
        meta, meta_low, meta_high = _fit_meta(record.meta, limits, cuts)
    except _TooDeep as exc:
        return _refuse(record, str(exc))
    text = _clean_cut(record.text, "text", limits.max_text_units, cuts, margin) or ""
    title = _clean_cut(record.title, "title", limits.max_title_units, cuts, margin)
    if not text and not title:
        return RecordError(
            record.source, f"record {record.id!r}", "record has no text and no title"
        )
    if cuts:
        meta = {**(meta if meta is not None else record.meta), CUT_KEY: cuts}
    changes: dict[str, Any] = {}
    if text != record.text:
        changes["text"] = text
    if title != record.title:
        changes["title"] = title
    if meta is not None:
        changes["meta"] = meta
    if changes:
        record = replace(record, **changes)
    return _within_record_bytes(record, meta_low, meta_high, cuts, limits)


def _within_record_bytes(
    record: MemoryRecord, meta_low: int, meta_high: int, cuts: list[dict[str, Any]], limits: Limits
) -> MemoryRecord | RecordError:
    low, high = meta_low, meta_high + _RECORD_OVERHEAD + _NOTE_BYTES * len(cuts)
    for name in ("text", *_NAME_FIELDS, "title"):
        value = getattr(record, name)
        if value is not None:
            low, high = low + len(value) + 2, high + 6 * len(value) + 2
    limit = limits.max_record_bytes
    if high > limit and (low > limit or json_bytes(record.to_json()) > limit):
        return _refuse(record, f"the record is over {limit:,} bytes (Limits.max_record_bytes)")
    return record


def _normalise(item: Any, ctx: StageContext) -> Any:
    return normalise_item(item, ctx.name, ctx.position, ctx.limits, ctx.margin)


NORMALISE = Stage("normalise", _normalise)
"""Fields checked, names well-formed, limits applied (cuts keep a margin for the scrubber)."""


@pipable_operator
async def normalise(
    source: AsyncIterable[Any], name: str = "custom", limits: Limits | None = None
) -> AsyncIterator[MemoryRecord | RecordError | Seen | SourceState]:
    """Yield each item of ``source`` as a clean record or a ``RecordError``; never raise for one item.

    The first stage of every import (docs/pipeline.md); an aiostream operator, so it is
    composed with ``normalise.pipe(name)``.

    Args:
        source: what a source yields: records, errors or mappings with record fields.
        name: the source name for records that carry none.
        limits: the size and nesting limits (default: ``Limits()``); see :func:`normalise_item`.

    Yields:
        A :class:`MemoryRecord` for each record or mapping (its id a string, its text
        trimmed, keys that are no record field in ``meta``); a :class:`RecordError` for an
        item that is none (no ``id``, not a mapping), naming its place; ``RecordError``,
        ``Seen`` and ``SourceState`` items unchanged. Only ``source`` itself raising stops it.

    Example:

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails import normalise
        >>> async def clean(items):
        ...     async with (stream.iterate(items) | normalise.pipe("notes")).stream() as out:
        ...         return [item async for item in out]
        >>> record, error = asyncio.run(clean([{"id": 7, "text": "Hi ", "tag": "a"}, {"text": "?"}]))
        >>> record.id, record.text, record.source, record.meta
        ('7', 'Hi', 'notes', {'tag': 'a'})
        >>> print(error)
        notes (item 2): missing `id`
    """
    async for item in each(source, NORMALISE, StageContext(name, limits or _DEFAULT_LIMITS)):
        yield item
