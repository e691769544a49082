"""Lift encoded attachments out of text: uuencoded blocks and base64 left by broken MIME."""

from __future__ import annotations

import binascii
import mimetypes
import re
from typing import Any

__all__ = ["lift_blobs"]

_UU_BEGIN = re.compile(r"^begin [0-7]{3,4} ([^\n]+)\n", re.MULTILINE)
_UU_END = re.compile(r"^end[ \t]*$\n?", re.MULTILINE)
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


def _uu_size(block: str) -> int:
    size = 0
    for line in block.splitlines():
        if not line:
            continue
        try:
            size += len(binascii.a2b_uu(line))
        except binascii.Error:
            size += max(0, (ord(line[0]) - 32) & 63)
    return size


def _guess_type(name: str | None) -> str:
    return (mimetypes.guess_type(name)[0] if name else None) or "application/octet-stream"


def _lift_uu(text: str, found: list[dict[str, Any]]) -> str:
    """Cut every ``begin ... end`` block out of ``text``, in one pass over it.

    Each ``begin`` line is paired with the first ``end`` line after it, found by one forward
    scan: a text of ``begin`` lines and no ``end`` (hostile, or cut short) costs linear time,
    where a lazy ``begin(.*?)end`` pattern would rescan the rest of the text for each one.
    """
    kept: list[str] = []
    pos = 0
    end: re.Match[str] | None = None
    for begin in _UU_BEGIN.finditer(text):
        if begin.start() < pos:
            continue  # inside the block just lifted
        if end is None or end.start() < begin.end():
            end = _UU_END.search(text, begin.end())
            if end is None:
                break  # no end line after this: no later begin has one either
        name = begin.group(1).strip()
        size = _uu_size(text[begin.end() : end.start()])
        found.append({"name": name, "type": _guess_type(name), "size": size})
        kept.append(text[pos : begin.start()])
        pos = end.end()
    kept.append(text[pos:])
    return "".join(kept)


def lift_blobs(text: str) -> tuple[str, list[dict[str, Any]]]:
    """Return ``text`` without its uuencoded blocks and base64 runs, and those as attachments.

    A uuencoded file (``begin 644 name`` ... ``end``) is named by its ``begin`` line; a run
    of base64 lines (a part a broken boundary left in the text) by the ``name=`` or
    ``filename=`` of the part headers just before it, which are lifted with it. Each
    attachment is ``{"name", "type", "size"}`` as for MIME attachments.
    """
    found: list[dict[str, Any]] = []
    if "begin " in text:
        text = _lift_uu(text, found)

    def b64(m: re.Match[str]) -> str:
        head = m.group("head")
        named = _NAME.search(head)
        name = (named.group(1) or named.group(2)) if named else None
        typed = _TYPE.search(head)
        kind = typed.group(1).lower() if typed else _guess_type(name)
        data = re.sub(r"\s", "", m.group("data"))
        found.append({"name": name, "type": kind, "size": len(data.rstrip("=")) * 3 // 4})
        return ""

    if len(text) >= 160:
        text = _B64_RUN.sub(b64, text)
    return text, found
