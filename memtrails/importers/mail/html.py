"""Turn an HTML mail body into readable plain text."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

__all__ = ["enriched_to_text", "html_to_text", "tidy"]

_BLOCK = {
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "dd",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figure",
    "footer",
    "form",
    "header",
    "li",
    "main",
    "nav",
    "section",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "caption",
}
_PARAGRAPH = {
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "blockquote",
    "table",
    "ul",
    "ol",
    "hr",
}
_SKIP = {"script", "style", "head", "title", "template", "noscript", "xml"}


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skip = 0  # an unclosed <head> or <title> must not hide the whole body
        if tag in _SKIP:
            self.skip += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _BLOCK:
            self.out.append("\n")
        elif tag in ("td", "th"):
            self.out.append(" ")
        if tag == "li":
            self.out.append("- ")
        if tag == "pre":
            self.pre += 1
            self.out.append(_PRE_START)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _SKIP:  # <br/> and <hr/>; a self-closed <script/> has no content
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _BLOCK and tag != "li":  # the next <li> or </ul> breaks the line
            self.out.append("\n")
        if tag == "pre" and self.pre:
            self.pre -= 1
            self.out.append(_PRE_END)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data.replace("\xa0", " "))
        else:
            self.out.append(re.sub(r"[ \t\r\n\f\v]+", " ", data).replace("\xa0", " "))


_PRE_START, _PRE_END = "\x02", "\x03"  # marks preformatted text, whose spaces are kept
_PRE = re.compile("\x02(.*?)(?:\x03|$)", re.DOTALL)


def _strip_lines(text: str) -> str:
    return "\n".join(line.strip(" ") for line in text.split("\n"))


def _join_html(pieces: list[str]) -> str:
    text = "".join(pieces)
    out, pos = [], 0
    for m in _PRE.finditer(text):
        out.append(_strip_lines(text[pos : m.start()].replace(_PRE_END, "")))
        out.append(m.group(1).replace(_PRE_START, ""))
        pos = m.end()
    out.append(_strip_lines(text[pos:].replace(_PRE_END, "")))
    return "".join(out)


_TAG = re.compile(r"<[^>]*>")


def html_to_text(markup: str) -> str:
    """Turn HTML into readable plain text: no script/style, paragraph breaks kept.

    Example:
        >>> html_to_text("<p>Hi <b>there</b></p><p>Bye</p>")
        'Hi there\\n\\nBye'
    """
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
        text = _join_html(parser.out)
    except Exception:  # why: html.parser can still assert on hostile markup; strip tags then
        text = html.unescape(_TAG.sub(" ", markup))
    return tidy(text)


_PARAM = re.compile(r"<param>.*?</param>", re.IGNORECASE | re.DOTALL)
_ENRICHED_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,60})>")
_LATIN = "A-Za-z\u00c0-\u024f"
# Invisible marks that break a word for search but not for the eye: soft hyphens, and
# zero-width (non-)joiners or spaces between Latin letters (where they carry no meaning;
# in Persian or Indic text a ZWNJ is part of the spelling and stays).
_INVISIBLE = re.compile(f"\u00ad|(?<=[{_LATIN}])[\u200b\u200c\u200d\u2060](?=[{_LATIN}])")


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


def tidy(text: str) -> str:
    """Normalise newlines, drop NULs and invisible in-word marks, trim lines and blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _INVISIBLE.sub("", text)
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n").rstrip()
