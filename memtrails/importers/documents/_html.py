"""Turn HTML into readable plain text: a mail's HTML body, an HTML page in a notes folder.

Standard library only: the document worker loads it beside ``_extract`` (see ``_child``).
"""

from __future__ import annotations

import codecs
import html
import re
from html.parser import HTMLParser
from typing import Any

__all__ = ["html_to_text", "read_html", "tidy"]

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
_FOREIGN = {"svg", "math"}


class _HTMLText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.foreign = 0  # inside <svg> or <math>, where a CDATA section is text
        self._found: dict[str, tuple[str, int, int]] = {}
        self._no_subset_end: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.skip = 0  # an unclosed <head> or <title> must not hide the whole body
        if tag in _FOREIGN:
            self.foreign += 1
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
        if tag in _FOREIGN and self.foreign:
            self.foreign -= 1
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _PARAGRAPH:
            self.out.append("\n\n")
        elif tag in _BLOCK and tag != "li":  # the next <li> or </ul> breaks the line
            self.out.append("\n")
        if tag == "pre" and self.pre:
            self.pre -= 1
            self.out.append(_PRE_END)

    # Markup of XML and of server pages that html.parser ends at its first ">" (or reads as
    # text): each ends where its own syntax says, and none of it reaches the text.

    def _find(self, sub: str, start: int) -> int:
        """``rawdata.find(sub, start)``, remembering the last answer: a page of many ``<?``
        with no ``?>`` after them would otherwise be scanned to its end once for each."""
        data, (was, since, found) = self.rawdata, self._found.get(sub, ("", 0, -1))
        if data is was and since <= start and (found < 0 or found >= start):
            return found
        found = data.find(sub, start)
        self._found[sub] = (data, start, found)
        return found

    def parse_comment(self, i: int, report: bool = True) -> int:
        # As a browser ends one (html.parser before 3.13.5 knows "-->" alone): at "-->" or
        # "--!>"; "<!-->" and "<!--->" are empty comments, not the start of one that hides
        # the text up to the next "-->".
        for empty in ("<!-->", "<!--->"):
            if self.rawdata.startswith(empty, i):
                return i + len(empty)
        ends = [e for e in (self._find("-->", i + 4), self._find("--!>", i + 4)) if e >= 0]
        if not ends:
            return -1
        end = min(ends)
        return end + (3 if self.rawdata.startswith("-->", end) else 4)

    def parse_pi(self, i: int) -> int:
        # <?xml ...?>, <?php if ($a > 1) ... ?>: to "?>", else to ">" (a browser's bogus
        # comment); -1 (none: to the end of the page) drops the rest, as a browser does.
        end = self._find("?>", i + 2)
        if end >= 0:
            return end + 2
        end = self._find(">", i + 2)
        return end + 1 if end >= 0 else -1

    def parse_html_declaration(self, i: int) -> int:
        data = self.rawdata
        if data.startswith("<![CDATA[", i):  # XHTML's character data: its text, unmarked
            end = self._find("]]>", i + 9)
            if end < 0:
                return -1
            self.handle_data(data[i + 9 : end])
            return end + 3
        if data[i : i + 9].lower() == "<!doctype":
            end = self._find(">", i + 9)
            bracket = self._find("[", i + 9)
            if 0 <= bracket < end:  # an internal subset: <!DOCTYPE html [ <!ENTITY ...> ]>
                close = self._subset_end(bracket)
                return close if close >= 0 else end + 1
            return end + 1 if end >= 0 else -1
        if data.startswith("<!--", i):
            return self.parse_comment(i)
        # <![if !IE]>, <![endif]>, <!ELEMENT ...>, "<!" then anything: to the first ">".
        end = self._find(">", i + 2)
        return end + 1 if end >= 0 else -1

    def _subset_end(self, bracket: int) -> int:
        """Return where a DOCTYPE's internal subset that opens at ``bracket`` ends (past its
        "]>"; quoted values and comments in it may hold "]" or ">"), or -1."""
        data, pos = self.rawdata, bracket + 1
        if self._no_subset_end is data:
            return -1  # an earlier one ran to the end unclosed: so would this one
        while (m := _SUBSET.search(data, pos)) is not None:
            token = m.group()
            if token == "]":
                close = _SUBSET_CLOSE.match(data, m.start())
                if close:
                    return close.end()
                pos = m.end()
                continue
            end = data.find("-->" if token == "<!--" else token, m.end())
            if end < 0:
                break
            pos = end + (3 if token == "<!--" else 1)
        self._no_subset_end = data
        return -1

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data.replace("\xa0", " "))
        else:
            self.out.append(re.sub(r"[ \t\r\n\f\v]+", " ", data).replace("\xa0", " "))


_SUBSET = re.compile(r"""["']|<!--|\]""")
_SUBSET_CLOSE = re.compile(r"\][ \t\r\n\f]*>")
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


# A tag never spans a "<": a pattern allowed to would rescan to the end for every "<" in
# markup that has no ">" after it.
_TAG = re.compile(r"<[^<>]*>")
# html.parser before Python 3.13.5 ends the input by rereading a construct left open (``<a``
# or ``<!--`` with nothing to close it) up to the next "<", then scanning from there to the
# end again: quadratic, hours for ~400 KB, and a mail's HTML body is read in the importing
# process with no time limit. feed() itself stops at such a construct in one pass, so a
# longer open tail than this is read here instead, once, as text with its tags stripped.
_MAX_OPEN_TAIL = 8192
_OPEN_TAG = re.compile(r"</?[A-Za-z]")
# An open tail no longer than this with no attribute value (no "=", no quote) is prose.
_PROSE_TAIL = 200
_ATTRIBUTE = re.compile(r"[=\"']")


# What is no element, for text read without the parser: comments (to "-->", "--!>" or the
# end), processing instructions, DOCTYPEs with an internal subset; a CDATA section keeps its
# text. Each ends at its closing or at the end of the text, so none is looked for twice.
_NOT_ELEMENTS = re.compile(
    r"<!\[CDATA\[(.*?)(?:\]\]>|$)|<!--->|<!-->|<!--.*?(?:--!?>|$)|<\?.*?(?:\?>|$)"
    r"|<!doctype[^<>\[]*\[.*?(?:\][ \t\r\n\f]*>|$)",
    re.DOTALL | re.IGNORECASE,
)


def _strip_tags(markup: str) -> str:
    markup = _NOT_ELEMENTS.sub(lambda m: m[1] or " ", markup)
    return html.unescape(_TAG.sub(" ", markup))


# An XHTML page's own entities, declared in its DOCTYPE's internal subset (near its start):
# <!DOCTYPE html [ <!ENTITY company "Acme"> ]> ... &company; reads "Acme", as in XML.
_SUBSET_OPEN = re.compile(r"<!doctype[^<>\[]*\[", re.IGNORECASE)
_SUBSET_END = re.compile(r"\][ \t\r\n\f]*>")
_ENTITY_DECL = re.compile(r"""<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"]*)"|'([^']*)')\s*>""")
_XML_ENTITIES = {"amp", "lt", "gt", "quot", "apos"}


def _expand_entities(markup: str) -> str:
    """Put the values of the entities a page declares in place of their references, once
    (a value's own references are not expanded: no entity bomb); unchanged when there are
    none, or when that would more than double the page."""
    start = _SUBSET_OPEN.search(markup, 0, 4096)
    end = _SUBSET_END.search(markup, start.end(), start.end() + 65536) if start else None
    if start is None or end is None:
        return markup
    values: dict[str, str] = {}
    for decl in _ENTITY_DECL.finditer(markup, start.end(), end.start()):
        if decl[1] not in _XML_ENTITIES:
            values.setdefault(decl[1], decl[2] if decl[2] is not None else decl[3])
    if not values:
        return markup
    names = "|".join(re.escape(name) for name in sorted(values, key=len, reverse=True))
    ref = re.compile(f"&({names});")
    body = markup[end.end() :]
    grows = sum(len(values[m[1]]) - len(m[0]) for m in ref.finditer(body))
    if grows > len(markup) + 65536:
        return markup
    return markup[: end.end()] + ref.sub(lambda m: values[m[1]], body)


def html_to_text(markup: str) -> str:
    """Turn HTML into readable plain text: no script/style, paragraph breaks kept; no markup
    that is no element (DOCTYPE, its internal subset, processing instructions, comments),
    the entities a DOCTYPE's internal subset declares read as their values.

    Example:
        >>> html_to_text("<p>Hi <b>there</b></p><p>Bye</p>")
        'Hi there\\n\\nBye'
    """
    return _to_text(_expand_entities(markup))


def _to_text(markup: str) -> str:
    parser = _HTMLText()
    try:
        parser.feed(markup)
        tail = parser.rawdata  # what feed() left unparsed: an open construct and what follows
        if tail.startswith("<![CDATA[") and parser.foreign:
            # Never closed in SVG or MathML: its text runs to the end, as a browser shows
            # it (in HTML itself it is a comment: dropped below).
            parser.rawdata = ""
            parser.handle_data(tail[9:])
        elif _OPEN_TAG.match(tail) and (len(tail) > _PROSE_TAIL or _ATTRIBUTE.search(tail)):
            # A tag never closed (a page cut inside a 100 KB style or data: URI): the tag
            # runs to the end of the page, as in a browser, and none of it is text. A short
            # tail with no attribute value is kept as text ("if a<b then c" in a page
            # written by hand), as html.parser's close() gives it.
            parser.rawdata = ""
        elif tail.startswith(("<!", "<?")):
            # A comment, DOCTYPE, CDATA section or processing instruction never closed: it
            # runs to the end of the page, as in a browser, and none of it is text.
            parser.rawdata = ""
        elif len(tail) > _MAX_OPEN_TAIL:
            parser.rawdata = ""
            if not parser.skip:  # (an unclosed <script> or <style> leaves its code here)
                parser.out.append(_strip_tags(tail))
        parser.close()
        text = _join_html(parser.out)
    except Exception:  # why: html.parser can still assert on hostile markup; strip tags then
        text = _strip_tags(markup)
    return tidy(text)


_LATIN = "A-Za-z\u00c0-\u024f"
# Invisible marks that break a word for search but not for the eye: soft hyphens, and
# zero-width (non-)joiners or spaces between Latin letters (where they carry no meaning;
# in Persian or Indic text a ZWNJ is part of the spelling and stays).
_INVISIBLE = re.compile(f"\u00ad|(?<=[{_LATIN}])[\u200b\u200c\u200d\u2060](?=[{_LATIN}])")


def tidy(text: str) -> str:
    """Normalise newlines, drop NULs and invisible in-word marks, trim lines and blank runs."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = _INVISIBLE.sub("", text)
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip("\n").rstrip()


_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE
)
# Each pattern looks at one tag, never across a "<": one that could backtracked over the
# whole head, cubic for <meta> tags without a content, and a 64 KiB head outran the worker.
_TITLE_OPEN = re.compile(r"<title\b[^<>]*>", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title", re.IGNORECASE)
_CDATA = re.compile(r"<!\[CDATA\[(.*?)(?:\]\]>|$)", re.DOTALL)
_META = re.compile(r"<meta\s[^<>]{0,4096}>", re.IGNORECASE)
_NAMED_AUTHOR = re.compile(r"""\bname\s*=\s*["']?author(?![\w-])""", re.IGNORECASE)
_CONTENT = re.compile(r"""\bcontent\s*=\s*(?:"([^"]{1,300})"|'([^']{1,300})')""", re.IGNORECASE)
# Labels that browsers read as windows-1252 (the WHATWG Encoding Standard): a page that
# says Latin-1 or ASCII and holds curly quotes means them.
_AS_1252 = {"iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii", "iso8859-1", "l1"}
# Python codecs that are no page's encoding (browsers know none of them): UTF-7 would let a
# page spell markup in plain letters ("+ADw-" is "<"); the others encode host names.
_NOT_PAGES = {"utf-7", "idna", "punycode"}


def read_html(data: bytes) -> tuple[str, dict[str, Any]]:
    """Return an HTML page's text (every element's, scripts and styles left out) and its
    ``title`` and ``author`` where the page names them.

    Decoded as a browser would: by its byte order mark, else the charset its ``<meta>``
    names (in its first 4 KiB), else UTF-8 where the bytes are UTF-8, else windows-1252.
    """
    markup = _expand_entities(_decode(data))
    meta: dict[str, Any] = {}
    head = markup[:65536]
    if (title := _title(head)) and (text := " ".join(html.unescape(title).split())):
        meta["title"] = text
    if author := _author(head):
        meta["author"] = " ".join(html.unescape(author).split())
    return _to_text(markup), meta


def _title(head: str) -> str | None:
    """The text of the first ``<title>`` element, where it is closed."""
    start = _TITLE_OPEN.search(head)
    end = _TITLE_CLOSE.search(head, start.end()) if start else None
    if not (start and end):
        return None
    # An XHTML title may be a CDATA section: its text, unescaped (no entity in it).
    title = head[start.end() : end.start()]
    return _CDATA.sub(lambda m: html.escape(m[1], quote=False), title)


def _author(head: str) -> str | None:
    """The content of the first ``<meta name="author" content="...">``, in any order."""
    for tag in _META.finditer(head):
        if _NAMED_AUTHOR.search(tag[0]) and (content := _CONTENT.search(tag[0])):
            return content[1] or content[2]
    return None


def _decode(data: bytes) -> str:
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
    ):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, "replace")
    named = _CHARSET.search(data[:4096])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # Bytes that are UTF-8 were read as such above, whatever the <meta> says: a page saved as
    # UTF-8 by an editor keeps its old <meta> more often than not.
    label = named[1].decode("ascii").lower() if named else "windows-1252"
    try:
        if label in _AS_1252 or codecs.lookup(label).name in _NOT_PAGES:
            label = "windows-1252"
        return data.decode(label, "replace")
    # No such codec, not a text one ("base64"), or one that cannot decode a page: "idna"
    # refuses errors="replace", "punycode" raises on any byte over 127.
    except (LookupError, UnicodeError):
        return data.decode("windows-1252", "replace")
