"""Incremental custom sources: a watermark on a cursor column, kept between runs."""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any, TypeAlias, cast

from ..record_values import plain_value, row_fields
from ..records import RECORD_FIELDS, MemoryRecord, RecordError, SourceState
from .iterables import from_iterable

__all__ = ["CursorValue", "Fetch", "from_cursor", "read_watermark"]

CursorValue: TypeAlias = "datetime | date | int | float | Decimal | str"
"""What a cursor column may hold: a timestamp, a date, a number or a string (compared as such).
A NUMERIC column's ``Decimal`` stays one (saved exactly); a numpy scalar or pandas'
``Timestamp`` is read as the plain value it stands for (``record_values.plain_value``)."""

Fetch: TypeAlias = Callable[
    [Any], "AsyncIterable[Any] | Iterable[Any] | Awaitable[AsyncIterable[Any] | Iterable[Any]]"
]
"""A function that takes the watermark (``None`` the first time) and returns the rows from it on."""

_SAVE_EVERY = 1000  # rows between two positions handed to the memory during a run
_MAX_INT_BITS = 1024  # about 308 digits: far past any sequence, far below str()'s limit
_SCRUBBED = "[secret:"  # how the scrub stage marks a secret it replaced
# ISO 8601 text: its separator, seconds, fraction and zone, kept when lag moves it.
_ISO_TEXT = re.compile(r"\d{4}-\d\d-\d\d(?:([Tt ])\d\d:\d\d(:\d\d)?([.,]\d+)?(.*))?")


def read_watermark(state: Mapping[str, Any] | None, cursor: str) -> CursorValue | None:
    """Return the watermark saved in ``state`` for ``cursor``, or None (none, or another cursor)."""
    if not state or state.get("cursor") != cursor or "value" not in state:
        return None
    value = _decode(state["value"], str(state.get("type", "")))
    if isinstance(value, str) and _SCRUBBED in value:
        # The scrub stage replaced a secret in the saved position: asking from the marker
        # would skip or re-read rows at random, so everything is read again (and deduped).
        return None
    return value


async def from_cursor(
    fetch: Fetch,
    *,
    name: str,
    cursor: str,
    state: Mapping[str, Any] | None = None,
    lag: timedelta | float | None = None,
    checkpoint_every: int = _SAVE_EVERY,
) -> AsyncIterator[Any]:
    """Yield the rows ``fetch(since)`` returns, and the watermark to resume from next time.

    ``fetch`` receives the largest ``cursor`` value of the last run (minus ``lag``), or None
    on the first run or when ``state`` is None, and returns rows whose value is **at least**
    that (``>=``, not ``>``): rows sharing the last value are read again and cost nothing
    (dedup), so a row written with the same value after the last run is not missed. Rows are
    records, mappings or database rows carrying an ``id`` and the ``cursor`` field; the
    cursor field is dropped from a row before it becomes a record (a changed timestamp alone
    is not a changed record), unless it is a record field such as ``at``.

    The position goes to the memory as a ``SourceState``, saved only once every row before it
    is in the folder. While rows come in cursor order, a position is handed over every
    ``checkpoint_every`` rows, so a killed run resumes near where it stopped; once a row comes out of
    order, only the end of the run saves one (a mid-run maximum could skip rows not yet
    read), and the report says so.

    Args:
        fetch: a function (sync or async) of the watermark returning an iterable or async
            iterable of rows.
        name: the source name (what ``Memory.ingest`` calls ``name``).
        cursor: the field that grows when a row is added or changed (``updated_at``, an id
            from a sequence).
        state: the position saved by the last run (``memory.source_state(name)``); None
            reads everything.
        lag: re-read this much before the watermark (a ``timedelta`` for timestamps and
            ISO 8601 text, a number for numbers), for rows whose transaction committed late.
        checkpoint_every: rows between two mid-run positions.

    Yields:
        Each row, without its cursor field; a ``RecordError`` for a row without one (never
        an exception for a row); and ``SourceState`` positions for ``Memory.ingest`` to save.

    Raises:
        ValueError: ``checkpoint_every`` is below 1.
        TypeError: ``fetch`` returned no iterable of rows (or a string, bytes or a mapping).

    Example: a table read whole, then from its last ``updated`` value on (``b`` again,
    unchanged, and the new ``c``):

        >>> import asyncio, sqlite3, tempfile
        >>> from memtrails import Memory, from_cursor
        >>> from memtrails.testing import HashingEmbedder
        >>> db = sqlite3.connect(":memory:")
        >>> db.row_factory = sqlite3.Row
        >>> _ = db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT, updated INT)")
        >>> _ = db.executemany("INSERT INTO notes (text, updated) VALUES (?, ?)", [("a", 1), ("b", 2)])
        >>> def fetch(since):
        ...     return db.execute("SELECT * FROM notes WHERE updated >= ?", (since or 0,))
        >>> async def sync(memory):
        ...     state = memory.source_state("notes")
        ...     rows = from_cursor(fetch, name="notes", cursor="updated", state=state)
        ...     return await memory.ingest(rows, name="notes")
        >>> async def twice(folder):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         first = await sync(memory)
        ...         db.execute("INSERT INTO notes (text, updated) VALUES ('c', 3)")
        ...         return first, await sync(memory)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     first, second = asyncio.run(twice(folder))
        >>> first.added, second.sources[0].read, second.added, second.unchanged
        (2, 2, 1, 1)
    """
    if checkpoint_every < 1:
        raise ValueError("`checkpoint_every` must be at least 1")
    watermark = read_watermark(state, cursor)
    since = _minus(watermark, lag) if watermark is not None else None
    rows = fetch(since)
    if inspect.isawaitable(rows):
        rows = await rows
    if not isinstance(rows, AsyncIterable | Iterable) or isinstance(
        rows, str | bytes | bytearray | Mapping
    ):
        # A dict would be read as its keys and a string as its letters, each "a row
        # without the cursor column": say what went wrong instead.
        raise TypeError(
            f"`fetch` returned a {type(rows).__name__}; it must return the rows from the "
            "watermark on: a list, a cursor, or a (async) generator of rows"
        )
    mode = "incremental" if since is not None else "full"
    best: CursorValue | None = watermark
    last: CursorValue | None = None
    ordered = True
    older = 0
    count = 0

    def position(final: bool) -> SourceState:
        notes = []
        if older:
            notes.append(f"{older} rows had {cursor} before the watermark asked for ({since!r})")
        if not ordered:
            notes.append(
                f"rows did not come in {cursor} order: the position was saved at the end only"
            )
        saved = {"cursor": cursor, **_encode(best)} if best is not None else {"cursor": cursor}
        return SourceState(
            name,
            saved,
            mode=mode,
            complete=final and since is None,
            why="; ".join(notes) or None,
        )

    async for row in _aiter(rows):
        count += 1
        raw = _value(row, cursor)
        if raw is not None and not isinstance(raw, Decimal):
            raw = plain_value(raw)  # numpy.int64, pandas' Timestamp: as int, datetime
        if raw is None:
            yield RecordError(name, f"row {count}", f"no `{cursor}` value (the cursor column)")
            continue
        unusable = _unusable(raw, cursor)
        if unusable is not None:
            yield RecordError(name, f"row {count}", unusable)
            continue
        value = cast("CursorValue", raw)
        try:
            if since is not None and value < since:  # type: ignore[operator]
                older += 1
            if last is not None and value < last:  # type: ignore[operator]
                ordered = False
            if best is None or value > best:  # type: ignore[operator]
                best = value
        except TypeError:
            yield RecordError(name, f"row {count}", _not_comparable(value, best, cursor))
            continue
        last = value
        yield _without_cursor(row, cursor)
        if ordered and count % checkpoint_every == 0:
            yield position(final=False)
    yield position(final=True)


def _aiter(rows: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[Any]:
    # from_iterable closes a generator of the caller's when the import stops early.
    return from_iterable(rows)


def _unusable(value: Any, cursor: str) -> str | None:
    """Say why a row's cursor value cannot be a watermark, or None when it can."""
    if not isinstance(value, datetime | date | int | float | Decimal | str):
        return (
            f"`{cursor}` is a {type(value).__name__}; a cursor column must hold a timestamp, a "
            "date, a number or a string: convert it in the query or in `fetch`"
        )
    if isinstance(value, Decimal) and not value.is_finite():
        return f"`{cursor}` is {value}, which has no place in an order: the row cannot move the watermark"
    if isinstance(value, float) and not math.isfinite(value):
        return f"`{cursor}` is {value}, which has no place in an order: the row cannot move the watermark"
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        # The position is saved as JSON: str() refuses an int of over 4,300 digits.
        return (
            f"`{cursor}` is an integer of over {_MAX_INT_BITS * 3 // 10} digits, too long to "
            "save as the watermark"
        )
    return None


def _not_comparable(value: Any, best: Any, cursor: str) -> str:
    if isinstance(value, datetime) and isinstance(best, datetime):
        this, earlier = ("a time zone", "none") if value.tzinfo else ("no time zone", "one")
        return (
            f"`{cursor}` has {this} and an earlier row's had {earlier}: give every row's "
            f"`{cursor}` a time zone, or none"
        )
    return f"`{cursor}` is a {type(value).__name__}, not comparable with {type(best).__name__}"


def _value(row: Any, cursor: str) -> Any:
    if isinstance(row, MemoryRecord):
        if cursor == "at":
            return row.at.ms if row.at is not None else None
        value = row.meta.get(cursor) if row.meta else None
    elif isinstance(row, Mapping):
        value = row.get(cursor)
    elif hasattr(row, "keys") and hasattr(row, "__getitem__"):  # sqlite3.Row, asyncpg Record
        value = row[cursor] if cursor in row.keys() else None  # noqa: SIM118
    else:
        return None
    return value


def _without_cursor(row: Any, cursor: str) -> Any:
    # The cursor column says when a row changed, not what it says: it stays out of the
    # record (and of its fingerprint), unless it is a record field itself (``at``).
    if isinstance(row, MemoryRecord) or cursor in RECORD_FIELDS:
        return row
    fields = dict(row) if isinstance(row, Mapping) else row_fields(row)  # sqlite3.Row, asyncpg
    fields.pop(cursor, None)
    return fields


def _minus(value: CursorValue, lag: timedelta | float | None) -> CursorValue:
    if not lag:
        return value
    if isinstance(value, datetime | date) and isinstance(lag, timedelta):
        return value - lag
    if isinstance(value, Decimal) and isinstance(lag, int | float):
        return value - Decimal(repr(lag))  # a Decimal and a float do not add up
    if isinstance(value, int | float) and isinstance(lag, int | float):
        return value - lag
    if isinstance(value, str) and isinstance(lag, timedelta):
        # An ISO 8601 text column (SQLite keeps timestamps as text): the same text form back.
        try:
            return _same_form(value, datetime.fromisoformat(value) - lag)
        except ValueError:
            pass
    raise ValueError(
        f"`lag` {lag!r} does not apply to a cursor value of type {type(value).__name__}"
    )


def _same_form(value: str, moved: datetime) -> str:
    """``moved`` written as ``value`` is: the query compares text, and "2024-05-03T09:55:00"
    is after every "2024-05-03 10:..." of SQLite's CURRENT_TIMESTAMP (a "T" sorts after a
    space), so a watermark in another form would skip the rest of its day."""
    m = _ISO_TEXT.fullmatch(value.strip())
    if m is None:
        return moved.isoformat()
    sep, seconds, fraction, zone = m.groups()
    if sep is None:
        return moved.date().isoformat()  # a DATE as text
    digits = len(fraction) - 1 if fraction else 0
    spec = (
        "minutes"
        if seconds is None
        else ("seconds", "milliseconds", "microseconds")[
            0 if digits == 0 else 1 if digits <= 3 else 2
        ]
    )
    text = moved.isoformat(sep=sep, timespec=spec)
    if fraction and fraction[0] == ",":
        text = text.replace(".", ",", 1)
    if zone in ("Z", "z") and text.endswith("+00:00"):
        text = text[: -len("+00:00")] + zone
    return text


def _encode(value: CursorValue) -> dict[str, Any]:
    if isinstance(value, datetime):
        return {"type": "datetime", "value": value.isoformat()}
    if isinstance(value, date):
        return {"type": "date", "value": value.isoformat()}
    if isinstance(value, bool):  # a bool is an int; keep it one
        return {"type": "int", "value": int(value)}
    if isinstance(value, int):
        return {"type": "int", "value": value}
    if isinstance(value, float):
        return {"type": "float", "value": value}
    if isinstance(value, Decimal):  # as text: exact, as the NUMERIC column holds it
        return {"type": "decimal", "value": str(value)}
    return {"type": "str", "value": value}


def _decode(value: Any, kind: str) -> CursorValue | None:
    try:
        if kind == "datetime":
            return datetime.fromisoformat(str(value))
        if kind == "date":
            return date.fromisoformat(str(value))
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "decimal":
            return Decimal(str(value))
        if kind == "str":
            return str(value)
    except (TypeError, ValueError, InvalidOperation):
        return None
    return None
