"""Read a mail's time: its Date header as mailers really write it, else its newest Received."""

from __future__ import annotations

import time

from ...written_dates import ZONES, read_written

__all__ = ["ZONES", "mail_date", "mail_time", "received_date"]

#: The range a mail's time must fall in: from 1900, less the year 1970 (and the last day
#: of 1969, 1970's first day seen from a zone west of UTC). 1970 is the year of a zero time
#: stamp, a clock never set; no mail of 1970 survives (the first was sent in 1971).
_EARLIEST_MS = -2_208_988_800_000  # 1900-01-01
_EPOCH_JUNK = (-86_400_000, 31_536_000_000)  # 1969-12-31 up to 1971-01-01, UTC
#: How far past the moment of reading a mail's time may be: a sender's clock a little
#: ahead, or a wrong zone. Further is a clock set wrong (a year 2038, 3609, 19110).
_AHEAD_MS = 2 * 86_400_000
_ZONE_GUESS_MS = 15 * 3_600_000  # zones run from -12:00 to +14:00; an hour to spare
_QUARTER_HOUR_MS = 900_000
_MAX_RECEIVED = 64  # Received headers tried, from the top: a mail has a few; junk, thousands
_LONGEST = 256  # a Date value is short: what is longer is read only this far


def mail_time(
    date: str | None,
    received: list[str],
    *,
    stored: str | None = None,
    now_ms: int | None = None,
) -> tuple[int | None, str | None]:
    """Return a mail's time in epoch milliseconds and where it came from.

    The Date header comes first (:func:`mail_date`). When it names no zone (or one not
    known), its wall clock time is corrected by the newest ``Received`` time when that is
    within 15 hours of it: the difference, to the nearest quarter hour, is the sender's
    zone (``Tue, 12 Oct 2010 16:21:05 H0500`` delivered at ``16:21:05 -0400``). When the
    Date header is missing, unreadable or out of range, the newest ``Received`` header
    that holds a readable time in range gives the time (:func:`received_date`): the hop
    that delivered the mail, as a rule seconds after it was sent. Last comes ``stored``, the
    date of the mbox separator line the mail came after (``Tue Mar  3 10:00:00 2009``: when
    it was stored, read as :func:`mail_date` reads a Date, the same junk refused).

    Returns:
        ``(ms, "date")``; ``(ms, "date, zone from received")``; ``(ms, "received")``;
        ``(ms, "separator")``; or ``(None, None)`` when none of them holds a time.
    """
    now = _now(now_ms)
    if date:
        ms, zoned = _mail_date(date, now)
        if ms is not None:
            if not zoned:
                delivered = received_date(received, now_ms=now)
                if delivered is not None and abs(ms - delivered) <= _ZONE_GUESS_MS:
                    offset = round((ms - delivered) / _QUARTER_HOUR_MS) * _QUARTER_HOUR_MS
                    if _sane(ms - offset, now):
                        return ms - offset, "date, zone from received"
            return ms, "date"
    ms = received_date(received, now_ms=now)
    if ms is not None:
        return ms, "received"
    ms = _mail_date(stored, now)[0] if stored else None
    return (ms, "separator") if ms is not None else (None, None)


def received_date(values: list[str], *, now_ms: int | None = None) -> int | None:
    """Return the time of the newest ``Received`` header that has one, or None.

    A Received header's time follows its last ``;`` (RFC 5322 3.6.7); each relay adds its
    header on top, so the first one in the message is the newest: the final delivery.
    The headers are tried from the top, and the first readable time in range is taken
    (the topmost one, not the latest, because a relay's clock can be hours off). A header
    without ``;`` has no time: nothing else in it is read as one (an IP address such as
    ``1.2.3.4`` would look like a date).
    """
    now = _now(now_ms)
    for value in values[:_MAX_RECEIVED]:
        _, sep, stamp = value.rpartition(";")
        if sep:
            ms = mail_date(stamp, now_ms=now)
            if ms is not None:
                return ms
    return None


def mail_date(value: str, *, now_ms: int | None = None) -> int | None:
    """Return the epoch milliseconds a mail's Date header means, or None when it has none.

    Read as RFC 5322 writes it, and as mailers write it otherwise:

    - the zone: a numeric offset (``+0100``, ``+01:00``, ``+1``), which wins over a name;
      ``GMT+1`` / ``UTC-05:30`` (the offset from UTC); a name from :data:`ZONES`, in any
      case, after the time or in a comment (``10:00:00 CET``, ``10:00 (MESZ)``, ``cet``).
      An unknown name, an offset out of range (past 14 hours) or no zone at all: the wall
      clock time is read as UTC, as RFC 5322 reads ``-0000`` ("no information about the
      local time zone"), never as the zone of the machine reading the mail, so the same
      mail has the same time everywhere.
    - the date: a day, a month name (English; the usual short forms of a few other
      languages, ``Mär``, ``okt``, ``déc``) and a year in any order; or numbers:
      ``2009-03-03``, ``3.3.2009`` (day first), ``3/4/2009`` (month first, as in the US,
      unless the first number cannot be a month). Two-digit years are 2000-2049 and
      1950-1999, three-digit years count from 1900 (RFC 5322 4.3), and ``19109`` (a
      ``"19" + years-since-1900`` bug) is 2009.
    - the time: ``10:00``, ``10:00:00``, ``10:00:00.250``, ``10.00``, with ``am``/``pm``;
      a day alone is its midnight.
    - anything else (a weekday in any language, trailing words, comments) is passed over.

    A time that cannot be a mail's is junk, read as None: before 1900, in 1970 (a zero time
    stamp, from a clock never set: ``Thu, 01 Jan 1970 00:00:00 +0000``), or more than two
    days past ``now_ms`` (the current time when not given: a year 2038 or 3609). So is a
    day that the month does not have, or an hour past 24.

    Example:
        >>> mail_date("Tue, 3 Mar 2009 10:00:00 CET")
        1236070800000
        >>> mail_date("Tue, 3 Mar 2009 10:00:00 +0100 (CET)")
        1236070800000
    """
    return _mail_date(value, _now(now_ms))[0]


def _mail_date(value: str, now: int) -> tuple[int | None, bool]:
    """Return what :func:`mail_date` does, and whether the value named its zone."""
    read = read_written(value[:_LONGEST].replace("\x00", " "))
    if read is None or not _sane(read[0], now):
        return None, False
    return read


def _sane(ms: int, now: int) -> bool:
    """Tell whether ``ms`` can be a mail's time (see :func:`mail_date`)."""
    if not _EARLIEST_MS <= ms <= now + _AHEAD_MS:
        return False
    return not _EPOCH_JUNK[0] <= ms < _EPOCH_JUNK[1]


def _now(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms
