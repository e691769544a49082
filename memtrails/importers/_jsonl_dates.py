"""The time of a JSON Lines record: the keys it is looked for under, and the ways exports
write a date that ``At.of`` alone would read otherwise, or not at all.

``At.of`` reads what ``Date.parse`` reads, then the forms of ``export_dates.exported_ms``
(a day written day first, a zone or a month by its name, a leap second: a row's value reads
them too). A field of a user's export holds more than that: a number that is no date (0, a
count), a year, a spreadsheet's serial day, a MongoDB or Firestore wrapper, a day and its
time in two fields. :func:`record_time` reads those, and says which key it took the time
from; docs/sources.md states each rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import suppress
from itertools import islice
from typing import Any

from ..day_order import ordered
from ..export_dates import (
    EPOCH_FROM,
    digits_ms,
    is_number,
    is_zero_date,
    number_ms,
)
from ..records import NUMBER_UNITS, At, unstorable_time
from ..world_dates import in_other_script, plain_date_text
from ._shared import key_words

__all__ = ["DATE_KEYS", "DayKeys", "DayOrder", "record_time", "seen_lines"]

#: The keys a record's time is looked for under, in this order; the first whose value reads
#: as a date gives it. The first five were the only ones before; those after them are what
#: other tools write: Logstash and ECS (``@timestamp``), Slack and zap (``ts``), JavaScript
#: and Firestore (``createdAt``), Jira and Python's logging (``created``), Reddit
#: (``created_utc``), ChatGPT's export (``create_time``), Notion (``created_time``),
#: Google Takeout (``creationTime``), mail and chat APIs (``sent_at``), Facebook
#: (``timestamp_ms``); a record's last change only when none of those is there, and its
#: ``year`` last of all (only a year is read there).
DATE_KEYS = (
    "at", "timestamp", "date", "created_at", "time",
    "@timestamp", "ts", "createdAt", "created", "created_utc", "create_time",
    "creation_time", "creationTime", "created_time", "date_created", "dateCreated",
    "datetime", "sent_at", "sentAt", "posted_at", "published_at", "timestamp_ms",
    "updated_at", "updatedAt", "update_time", "modified_at", "last_modified", "year",
)  # fmt: skip

_KEYS = frozenset(DATE_KEYS)
_LOWER_KEYS = frozenset(k.lower() for k in DATE_KEYS)
_ISO_DAY = re.compile(r"[+-]?\d{4,6}-\d\d-\d\d")
# A time of day alone: "10:32", "7:05:09.5 pm", "10:32 CEST", "22:00 +0200".
_CLOCK = re.compile(
    r"\d{1,2}:\d\d(?::\d\d(?:[.,]\d{1,9})?)?(?:\s*[ap]\.?\s?m\.?)?"
    r"(?:\s*(?:[zZ]|[+-]\d\d:?\d\d|[A-Za-z]{2,5}))?",
    re.I,
)
_DOTNET = re.compile(r"/Date\((-?\d{1,16})(?:[+-]\d{4})?\)/")
_LONGEST = 100  # a date is short: a longer string is not scanned for these forms
# A value that wraps a date or a number (MongoDB's Extended JSON, Firestore): when it does
# not read, the field is refused, whatever its key.
_WRAPPERS = frozenset({"$date", "$numberLong", "$numberInt", "$numberDouble", "_seconds"})
_PHP_KEYS = frozenset({"date", "timezone_type", "timezone"})
_TYPE = "must be a date string or a number of seconds (or ms, us, ns) since 1970"


# A string value that begins with a day in numbers ("05/08/2023", "5-8-23"), in a line's bytes,
# and the key before it.
_SLASHED_VALUE = re.compile(rb'"\s*(\d{1,2})\\?[/-](\d{1,2})\\?[/-](?:\d{4}|\d\d)(?!\d)')
_MOST_DAYS = 32  # a line's days looked at: a record has a few; a text may have thousands
_KEY_BEFORE = re.compile(rb'"((?:[^"\\\n]|\\.){1,100})"\s*:\s*$')


class DayKeys(frozenset[str]):
    """The keys whose days in numbers a file writes day first (the set's members), with what
    it shows of the others: ``month_first``, the keys it writes month first, and ``rest``,
    the order of a key that shows none (the file's where its keys agree, else None)."""

    month_first: frozenset[str]
    rest: bool | None

    def __new__(
        cls,
        day_first: Iterable[str] = (),
        month_first: Iterable[str] = (),
        rest: bool | None = None,
    ) -> DayKeys:
        made = super().__new__(cls, day_first)
        made.month_first, made.rest = frozenset(month_first), rest
        return made

    def order(self, key: str) -> bool | None:
        """True: ``key``'s days are day first; False: month first; None: nothing tells."""
        return True if key in self else False if key in self.month_first else self.rest


def _order(day_first: Collection[str], key: str) -> bool | None:
    if isinstance(day_first, DayKeys):
        return day_first.order(key)
    return True if key in day_first else None


class DayOrder:
    """Which keys of one JSON Lines file hold days written day first ("25/12/2023"), as
    their values show: a key with a value whose first number is past 12 and none whose
    second is ("12/25/2023") reads its every day in numbers day first ("05/08/2023" is 5
    August), one with the reverse month first; a key that shows neither takes the order of
    the file's other keys where they all agree. A day whose order nothing shows is no date
    (5 August or 8 May: a wrong day is worse than none).

    The importer shows it each line of the file (:meth:`saw`) as it reads the ids ahead,
    before any record; a file read once (a pipe) is not read ahead, and its days are read
    on the lines seen so far. A resumed read adds what the
    earlier runs saw (:meth:`marks`), so a file's days read one way in every run.
    """

    def __init__(self, marks: Mapping[str, Any] | None = None) -> None:
        self.day_first: set[str] = set()
        self.month_first: set[str] = set()
        for name, kept in (("day_first", self.day_first), ("month_first", self.month_first)):
            saved = marks.get(name) if isinstance(marks, Mapping) else None
            if isinstance(saved, list):
                kept.update(k for k in saved if isinstance(k, str))

    def saw(self, raw: bytes) -> None:
        """Learn from a line's bytes (its keys and their slashed days)."""
        if b"/" not in raw and b"-" not in raw:
            return
        for m in islice(_SLASHED_VALUE.finditer(raw), _MOST_DAYS):
            first, second = int(m[1]), int(m[2])
            if (first > 12) == (second > 12):
                continue  # both past 12: no date; neither: says nothing
            key = _KEY_BEFORE.search(raw, max(0, m.start() - 120), m.start())
            if key is not None:
                with suppress(ValueError):
                    name = json.loads(b'"' + key[1] + b'"')
                    (self.day_first if first > 12 else self.month_first).add(name)

    def keys(self) -> frozenset[str]:
        """The keys whose days are read day first (a :class:`DayKeys`, which also tells the
        order of the others)."""
        day, month = self.day_first - self.month_first, self.month_first - self.day_first
        mixed = bool(self.day_first & self.month_first)  # two writers: no file-wide order
        rest = None if mixed or bool(day) == bool(month) else bool(day)
        return DayKeys(day, month, rest)

    def marks(self) -> dict[str, list[str]]:
        """What a saved position keeps of it (nothing when it saw nothing)."""
        kept = {"day_first": self.day_first, "month_first": self.month_first}
        return {name: sorted(keys) for name, keys in kept.items() if keys}


def seen_lines(lines: Iterable[tuple[bytes, int]], order: DayOrder) -> Iterator[tuple[bytes, int]]:
    """``lines`` (:func:`bounded_lines`'s), each shown to ``order`` first."""
    for raw, size in lines:
        order.saw(raw)
        yield raw, size


def record_time(
    obj: Mapping[str, Any], key: str | None, day_first: Collection[str] = ()
) -> tuple[tuple[str, ...], At | None]:
    """Return the keys a record's time is read from and the time, or ``((), None)``.

    ``key``: the key the caller mapped ``at`` to; its value must be a date, empty or null
    (else ``ValueError``). Without one, each of :data:`DATE_KEYS` the record has is tried
    in order, then those it has in other case (``Date``, ``TIMESTAMP``), and the first
    whose value reads as a date gives the time. A value there that is
    no date's type (``true``, an object, a list) stays in ``meta``; a string or a number that
    is no date makes ``ValueError`` when no later key gives a time (the line is an error, as
    it was for ``at``, ``timestamp``, ``date``, ``created_at`` and ``time``). A day alone
    under ``date`` takes its time of day from ``time`` (a spreadsheet's two columns).
    ``day_first``: the keys whose days in numbers the file writes day first
    (:meth:`DayOrder.keys`, which tells the other keys' order too): "05/08/2023" under one
    is 5 August, under a key of no known order no time.

    Raises:
        ValueError: the value is not a date (the message names the key and the value).
    """
    if key is not None:
        at = _time(key, obj.get(key), day_first, mapped=True)
        return ((key,) if at is not None else ()), at
    failed: ValueError | None = None
    for other_case in (False, True):
        for name in _other_case(obj) if other_case else _exact(obj):
            value = obj[name]
            if type(value) is str and _ISO_DAY.match(value) and not is_zero_date(value):
                with suppress(ValueError):
                    return _with_clock(obj, name, At.of(value), day_first)
            try:
                at = _time(name, value, day_first, mapped=False)
            except ValueError as exc:
                failed = failed or exc
                continue
            if at is not None:
                return _with_clock(obj, name, at, day_first)
    if failed is not None:
        raise failed
    # Last, a key no list names but whose name says it holds a time ("date_time",
    # "session_date", "eventTime", "posted_on"): only a value that reads as a date counts, and
    # one that does not is no error (the key was a guess).
    for name in _named_like_a_time(obj):
        with suppress(ValueError):
            if (at := _time(name, obj[name], day_first, mapped=False)) is not None:
                return (name,), at
    return (), None


# The last word of a key's name that says it holds a time, and the words that say the time is
# not the record's own (a birthday, an expiry, a deadline).
_TIME_WORDS = frozenset({"date", "time", "datetime", "timestamp", "stamp", "ts", "at", "on"})
# A unit or a form after a time word ("date_unixtime", Telegram's; "time_ms", "date_utc").
_TIME_FORMS = frozenset(
    {"unixtime", "unix", "epoch", "ms", "millis", "msec", "sec", "secs", "seconds", "us",
     "usec", "ns", "utc", "gmt", "local", "iso", "iso8601", "str", "string", "text"}
)  # fmt: skip
_NOT_ITS_TIME = frozenset({"birth", "dob", "expiry", "expires", "expiration", "due", "deadline"})
# A time that ends something or comes after the record ("end_time", "finishedAt", "closed_on",
# "deleted_at"): a record's time is when it began ("start_time"), whichever key comes first.
_AFTER_ITS_TIME = frozenset(
    {"end", "ended", "ends", "finish", "finished", "stop", "stopped", "close", "closed",
     "completed", "complete", "done", "resolved", "deleted", "archived", "last",
     "edited", "edit", "updated", "update", "modified", "changed"}
)  # fmt: skip


def _named_like_a_time(obj: Mapping[str, Any]) -> Iterator[str]:
    """The keys of ``obj`` not in :data:`DATE_KEYS` in any case whose name ends in a word for
    a time: "date", "time", "datetime", "timestamp", "ts", or "at"/"on" after another word
    ("sent_at", "postedOn"), maybe with a unit after it ("date_unixtime", "time_ms"); not one
    naming a birthday, an expiry or a deadline. In the object's order, a start as any other
    ("start_time": a record's time is when it began); those naming an end or a later change
    ("end_time", "closed_at", "edited_date") after the others.

    This is the one guess of a record's time key: JSON Lines lines and the items of a JSON
    document (``from_json``) are dated by it alike.
    """
    later: list[str] = []
    for name in obj:
        if name.lower() in _LOWER_KEYS:
            continue
        parts = key_words(name)
        if len(parts) > 1 and parts[-1] in _TIME_FORMS:
            parts = parts[:-1]
        if not parts or parts[-1] not in _TIME_WORDS or _NOT_ITS_TIME.intersection(parts):
            continue
        if parts[-1] in ("at", "on", "ts", "stamp") and len(parts) < 2:
            continue
        if _AFTER_ITS_TIME.intersection(parts):
            later.append(name)
        else:
            yield name
    yield from later


def _with_clock(
    obj: Mapping[str, Any], name: str, at: At, day_first: Collection[str]
) -> tuple[tuple[str, ...], At]:
    """A day alone under ``date`` and its time of day under ``time`` are one time."""
    day = obj[name]
    if name.lower() != "date" or not isinstance(day, str) or ":" in day:
        return (name,), at
    for key in ("time", "Time", "TIME"):
        clock = obj.get(key)
        if isinstance(clock, str) and _CLOCK.fullmatch(clock.strip()):
            with suppress(ValueError):
                ms = _text_ms(f"{day.strip()} {clock.strip()}", name, day_first)
                if ms is not None:
                    return (name, key), At(ms)
    return (name,), at


def _exact(obj: Mapping[str, Any]) -> list[str]:
    return [name for name in DATE_KEYS if name in obj]


def _other_case(obj: Mapping[str, Any]) -> Iterator[str]:
    """The keys of :data:`DATE_KEYS` written in other case ("Date", "TIMESTAMP": a
    spreadsheet's headers), in its order; asked only when no key as written gives a time."""
    found = {k.lower(): k for k in reversed(list(obj)) if k not in _KEYS}
    return (found[name.lower()] for name in DATE_KEYS if name.lower() in found)


def _time(key: str, value: Any, day_first: Collection[str], *, mapped: bool) -> At | None:
    """The time ``value`` under ``key`` stands for; None when it holds none."""
    try:
        value = _unwrapped(value)
    except ValueError as exc:
        raise ValueError(f"field {key!r}: {exc}") from None
    if value is None or isinstance(value, At):
        return value
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        if not mapped and not (isinstance(value, dict) and _WRAPPERS & set(value)):
            return None  # a flag or an object under a key guessed to hold a time
        raise ValueError(f"field {key!r} (mapped to at) {_TYPE}")
    if key.lower() == "year" and not mapped:
        return _year(value)
    if not mapped and isinstance(value, str) and _CLOCK.fullmatch(value.strip()):
        return None  # a time of day alone ("time": "10:32") names no day: no date, kept
    try:
        ms = _text_ms(value, key, day_first) if isinstance(value, str) else _number_ms(value, key)
    except ValueError as exc:
        raise ValueError(f"field {key!r}: {exc}") from None
    return None if ms is None else At(ms)


def _unwrapped(value: Any) -> Any:
    """The date a MongoDB or Firestore export wraps, else ``value``.

    ``mongoexport`` writes ``{"$date": "2023-11-14T22:13:20Z"}`` (relaxed),
    ``{"$date": {"$numberLong": "1700000000000"}}`` (canonical) or ``{"$date": 1700000000000}``
    (its first versions): milliseconds at any date. A number it writes as
    ``{"$numberLong": "..."}`` (or ``$numberInt``, ``$numberDouble``) is that number. Firestore
    writes a time as ``{"_seconds": ..., "_nanoseconds": ...}`` (``{"seconds", "nanos"}`` in
    protobuf's own JSON). PHP writes a ``DateTime`` as ``{"date": "2024-05-03
    10:00:00.000000", "timezone_type": 3, "timezone": "Europe/Berlin"}``.
    """
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((name, inner),) = value.items()
        if name == "$date":
            if isinstance(inner, dict):
                number = _unwrapped(inner)
                return _ms(number) if isinstance(number, int) else value
            return _ms(inner) if isinstance(inner, int) and not isinstance(inner, bool) else inner
        if name in ("$numberLong", "$numberInt", "$numberDouble") and isinstance(inner, str):
            try:
                return float(inner) if name == "$numberDouble" else int(inner)
            except ValueError:
                return value  # not a number: refused below, named by its field
    day, zone = value.get("date"), value.get("timezone")
    if isinstance(day, str) and isinstance(zone, str) and set(value) <= _PHP_KEYS:
        return f"{day} {zone}"  # PHP's DateTime: "Europe/Berlin", "+02:00" or "CEST"
    for seconds, nanos in (("_seconds", "_nanoseconds"), ("seconds", "nanos")):
        if set(value) <= {seconds, nanos} and seconds in value:
            s, n = value[seconds], value.get(nanos, 0)
            if all(isinstance(v, int) and not isinstance(v, bool) for v in (s, n)):
                # A count of seconds as any number is (a duration's {"seconds": 5} is none).
                return _ms(s * 1000 + n // 1_000_000) if abs(s) >= EPOCH_FROM else None
    return value


def _ms(ms: int) -> At:
    """A number of milliseconds as an ``At``."""
    if not _storable(ms):
        raise ValueError(f"{unstorable_time(ms)} (milliseconds)")
    return At(ms)


def _year(value: str | int | float) -> At | None:
    """A ``year`` field: a whole number from 1000 to 9999 (or its digits) is that year."""
    text = str(value).strip() if not isinstance(value, float) else repr(value)
    if re.fullmatch(r"\d{4}(?:\.0)?", text):
        ms = number_ms(int(float(text)))
        return None if ms is None else At(ms)
    return None


def _number_ms(value: int | float | str, key: str) -> int | None:
    """A number, or a string of one: ``export_dates.digits_ms``'s reading, the one
    ``MemoryRecord(at=...)`` has (0 is no date, 20240503103200 a time, 1700000000 seconds)."""
    day_named = "date" in key.lower()
    if isinstance(value, str):
        ms = digits_ms(value, day_named=day_named)
    else:
        ms = number_ms(value, day_named=day_named)
    if ms is not None and not _storable(ms):
        raise ValueError(f"{unstorable_time(value)}; {NUMBER_UNITS}")
    return ms


def _text_ms(value: str, key: str, day_first: Collection[str]) -> int | None:
    """The time of a string; None for an empty one ("", "null", "NaT")."""
    plain = plain_date_text(value)
    if plain is None:
        why = "a year of another calendar, or a two-digit year in other digits"
        raise ValueError(f"not a date: {value[:_LONGEST]!r} ({why})")
    text = plain.strip()
    if is_zero_date(text):  # "", "null", "NaT", "0000-00-00 00:00:00"
        return None
    if len(text) > _LONGEST:
        raise ValueError(f"not a date: {value[:_LONGEST]!r}...")
    if _ISO_DAY.match(text):  # "2024-05-03...": the common case, read as At.of reads it
        with suppress(ValueError):
            return At.of(text).ms
    elif (dotnet := _DOTNET.fullmatch(text)) is not None:
        # .NET's JSON (DataContractJsonSerializer, ASP.NET AJAX): UTC milliseconds; the
        # offset after them only says where the writer was.
        if not _storable(stamp := int(dotnet.group(1))):
            raise ValueError(f"{unstorable_time(stamp)} (milliseconds)")
        return stamp
    elif is_number(text) and not in_other_script(text):  # "๒๕๖๗": a Thai year, by At.of
        # Digits are a number as the export wrote it, "45123.5" from a spreadsheet's CSV:
        # Date.parse would read "0" as the year 2000 and "45123.5" as the year 45123.
        return _number_ms(text, key)
    # A day written with dots or a first number past 12 is day first (At.of reads it so);
    # "05/08/2023" is read in the order the file's other days show (DayOrder), else none.
    if (read := ordered(text, _order(day_first, key))) is None:
        return None  # 5 August or 8 May, and nothing says which: no time, kept in meta
    text = read
    try:
        return At.of(text).ms
    except ValueError:
        raise ValueError(f"not a date: {value!r}") from None


def _storable(ms: int) -> bool:
    try:
        At(ms)
    except ValueError:
        return False
    return True
