"""The text of a mail's plain-text attachments: patches, logs, notes, source code, JSON.

A mailing list's patches and a bug report's logs are what people search a mail for; these
are read here into its record. Reading is bounded whatever the file: at most
:data:`~.attach_text.MAX_INPUT` bytes are decoded and at most :data:`MAX_PLAIN_CHARS`
characters kept, and the lines left out are counted. Binary data (a NUL, many control
bytes, a known file signature), whatever its type or name says, stays named only.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from pathlib import PurePosixPath

from .._shared import without_escapes
from .attach_text import MAX_INPUT
from .charsets import python_codec
from .undeclared import decode_undeclared

__all__ = ["MAX_PLAIN_CHARS", "is_plain_text", "plain_text"]

MAX_PLAIN_CHARS = 10_000  # characters kept of one plain-text attachment

# Types that hold text under another main type than text/ (text/* is plain text unless
# it has a reader of its own: RFC 2046 4.1.4).
_TEXT_APPS = {
    "application/json",
    "application/x-json",
    "application/x-ndjson",
    "application/jsonl",
    "application/xml",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "application/typescript",
    "application/x-typescript",
    "application/x-sh",
    "application/x-shellscript",
    "application/x-csh",
    "application/x-perl",
    "application/x-python",
    "application/x-ruby",
    "application/x-php",
    "application/x-httpd-php",
    "application/sql",
    "application/x-sql",
    "application/yaml",
    "application/x-yaml",
    "application/toml",
    "application/x-toml",
    "application/x-tex",
    "application/x-latex",
    "application/x-patch",
    "application/x-diff",
    "application/diff",
    "application/x-troff",
    "application/x-subrip",
    "application/x-log",
}
# Text types with nothing to search: signatures, keys, the control part of PGP/MIME.
_NOT_SEARCHED = {
    "text/x-pgp-signature",
    "application/pgp-signature",
    "application/pgp-keys",
    "application/pgp-encrypted",
}
# Types mailers give any file they do not know: the name then tells a text file.
_UNTYPED = {
    "application/octet-stream",
    "application/x-download",
    "application/download",
    "application/force-download",
    "application/unknown",
    "application/x-unknown",
    "application/binary",
    "binary/octet-stream",
}
_SUFFIX_WORDS = (
    ".txt .text .log .out .err .patch .diff .debdiff .md .markdown .rst .adoc .asciidoc "
    ".org .tex .bib .json .jsonl .ndjson .geojson .yaml .yml .toml .ini .cfg .conf "
    ".properties .env .xml .sql .sh .bash .zsh .fish .ksh .csh .ps1 .psm1 .bat .cmd .py "
    ".pyi .rb .pl .pm .php .js .mjs .cjs .ts .tsx .jsx .java .kt .kts .scala .groovy "
    ".gradle .go .rs .c .h .cc .cpp .cxx .hpp .hh .hxx .m .mm .cs .fs .swift .dart .lua "
    ".r .jl .hs .ml .mli .ex .exs .erl .hrl .clj .el .lisp .scm .vim .awk .sed .mk "
    ".cmake .tf .hcl .nix .proto .graphql .gql .css .scss .less .vue .svelte .srt .vtt "
    ".spec .dts .s .asm .v .sv .vhd .f90 .pas .ada .adb .d .zig .nim .cr .hx"
)
_TEXT_SUFFIXES = set(_SUFFIX_WORDS.split())
_TEXT_NAMES = {
    "makefile",
    "dockerfile",
    "readme",
    "license",
    "copying",
    "changelog",
    "news",
    "authors",
    "todo",
    "cmakelists.txt",
    "gemfile",
    "rakefile",
    "vagrantfile",
}
_SIGNATURES = (
    b"%PDF-",
    b"PK\x03\x04",
    b"\x1f\x8b",
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"BZh",
    b"\xfd7zXZ",
    b"7z\xbc\xaf",
    b"Rar!",
    b"\x28\xb5\x2f\xfd",
    b"\x7fELF",
    b"MZ\x90",
    b"\xd0\xcf\x11\xe0",
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_WIDE = {"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"}
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))
# Terminal colours and titles (a CI log), then every control character but tab and newline.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]+")
_SEARCHED_LINES = 64  # lines ending in a carriage return looked at for a newline


def is_plain_text(name: str | None, ctype: str) -> bool:
    """Tell whether an attachment of this name and type is read as plain text: any text/*
    type (those with readers of their own are asked before), a type that holds text
    (JSON, a script, a delivery report), or a file of a text ending sent as untyped data."""
    if ctype in _NOT_SEARCHED:
        return False
    if ctype.startswith("text/") or ctype in _TEXT_APPS or ctype.endswith(("+json", "+yaml")):
        return True
    if ctype not in _UNTYPED or not name:
        return False
    path = PurePosixPath(name.replace("\\", "/"))
    return path.suffix.lower() in _TEXT_SUFFIXES or path.name.lower() in _TEXT_NAMES


def _wide(data: bytes, declared: str | None) -> tuple[str | None, int]:
    """Return the codec of UTF-16 or UTF-32 text (by its byte order mark, else as declared)
    and the length of its mark; (None, 0) for text in any other charset."""
    for bom, marked in _BOMS:
        if data.startswith(bom):
            return (marked if marked != "utf-8" else None), len(bom)
    codec = python_codec(declared)
    return (codec, 0) if codec in _WIDE else (None, 0)


def _binary(head: bytes) -> bool:
    if head.startswith(_SIGNATURES) or b"\x00" in head:
        return True
    control = len(head) - len(head.translate(None, _CONTROL))
    return control * 10 > len(head)


def _decode(data: bytes, declared: str | None) -> str | None:
    """Return the text of at most :data:`MAX_INPUT` bytes of ``data``; None when binary."""
    wide, mark = _wide(data, declared)
    head = data[: MAX_INPUT + mark]
    if wide is not None:
        unit = 4 if "32" in wide else 2
        head = head[mark : mark + (len(head) - mark) // unit * unit]
        text = head.decode(wide, "replace")
        if "\x00" in text[:4096]:
            return None
        return text
    if _binary(head[:4096]):
        return None
    if len(data) > MAX_INPUT:
        while head and 0x80 <= head[-1] < 0xC0:  # a UTF-8 character cut in two
            head = head[:-1]
        head = head[:-1] if head and head[-1] >= 0xC0 else head
    text = decode_undeclared(head, declared)
    if _noise(head, text[:4096]):
        return None
    return text.removeprefix("\ufeff")


def _noise(head: bytes, start: str) -> bool:
    """Tell whether the start of 8-bit data that is not UTF-8 reads as no charset's text:
    many characters outside ASCII, and few of them letters (text in a Latin or Cyrillic code
    page is mostly letters; random bytes read as one are a third symbols)."""
    wide = [c for c in start if ord(c) > 127]
    if len(wide) * 10 < len(start) * 3:
        return False
    try:
        head[:4096].decode("utf-8")
        return False
    except UnicodeDecodeError as e:
        if e.start >= 4090:  # a character cut by the sample's end
            return False
    letters = sum(unicodedata.category(c)[0] in "LMN" for c in wide)
    return letters * 4 < len(wide) * 3


def _tidy(text: str) -> str:
    """Return ``text`` as a terminal shows it: colours gone, a line rewritten after a
    carriage return (a progress bar) shown as it ended, no other control characters."""
    text = text.replace("\r\n", "\n")
    text = without_escapes(text)
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _CONTROLS.sub("", text)


def _lines(data: bytes, declared: str | None) -> int:
    """Return how many lines ``data`` holds (a last line without its newline counts)."""
    wide, _ = _wide(data, declared)
    newline = "\n".encode(wide or "ascii")
    if wide in ("utf-16", "utf-32"):
        newline = newline[len(codecs.BOM_UTF16_LE) if "16" in wide else 4 :]
    return data.count(newline) + (0 if data.endswith(newline) else 1)


def plain_text(data: bytes, declared: str | None, limit: int = MAX_PLAIN_CHARS) -> str | None:
    """Return the searchable text of a plain-text attachment, or None when it holds binary
    data.

    Args:
        data: the attachment's decoded bytes.
        declared: the charset its part declares, if any; the mail body's fallbacks apply.
        limit: the most characters kept (at most :data:`MAX_PLAIN_CHARS`).

    Returns:
        The text, cut at a line's end near ``limit`` when longer, then a line that counts
        the lines left out; "" for an empty file.
    """
    text = _decode(data, declared)
    if text is None:
        return None
    limit = max(0, min(limit, MAX_PLAIN_CHARS))
    read = text[: limit * 4]  # room for the colours and carriage returns taken out
    cut = len(data) > MAX_INPUT or len(text) > len(read)
    text = _tidy(read)
    if not cut and len(text) <= limit:
        return text.strip("\n")
    kept = text[:limit]
    end = kept.rfind("\n", limit // 2)
    whole = end >= 0  # the last line kept is whole
    if not whole:
        space = kept.rfind(" ", limit - 200)
        end = space if space > 0 else limit
    kept = kept[:end].rstrip()
    left = max(1, _lines(data, declared) - kept.count("\n") - whole)
    more = "1 more line" if left == 1 else f"{left:,} more lines"
    return f"{kept.strip(chr(10))}\n({more} left out)"
