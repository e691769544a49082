"""The text of Block Kit blocks, for messages (and attachments) that carry no ``text``.

Slack's clients post rich text as ``rich_text`` blocks and apps post ``section``, ``header``
and ``context`` blocks; the export then often holds an empty ``text``. Mentions in rich text
are elements of their own (``user``, ``channel``, ``broadcast``, ``emoji``), not markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._dates import slack_date
from ._names import Names, link_text, unescape

__all__ = ["added_by_blocks", "blocks_text"]

_MAX_TEXT = 100_000  # characters collected from one message's blocks
_MAX_DEPTH = 50


class _Budget:
    def __init__(self) -> None:
        self.left = _MAX_TEXT

    def take(self, text: str) -> str:
        text = text[: max(self.left, 0)]
        self.left -= len(text)
        return text


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _inline(reader: Names, node: Mapping[str, Any]) -> str:
    """Return one rich-text element as the text a reader of the message sees."""
    kind = node.get("type")
    if kind == "text":  # Slack escapes &, < and > in every string it exports
        return unescape(_str(node.get("text")))
    if kind == "link":
        return link_text(_str(node.get("url")), _str(node.get("text")))
    if kind == "user":
        uid = _str(node.get("user_id"))
        return "@" + reader.mentioned(uid) if uid else ""
    if kind == "channel":
        cid = _str(node.get("channel_id"))
        return reader.channel_mention(cid) if cid else ""
    if kind == "usergroup":
        gid = _str(node.get("usergroup_id"))
        return "@" + (reader.labels.groups.get(gid) or gid)
    if kind == "broadcast":
        return "@" + _str(node.get("range"))
    if kind == "emoji":
        name = _str(node.get("name"))
        return f":{name}:" if name else ""
    if kind == "date":
        stamp = node.get("timestamp")
        stamp = stamp if isinstance(stamp, int | str) and not isinstance(stamp, bool) else ""
        return _str(node.get("fallback")) or (
            slack_date(str(stamp), _str(node.get("format"))) if stamp != "" else ""
        )
    if kind == "color":
        return _str(node.get("value"))
    return ""


def _elements(node: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    children = node.get("elements")
    if not isinstance(children, list):
        return []
    return [c for c in children if isinstance(c, Mapping)]


def _rich(
    reader: Names,
    node: Mapping[str, Any],
    budget: _Budget,
    depth: int = 0,
    within: int | None = None,
) -> list[str]:
    """Return the lines of a rich-text container: sections, lists, code, quotes.

    ``within``: the level of the list it is an item of (None: of none).
    """
    kind = node.get("type")
    if depth >= _MAX_DEPTH:  # Slack nests lists a few levels; past that, a hostile file
        return []
    if kind in ("rich_text_section", "rich_text_preformatted", "rich_text_quote"):
        text = "".join(budget.take(_inline(reader, c)) for c in _elements(node))
        if not text.strip():
            return []
        if kind == "rich_text_quote" or _quoted(node):
            # Someone else's words, marked as the message's `text` marks them (``> ``).
            return ["\n".join("> " + line for line in text.strip("\n").split("\n"))]
        return [text]
    if kind == "rich_text_list":
        # Slack writes a nested list as the next list, one `indent` deeper; another tool
        # may put it inside an item of its parent: a level deeper than that list either way.
        level = _indent(node) if within is None else max(within + 1, _indent(node))
        lines = _list_lines(reader, node, budget, depth, level)
        return ["> " + line for line in lines] if _quoted(node) else lines
    if kind == "rich_text":
        return [line for c in _elements(node) for line in _rich(reader, c, budget, depth + 1)]
    if kind is None:
        return []
    text = _inline(reader, node)  # an inline element straight in a container
    return [budget.take(text)] if text.strip() else []


def _list_lines(
    reader: Names, node: Mapping[str, Any], budget: _Budget, depth: int, level: int
) -> list[str]:
    """Return a list's lines as Slack shows them: each level two spaces further in, a
    bullet ``- `` or a number (``1.``, at the next level ``a.``, then ``i.``, counted on from
    the list's ``offset``), an item's further lines under its first one's text."""
    ordered = node.get("style") == "ordered"
    pad = "  " * level
    lines: list[str] = []
    n = _offset(node)
    for item in _elements(node):
        if item.get("type") == "rich_text_list":  # a list inside an item of this one
            lines.extend(_rich(reader, item, budget, depth + 1, level))
            continue
        n += 1
        # Its lines, a quote's or a code block's each of its own.
        body = [
            line
            for part in _rich(reader, item, budget, depth + 1, level)
            for line in part.strip("\n").split("\n")
        ]
        if not body:
            continue
        mark = f"{_number(n, level)}. " if ordered else "- "
        lines.append(pad + mark + body[0])
        lines.extend(pad + " " * len(mark) + line for line in body[1:])
    return lines


def _number(n: int, level: int) -> str:
    """Return an ordered list's n-th number as Slack shows it at a level: 1, a, i, 1..."""
    if level % 3 == 0:
        return str(n)
    if level % 3 == 1:
        letters = ""
        while n > 0:
            n, digit = divmod(n - 1, 26)
            letters = chr(ord("a") + digit) + letters
        return letters
    roman = ""
    for value, numeral in _ROMAN:
        count, n = divmod(n, value)
        roman += numeral * count
    return roman


_ROMAN = (
    (1000, "m"),
    (900, "cm"),
    (500, "d"),
    (400, "cd"),
    (100, "c"),
    (90, "xc"),
    (50, "l"),
    (40, "xl"),
    (10, "x"),
    (9, "ix"),
    (5, "v"),
    (4, "iv"),
    (1, "i"),
)


def _quoted(node: Mapping[str, Any]) -> bool:
    """Whether a list or code block is inside a quote (Slack marks it with ``border: 1``)."""
    border = node.get("border")
    return isinstance(border, int) and not isinstance(border, bool) and border > 0


def _offset(node: Mapping[str, Any]) -> int:
    """Return how many items of an ordered list came before it (a list Slack continues
    after a nested one: ``offset``)."""
    offset = node.get("offset")
    if isinstance(offset, int) and not isinstance(offset, bool) and 0 <= offset < 10_000:
        return offset
    return 0


def _indent(node: Mapping[str, Any]) -> int:
    indent = node.get("indent")
    return (
        indent
        if isinstance(indent, int) and not isinstance(indent, bool) and 0 <= indent < 9
        else 0
    )


def _text_object(reader: Names, value: Any, budget: _Budget) -> str:
    """Return a text object's text: mrkdwn made readable, plain text as it is."""
    if not isinstance(value, Mapping) or not isinstance(value.get("text"), str):
        return ""
    text: str = value["text"]
    return budget.take(reader.readable(text) if value.get("type") == "mrkdwn" else unescape(text))


def blocks_text(reader: Names, blocks: Any, *, rich: bool = True) -> str:
    """Return the readable text of a list of blocks, a line per paragraph ('' if none);
    without its ``rich_text`` blocks where ``rich`` is false."""
    if not isinstance(blocks, list):
        return ""
    budget = _Budget()
    lines: list[str] = []
    for block in blocks:
        if not isinstance(block, Mapping) or budget.left <= 0:
            continue
        kind = block.get("type")
        if kind == "rich_text":
            if rich:
                lines.extend(_rich(reader, block, budget))
        elif kind in ("section", "header"):
            lines.append(_text_object(reader, block.get("text"), budget))
            fields = block.get("fields")
            for field in fields if isinstance(fields, list) else ():
                lines.append(_text_object(reader, field, budget))
        elif kind == "context":
            parts = [_text_object(reader, e, budget) for e in _elements(block)]
            lines.append(" ".join(p for p in parts if p.strip()))
        elif kind in ("image", "video"):
            lines.append(_text_object(reader, block.get("title"), budget))
    return "\n".join(line for line in lines if line.strip())


def _plain(text: str) -> str:
    """Return text as compared for repetition: no mrkdwn marks, spaces or case."""
    return "".join(c for c in text.casefold() if c.isalnum())


def added_by_blocks(reader: Names, text: str, blocks: Any) -> str:
    """Return the lines of an app's blocks that a message's ``text`` does not already say.

    An app posts a short summary as ``text`` (what notifications show) and the substance
    in ``section``, ``header`` and ``context`` blocks; a line of them the text already
    holds (mrkdwn marks, spacing and case aside) is left out, so nothing is said twice.
    ``rich_text`` blocks are what a person typed: the text says the same.
    """
    found = blocks_text(reader, blocks, rich=False)
    if not found:
        return ""
    said = _plain(text)
    return "\n".join(line for line in found.split("\n") if _plain(line) not in said)
