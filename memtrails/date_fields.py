"""V8's DateParser, ported: the text of a ``Date.parse`` argument to its date fields.

:func:`parse_fields` is the whole of it; :mod:`.dates` turns the fields into an instant.
"""

from __future__ import annotations

from array import array

__all__ = ["MONTH_NUMBERS", "ZONE_HOURS", "parse_fields"]

# This is a port of V8's DateParser (src/date/dateparser*.{h,cc}, the parser behind Node's
# Date.parse): an ES5 ISO 8601 pass first, and whatever it leaves goes to the "legacy" pass,
# which reads words, numbers and signs as tokens. It works on UTF-16 code units, as V8 does,
# so that lone surrogates, NUL and non-ASCII characters are classified the same way.

_NONE = 2**31 - 1  # V8's kNone (kMaxInt): a missing component
_MAX_DIGITS = 9  # V8 keeps the first 9 digits of a numeral and skips the rest
_POW10: list[int] = [10**i for i in range(_MAX_DIGITS + 1)]

# Token kinds. A keyword's kind is its KeywordType; other tokens use negative tags as in V8.
_INVALID, _MONTH, _ZONE, _T_SEP, _AMPM = 0, 1, 2, 3, 4
_TK_INVALID, _TK_UNKNOWN, _TK_SPACE, _TK_NUMBER, _TK_SYMBOL, _TK_END = -6, -5, -4, -3, -2, -1

# V8's KeywordTable: the first three letters (lower case) -> (type, value). Only month names
# may be longer than their entry; "t", "z", "am", "ut" must be the whole word.
_KEYWORDS: list[tuple[str, int, int]] = [
    ("jan", _MONTH, 1), ("feb", _MONTH, 2), ("mar", _MONTH, 3), ("apr", _MONTH, 4),
    ("may", _MONTH, 5), ("jun", _MONTH, 6), ("jul", _MONTH, 7), ("aug", _MONTH, 8),
    ("sep", _MONTH, 9), ("oct", _MONTH, 10), ("nov", _MONTH, 11), ("dec", _MONTH, 12),
    ("am", _AMPM, 0), ("pm", _AMPM, 12),
    ("ut", _ZONE, 0), ("utc", _ZONE, 0), ("z", _ZONE, 0), ("gmt", _ZONE, 0),
    ("cdt", _ZONE, -5), ("cst", _ZONE, -6), ("edt", _ZONE, -4), ("est", _ZONE, -5),
    ("mdt", _ZONE, -6), ("mst", _ZONE, -7), ("pdt", _ZONE, -7), ("pst", _ZONE, -8),
    ("t", _T_SEP, 0),
]  # fmt: skip
_KEYWORD_INDEX = {k: (kind, value) for k, kind, value in _KEYWORDS}

# JavaScript WhiteSpace (which ends a word) and WhiteSpace + LineTerminator (a space token).
# A line terminator (LF, CR, U+2028, U+2029) at or above 'A' is therefore part of a word.
_WHITESPACE = frozenset(
    [0x09, 0x0B, 0x0C, 0x20, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000, 0xFEFF]
)
_SPACE_OR_LT = _WHITESPACE | {0x0A, 0x0D, 0x2028, 0x2029}


class _Token:
    """One token: a number (value, digit count), a symbol, a keyword, white space, the end."""

    __slots__ = ("length", "tag", "value")

    def __init__(self, tag: int, length: int, value: int) -> None:
        self.tag = tag
        self.length = length
        self.value = value

    def is_number(self, length: int = 0) -> bool:
        return self.tag == _TK_NUMBER and (length == 0 or self.length == length)

    def is_symbol(self, ch: str) -> bool:
        return self.tag == _TK_SYMBOL and self.value == ord(ch)

    def is_sign(self) -> bool:
        return self.tag == _TK_SYMBOL and self.value in (0x2B, 0x2D)

    def is_keyword(self) -> bool:
        return self.tag >= 0

    def is_z(self) -> bool:
        return self.tag == _ZONE and self.length == 1 and self.value == 0


_END = _Token(_TK_END, 0, -1)
_BAD = _Token(_TK_INVALID, 0, -1)


class _Scanner:
    """V8's InputReader + DateStringTokenizer: one token of look-ahead over UTF-16 units."""

    def __init__(self, units: array[int]) -> None:
        self.units = units
        self.pos = 0
        self.next = self._scan()

    def _ch(self) -> int:
        # NUL ends the input, as in V8 (its reader returns 0 past the end).
        return self.units[self.pos] if self.pos < len(self.units) else 0

    def _scan(self) -> _Token:
        units, start = self.units, self.pos
        ch = self._ch()
        if ch == 0:
            return _END
        if 0x30 <= ch <= 0x39:
            n = i = 0
            while 0x30 <= ch <= 0x39:
                if i < _MAX_DIGITS:
                    n = n * 10 + ch - 0x30
                i += 1
                self.pos += 1
                ch = self._ch()
            return _Token(_TK_NUMBER, self.pos - start, n)
        if ch in (0x3A, 0x2D, 0x2B, 0x2E, 0x29):  # : - + . )
            self.pos += 1
            return _Token(_TK_SYMBOL, 1, ch)
        if ch >= 0x41 and ch not in _WHITESPACE:
            # A word: every unit >= 'A' that is not white space; V8 lower-cases with `| 0x20`.
            prefix: list[int] = []
            while ch >= 0x41 and ch not in _WHITESPACE:
                if len(prefix) < 3:
                    prefix.append(ch | 0x20)
                self.pos += 1
                ch = self._ch()
            length = self.pos - start
            kind, value = _INVALID, 0
            if all(c < 0x80 for c in prefix):
                found = _KEYWORD_INDEX.get("".join(map(chr, prefix)))
                if found is not None and (length <= 3 or found[0] == _MONTH):
                    kind, value = found
            return _Token(kind, length, value)
        if ch in _SPACE_OR_LT:
            self.pos += 1
            return _Token(_TK_SPACE, 1, -1)
        if ch == 0x28:  # '(' : skip a parenthesised comment, nesting included
            balance = 0
            while True:
                if ch == 0x29:
                    balance -= 1
                elif ch == 0x28:
                    balance += 1
                self.pos += 1
                ch = units[self.pos] if self.pos < len(units) else 0
                if not (balance > 0 and ch):
                    break
            return _Token(_TK_UNKNOWN, 1, -1)
        self.pos += 1
        return _Token(_TK_UNKNOWN, 1, -1)

    def take(self) -> _Token:
        token, self.next = self.next, self._scan()
        return token

    def skip_symbol(self, ch: str) -> bool:
        if self.next.is_symbol(ch):
            self.next = self._scan()
            return True
        return False


def _read_ms(token: _Token) -> int:
    """Return the first three significant digits of a fraction numeral (V8's ReadMilliseconds)."""
    n, length = token.value, token.length
    if length == 1:
        return n * 100
    if length == 2:
        return n * 10
    if length > 3:
        length = min(length, _MAX_DIGITS)
        return n // _POW10[length - 3]
    return n


class _Day:
    """V8's DayComposer: up to three numbers and a named month, ordered when written."""

    def __init__(self) -> None:
        self.comp: list[int] = []
        self.named_month = _NONE
        self.iso = False

    def add(self, n: int) -> bool:
        if len(self.comp) < 3:
            self.comp.append(n)
            return True
        return False

    def write(self) -> tuple[int, int, int] | None:
        if not self.comp:
            return None
        comp = self.comp + [1] * (3 - len(self.comp))  # day and month default to 1 ...
        # ... and, as V8 pads before choosing the order, a missing year is comp[2] == 1: 2001.
        if self.named_month == _NONE:
            if self.iso or not 1 <= comp[0] <= 31:
                year, month, day = comp
            else:
                month, day, year = comp
        else:
            # V8 tests for a lone day *after* padding, so it never matches: "Apr 2" is
            # day 2 of year 1 (2001), like "4/2".
            month = self.named_month
            if not 1 <= comp[0] <= 31:
                year, day = comp[0], comp[1]
            else:
                day, year = comp[0], comp[1]
        if not self.iso:
            if 0 <= year <= 49:
                year += 2000
            elif 50 <= year <= 99:
                year += 1900
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        return year, month, day


class _Time:
    """V8's TimeComposer: hour, minute, second, millisecond and an am/pm offset."""

    def __init__(self) -> None:
        self.comp: list[int] = []
        self.hour_offset = _NONE

    def empty(self) -> bool:
        return not self.comp

    def expecting(self, n: int) -> bool:
        i = len(self.comp)
        return (i in (1, 2) and 0 <= n <= 59) or (i == 3 and 0 <= n <= 999)

    def add(self, n: int) -> bool:
        if len(self.comp) < 4:
            self.comp.append(n)
            return True
        return False

    def add_final(self, n: int) -> bool:
        if not self.add(n):
            return False
        self.comp += [0] * (4 - len(self.comp))
        return True

    def write(self) -> tuple[int, int, int, int] | None:
        hour, minute, second, ms = self.comp + [0] * (4 - len(self.comp))
        if self.hour_offset != _NONE:
            if not 0 <= hour <= 12:
                return None
            hour = hour % 12 + self.hour_offset
        if not (
            0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59 and 0 <= ms <= 999
        ) and (hour != 24 or minute or second or ms):
            return None
        return hour, minute, second, ms


class _Zone:
    """V8's TimeZoneComposer: a sign, hours and minutes; no sign means local time."""

    def __init__(self) -> None:
        self.sign = _NONE
        self.hour = _NONE
        self.minute = _NONE

    def set(self, hours: int) -> None:
        self.sign = -1 if hours < 0 else 1
        self.hour = abs(hours)
        self.minute = 0

    def expecting(self, n: int) -> bool:
        return self.hour != _NONE and self.minute == _NONE and 0 <= n <= 59

    def is_utc(self) -> bool:
        return self.hour == 0 and self.minute == 0

    def write(self) -> tuple[bool, int | None]:
        """Return (valid, offset in seconds or None for local time)."""
        if self.sign == _NONE:
            return True, None
        hour = 0 if self.hour == _NONE else self.hour
        minute = 0 if self.minute == _NONE else self.minute
        total = hour * 3600 + minute * 60
        if total > 2**30 - 1:  # V8's Smi::kMaxValue (31-bit Smis with pointer compression)
            return False, None
        return True, -total if self.sign < 0 else total


def _parse_iso(sc: _Scanner, day: _Day, tm: _Time, tz: _Zone) -> _Token:
    """Read as much as possible as an ES5 date-time string; return the first unread token."""
    if sc.next.is_sign():
        sign_token = sc.take()
        if not sc.next.is_number(6):
            return sign_token
        year = sc.take().value
        if sign_token.value == 0x2D and year == 0:
            return sign_token
        day.add(-year if sign_token.value == 0x2D else year)
    elif sc.next.is_number(4):
        day.add(sc.take().value)
    else:
        return sc.take()
    if sc.skip_symbol("-"):
        if not sc.next.is_number(2) or not 1 <= sc.next.value <= 12:
            return sc.take()
        day.add(sc.take().value)
        if sc.skip_symbol("-"):
            if not sc.next.is_number(2) or not 1 <= sc.next.value <= 31:
                return sc.take()
            day.add(sc.take().value)
    if sc.next.tag != _T_SEP:
        if sc.next.tag != _TK_END:
            return sc.take()
    else:
        sc.take()
        if not sc.next.is_number(2) or not 0 <= sc.next.value <= 24:
            return _BAD
        hour_is_24 = sc.next.value == 24
        tm.add(sc.take().value)
        if not sc.skip_symbol(":"):
            return _BAD
        if not sc.next.is_number(2) or sc.next.value > 59 or (hour_is_24 and sc.next.value > 0):
            return _BAD
        tm.add(sc.take().value)
        if sc.skip_symbol(":"):
            if not sc.next.is_number(2) or sc.next.value > 59 or (hour_is_24 and sc.next.value):
                return _BAD
            tm.add(sc.take().value)
            if sc.skip_symbol("."):
                if not sc.next.is_number() or (hour_is_24 and sc.next.value > 0):
                    return _BAD
                tm.add(_read_ms(sc.take()))
        if sc.next.is_z():
            sc.take()
            tz.set(0)
        elif sc.next.is_sign():
            tz.sign = 1 if sc.take().value == 0x2B else -1
            if sc.next.is_number(4):
                hourmin = sc.take().value
                hour, minute = divmod(hourmin, 100)
                if hour > 23 or minute > 59:
                    return _BAD
                tz.hour, tz.minute = hour, minute
            else:
                if not sc.next.is_number(2) or sc.next.value > 23:
                    return _BAD
                tz.hour = sc.take().value
                if not sc.skip_symbol(":"):
                    return _BAD
                if not sc.next.is_number(2) or sc.next.value > 59:
                    return _BAD
                tz.minute = sc.take().value
        if sc.next.tag != _TK_END:
            return _BAD
    # Date-only forms without an offset are UTC; date-time forms without one are local time.
    if tz.hour == _NONE and tm.empty():
        tz.set(0)
    day.iso = True
    return _END


def parse_fields(units: array[int]) -> tuple[int, int, int, int, int, int, int, int | None] | None:
    """Return (year, month, day, hour, minute, second, ms, offset in seconds or None) of
    UTF-16 ``units`` as V8 reads them, ``None`` where ``Date.parse`` gives NaN."""
    sc = _Scanner(units)
    day, tm, tz = _Day(), _Time(), _Zone()
    token = _parse_iso(sc, day, tm, tz)
    if token.tag == _TK_INVALID:
        return None
    has_number = bool(day.comp)
    while token.tag != _TK_END:
        if token.tag == _TK_NUMBER:
            has_number = True
            n = token.value
            if sc.skip_symbol(":"):
                if sc.skip_symbol(":"):  # "n::" is hours and zero minutes
                    if not tm.empty():
                        return None
                    tm.add(n)
                    tm.add(0)
                else:
                    if not tm.add(n):
                        return None
                    if sc.next.is_symbol("."):
                        sc.take()
            elif sc.skip_symbol(".") and tm.expecting(n):
                tm.add(n)
                if not sc.next.is_number():
                    return None
                tm.add_final(_read_ms(sc.take()))
            elif tz.expecting(n):
                tz.minute = n
            elif tm.expecting(n):
                tm.add_final(n)
                # The time must be followed by the end, white space, "Z" or a sign.
                peek = sc.next
                if not (peek.tag in (_TK_END, _TK_SPACE) or peek.is_z() or peek.is_sign()):
                    return None
            else:
                if not day.add(n):
                    return None
                sc.skip_symbol("-")
        elif token.is_keyword():
            if token.tag == _AMPM and not tm.empty():
                tm.hour_offset = token.value
            elif token.tag == _MONTH:
                day.named_month = token.value
                sc.skip_symbol("-")
            elif token.tag == _ZONE and has_number:
                tz.set(token.value)
            else:
                # Words are ignored before the first number and are an error after it; the
                # first number must not touch a word ("foo2 Apr" is not a date).
                if has_number or sc.next.tag == _TK_NUMBER:
                    return None
        elif token.is_sign() and (tz.is_utc() or not tm.empty()):
            # A UTC offset, only after a zone name meaning UTC or after a time.
            tz.sign = 1 if token.value == 0x2B else -1
            n = length = 0
            if sc.next.tag == _TK_NUMBER:
                num = sc.take()
                n, length = num.value, num.length
            has_number = True
            if sc.next.is_symbol(":"):
                tz.hour, tz.minute = n, _NONE
            elif length in (1, 2):
                tz.hour, tz.minute = n, 0
            elif length in (3, 4):
                tz.hour, tz.minute = divmod(n, 100)
            else:
                return None
        elif (token.is_sign() or token.is_symbol(")")) and has_number:
            return None
        token = sc.take()
    ymd = day.write()
    hms = tm.write()
    valid, offset = tz.write()
    if ymd is None or hms is None or not valid:
        return None
    return (*ymd, *hms, offset)


# The keyword table's months and zones by name, for the mail-form fast path in :mod:`.dates`.
MONTH_NUMBERS = {k.capitalize(): v for k, kind, v in _KEYWORDS if kind == _MONTH}
ZONE_HOURS = {k.upper(): v for k, kind, v in _KEYWORDS if kind == _ZONE}
