"""Slack's times: a time written as seconds, and date tokens
(``<!date^1392734382^{date_short} at {time}|fallback>``) as text."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["seconds", "slack_date"]

_TOKEN = re.compile(r"\{(\w+)\}")
_MAX_SECONDS = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second datetime holds


def seconds(value: Any) -> Decimal | None:
    """Return a time Slack wrote as seconds (a number, or a string of one), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _when(stamp: str) -> datetime | None:
    said = seconds(stamp)
    if said is None or not -62_135_596_800 <= said <= _MAX_SECONDS:
        return None
    return datetime.fromtimestamp(int(said), UTC)


def _ordinal(day: int) -> str:
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _token(when: datetime, token: str) -> str | None:
    if token == "date_num":
        return when.strftime("%Y-%m-%d")
    if token in ("date", "date_pretty"):
        return f"{when:%B} {_ordinal(when.day)}, {when.year}"
    if token in ("date_short", "date_short_pretty"):
        return f"{when:%b} {when.day}, {when.year}"
    if token in ("date_long", "date_long_pretty"):
        return f"{when:%A}, {when:%B} {_ordinal(when.day)}, {when.year}"
    if token == "time":
        return when.strftime("%H:%M")
    if token == "time_secs":
        return when.strftime("%H:%M:%S")
    if token in ("ago", "day_divider_pretty"):
        return f"{when:%b} {when.day}, {when.year}"
    return None


def slack_date(stamp: str, fmt: str) -> str:
    """Return a ``<!date>`` token with no fallback text as its format filled in, in UTC.

    ``slack_date("1392734382", "{date_short} at {time}")`` is ``"Feb 18, 2014 at 14:39"``;
    an unknown token stays as written, a stamp that is no time is given as written.
    """
    when = _when(stamp)
    if when is None:
        return stamp
    if not fmt.strip():
        fmt = "{date_num} {time}"
    return _TOKEN.sub(lambda m: _token(when, m.group(1)) or m.group(0), fmt)
