"""Tell text from binary, decode it, and find a note's title."""

from __future__ import annotations

import re

from .._legacy_text import utf8_first

__all__ = ["NOTE_SUFFIXES", "decode", "title_of"]

# Prose is a "note"; everything else (source, config, data) is a "file".
NOTE_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".txt", ".text", ".rst", ".org", ".adoc"})
_HEADING_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".rst", ".adoc"})
_SNIFF = 8192
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


def _looks_binary(head: bytes) -> bool:
    if b"\0" in head:
        return True
    if not head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROL))
    return controls / len(head) > _MAX_CONTROL_SHARE


def decode(data: bytes) -> tuple[str, str] | None:
    """Return ``(text, encoding)``, or None when the bytes are not text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                return None
            # Binary data can start with a BOM by chance; decoded, it shows as control chars.
            head = text[:_SNIFF].encode("utf-8", "replace")
            return None if _looks_binary(head) else (text, encoding)
    if _looks_binary(data[:_SNIFF]):
        return None
    # UTF-8 first; else Windows-1252 unless another legacy charset reads the words clearly
    # better (a Cyrillic note in Windows-1251 or KOI8-R, however short: see _legacy_text).
    return utf8_first(data)


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


def title_of(text: str, name: str, suffix: str) -> str:
    """The first heading of a Markdown/reStructuredText file, else the file name."""
    if suffix not in _HEADING_SUFFIXES:
        return name
    lines = text.splitlines()[:_MAX_TITLE_LINES]
    start = 0
    if lines and lines[0].strip() == "---":  # YAML front matter may name the title
        for i in range(1, len(lines)):
            if lines[i].strip() in ("---", "..."):
                start = i + 1
                break
            key, _, value = lines[i].partition(":")
            if key.strip() == "title" and value.strip():
                return value.strip().strip("\"'")
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
        if previous.strip() and _SETEXT.match(line) and not previous.startswith((" ", "\t")):
            return previous.strip()
        previous = line
    return name
