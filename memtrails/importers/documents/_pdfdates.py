"""A PDF's own dates, read from its document information dictionary as written.

kreuzberg 4.10 gives a PDF's ``CreationDate`` and ``ModDate`` as ISO 8601 with ``Z`` whatever
their offset ("D:20240503103200+02'00'" becomes 10:32 UTC, two hours late) and garbles the
short forms the format allows ("D:202405" becomes "D:20-24-05T00:00:00Z"). The dates are
read here from the file's bytes instead, as ISO 32000-1 section 7.9.4 writes them:
``D:YYYYMMDDHHmmSSOHH'mm'``, every part after the year optional, and the forms writers use
beside it (no ``D:``, no closing apostrophe, ``-0530``, ``Z00'00'``).
"""

from __future__ import annotations

import calendar
import re

__all__ = ["iso_from_pdf_date", "pdf_dates", "pdf_text"]

_KEYS = ((b"/CreationDate", "created"), (b"/ModDate", "modified"))
_INFO = re.compile(rb"/Info\s+(\d{1,10})\s+(\d{1,5})\s+R")
_MOST_INFO = 64 * 1024  # bytes of the information dictionary's object searched
# A literal string without escapes or parentheses, or a hex string.
_STRING = re.compile(rb"\s*(?:\(([^()\\]{1,80})\)|<([0-9A-Fa-f\s]{2,400})>)")
_PDF_DATE = re.compile(
    r"\s*(?:D:)?\s*(\d{4})(\d\d)?(\d\d)?(\d\d)?(\d\d)?(\d\d)?"
    r"(?:(Z)(?:00'?(?:00'?)?)?|([+-])(\d\d)(?:'?(\d\d))?'?)?\s*",
    re.I,
)


def pdf_dates(data: bytes) -> dict[str, str | None] | None:
    """Return ``{"created": ..., "modified": ...}`` as the PDF's information dictionary
    (the trailer's ``/Info``) writes them, each an ISO 8601 string (:func:`iso_from_pdf_date`)
    or None where the date is malformed; a key is absent where the dictionary has no such
    date. None when the dictionary cannot be found in the bytes as written (compressed in
    an object stream, say): the extractor's reading then stands."""
    info = _info_object(data)
    if info is None:
        return None
    out: dict[str, str | None] = {}
    for key, name in _KEYS:
        at = info.rfind(key)
        if at < 0:
            continue
        m = _STRING.match(info, at + len(key))
        raw = _string(m) if m is not None else None
        out[name] = iso_from_pdf_date(raw) if raw is not None else None
    return out


def _info_object(data: bytes) -> bytes | None:
    """The bytes of the object the last ``/Info`` reference names, up to its ``endobj``."""
    ref = data.rfind(b"/Info")
    m = _INFO.match(data, ref) if ref >= 0 else None
    if m is None:
        return None
    header = b"%d %d obj" % (int(m.group(1)), int(m.group(2)))
    start = data.rfind(header)
    while start > 0 and data[start - 1 : start].isdigit():  # "16 0 obj" is not "6 0 obj"
        start = data.rfind(header, 0, start)
    if start < 0:
        return None
    end = data.find(b"endobj", start, start + _MOST_INFO)
    return data[start : end if end >= 0 else start + _MOST_INFO]


def _string(m: re.Match[bytes]) -> str | None:
    raw = m.group(1)
    if raw is None:
        digits = re.sub(rb"\s", b"", m.group(2))
        try:
            raw = bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii"))
        except ValueError:
            return None
    return pdf_text(raw)


def pdf_text(raw: bytes) -> str:
    """A PDF text string's bytes as text: UTF-16 after its byte order mark, else
    PDFDocEncoding (Latin-1 for what a date or a name holds)."""
    if raw.startswith(b"\xfe\xff"):
        return raw[2:].decode("utf-16-be", "replace")
    return raw.decode("latin-1")


def iso_from_pdf_date(text: str) -> str | None:
    """Return a PDF date as ISO 8601, or None when it is malformed.

    A date alone is a date ("2024-05-03", read as UTC midnight); a time without an offset
    stays without one (read as local time, as the format leaves it unknown).

    Example:
        >>> iso_from_pdf_date("D:20240503103200+02'00'"), iso_from_pdf_date("D:2024")
        ('2024-05-03T10:32:00+02:00', '2024')
        >>> iso_from_pdf_date("D:20241399"), iso_from_pdf_date("D:20240503103200")
        (None, '2024-05-03T10:32:00')
    """
    m = _PDF_DATE.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, utc, sign, off_h, off_m = m.groups()
    if month is None:
        return year
    if not 1 <= int(month) <= 12:
        return None
    if day is None:
        return f"{year}-{month}"
    if not 1 <= int(day) <= calendar.monthrange(int(year), int(month))[1]:
        return None
    if hour is None:
        return f"{year}-{month}-{day}"
    minute, second = minute or "00", second or "00"
    if int(hour) > 23 or int(minute) > 59 or int(second) > 59:
        return None
    zone = "Z" if utc else ""
    if sign:
        if int(off_h) > 23 or int(off_m or 0) > 59:
            return None
        zone = f"{sign}{off_h}:{off_m or '00'}"
    return f"{year}-{month}-{day}T{hour}:{minute}:{second}{zone}"
