"""Read ISO-2022-JP as Outlook and Japanese mailers write it (CP50220/50221): with NEC's
and IBM's extra characters (``①``, ``㈱``, ``髙``), which no ISO-2022-JP codec of
Python's reads; one of them made the whole text escape sequences."""

from __future__ import annotations

import re

__all__ = ["decode_jis", "looks_jis"]

_ESC = re.compile(rb"\x1b(\(B|\(J|\(I|\$@|\$B|&@)")
_KANJI = {b"$@", b"$B"}
_KANA = b"(I"
_SO, _SI = 0x0E, 0x0F


def looks_jis(data: bytes) -> bool:
    """Tell whether 7-bit ``data`` switches to JIS X 0208 the way ISO-2022-JP does."""
    return b"\x1b$B" in data or b"\x1b$@" in data


def decode_jis(data: bytes) -> str | None:
    """Return ISO-2022-JP text read through Windows-31J (cp932), which holds JIS X 0208 and
    the NEC and IBM rows Outlook writes in it; None where ``data`` switches to a set it does
    not hold (JIS X 0212, or ISO-2022-JP-2's Chinese and Korean sets)."""
    out = bytearray()
    mode = b"(B"
    kana_shift = False
    at = 0
    size = len(data)
    while at < size:
        byte = data[at]
        if byte == 0x1B:
            m = _ESC.match(data, at)
            if m is None:
                return None  # a set outside cp932, or a broken escape: not ours to guess
            if m.group(1) != b"&@":  # &@ only announces JIS X 0208's 1990 edition
                mode = m.group(1)
            at = m.end()
            continue
        if byte in (_SO, _SI):  # some mailers shift to half-width katakana this way
            kana_shift = byte == _SO
            at += 1
            continue
        if byte < 0x21 or byte > 0x7E:  # line ends and controls, whatever the mode
            out.append(byte)
            at += 1
            continue
        if mode in _KANJI and not kana_shift:
            if at + 1 >= size or not 0x21 <= data[at + 1] <= 0x7E:
                out.append(0x3F)  # half a character: "?"
                at += 1
                continue
            out += _sjis(byte, data[at + 1])
            at += 2
            continue
        if (mode == _KANA or kana_shift) and byte <= 0x5F:
            out.append(byte + 0x80)  # half-width katakana: A1-DF in Shift_JIS
        else:
            out.append(byte)
        at += 1
    return bytes(out).decode("cp932", "replace")


def _sjis(j1: int, j2: int) -> bytes:
    """The Shift_JIS bytes of the JIS X 0208 character at row ``j1``, cell ``j2``."""
    s1 = (j1 + 1) // 2 + (0x70 if j1 <= 0x5E else 0xB0)
    # an odd row's cells go to 40-7E and 80-9E (7F is skipped), an even row's to 9F-FC
    s2 = j2 + (0x1F if j2 <= 0x5F else 0x20) if j1 % 2 else j2 + 0x7E
    return bytes((s1, s2))
