"""Portable text rules for keys: UTF-16 lengths and cuts, FNV-1a term ids, JSON.stringify, whitespace.

Every implementation of the folder format (this one and the TypeScript reference) computes
keys by JavaScript's view of text, so these follow it (see conformance/README.md).
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "JS_WHITESPACE",
    "fnv1a32",
    "js_number",
    "js_split_ws",
    "js_stringify",
    "js_trim",
    "js_utf8",
    "js_well_formed",
    "sha256_hex",
    "utf16_cut",
    "utf16_len",
    "utf16_slice",
]

# ECMAScript WhiteSpace + LineTerminator: what `\s` and String.prototype.trim see.
# Python's str.strip()/\s differ (they include U+001C..U+001F and U+0085, and miss U+FEFF).
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WS_RUN = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")
_SAFE_INT = 2**53  # integers JavaScript holds exactly: |n| < 2**53


def js_trim(s: str) -> str:
    """Return ``s.trim()`` as JavaScript computes it."""
    return s.strip(JS_WHITESPACE)


def js_split_ws(s: str) -> list[str]:
    """Split on runs of JavaScript whitespace (``s.split(/\\s+/)`` minus empty ends)."""
    return [part for part in _WS_RUN.split(s) if part]


_CHUNK = 1 << 20


def _units(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def utf16_len(s: str) -> int:
    """Return the string's length in UTF-16 code units (JavaScript's ``s.length``)."""
    if s.isascii():
        return len(s)
    if len(s) <= _CHUNK:
        return len(_units(s)) // 2
    # A long text is encoded a piece at a time, so measuring it never doubles its memory.
    return sum(len(_units(s[i : i + _CHUNK])) // 2 for i in range(0, len(s), _CHUNK))


def _index_at_units(s: str, units: int) -> int:
    """Return the code-point index where ``units`` UTF-16 units have passed, never mid-pair."""
    if units <= 0:
        return 0
    if s.isascii():
        return min(units, len(s))
    count = 0
    for i, ch in enumerate(s):
        step = 2 if ord(ch) > 0xFFFF else 1
        if count + step > units:
            return i
        count += step
    return len(s)


def utf16_cut(s: str, units: int) -> str:
    """Return the longest prefix of at most ``units`` UTF-16 units; a pair is cut before, never split."""
    return s[: _index_at_units(s, units)]


def utf16_slice(s: str, start: int, end: int | None = None) -> str:
    """Return ``s.slice(start, end)`` in UTF-16 units, moving cuts that fall inside a pair before it."""
    n = utf16_len(s)
    start = max(0, n + start) if start < 0 else min(start, n)
    end = n if end is None else (max(0, n + end) if end < 0 else min(end, n))
    if end <= start:
        return ""
    return s[_index_at_units(s, start) : _index_at_units(s, end)]


# UTF-16 in the machine's byte order, so a memoryview cast to "H" reads code units directly.
_NATIVE_UTF16 = "utf-16-le" if sys.byteorder == "little" else "utf-16-be"


def fnv1a32(s: str) -> int:
    """Return the 32-bit FNV-1a hash of the string's UTF-16 code units.

    Each code unit is XORed in whole (not byte by byte), as ``s.charCodeAt(i)`` is in the
    TypeScript reference: ``fnv1a32("a") == 0xE40C292C``.
    """
    h = 0x811C9DC5
    # ASCII bytes are the code units; otherwise read the units of the UTF-16 encoding.
    units = (
        s.encode("ascii")
        if s.isascii()
        else memoryview(s.encode(_NATIVE_UTF16, "surrogatepass")).cast("H")
    )
    for u in units:
        h = ((h ^ u) * 0x01000193) & 0xFFFFFFFF
    return h


def js_utf8(s: str) -> bytes:
    """Encode as JavaScript's TextEncoder does: lone surrogates become U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return _units(s).decode("utf-16-le", "replace").encode("utf-8")


_ANY_SURROGATE = re.compile("[\ud800-\udfff]")


def js_well_formed(s: str) -> str:
    """Return ``s.toWellFormed()``: lone surrogates become U+FFFD, as ``TextEncoder`` makes them.

    Such a string is what UTF-8 can hold; a surrogate pair held as two code points is joined
    into its one character (JavaScript sees the two units as that character). A string without
    surrogates is returned as it is.
    """
    if s.isascii():
        return s
    if len(s) <= _CHUNK:
        try:
            s.encode("utf-8")  # several times quicker than the search, for all its copy
            return s
        except UnicodeEncodeError:
            pass
    elif _ANY_SURROGATE.search(s) is None:
        return s
    return _units(s).decode("utf-16-le", "replace")


def sha256_hex(s: str) -> str:
    """Return the SHA-256 hex digest of the string's UTF-8 bytes (JavaScript's view)."""
    return hashlib.sha256(js_utf8(s)).hexdigest()


def js_number(x: float | int) -> str:
    """Format a number as ``JSON.stringify`` does (``String(x)`` for finite numbers).

    Shortest round-trip digits, positional from 1e-6 up to below 1e21, exponent form outside
    (``1e+21``, ``1e-7``); ``-0`` is ``0``; NaN and infinities are ``null``. A Python ``int``
    is first made the JavaScript Number it would become (the nearest double).
    """
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        if -_SAFE_INT < x < _SAFE_INT:
            return str(x)
        try:
            x = float(x)  # what Number(n) gives: the nearest double
        except OverflowError:
            return "null"  # beyond the largest double: Infinity, which JSON writes as null
    x = float(x)  # a float subclass (numpy.float64) may have its own repr
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mantissa, _, exp_part = repr(abs(x)).partition("e")
    exponent = int(exp_part) if exp_part else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac.rstrip("0")) if frac != "0" else whole
    point = len(whole) + exponent  # position of the decimal point relative to digits
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mant = digits[0] + ("." + digits[1:] if k > 1 else "")
        out = f"{mant}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + out


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\ud800-\udfff]')
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_char(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _ESCAPES.get(ch) or f"\\u{ord(ch):04x}"


def _quote(s: str) -> str:
    """Quote a string as JSON.stringify does (well-formed JSON.stringify, ES2019)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    if _SURROGATE.search(s) is not None:
        # A pair held as two code points is one character to JavaScript: join such pairs, so
        # that only lone surrogates are left to escape.
        s = _units(s).decode("utf-16-le", "surrogatepass")
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, s) + '"'


def _is_array_index(key: str) -> bool:
    return (
        key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1
    )


def _ordered_keys(obj: Mapping[str, Any]) -> list[str]:
    keys = [str(k) for k in obj]
    index_keys = sorted((k for k in keys if _is_array_index(k)), key=int)
    if not index_keys:
        return keys
    return index_keys + [k for k in keys if not _is_array_index(k)]


# json.dumps writes what JSON.stringify writes for strings without surrogates (same escapes,
# lower-case hex, U+2028/U+2029 and DEL left alone), for safe integers, for non-integral floats
# that both write positionally, and for objects without array-index keys.
_dumps = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), allow_nan=False, check_circular=False
).encode


def _plain(v: Any) -> bool:
    """Return whether ``json.dumps`` writes ``v`` exactly as ``JSON.stringify`` does."""
    t = type(v)
    if t is str or v is None or t is bool:
        return True
    if t is int:
        return bool(-_SAFE_INT < v < _SAFE_INT)
    if t is float:
        # Python's repr goes exponential from 1e16 and below 1e-4, JavaScript's from 1e21 and
        # below 1e-6; in between both write the same shortest digits, unless x is integral
        # (Python writes "5.0").
        return bool(1e-4 <= abs(v) < 1e16 and not v.is_integer())
    if t is dict:
        for k, x in v.items():
            if type(k) is not str or (k[:1].isdigit() and _is_array_index(k)) or not _plain(x):
                return False
        return True
    if t is list or t is tuple:
        return all(_plain(x) for x in v)
    return False


def js_stringify(value: Any) -> str:
    """Serialise like ``JSON.stringify(value)`` with no indentation.

    Integer-like keys come first in ascending order, then the others in insertion order;
    ``None`` members of objects are kept as ``null`` (JavaScript drops only ``undefined``).
    Python ints are written as the JavaScript Number they would become.

    Raises:
        TypeError: ``value`` holds something JSON cannot represent.
    """
    if _plain(value):
        out = _dumps(value)
        if out.isascii():
            return out
        # Lone surrogates must be escaped and split pairs joined: only the slow path does it.
        # A str holding any surrogate cannot be encoded as UTF-8, which is the quickest test.
        try:
            out.encode("utf-8")
        except UnicodeEncodeError:
            return _stringify(value)
        return out
    return _stringify(value)


def _stringify(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, bool | int | float):
        return js_number(value)
    if isinstance(value, numbers.Integral):  # numpy and database integer types
        return js_number(int(value))
    if isinstance(value, numbers.Real):
        return js_number(float(value))
    if isinstance(value, Mapping):
        d = {str(k): v for k, v in value.items()}
        return "{" + ",".join(_quote(k) + ":" + _stringify(d[k]) for k in _ordered_keys(d)) + "}"
    if isinstance(value, Sequence | set | frozenset) and not isinstance(value, bytes | bytearray):
        return "[" + ",".join(_stringify(v) for v in value) + "]"
    raise TypeError(f"cannot serialise {type(value).__name__} as JSON")
