"""Group spans of a long match found with RE2's DFA: the pattern is split where its groups are.

RE2 extracts groups with its NFA (or a backtracker, for short texts only), whose cost per
byte is tens of times its DFA's: over a match of a megabyte (a value that runs on, a key
without an end), the extraction costs more than scanning the whole text. The groups of a
match are fixed by where each part of the pattern starts and ends, and RE2's DFA can tell
those, one part at a time:

- in a concatenation ``X Y`` matching ``[s, e)``, the preferred parse takes the first parse
  of ``X`` (in RE2's priority order) after which ``Y`` matches the rest; the first parse of
  ``X`` is what ``X`` alone, anchored at ``s``, matches (its DFA gives where it ends, ``p``);
  if ``Y`` matches ``[p, e)`` exactly, that is the split. If not, a later parse of ``X`` is
  needed, which only the NFA can find: the part is handed to it (exact, just slower);
- in an alternation, the first alternative that matches ``[s, e)`` exactly;
- an optional ``X?`` matches ``X`` if it can, else nothing;
- a group records ``[s, e)``; other repetitions of groups go to the NFA.

Assertions (``\\b``, ``^``) read the text around a part as they would around the whole
match: every part is matched in the whole text, between offsets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2

__all__ = ["Plan", "plan"]

Spans = list[tuple[int, int]]


class _Unsupported(Exception):
    """The pattern uses a syntax this reader does not follow: the NFA does it all."""


@dataclass(frozen=True, slots=True)
class _Item:
    """One element of a concatenation: pattern text, and the group it is, if any."""

    text: str
    group: _Group | None  # None: text without groups


@dataclass(frozen=True, slots=True)
class _Group:
    """A parenthesised part: its capture index (0: not capturing), flags, body, quantifier."""

    index: int
    opener: str  # "(?i:" for flags that apply inside, else ""
    body: list[list[_Item]]  # alternatives, each a concatenation
    quantifier: str
    first: int  # the capture index of its first capturing group (itself or inside)
    captures: bool  # it holds a capturing group


class _Reader:
    """A recursive-descent reader of RE2 syntax, as far as groups, alternation, escapes and
    classes go (everything else is text)."""

    _REPEAT = re2.compile(r"\{[0-9]+(?:,[0-9]*)?\}\??|[*+?]\??")

    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.captures = 0

    def alternation(self) -> list[list[_Item]]:
        alternatives = [self.concatenation()]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            alternatives.append(self.concatenation())
        return alternatives

    def concatenation(self) -> list[_Item]:
        items: list[_Item] = []
        text: list[str] = []
        p = self.p
        while self.i < len(p) and p[self.i] not in "|)":
            c = p[self.i]
            if c == "(":
                if text:
                    items.append(_Item("".join(text), None))
                    text = []
                start = self.i
                group = self.group()
                items.append(_Item(p[start : self.i], group if group.captures else None))
            elif c == "\\":
                if p[self.i + 1 : self.i + 2] == "Q":
                    raise _Unsupported("\\Q")
                text.append(p[self.i : self.i + 2])
                self.i += 2
            elif c == "[":
                j = self.i + 1 + p.startswith("^", self.i + 1)
                j += p.startswith("]", j)
                while j < len(p) and p[j] != "]":
                    if p[j] == "\\":
                        j += 2
                    elif p.startswith("[:", j):
                        j = p.find(":]", j + 2) + 2
                        if j < 2:
                            raise _Unsupported("class")
                    else:
                        j += 1
                text.append(p[self.i : j + 1])
                self.i = j + 1
            else:
                text.append(c)
                self.i += 1
        if text:
            items.append(_Item("".join(text), None))
        # Neighbouring items without groups read as one text: one DFA run for all of them.
        merged: list[_Item] = []
        for item in items:
            if merged and item.group is None and merged[-1].group is None:
                merged[-1] = _Item(merged[-1].text + item.text, None)
            else:
                merged.append(item)
        return merged

    def group(self) -> _Group:
        p = self.p
        self.i += 1  # "("
        index, opener = 0, ""
        if p.startswith("?P<", self.i) or p.startswith("?<", self.i):
            self.i = p.index(">", self.i) + 1
            self.captures += 1
            index = self.captures
        elif p.startswith("?", self.i):
            colon = p.find(":", self.i)
            close = p.find(")", self.i)
            if colon < 0 or (0 <= close < colon):
                raise _Unsupported("flags for the rest of a group")
            opener = "(" + p[self.i : colon + 1] if colon > self.i + 1 else ""
            self.i = colon + 1
        else:
            self.captures += 1
            index = self.captures
        first = index or self.captures + 1
        body = self.alternation()
        if self.i >= len(p) or p[self.i] != ")":
            raise _Unsupported("unbalanced")
        self.i += 1
        m = self._REPEAT.match(p, self.i)
        quantifier = m.group() if m else ""
        self.i += len(quantifier)
        return _Group(index, opener, body, quantifier, first, self.captures >= first)


_GROUP = re2.compile(r"\(\?P?<\w+>")


def _groupless(pattern: str) -> str:
    return str(_GROUP.sub("(?:", pattern))


class _Step:
    """How to find the groups of one part of the pattern, with the regexes it needs."""

    def __init__(self, options: Any, anchors: Any) -> None:
        self.options = options
        self.anchors = anchors
        self.cache: dict[str, Any] = {}

    def regex(self, pattern: str) -> Any:
        """Return RE2's raw matcher for ``pattern`` (compiled once per plan)."""
        found = self.cache.get(pattern)
        if found is None:
            found = self.cache[pattern] = re2.compile(pattern, self.options)._regexp
        return found


def _wrap(openers: tuple[str, ...], text: str) -> str:
    return "".join(openers) + text + ")" * len(openers)


@dataclass(frozen=True, slots=True)
class Plan:
    """The groups of a rule, found part by part (see the module's docs)."""

    body: list[list[_Item]]
    regexes: _Step

    def fill(self, buf: bytes, s: int, e: int, spans: Spans) -> None:
        """Set ``spans`` (the rule's groups) for its match ``buf[s:e]``."""
        _alternation(self.body, (), buf, s, e, spans, self.regexes)


def plan(pattern: str, options: Any) -> Plan | None:
    """Return the plan for ``pattern``, or None when this reader cannot follow it."""
    anchors = getattr(re2, "_Anchor", None)
    if anchors is None or not hasattr(re2.compile("a")._regexp, "Match"):
        return None
    reader = _Reader(pattern)
    try:
        body = reader.alternation()
        if reader.i != len(pattern):
            return None
        for alternative in body:  # every part must compile on its own
            for item in alternative:
                re2.compile(_groupless(item.text), options)
    except (_Unsupported, re2.error, ValueError):
        return None
    return Plan(body, _Step(options, anchors))


def _nfa(
    text: str,
    first: int,
    openers: tuple[str, ...],
    buf: bytes,
    s: int,
    e: int,
    spans: Spans,
    step: _Step,
) -> None:
    """Let RE2's NFA set the groups of a part (its first capture index ``first``)."""
    found = step.regex(_wrap(openers, text)).Match(step.anchors.ANCHOR_BOTH, buf, s, e)
    for k, span in enumerate(found[1:]):
        spans[first + k] = span


def _alternation(
    body: list[list[_Item]],
    openers: tuple[str, ...],
    buf: bytes,
    s: int,
    e: int,
    spans: Spans,
    step: _Step,
) -> None:
    both = step.anchors.ANCHOR_BOTH
    for alternative in body:
        if len(body) > 1:
            text = _groupless("".join(item.text for item in alternative))
            if step.regex(_wrap(openers, text)).Match(both, buf, s, e)[0][0] < 0:
                continue
        _concatenation(alternative, openers, buf, s, e, spans, step)
        return


def _concatenation(
    items: list[_Item],
    openers: tuple[str, ...],
    buf: bytes,
    s: int,
    e: int,
    spans: Spans,
    step: _Step,
) -> None:
    start = step.anchors.ANCHOR_START
    both = step.anchors.ANCHOR_BOTH
    cur = s
    last = max((k for k, item in enumerate(items) if item.group is not None), default=-1)
    for k, item in enumerate(items[: last + 1]):
        if k < len(items) - 1:
            part = step.regex(_wrap(openers, _groupless(item.text)))
            p = part.Match(start, buf, cur, e)[0][1]
            rest = _groupless("".join(i.text for i in items[k + 1 :]))
            if p < 0 or step.regex(_wrap(openers, rest)).Match(both, buf, p, e)[0][0] < 0:
                # A later parse of this part is the one: the NFA finds it, for the rest too.
                text = "".join(i.text for i in items[k:])
                first = next(i.group.first for i in items[k:] if i.group is not None)
                _nfa(text, first, openers, buf, cur, e, spans, step)
                return
        else:
            p = e
        if item.group is not None:
            _group(item, openers, buf, cur, p, spans, step)
        cur = p


def _group(
    item: _Item,
    openers: tuple[str, ...],
    buf: bytes,
    s: int,
    e: int,
    spans: Spans,
    step: _Step,
) -> None:
    group = item.group
    assert group is not None
    inner = (*openers, group.opener) if group.opener else openers
    if group.quantifier in ("?", "??"):
        # Greedy: the group if it matches the span, else nothing; lazy: nothing if it can.
        if group.quantifier == "??" and s == e:
            return
        whole = _groupless(item.text[: len(item.text) - len(group.quantifier)])
        if step.regex(_wrap(openers, whole)).Match(step.anchors.ANCHOR_BOTH, buf, s, e)[0][0] < 0:
            return
    elif group.quantifier:
        _nfa(item.text, group.first, openers, buf, s, e, spans, step)
        return
    if group.index:
        spans[group.index] = (s, e)
    _alternation(group.body, inner, buf, s, e, spans, step)
