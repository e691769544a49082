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


def _wrap(openers: tuple[str, ...], text: str) -> str:
    return "".join(openers) + text + ")" * len(openers)


class _Compiler:
    """Compiles each part of a pattern once (a part may recur: the rest of a concatenation)."""

    def __init__(self, options: Any) -> None:
        self.options = options
        self.cache: dict[str, Any] = {}

    def __call__(self, openers: tuple[str, ...], text: str, groups: bool = False) -> Any:
        pattern = _wrap(openers, text if groups else _groupless(text))
        found = self.cache.get(pattern)
        if found is None:
            found = self.cache[pattern] = re2.compile(pattern, self.options)._regexp
        return found


@dataclass(frozen=True, slots=True)
class _Nfa:
    """A part whose groups RE2's NFA sets: its expression, and its first capture index."""

    regex: Any
    first: int


@dataclass(frozen=True, slots=True)
class _Alt:
    """An alternation: per alternative, its expression without groups and its parts."""

    alternatives: tuple[tuple[Any, _Cat], ...]


@dataclass(frozen=True, slots=True)
class _Part:
    """One item of a concatenation, up to the last that holds a group."""

    alone: Any  # the item without groups, to find where its first parse ends; None if last
    rest: Any  # the items after it, without groups, to check they match what is left
    nfa: _Nfa  # the item and the rest, for when its first parse is not the one
    group: _Grp | None


@dataclass(frozen=True, slots=True)
class _Cat:
    parts: tuple[_Part, ...]


@dataclass(frozen=True, slots=True)
class _Grp:
    """A group that holds captures: its index (0: not capturing), how it repeats, its body."""

    index: int
    optional: str  # "?" or "??" for an optional group, "" otherwise
    whole: Any  # the group without groups and quantifier (for an optional group)
    nfa: _Nfa | None  # set for other repetitions: the NFA does the group
    body: _Alt | None


def _compile_alt(body: list[list[_Item]], openers: tuple[str, ...], c: _Compiler) -> _Alt:
    return _Alt(
        tuple(
            (
                c(openers, "".join(i.text for i in alt)) if len(body) > 1 else None,
                _compile_cat(alt, openers, c),
            )
            for alt in body
        )
    )


def _compile_cat(items: list[_Item], openers: tuple[str, ...], c: _Compiler) -> _Cat:
    last = max((k for k, item in enumerate(items) if item.group is not None), default=-1)
    parts = []
    for k, item in enumerate(items[: last + 1]):
        final = k == len(items) - 1
        rest = "".join(i.text for i in items[k + 1 :])
        holders = [i.group for i in items[k:] if i.group is not None]
        parts.append(
            _Part(
                None if final else c(openers, item.text),
                None if final else c(openers, rest),
                _Nfa(c(openers, item.text + rest, True), holders[0].first),
                None if item.group is None else _compile_grp(item, openers, c),
            )
        )
    return _Cat(tuple(parts))


def _compile_grp(item: _Item, openers: tuple[str, ...], c: _Compiler) -> _Grp:
    group = item.group
    assert group is not None
    inner = (*openers, group.opener) if group.opener else openers
    bare = item.text[: len(item.text) - len(group.quantifier)]
    if group.quantifier and group.quantifier not in ("?", "??"):
        return _Grp(group.index, "", None, _Nfa(c(openers, item.text, True), group.first), None)
    return _Grp(
        group.index,
        group.quantifier,
        c(openers, bare) if group.quantifier else None,
        None,
        _compile_alt(group.body, inner, c),
    )


@dataclass(frozen=True, slots=True)
class Plan:
    """The groups of a rule, found part by part (see the module's docs)."""

    body: _Alt
    start: Any  # RE2's anchors
    both: Any

    def fill(self, buf: bytes, s: int, e: int, spans: Spans) -> None:
        """Set ``spans`` (the rule's groups) for its match ``buf[s:e]``."""
        self._alt(self.body, buf, s, e, spans)

    def _alt(self, alt: _Alt, buf: bytes, s: int, e: int, spans: Spans) -> None:
        for alone, cat in alt.alternatives:
            if alone is None or alone.Match(self.both, buf, s, e)[0][0] >= 0:
                self._cat(cat, buf, s, e, spans)
                return

    def _cat(self, cat: _Cat, buf: bytes, s: int, e: int, spans: Spans) -> None:
        cur = s
        for part in cat.parts:
            p = e
            if part.alone is not None:
                p = part.alone.Match(self.start, buf, cur, e)[0][1]
                if p < 0 or part.rest.Match(self.both, buf, p, e)[0][0] < 0:
                    # A later parse of this part is the one: the NFA finds it, for the rest too.
                    self._nfa(part.nfa, buf, cur, e, spans)
                    return
            if part.group is not None:
                self._grp(part.group, buf, cur, p, spans)
            cur = p

    def _grp(self, grp: _Grp, buf: bytes, s: int, e: int, spans: Spans) -> None:
        if grp.nfa is not None:
            self._nfa(grp.nfa, buf, s, e, spans)
            return
        if grp.optional:
            # Greedy: the group if it matches the span, else nothing; lazy: nothing if it can.
            if grp.optional == "??" and s == e:
                return
            if grp.whole.Match(self.both, buf, s, e)[0][0] < 0:
                return
        if grp.index:
            spans[grp.index] = (s, e)
        assert grp.body is not None
        self._alt(grp.body, buf, s, e, spans)

    def _nfa(self, nfa: _Nfa, buf: bytes, s: int, e: int, spans: Spans) -> None:
        """Let RE2's NFA set the groups of a part."""
        found = nfa.regex.Match(self.both, buf, s, e)
        for k, span in enumerate(found[1:]):
            spans[nfa.first + k] = span


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
        compiled = _compile_alt(body, (), _Compiler(options))
    except (_Unsupported, re2.error, ValueError):
        return None
    return Plan(compiled, anchors.ANCHOR_START, anchors.ANCHOR_BOTH)
