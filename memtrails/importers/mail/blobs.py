"""Lift encoded attachments out of text: uuencoded blocks and base64 left by broken MIME."""

from __future__ import annotations

import binascii
import mimetypes
import re
from typing import Any

__all__ = ["guess_type", "lift_blobs"]

_UU_BEGIN = re.compile(r"^begin(-base64)? [0-7]{3,4} ([^\n]+)\n", re.MULTILINE)
_UU_END = re.compile(r"^end[ \t]*$\n?", re.MULTILINE)
_B64_END = re.compile(r"^====[ \t]*$\n?", re.MULTILINE)  # ``uuencode -m``'s last line
_B64_LINE = r"[A-Za-z0-9+/]{40,}={0,2}[ \t]*\n"
# At least 4 full lines of base64 (a few hundred bytes), optionally after the part headers
# a broken boundary left in the text (Content-Type, Content-Disposition, ...).
_B64_RUN = re.compile(
    r"(?P<head>(?:^--\S+[ \t]*\n)?(?:^Content-[\w-]+:[^\n]*\n(?:^[ \t]+[^\n]*\n)*)*\n?)"
    r"(?P<data>(?:^" + _B64_LINE + r"){4,}(?:^[A-Za-z0-9+/]*={0,2}[ \t]*(?:\n|\Z))?)",
    re.MULTILINE,
)
_NAME = re.compile(r"""(?:file)?name\*?=\s*(?:"([^"]+)"|([^\s;]+))""", re.IGNORECASE)
_TYPE = re.compile(r"^Content-Type:\s*([\w.+-]+/[\w.+-]+)", re.IGNORECASE | re.MULTILINE)


def _uu_line(line: str) -> bytes | None:
    """Return the bytes of one uuencoded line, or None when the line is not one (its length
    character says how long it is; trailing blanks may be missing, a checksum may follow)."""
    if not line or not all(" " <= c <= "`" for c in line):
        return None
    count = (ord(line[0]) - 32) & 63
    if not 1 + (count * 4 + 2) // 3 <= len(line) <= 1 + (count + 2) // 3 * 4 + 2:
        return None
    try:
        return binascii.a2b_uu(line)
    except binascii.Error:
        return binascii.a2b_uu(line[: 1 + (count + 2) // 3 * 4])


def _decode_block(block: str, base64: bool) -> bytes:
    """Return the file a uuencoded (or ``begin-base64``) block's lines hold; lines that are
    not uuencoded are passed over, as uudecode does."""
    if base64:
        try:
            return binascii.a2b_base64(block.encode("ascii", "ignore"))
        except binascii.Error:
            return b""
    out = []
    for line in block.splitlines():
        got = _uu_line(line.rstrip("\r"))
        if got is not None:
            out.append(got)
    return b"".join(out)


def _uu_run(text: str, pos: int) -> int:
    """Return where the uuencoded lines from ``pos`` on end (``pos``: none)."""
    while pos < len(text):
        nl = text.find("\n", pos)
        line = text[pos : nl if nl >= 0 else len(text)]
        if _uu_line(line) is None:
            break
        pos = nl + 1 if nl >= 0 else len(text)
    return pos


def guess_type(name: str | None) -> str:
    return (mimetypes.guess_type(name)[0] if name else None) or "application/octet-stream"


def _lift_uu(text: str, found: list[dict[str, Any]], data: list[bytes]) -> str:
    """Cut every ``begin ... end`` block out of ``text``, in one pass over it.

    Each ``begin`` line is paired with the first ``end`` line after it (``====`` after
    ``begin-base64``), found by one forward scan: a text of ``begin`` lines and no ``end``
    (hostile, or cut short) costs linear time, where a lazy ``begin(.*?)end`` pattern would
    rescan the rest of the text for each one. A block with no end line (a mail cut short)
    is the uuencoded lines that follow its ``begin`` line, if any.
    """
    kept: list[str] = []
    pos = 0
    ends: dict[bool, re.Match[str] | None] = {}
    for begin in _UU_BEGIN.finditer(text):
        if begin.start() < pos:
            continue  # inside the block just lifted
        base64 = begin.group(1) is not None
        if base64 not in ends or ((m := ends[base64]) is not None and m.start() < begin.end()):
            # none found after an earlier begin line: none after a later one either
            ends[base64] = (_B64_END if base64 else _UU_END).search(text, begin.end())
        end = ends[base64]
        if end is not None:
            body, stop = text[begin.end() : end.start()], end.end()
        else:
            stop = _uu_run(text, begin.end()) if not base64 else begin.end()
            if stop == begin.end():
                continue  # a begin line and nothing encoded after it: text
            body = text[begin.end() : stop]
        name = begin.group(2).strip()
        decoded = _decode_block(body, base64)
        found.append({"name": name, "type": guess_type(name), "size": len(decoded)})
        data.append(decoded)
        kept.append(text[pos : begin.start()])
        pos = stop
    kept.append(text[pos:])
    return "".join(kept)


def lift_blobs(
    text: str, files: list[tuple[dict[str, Any], bytes]] | None = None
) -> tuple[str, list[dict[str, Any]]]:
    """Return ``text`` without its uuencoded blocks and base64 runs, and those as attachments.

    A uuencoded file (``begin 644 name`` ... ``end``, or ``begin-base64`` ... ``====``) is
    named by its ``begin`` line; a run of base64 lines (a part a broken boundary left in
    the text) by the ``name=`` or ``filename=`` of the part headers just before it, which
    are lifted with it. Each attachment is ``{"name", "type", "size"}`` as for MIME
    attachments; with ``files``, each uuencoded one is added there with its decoded bytes,
    to be read as an attached file is.
    """
    found: list[dict[str, Any]] = []
    if "begin" in text:
        data: list[bytes] = []
        text = _lift_uu(text, found, data)
        if files is not None:
            files.extend(zip(found, data, strict=True))

    def b64(m: re.Match[str]) -> str:
        head = m.group("head")
        named = _NAME.search(head)
        name = (named.group(1) or named.group(2)) if named else None
        typed = _TYPE.search(head)
        kind = typed.group(1).lower() if typed else guess_type(name)
        data = re.sub(r"\s", "", m.group("data"))
        found.append({"name": name, "type": kind, "size": len(data.rstrip("=")) * 3 // 4})
        return ""

    if len(text) >= 160:
        text = _B64_RUN.sub(b64, text)
    return text, found
