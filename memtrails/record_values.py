"""The values a database driver, a dataframe or a script hands over for a record's fields.

A row from psycopg or asyncpg holds ``decimal.Decimal`` for a NUMERIC column, ``uuid.UUID``
for a UUID and ``bytes`` for a BYTEA; ``sqlite3`` gives ``bytes`` for a BLOB; a row of a
pandas or numpy table holds numpy scalars (``numpy.int64``). Each is read here as the plain
value a user means: a Decimal or numpy number as the same int or float, a UUID as its string,
bytes of text as UTF-8 text. :class:`memtrails.records.MemoryRecord` reads ``at`` through
:func:`plain_value`, and the normalise stage a row's other fields through :func:`id_value`,
:func:`text_value` and :func:`meta_value`: one conversion for every custom source.
"""

from __future__ import annotations

import ipaddress
import math
import sys
import unicodedata
import uuid
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

__all__ = [
    "NUMBER_UNITS",
    "binary_uuid",
    "exact_ints",
    "float_id",
    "id_value",
    "meta_value",
    "numbered_names",
    "plain_meta",
    "plain_value",
    "row_fields",
    "text_value",
    "unstorable_time",
]

NUMBER_UNITS = (
    "a number is read as seconds since 1970, or as milliseconds from 1e11 up, microseconds "
    "from 1e14, nanoseconds from 1e17"
)
"""How a number is read as a time (``export_dates.epoch_ms``), said where one is refused."""

_PLAIN = (str, int, float, bool, type(None))
# PostgreSQL's inet and cidr, as psycopg and asyncpg hand them over: their text.
_ADDRESSES = (
    ipaddress.IPv4Address,
    ipaddress.IPv6Address,
    ipaddress.IPv4Network,
    ipaddress.IPv6Network,
    ipaddress.IPv4Interface,
    ipaddress.IPv6Interface,
)
_FINER_THAN_US = frozenset(f"datetime64[{unit}]" for unit in ("ns", "ps", "fs", "as"))
_BYTES = (bytes, bytearray, memoryview)
# Past this many digits a whole Decimal is no time and no id: read as a float (infinite),
# never turned into an int of a million digits.
_MOST_DIGITS = 400
# Bytes are binary, not text, when more than this share of their characters (and one) is
# not text: U+FFFD where they are not UTF-8, or a control character other than a tab or a
# line end; or when they hold a NUL (UTF-16 text, a number's bytes).
_NOT_TEXT_SHARE = 0.1
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")
# Past 2**53 a float no longer holds every integer: its digits are not the id written.
_EXACT_FLOAT = 2**53
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def plain_value(value: Any) -> Any:
    """Return a driver's or a dataframe's scalar as the plain Python value it stands for.

    A ``Decimal`` is an ``int`` when whole, else a ``float`` (NaN and infinities too); a
    numpy scalar is its ``item()`` (``numpy.int64`` an int, ``numpy.datetime64`` a naive
    datetime, or a date in days); an object with ``to_pydatetime()`` (pandas' ``Timestamp``, ``NaT``) is
    that datetime, or None when it gives none; a ``memoryview`` is ``bytes``; a datetime
    whose tzinfo gives no offset (``utcoffset()`` is None) is naive, as Python compares it,
    and is read as local time as any naive one is. Anything else is returned as it is.

    Example:
        >>> from decimal import Decimal
        >>> plain_value(Decimal("1714694400")), plain_value(Decimal("1.5"))
        (1714694400, 1.5)
    """
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, datetime) and value.tzinfo is not None and value.utcoffset() is None:
        return value.replace(tzinfo=None)  # a zone that gives no offset: naive, as Python says
    if isinstance(value, Decimal):
        if value.is_nan():
            return float("nan")  # float() refuses a signalling NaN
        if value.is_finite() and value.adjusted() < _MOST_DIGITS and value == value.to_integral():
            return int(value)
        return float(value)
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        if str(getattr(value, "dtype", "")) in _FINER_THAN_US:
            # A datetime (naive: local, as any naive time), as in coarser units: in
            # nanoseconds item() would give an int, read as a UTC instant.
            value = value.astype("datetime64[us]")
        return value.item()  # a numpy scalar (an array of one value has ndim 1)
    if isinstance(value, memoryview):
        return value.tobytes()
    to_pydatetime = getattr(value, "to_pydatetime", None)
    if callable(to_pydatetime) and not isinstance(value, datetime):
        got = to_pydatetime()
        return got if isinstance(got, datetime) else None  # pandas' NaT: no time
    return value


def text_value(name: str, value: Any) -> Any:
    """Return a text field's value: bytes of text decoded as UTF-8 (an invalid byte as
    U+FFFD; UTF-16 with a byte order mark, or Latin text as UTF-16 without one, as that), a
    UUID as its string, anything else as it is (checked by the caller).

    Raises:
        ValueError: the bytes are binary data, not text; the message names the field.
    """
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    if type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 0:
        return text_value(name, value.item())  # numpy.bytes_
    if isinstance(value, _BYTES):
        return _decoded(name, bytes(value))
    return value


def _utf16(data: bytes) -> str | None:
    """The text of UTF-16 bytes: with a byte order mark (Windows' "Unicode" text), or without
    one where most of it is Latin text (SQL Server's ``NVARCHAR`` cast to bytes: a NUL after
    each ASCII letter), else None."""
    if len(data) % 2 or len(data) < 4:
        return None
    if data[:2] in _UTF16_BOMS:
        codec = "utf-16"
    else:
        low, high = data[0::2], data[1::2]
        if high.count(0) >= 0.9 * len(high) and 0 not in low:
            codec = "utf-16-le"
        elif low.count(0) >= 0.9 * len(low) and 0 not in high:
            codec = "utf-16-be"
        else:
            return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    # Binary data after a byte order mark reads as code units of every kind: a tenth of
    # them private use, more not yet assigned. Text has none or nearly none (one in 50).
    odd = sum(1 for ch in text if unicodedata.category(ch) in ("Co", "Cn"))
    return text if odd <= len(text) // 50 else None


def _decoded(name: str, data: bytes) -> str:
    if (b"\x00" in data or data[:2] in _UTF16_BOMS) and (wide := _utf16(data)) is not None:
        data = wide.encode("utf-8", "surrogatepass")  # checked below as any text is
    try:
        text = data.decode("utf-8")
        bad = 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        bad = text.count("\ufffd")
    if text.startswith("\ufeff"):
        text = text[1:]  # a byte order mark is no part of the text
    controls = sum(1 for ch in text if ch < " " and ch not in _TEXT_CONTROLS)
    if "\x00" in text or bad + controls > _NOT_TEXT_SHARE * len(text) + 1:
        raise ValueError(
            f"`{name}` holds {len(data):,} bytes of binary data, not UTF-8 text: select a text "
            "column, or convert it in the query or in the code that builds the rows"
        )
    return text


def id_value(name: str, value: Any) -> str:
    """Return an id (a record's ``id``, a ``thread``) as the string it is stored as.

    A string is itself; an integer (a Decimal or numpy one too) its digits, and so is a
    whole float (``12.0`` is "12", :func:`float_id`); a UUID its string, and so are 16
    bytes that are no text (a ``BINARY(16)`` UUID, :func:`binary_uuid`); other bytes their
    UTF-8 text.

    Raises:
        ValueError: the value is of another type, bytes that are not UTF-8, an integer
            too long to write, or a float that is no whole number (:func:`float_id`); the
            message names the field.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    if value is None:
        raise ValueError(f"`{name}` is None (a NULL column?): every record needs an id")
    plain = plain_value(value)
    if isinstance(plain, _BYTES):
        if (binary := binary_uuid(bytes(plain))) is not None:
            return binary
        data = bytes(plain)
        if (b"\x00" in data or data[:2] in _UTF16_BOMS) and (wide := _utf16(data)) is not None:
            return wide  # SQL Server's NVARCHAR as bytes
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(
                f"`{name}` is {len(plain):,} bytes that are not UTF-8 text: give it as text "
                "(hex(...) or encode(..., 'hex') in the query)"
            ) from None
    if isinstance(plain, float):
        return float_id(f"`{name}`", plain)
    if isinstance(plain, bool) or not isinstance(plain, str | int):
        raise ValueError(f"`{name}` must be a string or an integer, got {type(value).__name__}")
    try:
        return str(plain)
    except ValueError:  # Python's own message would say to raise its digit limit
        digits = sys.get_int_max_str_digits()
        raise ValueError(
            f"`{name}` is an integer of over {digits:,} digits: give it as a string"
        ) from None


def binary_uuid(data: bytes) -> str | None:
    """Return the UUID string of 16 bytes that are no text, or None for any other bytes.

    MySQL and MariaDB keep a UUID in a ``BINARY(16)`` column (``UUID_TO_BIN(uuid)``) and
    their drivers, as ``sqlite3`` for a BLOB, hand it over as its 16 bytes; psycopg and
    asyncpg give a ``uuid.UUID``, whose string this is too. Bytes that are printable UTF-8
    text ("0123456789abcdef") stay text: the bytes of a random UUID are so about once in ten
    million. The bytes are read in their order: a column written with
    ``UUID_TO_BIN(uuid, 1)`` (time parts swapped) is read as ``BIN_TO_UUID(col, 1)`` in the
    query.

    Example:
        >>> binary_uuid(bytes.fromhex("3f2504e04f8941d39a0c0305e82c3301"))
        '3f2504e0-4f89-41d3-9a0c-0305e82c3301'
        >>> binary_uuid(b"0123456789abcdef") is None
        True
    """
    if len(data) != 16:
        return None
    body = data[2:] if data[:2] == b"\xff\xfe" else data
    if body[1::2].count(0) == len(body) // 2 and 0 not in body[0::2]:
        return None  # ASCII letters as UTF-16 text (SQL Server's NVARCHAR as bytes)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return str(uuid.UUID(bytes=data))
    if text.isprintable():
        return None
    return str(uuid.UUID(bytes=data))


def float_id(label: str, value: float) -> str:
    """Return the id a whole float stands for: its integer's digits, as JavaScript's
    ``String(12.0)`` gives "12" (a JSON export from pandas or a SQL tool writes an integer
    column as ``12.0`` when the column has a gap, and ``JSON.parse`` reads it as 12).

    Raises:
        ValueError: the float has a fraction, is NaN or infinite, or is past 2**53, where a
            float no longer holds every integer (its digits are not the id the source
            had); the message starts with ``label``.

    Example:
        >>> float_id("`id`", 12.0), float_id("`id`", -0.0)
        ('12', '0')
    """
    if not math.isfinite(value):
        raise ValueError(f"{label} is {value}, which is no id: give ids as strings or integers")
    if not value.is_integer():
        raise ValueError(
            f"{label} is {value!r}, a number with a fraction: an id must be a string or a "
            "whole number"
        )
    if abs(value) > _EXACT_FLOAT:
        raise ValueError(
            f"{label} is {value!r}, a float past 2**53 whose digits are not exact (an integer "
            "column read as floats?): give ids as integers or strings"
        )
    return str(int(value))


def meta_value(name: str, value: Any, *, inner: bool = False) -> Any:
    """Return a row's extra column (stored in the record's ``meta``) as JSON holds it.

    A Decimal or numpy number is the same int or float (a Decimal a float cannot hold
    exactly is its string); a UUID its string, and so are 16 bytes that are no text
    (:func:`binary_uuid`); other bytes their UTF-8 text; a date, a datetime
    or a time its ISO 8601 form; a duration (MySQL's TIME) as ``str(timedelta)`` writes it
    ("1:30:00"); an inet or cidr address its text; an array column's list of these
    (``numeric[]``, ``uuid[]``) a list of theirs; an integer past 2**53 its digits
    (:func:`exact_ints`). Other values are left for the normalise stage to check.

    Raises:
        ValueError: the bytes are binary data, not text; the message names the column.
    """
    if isinstance(value, _PLAIN):
        return exact_ints(value)
    if isinstance(value, Decimal) and value.is_finite():
        plain = plain_value(value)
        if isinstance(plain, float) and Decimal(repr(plain)) != value:
            return str(value)  # NUMERIC(30, 10): kept exact, as text
        return exact_ints(plain)
    value = exact_ints(plain_value(value))  # a numpy int64 past 2**53: its digits
    if isinstance(value, _BYTES) and (binary := binary_uuid(bytes(value))) is not None:
        return binary  # MySQL's BINARY(16) UUID column
    if isinstance(value, uuid.UUID) or isinstance(value, _BYTES):  # noqa: SIM101
        return text_value(name, value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, timedelta) or isinstance(value, _ADDRESSES):  # noqa: SIM101
        return str(value)
    if isinstance(value, list | tuple) and not inner:  # one level: an array column
        return [meta_value(name, item, inner=True) for item in value]
    return value


_DEEPEST = 200  # Limits.max_depth's largest value: deeper meta is refused later anyway


def exact_ints(value: Any, depth: int = _DEEPEST) -> Any:
    """Return ``value`` with each integer JavaScript cannot hold exactly (``abs(n) >= 2**53``,
    a snowflake id, a 64-bit counter) as its digits, at any depth of dicts and lists.

    A record's ``meta`` is fingerprinted as ``JSON.stringify`` writes it, where such an
    integer is the nearest double: ``9007199254740993`` and ``9007199254740992`` would be
    one value and one fingerprint, and the stored line would hold the rounded number. As
    its string it keeps its digits in the folder and in the fingerprint, in every language
    (a JavaScript reader takes them from the source text, as it does for an id). ``value``
    itself when it holds no such integer.

    Example:
        >>> exact_ints({"n": 2**53 + 1, "ok": [1, 2**53 - 1]})
        {'n': '9007199254740993', 'ok': [1, 9007199254740991]}
    """
    if type(value) is int:
        return str(value) if not -_EXACT_FLOAT < value < _EXACT_FLOAT else value
    if depth <= 0 or isinstance(value, str | float | bool) or value is None:
        return value
    if isinstance(value, Mapping):
        items = {k: exact_ints(v, depth - 1) for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if isinstance(value, list | tuple):
        read = [exact_ints(v, depth - 1) for v in value]
        return value if all(a is b for a, b in zip(read, value, strict=True)) else read
    return value


def plain_meta(meta: Mapping[str, Any], max_depth: int, within: str = "meta") -> Mapping[str, Any]:
    """Return a record's ``meta`` with the values JSON cannot hold read as :func:`meta_value`
    reads a row's extra column, at any depth (a Decimal its number, a datetime its ISO form,
    a UUID or 16 binary bytes its string, a numpy array its list): an explicit ``meta``
    a caller builds from a row holds what the row's columns would. ``meta`` itself when
    nothing changes; past ``max_depth`` values are left as they are (refused as too deep).

    Raises:
        ValueError: bytes that are binary data; the message names the entry.
    """
    changed = False
    plain: dict[str, Any] = {}
    for key, value in meta.items():
        read = _plain_json(f"{within}.{key}", value, max_depth - 1)
        changed = changed or read is not value
        plain[key] = read
    return plain if changed else meta


def _plain_json(name: str, value: Any, depth: int) -> Any:
    if isinstance(value, _PLAIN) or depth < 0:
        return value
    if isinstance(value, Mapping):
        inner = plain_meta(value, depth, name)
        return inner if inner is not value else value
    if isinstance(value, list | tuple | set | frozenset):
        items = [_plain_json(name, item, depth - 1) for item in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return set(items) if isinstance(value, set | frozenset) else items
    if type(value).__module__ == "numpy" and getattr(value, "ndim", 0) > 0:
        return _plain_json(name, value.tolist(), depth)  # an array: its list of values
    return meta_value(name, value, inner=True)


def unstorable_time(value: int | float | str | Decimal) -> str:
    """Say that ``value``, read from a source, is a time outside what :class:`At` holds.

    At's own error names its argument (``ms``) and JavaScript, which a user never wrote; an
    importer names the field and this says what is wrong with its value. A value of hundreds
    of digits is shown as its magnitude.
    """
    if isinstance(value, int) and value.bit_length() > 80:  # str() refuses 4,300 digits
        return _unstorable(f"{Decimal(value):.3e}")
    shown = str(value)
    if len(shown) > 24:
        try:
            shown = f"{Decimal(shown):.3e}"
        except ArithmeticError:  # not a number after all: cut short
            shown = shown[:21] + "..."
    return _unstorable(shown)


def _unstorable(shown: str) -> str:
    return (
        f"{shown} is not a time memtrails can store (times run from about 271,800 BC to AD 275,760)"
    )


def numbered_names(names: list[str]) -> list[str]:
    """Return column names with each repeated one numbered (``id``, ``id_2``): a join's
    ``SELECT n.id, n.text, u.id`` names two columns ``id``, and the first is the record's id,
    as ``sqlite3.Row`` and asyncpg's records read it; the other is kept, in ``meta``.

    Example:
        >>> numbered_names(["id", "text", "id", "id_2"])
        ['id', 'text', 'id_3', 'id_2']
    """
    seen = set(names)
    if len(seen) == len(names):
        return names
    apart: list[str] = []
    taken: set[str] = set()
    for name in names:
        new, n = name, 1
        while new in taken or (new != name and new in seen):  # "id_2" of the query's own
            n += 1
            new = f"{name}_{n}"
        taken.add(new)
        apart.append(new)
    return apart


def row_fields(row: Any) -> dict[str, Any]:
    """Return a row that names its columns (``sqlite3.Row``, asyncpg's ``Record``: ``keys()``
    and ``row[name]``) as a dict of its columns, each repeated name numbered as
    :func:`numbered_names` numbers them (``id``, ``id_2``).

    Such a row answers ``row["id"]`` with the first ``id`` column of a join's ``SELECT n.id,
    n.text, u.id``: read by name alone, the other ``id`` would be lost without a word.
    """
    names = list(row.keys())  # rows iterate their values, not their names
    if len(set(names)) == len(names):
        return {name: row[name] for name in names}
    numbered = numbered_names([str(name) for name in names])
    return dict(zip(numbered, (row[i] for i in range(len(names))), strict=True))
