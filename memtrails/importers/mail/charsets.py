"""Decode mail text whose charset is declared, missing, unknown or wrong."""

from __future__ import annotations

import codecs
import encodings.aliases
import re

from .._shared import without_controls
from .jis import decode_jis, looks_jis

__all__ = [
    "DECODE_ERRORS",
    "decode_bytes",
    "guess_charset",
    "python_codec",
    "readable",
    "to_bytes",
]

_DETECT_SAMPLE = 64 * 1024

# Labels mail software writes, mapped to the Python codec that reads what they really send:
# supersets (cp1252 for latin-1, cp932 for Shift_JIS, ...) as browsers do (WHATWG Encoding).
_CHARSET_ALIASES = {
    "us-ascii": "ascii",
    "ascii": "ascii",
    "ansi_x3.4-1968": "ascii",
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso_8859-1": "cp1252",
    "latin1": "cp1252",
    "latin-1": "cp1252",
    "l1": "cp1252",
    "windows-1252": "cp1252",
    "shift_jis": "cp932",
    "shift-jis": "cp932",
    "sjis": "cp932",
    "x-sjis": "cp932",
    "windows-31j": "cp932",
    "iso-2022-jp": "iso2022_jp_2",
    "big5": "cp950",
    "x-big5": "cp950",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "euc-cn": "gb18030",
    "euc-kr": "cp949",
    "ks_c_5601-1987": "cp949",
    "ks_c_5601": "cp949",
    "x-windows-949": "cp949",
    "utf8": "utf-8",
    "unicode-1-1-utf-7": "utf-7",
    "tis-620": "cp874",
}
# Codecs Python has that are not text encodings a mailer could mean.
_NOT_MAIL_CODECS = {
    "undefined",
    "unicode-escape",
    "raw-unicode-escape",
    "idna",
    "punycode",
    "palmos",
}
# Charsets whose label mailers also write on text in a larger set, read in it where the
# declared one fails: Hong Kong's Big5 (HKSCS: 堃, 喆), EUC-JP with the NEC rows (①).
# (Python's own names, where a label reaches them, too: "shiftjis", "euckr".)
_SUPERSETS = {
    "cp950": "big5hkscs",
    "big5": "big5hkscs",
    "euc_jp": "euc_jis_2004",
    "shift_jis": "cp932",
    "euc_kr": "cp949",
    "gb2312": "gb18030",
    "gbk": "gb18030",
}
_SINGLE_BYTE_LATIN = {"ascii", "cp1252", "iso8859-1", "iso8859-15"}  # codecs.lookup() names
DECODE_ERRORS = (UnicodeError, LookupError, ValueError, TypeError)


def python_codec(label: str | None) -> str | None:
    """Return the Python codec for a declared charset label, or None if it is unknown."""
    if not label:
        return None
    name = label.strip().strip("\"'").strip().lower()
    if name.startswith("charset="):  # seen in the wild: charset="charset=us-ascii"
        name = name[len("charset=") :].strip("\"'")
    name = _CHARSET_ALIASES.get(name, name)
    info = _lookup(name) or _lookup(_PYTHON_ALIASES.get(name, "")) or _whatwg(name)
    if info is None:
        loose = _loose(name)  # "cp-850", "win-1251", "koi8r", "latin-9"
        if loose is None or loose == name:
            return None
        return python_codec(loose)
    if info.name in _NOT_MAIL_CODECS or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


# Python's own alias table, whatever the case of its keys ("csHPRoman8" is not found by
# codecs.lookup, which looks for the lower-cased label).
_PYTHON_ALIASES = {key.lower(): value for key, value in encodings.aliases.aliases.items()}


def _loose(name: str) -> str | None:
    """Return the label a misspelt one stands for: the known label with the same letters
    and digits (``cp-850``, ``koi8r``, ``latin-9``), Windows' code pages by any prefix
    (``win-1251``, ``windows1251``, ``ms-1252``); None if none."""
    key = re.sub(r"[^a-z0-9]", "", name)
    key = re.sub(r"^(?:windows|win|ms|xcp)(?=\d{3,4}$)", "cp", key)
    return _LOOSE.get(key)


def _loose_table() -> dict[str, str]:
    labels = [*_CHARSET_ALIASES, *_PYTHON_ALIASES, *_PYTHON_ALIASES.values()]
    table: dict[str, str] = {}
    for label in labels:
        table.setdefault(re.sub(r"[^a-z0-9]", "", label.lower()), label)
    return table


_LOOSE = _loose_table()


def _lookup(name: str) -> codecs.CodecInfo | None:
    if not name:
        return None
    try:
        return codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None


def _whatwg(label: str) -> codecs.CodecInfo | None:
    """Return the codec the WHATWG Encoding Standard gives a label Python does not know.

    Its table (kept by ``webencodings``) holds what browsers and mailers write:
    ``iso-8859-8-i`` (Hebrew, logical order), ``x-mac-cyrillic``, ``csisolatin2``, ...
    """
    import webencodings  # type: ignore[import-untyped]  # why: the package ships no types

    try:
        encoding = webencodings.lookup(label)
    except Exception:  # why: a label the table cannot read is simply unknown
        return None
    if encoding is None or encoding.name == "replacement":
        return None
    info = encoding.codec_info
    return info if isinstance(info, codecs.CodecInfo) else None


_ASCII = bytes(range(128))
_MIN_EIGHT_BIT = 8


def _detect(data: bytes) -> str | None:
    """Guess the charset of undeclared or mislabelled 8-bit text with charset-normalizer."""
    sample = data[:_DETECT_SAMPLE]
    if len(sample.translate(None, _ASCII)) < _MIN_EIGHT_BIT and b"\x1b" not in sample:
        return None  # too few 8-bit bytes to tell charsets apart: cp1252 is the better bet
    from charset_normalizer import from_bytes  # imported on first use: most mail is UTF-8

    from .languages import by_language

    try:
        matches = from_bytes(sample)
        best = matches.best()
        if best is not None and best.multi_byte_usage == 0:
            # Single-byte code pages that all read as text: the one a language using it
            # writes every letter of (Portuguese in cp1252, not cp1250's "ă" for "ã").
            best = by_language(list(matches)) or best
    except Exception:  # why: a detector error must not cost the message, guessing is optional
        return None
    if best is None or best.encoding.lower().startswith(("utf_16", "utf_32")):
        return None
    codec = python_codec(best.encoding)
    return "euc_jp" if codec in _KOREAN and _japanese(sample, str(best)) else codec


_KOREAN = {"cp949", "euc_kr"}
_JAMO = re.compile(r"[\u3131-\u318e]")  # Hangul letters standing alone, not in syllables


def _japanese(data: bytes, korean: str) -> bool:
    """Tell whether text read as Korean is Japanese in EUC-JP: its kana (lead bytes A4 and
    A5) read as Korean are Hangul letters standing alone, which Korean text seldom has."""
    wide = sum(1 for c in korean if ord(c) > 0x2000)
    if not wide or len(_JAMO.findall(korean)) * 5 < wide:
        return False
    try:
        data.decode("euc_jp")
    except UnicodeDecodeError:
        return False
    return True


def guess_charset(data: bytes) -> str | None:
    """Return the charset undeclared 8-bit bytes are most likely in, or None.

    None for ASCII and valid UTF-8 (nothing to guess), and where too few 8-bit bytes tell
    charsets apart. A message with no declared charset reads its raw 8-bit headers in the
    charset guessed from the whole message, as its body is (a subject alone is too short).
    """
    if data.isascii():
        return None
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError:
        return _detect(data)


def _mostly(data: bytes, codec: str) -> bool:
    """Tell whether ``data`` is text in ``codec`` with a few bad bytes (not another charset).

    A UTF-8 mail with one broken sequence keeps its text with one U+FFFD; a Latin-1 mail
    labelled UTF-8 (every accented letter invalid) is not "mostly" UTF-8 and is detected.
    """
    try:
        text = data.decode(codec, "replace")
    except DECODE_ERRORS:
        return False
    bad = text.count("\ufffd") - data.decode(codec, "ignore").count("\ufffd")
    eight_bit = len(data.translate(None, _ASCII))
    return bad * 10 <= eight_bit


def _cut_utf8(data: bytes, exc: UnicodeDecodeError) -> str | None:
    """Return UTF-8 text cut inside its last character (a message cut short) with U+FFFD
    for that character; None unless the rest is UTF-8 with letters outside ASCII (a Latin-1
    text ending in ``é`` is cut nowhere)."""
    if exc.reason != "unexpected end of data" or len(data) - exc.start > 3:
        return None
    head = data[: exc.start]
    if head.isascii():
        return None
    try:
        return head.decode("utf-8") + "\ufffd"
    except UnicodeDecodeError:
        return None


def decode_bytes(data: bytes, declared: str | None, *, guess: bool = True) -> str:
    """Decode text whose declared charset may be missing, unknown or wrong; never raise.

    The declared charset is read strictly (UTF-8 first when a Latin label covers valid
    UTF-8, a common lie), then UTF-8; UTF-8 cut inside its last character (a message cut
    short) is UTF-8 with U+FFFD at the end. Text that is the declared charset but for a few bad
    bytes keeps it, with U+FFFD for each bad byte, so one bad byte never garbles a whole
    body. Otherwise (no charset, ``us-ascii`` on 8-bit text, or text in another charset
    than declared) charset-normalizer guesses (when ``guess``); UTF-8 with replacement
    characters and then cp1252 are the last resorts.
    """
    if not data:
        return ""
    codec = python_codec(declared)
    if codec == "ascii" and not data.isascii():
        codec = None  # "us-ascii" on 8-bit text is a mailer default, not a statement
    if (
        (codec or "ascii").startswith(("ascii", "iso2022_jp"))
        and data.isascii()
        and looks_jis(data)
    ):
        try:
            return data.decode("iso2022_jp_2")
        except DECODE_ERRORS:
            jis = decode_jis(data)  # Outlook's NEC and IBM characters, which Python's lacks
            if jis is not None:
                return jis
    order: list[str] = []
    if codec is not None:
        if codec in _SINGLE_BYTE_LATIN and not data.isascii():
            order.append("utf-8")
        order.append(codec)
        if codec in _SUPERSETS:
            order.append(_SUPERSETS[codec])
    order.append("utf-8")
    for name in order:
        try:
            return data.decode(name)
        except UnicodeDecodeError as exc:
            cut = _cut_utf8(data, exc) if name == "utf-8" else None
            if cut is not None:
                return cut
        except DECODE_ERRORS:
            continue
    if codec is not None and _mostly(data, codec):
        return data.decode(codec, "replace")
    if guess:
        detected = _detect(data)
        if detected is not None:
            try:
                return data.decode(detected)
            except DECODE_ERRORS:
                pass
    if _mostly(data, "utf-8"):
        return data.decode("utf-8", "replace")
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def to_bytes(value: str) -> bytes:
    """Return the wire bytes of a parsed value (the parser keeps 8-bit bytes as lone surrogates)."""
    # The parser keeps undecodable bytes as lone surrogates; this gives back the wire bytes.
    return value.encode("utf-8", "surrogateescape")


# U+0080-U+009F (C1 controls) in decoded mail are Windows-1252 bytes read as Latin-1 (a mail
# with no charset, an archive's copy): each is the character Windows meant (0x92 an
# apostrophe, 0x80 the euro sign), the five it leaves undefined nothing.
_C1 = {code: bytes([code]).decode("cp1252", "ignore") or None for code in range(0x80, 0xA0)}

_C1_FOUND = re.compile("[\x80-\x9f]")


def readable(text: str, one_line: bool = False) -> str:
    """Return decoded mail text as it reads: a C1 control as the Windows-1252 character it
    stands for, terminal escapes and other control characters left out (a name or subject
    crafted to retitle a window, a pasted coloured terminal session). ``one_line``: tabs
    and line breaks are spaces too (a header)."""
    if _C1_FOUND.search(text):
        text = text.translate(_C1)
    return without_controls(text, one_line)
