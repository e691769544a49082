"""Tell text from binary, decode it, and find a note's title."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from .._cjk_common import is_cjk_common
from .._legacy_langs import language_score
from .._legacy_text import (
    LEGACY_ORDER,
    decode_as,
    decode_legacy,
    lone_cr_as_lf,
    utf8_first,
)
from .._shared import name_as_title
from ..documents._sniff import described
from ._plausible import reads_as_text

__all__ = ["NOTE_SUFFIXES", "decode", "format_of", "title_of"]

# Prose is a "note"; everything else (source, config, data) is a "file".
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".txt", ".text", ".rst", ".org", ".adoc"})
_HEADING_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".rst", ".adoc"})
_SNIFF = 8192
_SHORT_UTF8 = 64  # bytes of UTF-8 up to which random bytes may be valid UTF-8 by chance
# Bytes that do not occur in text: C0 controls other than \t \n \v \f \r and ESC (ANSI colours).
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 11, 12, 13, 27)) + b"\x7f"
_MAX_CONTROL_SHARE = 0.05
_BOMS = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_SETEXT = re.compile(r"^ {0,3}(=+|-+|~+|\^+|\*+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_MAX_TITLE_LINES = 200


def format_of(data: bytes) -> str | None:
    """Name the file format ``data`` starts as, by a signature no text starts with (a PDF
    or a picture saved as .md: not text), in the words a document's reason uses
    (``documents._sniff.SIGNATURES``); else None."""
    return described(data, sure=True)


def _looks_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL))
    return controls / len(head) > _MAX_CONTROL_SHARE


def _utf16_without_bom(data: bytes) -> tuple[str, str] | None:
    """Read UTF-16 written without a byte order mark (some Windows tools and exports do),
    told by its zero bytes: in every other place (the high byte of Latin text), nowhere
    else; a file cut short in its last character (a copy that stopped) without that byte.
    None when the bytes are not such text."""
    data = data[: len(data) - len(data) % 2]
    head = data[:_SNIFF]
    if len(head) < 4:
        return None
    even, odd = head[0::2], head[1::2]
    for zeros, other, encoding in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if zeros.count(0) >= len(zeros) // 2 and other.count(0) <= len(other) // 50:
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                return None
            sample = text[:_SNIFF].encode("utf-8", "replace")
            if _looks_binary(sample) or not reads_as_text(text, True):
                return None
            return text, encoding
    return None


def _utf32_without_bom(data: bytes) -> tuple[str, str] | None:
    """Read UTF-32 written without a byte order mark, told by its zero bytes: each
    character's top byte, and the next but for a character beyond U+FFFF (at most 0x10);
    cut short in its last character, without its bytes. None when the bytes are not such
    text."""
    data = data[: len(data) - len(data) % 4]
    head = data[: _SNIFF - _SNIFF % 4]
    if len(head) < 8:
        return None
    for top, next_byte, encoding in ((3, 2, "utf-32-le"), (0, 1, "utf-32-be")):
        if head[top::4].strip(b"\0") or max(head[next_byte::4]) > 0x10:
            continue
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            return None
        sample = text[: _SNIFF // 4]
        if sum(c > "\uffff" for c in sample) * 4 > len(sample):
            return None  # text is mostly in the first plane; binary's pairs of words are not
        if _looks_binary(sample.encode("utf-8")) or not reads_as_text(text, True):
            return None
        return text, encoding
    return None


def _utf16_one_script(data: bytes) -> tuple[str, str] | None:
    """Read UTF-16 without a byte order mark of an alphabet beyond Latin (Cyrillic, Greek,
    Hebrew, Arabic, Devanagari, Thai, ...), told by its high bytes: the alphabet's block
    (0x04 for Cyrillic) and zero (ASCII: spaces, digits, punctuation), little else, in a
    reading that is words. None when the bytes are not such text."""
    head = data[:_SNIFF]
    if len(data) % 2 or len(head) < 4:
        return None
    for high, encoding in ((head[1::2], "utf-16-le"), (head[0::2], "utf-16-be")):
        counts = Counter(high)
        zero = counts.pop(0, 0)
        if not counts:
            continue
        block, letters = counts.most_common(1)[0]
        if block >= _ONE_SCRIPT_BELOW or letters * 4 < len(high):
            continue  # East Asian (read apart), or too few of the alphabet's letters
        if (zero + letters) * 20 < len(high) * 19:
            continue
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        if not _looks_binary(text[:_SNIFF].encode("utf-8", "replace")) and reads_as_text(
            text, True
        ):
            return text, encoding
    return None


_ONE_SCRIPT_BELOW = 0x20  # the blocks of alphabets (then symbols, CJK and the rest)


# The scripts of East Asian text (names' first word), and those it is often mixed with.
_CJK = frozenset(
    {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"}
)
_ALSO = frozenset({"LATIN", "CYRILLIC", "GREEK", "FULLWIDTH", "HALFWIDTH", "DIGIT", "VERTICAL"})
_GROUP = {"HIRAGANA": "KANA", "KATAKANA": "KANA", "KATAKANA-HIRAGANA": "KANA", "HANGUL": "HANGUL"}
_HANJA = 4  # Korean: at most one Han character to this many Hangul syllables
_MAX_ODD = 50  # one character in this many may be outside what East Asian text holds
_MAX_OTHER = 2  # other letters and symbols (not ASCII): at most one to this many CJK ones
_SHORT = 16  # characters below which the evidence must be clean
_FEWEST = 3  # CJK characters: two are as likely a few bytes of binary data
# Distinct CJK characters: text of 24 such characters or more holds 8 different ones at
# least (one short sentence said over and over holds a dozen); a binary record repeated
# ("\x00\x01\x02binary\x00" x 64 reads as "Ā戂湩牡y" again and again) holds the same few.
_VARIED, _VARIED_FROM = 3, 24


def _east_asian(text: str, clean: bool = False) -> int | None:
    """Tell whether ``text`` reads as East Asian prose: Han, kana or Hangul (a fifth of its
    letters at least) in a mix a language writes (no kana beside Hangul; Han beside
    Hangul only as Korean's occasional Hanja), with ASCII, punctuation and little else;
    ``clean``: nothing else at all. Binary data read as UTF-16 is spread over the whole
    plane: private use, unassigned, control characters, rare Han (extension A), Han,
    Hangul, Yi and symbols all mixed. Returns None when it does not, else how many of its
    characters are kana or Hangul (what tells a reading apart from Han read by chance)."""
    groups = {"CJK": 0, "KANA": 0, "HANGUL": 0}
    odd = other = 0
    seen: set[str] = set()
    for char in text:
        if char.isascii():
            if char < " " and char not in "\t\n\r\f":
                odd += 1
            continue
        category = unicodedata.category(char)
        if category[0] == "Z" or category[0] == "P":
            continue
        first = unicodedata.name(char, "").split(" ", 1)[0]
        if first in _CJK and is_cjk_common(char) is not False:
            groups[_GROUP.get(first, "CJK")] += 1
            seen.add(char)
        elif first in _ALSO or category[0] in "SN":
            other += 1
        else:
            odd += 1  # private use, unassigned, a control, a script East Asian text lacks
    han, kana, hangul = groups["CJK"], groups["KANA"], groups["HANGUL"]
    cjk = han + kana + hangul
    if (kana and hangul) or (hangul and han * _HANJA > hangul):
        return None
    if len(seen) * _VARIED < min(cjk, _VARIED_FROM):
        return None
    if clean or len(text) < _SHORT:  # weak evidence: CJK and ASCII only
        fits = cjk >= _FEWEST and not odd and not other
    else:
        fits = odd * _MAX_ODD <= len(text) and cjk >= _FEWEST and other * _MAX_OTHER <= cjk
    return kana + hangul if fits else None


def _utf16_east_asian(data: bytes, clean: bool = False) -> tuple[str, str] | None:
    """Read Chinese, Japanese or Korean written as UTF-16 without a byte order mark, whose
    zero bytes are few (only its ASCII characters have them): the byte order whose reading
    is East Asian text (:func:`_east_asian`) throughout its first 8 KiB, if one is; if
    both are (Han read by chance from the other), the one with more kana or Hangul, else
    little-endian (what Windows writes)."""
    if len(data) % 2 or len(data) < 4:
        return None
    best: tuple[int, str] | None = None
    for encoding in ("utf-16-le", "utf-16-be"):
        head = data[:_SNIFF]
        try:
            sample = head.decode(encoding)
        except UnicodeDecodeError:
            try:  # the cut may fall inside a surrogate pair
                sample = head[:-2].decode(encoding)
            except UnicodeDecodeError:
                continue
        score = _east_asian(sample, clean)
        if score is not None and (best is None or score > best[0]):
            best = (score, encoding)
    if best is None:
        return None
    try:
        return data.decode(best[1]), best[1]
    except UnicodeDecodeError:
        return None


def decode(data: bytes) -> tuple[str, str] | None:
    """Return ``(text, encoding)``, or None when the bytes are not text; a carriage return
    alone (classic Mac OS line ends) is read as a line end, a line feed, and a byte order
    mark inside the text (an invisible character) is dropped."""
    decoded = _decode(data)
    if decoded is None:
        return None
    text = decoded[0]
    if "\ufeff" in text:  # a byte order mark inside: files joined (cat a.md b.md)
        text = text.replace("\ufeff", "")
    return lone_cr_as_lf(text), decoded[1]


def _decode(data: bytes) -> tuple[str, str] | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            if encoding == "utf-8-sig":  # a stray byte in it (pasted) read as Windows-1252
                text = decode_as(data[len(bom) :], "utf-8")
            else:  # cut short (its last character dropped), or a few lone surrogates
                unit = 4 if encoding == "utf-32" else 2
                whole = data[: len(data) - len(data) % unit]
                try:
                    text = whole.decode(encoding)
                except UnicodeDecodeError:
                    text = whole.decode(encoding, "replace")
                    if text.count("\ufffd") > max(2, len(text) // 100):
                        return None
            # Binary data can start with a BOM by chance; decoded, it shows as control chars.
            head = text[:_SNIFF].encode("utf-8", "replace")
            if _looks_binary(head) or (
                len(data) <= _SHORT_UTF8 and not reads_as_text(text.replace("\ufffd", ""), True)
            ):
                return None
            return text, encoding
    if _looks_binary(data[:_SNIFF]):
        # Zero or control bytes: no 8-bit text, but maybe UTF-16 (Latin, or East Asian).
        return (
            _utf32_without_bom(data)
            or _utf16_without_bom(data)
            or _utf16_one_script(data)
            or _utf16_east_asian(data)
            or _without_nuls(data)
        )
    # UTF-8 first; else Windows-1252 unless another legacy charset reads the words clearly
    # better (a Cyrillic note in Windows-1251 or KOI8-R, however short: see _legacy_text).
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if len(data) <= _SHORT_UTF8 and not reads_as_text(text, True):
            # a few random bytes, valid UTF-8; or a legacy word that is (学习 in GB18030)
            return _utf16_east_asian(data, clean=True) or _clean_legacy(data)
        return text, "utf-8"
    text, encoding = utf8_first(data)
    if encoding == "utf-8" and _utf8_with_strays(data):
        return text, encoding  # a byte of Latin-1 pasted into a UTF-8 note, however short
    if len(data) % 2 == 0 and not _reads_as_words(text[:_SNIFF]):
        # No zero byte, few controls: East Asian UTF-16 with no ASCII in it (a one-line
        # note) is read so only when its reading is clean and the legacy one is junk.
        utf16 = _utf16_one_script(data) or _utf16_east_asian(data, clean=True)
        if utf16 is not None:
            return utf16
    # A charset reads any byte: a few random bytes "decode" to junk words. Longer ones
    # hold a control byte (all but one in 10,000 of 64 bytes do): text without one is text.
    if len(data) > _SHORT_UTF8 and data[:_SNIFF].translate(None, _CONTROL) == data[:_SNIFF]:
        return text, encoding
    if reads_as_text(text, encoding == "utf-8"):
        return text, encoding
    # Junk in the charset that won by a clear margin: the one that reads the words best,
    # by any margin, may read them as words.
    return _clean_legacy(data)


def _utf8_with_strays(data: bytes) -> bool:
    """Tell UTF-8 with a few stray bytes from chance: twice as many characters beyond
    ASCII in valid UTF-8 sequences as bytes outside them, two at least (a legacy code
    page's letters seldom form one: a lead byte must be followed by continuation bytes,
    which are symbols in most code pages), and the characters they read are words."""
    escaped = data[:_SNIFF].decode("utf-8", "surrogateescape")
    stray = sum(1 for c in escaped if "\udc80" <= c <= "\udcff")
    valid = sum(1 for c in escaped if ord(c) > 0x7F) - stray
    if valid < max(2, 2 * stray):
        return False
    # and what the valid sequences read is words (EUC-JP's 買い物 holds one: Ç㤤ʪ)
    return reads_as_text("".join(c for c in escaped if not "\udc80" <= c <= "\udcff"), True)


_NUL_BETWEEN = re.compile(rb"(?<=[^\s\0])\0+(?=[^\s\0])")


def _without_nuls(data: bytes) -> tuple[str, str] | None:
    """UTF-8 text with NUL bytes in it, read without them: the blocks a crash or a full
    disk left unwritten in a note (zeros where its end should be), a C string's end."""
    # A run between two words stood for space (a field's padding); elsewhere it is nothing.
    rest = _NUL_BETWEEN.sub(b" ", data).replace(b"\0", b"")
    if not rest.strip() or _looks_binary(rest[:_SNIFF]):
        return None
    try:
        text = rest.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return (text, "utf-8") if reads_as_text(text, True) else None


def _clean_legacy(data: bytes) -> tuple[str, str] | None:
    """The legacy charset that reads short bytes best, by any margin, where it reads them
    as words without junk (październik in Windows-1250, not paŸdziernik); else the first
    single-byte code page, in the order text is most often written in them, that does and
    whose languages the words are likely in (``ślub`` in ISO-8859-2, whose ś is ¶ in the
    pages before it); else None."""
    text, encoding = decode_legacy(data, margin=1)
    if reads_as_text(text, encoding == "utf-8", clean=True):
        return text, encoding
    head = data[:_SNIFF]  # told by its start, as the rest of this module tells it
    for codec in LEGACY_ORDER:
        try:
            read = head.decode(codec)
        except UnicodeDecodeError:
            continue  # a byte the code page does not define
        # and the words are likelier in the code page's languages than in none
        clean = codec != encoding and reads_as_text(read, clean=True)
        if clean and (language_score(read.split(), codec) or 0.0) > 0:
            return decode_as(data, codec), codec
    return None


def _reads_as_words(text: str) -> bool:
    """Tell whether legacy-decoded text reads as words: letters, marks, digits, punctuation
    and spaces only, no digit between two letters or beside a character that is not ASCII
    (``Straße``, ``Привет``; not the ``åe,gžŠn0Æ0`` of Japanese UTF-16 read as
    Windows-1252)."""
    for k, char in enumerate(text):
        category = unicodedata.category(char)
        if category[0] in "LMPZ" or char in "\t\n\r\f":
            continue
        if category[0] != "N":
            return False
        around = text[max(k - 1, 0) : k + 2]
        if not around.isascii() or (
            len(around) == 3 and around[0].isalpha() and around[2].isalpha()
        ):
            return False
    return True


def _atx_heading(line: str) -> str | None:
    """The text of a ``# Heading`` line (CommonMark rules), without regex backtracking."""
    s = line.lstrip(" ")
    if len(line) - len(s) > 3:
        return None
    hashes = len(s) - len(s.lstrip("#"))
    if not 1 <= hashes <= 6 or (len(s) > hashes and s[hashes] not in " \t"):
        return None
    content = s[hashes:].strip(" \t")
    closed = content.rstrip("#")
    if closed != content and (not closed or closed.endswith((" ", "\t"))):
        content = closed.strip(" \t")
    return content or None


def _front_matter_title(lines: list[str]) -> tuple[str | None, int]:
    """Return the title a YAML (``---``) or TOML (``+++``, Hugo's) front matter gives, and
    the index of the first line after it (0 when there is none)."""
    fence = lines[0].strip() if lines else ""
    if fence not in ("---", "+++"):
        return None, 0
    ends = ("---", "...") if fence == "---" else ("+++",)
    title: str | None = None
    for i in range(1, len(lines)):
        line = lines[i]
        if line.strip() in ends:
            return title, i + 1
        key, sep, value = line.partition(":" if fence == "---" else "=")
        if title is not None or not sep or key.strip().lower() != "title":
            continue
        value = value.strip()
        if fence == "---" and value[:1] in ("|", ">"):  # a block scalar: the lines below
            block = []
            for below in lines[i + 1 :]:
                if below.strip() and not below.startswith((" ", "\t")):
                    break
                block.append(below.strip())
            value = " ".join(part for part in block if part)
        if fence == "---" and value[:1] in ("[", "{"):
            continue  # a list or a mapping (or broken YAML): no title
        title = value.strip("\"'").strip() or None
    return None, 0  # no closing line: not front matter


def _org_title(lines: list[str]) -> str | None:
    """An Org file's ``#+TITLE:`` (org-roam's ``#+title:``), else its first ``* heading``."""
    heading: str | None = None
    for line in lines:
        if line[:8].lower() == "#+title:" and line[8:].strip():
            return line[8:].strip()
        if heading is None and line.startswith("*"):
            text = line.lstrip("*")
            if text[:1] in (" ", "\t") and text.strip():
                heading = text.strip()
    return heading


def title_of(text: str, name: str, suffix: str) -> str:
    """The title a note gives itself, else the file name: the front-matter title (YAML or
    TOML) or first heading of a Markdown, reStructuredText or AsciiDoc (``= Title``) file,
    an Org file's ``#+TITLE:`` or first ``* heading``."""
    name = name_as_title(name)
    lines = text.splitlines()[:_MAX_TITLE_LINES]
    if suffix == ".org":
        return _org_title(lines) or name
    if suffix not in _HEADING_SUFFIXES:
        return name
    title, start = _front_matter_title(lines)
    if title:
        return title
    in_fence = False
    previous = ""
    for line in lines[start:]:
        if _FENCE.match(line):
            in_fence = not in_fence
            previous = ""
            continue
        if in_fence:
            continue
        atx = _atx_heading(line)
        if atx:
            return atx
        if suffix == ".adoc" and line.startswith("= ") and line[2:].strip():
            return line[2:].strip()
        if previous.strip() and _SETEXT.match(line) and not previous.startswith((" ", "\t")):
            return previous.strip()
        previous = line
    return name
