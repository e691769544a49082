"""Turn a text/enriched or text/richtext mail body into plain text (HTML: ``documents._html``)."""

from __future__ import annotations

import re

__all__ = ["enriched_to_text"]

_PARAM = re.compile(r"<param>.*?</param>", re.IGNORECASE | re.DOTALL)
_ENRICHED_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,60})>")


def enriched_to_text(text: str, *, rich: bool = False) -> str:
    """Return the text of a text/enriched (RFC 1896) or text/richtext (RFC 1341) body.

    Formatting commands (``<bold>``, ``</italic>``) go, ``<param>`` values with them;
    ``<<`` is ``<``. In text/enriched a lone line break is a space and n breaks are n-1;
    text/richtext ignores line breaks and writes ``<nl>`` (``<np>`` a new page).
    """
    text = _PARAM.sub("", text.replace("\r\n", "\n"))
    if rich:
        text = text.replace("\n", " ")
    else:
        text = re.sub(
            r"\n+", lambda m: " " if len(m.group()) == 1 else "\n" * (len(m.group()) - 1), text
        )

    def tag(m: re.Match[str]) -> str:
        name = m.group(2).lower()
        if rich and not m.group(1) and name in ("nl", "np"):
            return "\n"
        return ""

    pieces = text.split("<<")
    return "<".join(_ENRICHED_TAG.sub(tag, piece) for piece in pieces)
