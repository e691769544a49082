"""Size and depth of JSON-like values, measured without recursion and mostly without serialising."""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .portable import js_stringify, js_utf8, js_well_formed

__all__ = ["Measure", "json_bytes", "measure", "str_bounds", "well_formed_value"]

# The longest number JSON.stringify writes ("-1.2345678901234567e-308"), and `false`/`null`.
_MAX_SCALAR = 25
_MIN_SCALAR = 1
_SCALARS = frozenset({int, float, bool, type(None)})
_ESCAPED = re.compile('["\\\\\x00-\x1f]')


@dataclass(slots=True)
class Measure:
    """Bounds on a value's stored JSON size in bytes, how deep it nests, whether it needs fixing.

    ``too_deep`` and ``too_big`` stop the walk early: the bounds are then partial.
    """

    low: int = 0
    high: int = 0
    too_deep: bool = False
    too_big: bool = False
    surrogates: bool = False


def str_bounds(s: str) -> tuple[int, int]:
    """Return bounds on the UTF-8 bytes of ``JSON.stringify(s)``: one to six bytes a character."""
    n = len(s)
    if s.isascii() and _ESCAPED.search(s) is None:
        return n + 2, n + 2
    return n + 2, 6 * n + 2  # an escape (\u001f) is six bytes, any other character at most four


class NotJSON(TypeError):
    """A value JSON cannot hold (a date, a Decimal, bytes, an object)."""

    def __init__(self, value: Any) -> None:
        super().__init__(f"a {type(value).__name__} is not a JSON value")
        self.kind = type(value).__name__


def _is_container(v: Any) -> bool:
    return isinstance(v, Sequence | set | frozenset) and not isinstance(v, str | bytes | bytearray)


def measure(value: Any, max_depth: int, max_low: int, depth: int = 0) -> Measure:
    """Walk ``value`` without recursion: JSON size bounds, nesting, lone surrogates.

    Args:
        value: a JSON-like value (dicts, lists, tuples, sets, strings, numbers, None).
        max_depth: deepest nesting allowed; one level deeper stops the walk (``too_deep``).
        max_low: stop the walk (``too_big``) once the size is surely over this many bytes.
        depth: the nesting ``value`` already sits at (1 for an entry of ``meta``).
    """
    m = Measure()
    low = high = 0
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack:
        v, d = stack.pop()
        t = type(v)
        if t in _SCALARS:
            low += _MIN_SCALAR
            high += _MAX_SCALAR
            continue
        strings: tuple[str, ...]
        if t is str or isinstance(v, str):
            strings = (v,)
        elif t is dict or isinstance(v, Mapping):
            d += 1
            if d > max_depth:
                m.too_deep = True
                break
            low += 1 + len(v) * 2  # braces, colons and commas
            high += 1 + len(v) * 2
            strings = tuple(k if type(k) is str else str(k) for k in v)
            stack.extend((x, d) for x in v.values())
        elif t is list or t is tuple or _is_container(v):
            d += 1
            if d > max_depth:
                m.too_deep = True
                break
            low += 1 + max(len(v), 1)  # brackets and commas
            high += 1 + max(len(v), 1)
            stack.extend((x, d) for x in v)
            continue
        elif isinstance(v, numbers.Real):  # numpy's and databases' numbers
            low += _MIN_SCALAR
            high += _MAX_SCALAR
            continue
        else:
            raise NotJSON(v)
        for s in strings:
            # Loose bounds (one to six bytes a character) are enough to settle almost every
            # case; the caller serialises only values whose bounds straddle its limit.
            n = len(s)
            low += n + 2
            high += 6 * n + 2
            if not m.surrogates and not s.isascii() and js_well_formed(s) is not s:
                m.surrogates = True
        if low > max_low:
            m.too_big = True
            break
    m.low, m.high = low, high
    return m


def json_bytes(value: Any) -> int:
    """Return the exact UTF-8 size of ``JSON.stringify(value)``."""
    return len(js_utf8(js_stringify(value)))


def well_formed_value(value: Any) -> Any:
    """Return ``value`` with every string (keys too) made well-formed; unchanged parts are kept.

    Recursive: call it only on a value whose depth :func:`measure` has bounded.
    """
    if isinstance(value, str):
        return js_well_formed(value)
    if isinstance(value, Mapping):
        return {
            (js_well_formed(k) if isinstance(k, str) else k): well_formed_value(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [well_formed_value(v) for v in value]
    return value
