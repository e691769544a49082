"""The searchable text of a calendar invitation (.ics, RFC 5545) or a contact card (.vcf,
RFC 6350 and vCard 2.1) attached to a mail: a few lines per event or card, never the file.

Both are "content lines" (``NAME;PARAM=v:VALUE``, folded at 75 octets). Reading is bounded
whatever the file: callers pass a bounded text, each line's parameters are looked at up to
:data:`_MAX_PARAMS` characters, each value is cut at :data:`MAX_VALUE`, and at most
:data:`MAX_ITEMS` events or cards are kept (the others are counted).
"""

from __future__ import annotations

import quopri
import re
from collections.abc import Iterator

from .charsets import decode_bytes

__all__ = ["MAX_ITEMS", "MAX_VALUE", "calendar_text", "card_text"]

MAX_ITEMS = 10  # events or cards kept per attachment
MAX_VALUE = 1000  # characters kept of one value (a description)
_MAX_PARAMS = 1000  # characters of a line's parameters looked at
_MAX_SOFT_BREAKS = 50  # lines one quoted-printable value may go on over

_FOLD = re.compile(r"\r?\n[ \t]")  # RFC 5545 3.1: a line break then one space or tab
_NAME = re.compile(r"(?:[A-Za-z0-9-]{1,64}\.)?([A-Za-z0-9-]{1,64})")  # a group: ``item1.EMAIL``
_ESCAPE = re.compile(r"\\([\\;,nN:])")
_COMPONENT_SPLIT = re.compile(r"(?<!\\);")
_SOFT_BREAK = re.compile(r"=(?![0-9A-Fa-f]{2})")
_STAMP = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})\d{0,2}(Z?))?")
_BLANKS = re.compile(r"[ \t]*\n(?:[ \t]*\n)+")
_RULER = re.compile(r"([-_=*~])\1{9,}")  # a line of underscores (Teams, Zoom invitations)


def _unescape(value: str) -> str:
    def one(m: re.Match[str]) -> str:
        c = m.group(1)
        return "\n" if c in "nN" else c

    return _ESCAPE.sub(one, value[: MAX_VALUE * 2])[:MAX_VALUE].strip()


def _params(text: str) -> dict[str, str]:
    """Split ``;A=x;B="y:z";QUOTED-PRINTABLE`` into upper-case names and their values."""
    found: dict[str, str] = {}
    piece: list[str] = []
    pieces: list[str] = []
    quoted = False
    for c in text:
        if c == '"':
            quoted = not quoted
        elif c == ";" and not quoted:
            pieces.append("".join(piece))
            piece = []
            continue
        piece.append(c)
    pieces.append("".join(piece))
    for p in pieces:
        if not p:
            continue
        name, eq, value = p.partition("=")
        # vCard 2.1 names some parameters alone: ``EMAIL;INTERNET``, ``;QUOTED-PRINTABLE``
        found[name.strip().upper()] = value.strip().strip('"') if eq else name.strip().upper()
    return found


def _split(line: str) -> tuple[str, dict[str, str], str] | None:
    """Return a content line's name, parameters and raw value, or None for no such line."""
    m = _NAME.match(line)
    if m is None or line[m.end() : m.end() + 1] not in (";", ":"):
        return None
    at, quoted = m.end(), False
    stop = min(len(line), at + _MAX_PARAMS)
    for i in range(at, stop):
        c = line[i]
        if c == '"':
            quoted = not quoted
        elif c == ":" and not quoted:
            return m.group(1).upper(), _params(line[at + 1 : i]), line[i + 1 :]
    return None


def _lines(text: str) -> Iterator[tuple[str, dict[str, str], str]]:
    """Return the content lines of a text, unfolded, quoted-printable values (vCard 2.1)
    decoded."""
    lines = iter(_FOLD.sub("", text).splitlines())
    for line in lines:
        parsed = _split(line)
        if parsed is None:
            continue
        name, params, value = parsed
        if params.get("ENCODING", "").upper() == "QUOTED-PRINTABLE" or (
            "QUOTED-PRINTABLE" in params
        ):
            for _ in range(_MAX_SOFT_BREAKS):
                if not value.endswith("="):  # a soft line break: the value goes on
                    break
                value = value[:-1] + next(lines, "")
            # An "=" before no hex pair is a soft break that unfolding joined (no data: a
            # literal "=" is "=3D")
            value = _SOFT_BREAK.sub("", value)
            raw = quopri.decodestring(value.encode("utf-8", "replace"))
            value = decode_bytes(raw, params.get("CHARSET"))
        yield name, params, value


def _when(value: str, params: dict[str, str]) -> tuple[str, str]:
    """Return a DTSTART/DTEND as a date and a time ("" for a whole day)."""
    m = _STAMP.fullmatch(value.strip())
    if m is None:
        return value.strip()[:40], ""
    day = f"{m.group(1)}-{m.group(2)}-{m.group(3)}"
    if m.group(4) is None:
        return day, ""
    zone = " UTC" if m.group(6) else ""
    if not zone and params.get("TZID"):
        zone = f" ({params['TZID'].lstrip('/')[:60]})"
    return day, f"{m.group(4)}:{m.group(5)}{zone}"


def _span(start: tuple[str, str] | None, end: tuple[str, str] | None) -> str:
    if start is None:
        return ""
    shown = " ".join(p for p in start if p)
    if end is None or end == start:
        return shown
    if end[0] == start[0] and start[1] and end[1]:  # one day: its zone said once, at the end
        begin, _, zone = start[1].partition(" ")
        until, _, end_zone = end[1].partition(" ")
        if zone == end_zone:
            return f"{start[0]} {begin} to {until}" + (f" {zone}" if zone else "")
        return f"{shown} to {end[1]}"
    return f"{shown} to {' '.join(p for p in end if p)}"


def _person(value: str, params: dict[str, str]) -> str:
    address = value.strip()
    if address.lower().startswith("mailto:"):
        address = address[len("mailto:") :]
    name = params.get("CN", "").strip()[:100]
    address = address[:200]
    return f"{name} <{address}>" if name and address else name or address


def _tidy(text: str) -> str:
    return _BLANKS.sub("\n\n", _RULER.sub("", text)).strip()


def _more(seen: int, what: str, cut: bool) -> str:
    """Say how many events or cards were left out, past :data:`MAX_ITEMS` or the text read."""
    left = max(0, seen - MAX_ITEMS)
    if left:
        return f"\n\n(and {'at least ' if cut else ''}{left} more {what})"
    return f"\n\n(and maybe more {what}, past what was read)" if cut else ""


def calendar_text(text: str, cut: bool = False) -> str:
    """Return an iCalendar file's events as lines: what, when, where, who, the description.

    Properties of a component inside an event (an alarm's DESCRIPTION) are left out.
    ``cut`` says the text is the start of a longer file.
    """
    events: list[str] = []
    stack: list[str] = []
    event: dict[str, str] = {}
    times: dict[str, tuple[str, str]] = {}
    cancelled = False
    seen = 0
    for name, params, value in _lines(text):
        if name == "BEGIN":
            stack.append(value.strip().upper()[:20])
            if stack[-1] in ("VEVENT", "VTODO"):
                seen += 1
                event, times = {}, {}
            continue
        if name == "END":
            done = stack.pop() if stack else ""
            if done in ("VEVENT", "VTODO") and seen <= MAX_ITEMS:
                events.append(_event(event, times, cancelled))
            continue
        if stack[-1:] == ["VCALENDAR"] and name == "METHOD":
            cancelled = value.strip().upper() == "CANCEL"
        if stack[-1:] not in (["VEVENT"], ["VTODO"]) or seen > MAX_ITEMS:
            continue
        if name in ("DTSTART", "DTEND", "DUE"):
            times[name] = _when(value, params)
        elif name == "ORGANIZER":
            event[name] = _person(value, params)
        elif name in ("SUMMARY", "LOCATION", "DESCRIPTION", "STATUS"):
            event[name] = _unescape(value)
    if ("VEVENT" in stack or "VTODO" in stack) and seen <= MAX_ITEMS:  # a file cut short
        events.append(_event(event, times, cancelled))
    said = "\n\n".join(e for e in events if e)
    return said + _more(seen, "events", cut) if said else ""


def _event(event: dict[str, str], times: dict[str, tuple[str, str]], cancelled: bool) -> str:
    lines = []
    off = cancelled or event.get("STATUS", "").upper() == "CANCELLED"
    if event.get("SUMMARY") or off:
        lines.append(f"Event: {event.get('SUMMARY', '')}" + (" (cancelled)" if off else ""))
    when = _span(times.get("DTSTART"), times.get("DTEND") or times.get("DUE"))
    for label, said in (
        ("When", when),
        ("Where", event.get("LOCATION")),
        ("Organizer", event.get("ORGANIZER")),
    ):
        if said:
            lines.append(f"{label}: {said}")
    if event.get("DESCRIPTION"):
        lines.append(_tidy(event["DESCRIPTION"]))
    return "\n".join(lines)


def card_text(text: str, cut: bool = False) -> str:
    """Return a vCard file's cards, one line each: name, title, organisation, addresses.

    ``cut`` says the text is the start of a longer file.
    """
    cards: list[str] = []
    card: dict[str, list[str]] = {}
    seen = 0
    inside = False
    for name, _, value in _lines(text):
        if name == "BEGIN" and value.strip().upper() == "VCARD":
            inside, card = True, {}
            seen += 1
            continue
        if name == "END" and value.strip().upper() == "VCARD":
            inside = False
            if seen <= MAX_ITEMS:
                cards.append(_card(card))
            continue
        if inside and seen <= MAX_ITEMS and name in ("FN", "N", "ORG", "TITLE", "EMAIL"):
            parts = [_unescape(p) for p in _COMPONENT_SPLIT.split(value[: MAX_VALUE * 2])]
            kept = card.setdefault(name, [])
            if len(kept) < 5:
                kept.append(", ".join(p for p in parts if p) if name != "N" else _n(parts))
    if inside and seen <= MAX_ITEMS:  # a file cut short
        cards.append(_card(card))
    said = "\n".join(c for c in cards if c)
    return said + _more(seen, "contacts", cut) if said else ""


def _n(parts: list[str]) -> str:
    """``Family;Given;Additional;Prefix;Suffix`` as it is said: ``Given Family``."""
    family, given = [*parts, "", ""][:2]
    return " ".join(p for p in (given, family) if p)


def _card(card: dict[str, list[str]]) -> str:
    name = (card.get("FN") or card.get("N") or [""])[0]
    said = [name] if name else []
    for key in ("TITLE", "ORG", "EMAIL"):
        said += [v for v in card.get(key, []) if v]
    return "Contact: " + ", ".join(said) if said else ""
