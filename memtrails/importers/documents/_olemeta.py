"""Read an Office 97-2003 file's own dates, title and author from its SummaryInformation
property set (kreuzberg 4.10 gives no dates for .doc/.xls/.ppt, and no title or author for
.xls). Standard library only: it runs in the document worker, on a file ``layout`` checked."""

from __future__ import annotations

import codecs
import struct
from datetime import UTC, datetime, timedelta
from typing import Any

from ._oleguard import Layout

__all__ = ["summary_info"]

_STREAM = "\x05SummaryInformation"
_MOST = 64 << 10  # a real summary is a few hundred bytes
_VT_I2, _VT_LPSTR, _VT_LPWSTR, _VT_FILETIME = 0x02, 0x1E, 0x1F, 0x40
_TITLE, _AUTHOR, _CREATED, _SAVED = 2, 4, 12, 13
_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)
_EARLIEST = datetime(1980, 1, 1, tzinfo=UTC)  # before Office: a zero or a duration


def _when(ticks: int) -> str | None:
    """A FILETIME (100 ns since 1601) as ISO 8601 UTC, or None for none or a nonsense one."""
    try:
        at = _EPOCH + timedelta(microseconds=ticks // 10)
    except OverflowError:
        return None
    if at < _EARLIEST or at > datetime.now(UTC) + timedelta(days=366):
        return None
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _text(raw: bytes, codepage: int) -> str | None:
    name = {1200: "utf-16-le", 65001: "utf-8"}.get(codepage, f"cp{codepage}")
    try:
        codecs.lookup(name)
    except LookupError:
        name = "cp1252"
    value = raw.decode(name, "replace").split("\0", 1)[0].strip()
    return value or None


def summary_info(ole: Layout) -> dict[str, Any]:
    """Return ``{created, modified, title, authors}`` where the file's summary has them."""
    data = ole.stream(_STREAM, _MOST)
    if not data or len(data) < 48:
        return {}
    try:
        (offset,) = struct.unpack_from("<I", data, 44)  # the first section
        _, count = struct.unpack_from("<II", data, offset)
        props: dict[int, int] = {}
        for i in range(min(count, 256)):
            pid, at = struct.unpack_from("<II", data, offset + 8 + 8 * i)
            props[pid] = offset + at
        codepage = 1252
        if 1 in props and struct.unpack_from("<I", data, props[1])[0] == _VT_I2:
            codepage = struct.unpack_from("<H", data, props[1] + 4)[0]
        out: dict[str, Any] = {}
        for pid, key in ((_CREATED, "created"), (_SAVED, "modified")):
            if pid in props and struct.unpack_from("<I", data, props[pid])[0] == _VT_FILETIME:
                when = _when(struct.unpack_from("<Q", data, props[pid] + 4)[0])
                if when:
                    out[key] = when
        for pid, key in ((_TITLE, "title"), (_AUTHOR, "author")):
            if pid not in props:
                continue
            kind, length = struct.unpack_from("<II", data, props[pid])
            start = props[pid] + 8
            if kind == _VT_LPSTR:
                value = _text(data[start : start + min(length, 4096)], codepage)
            elif kind == _VT_LPWSTR:
                value = _text(data[start : start + 2 * min(length, 4096)], 1200)
            else:
                continue
            if value:
                out[key] = value
    except (struct.error, ValueError):
        return {}
    return out
