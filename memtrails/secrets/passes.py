"""One scan pass: the leftmost match of a set of rules, the rule it belongs to, and its groups."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import re2

from .groups import Plan, plan
from .rule import Rule

__all__ = [
    "OPTIONS",
    "UNANCHORED",
    "Entry",
    "Pass",
    "Spans",
    "around",
    "compile_pass",
    "find",
    "first_set",
    "groupless",
    "leftmost",
    "parse",
    "plan_of",
    "search",
    "text_of",
]

OPTIONS = re2.Options()
# Room for the DFA's state cache: with too little, RE2 falls back to its (still linear but
# slower) NFA on long inputs.
OPTIONS.max_mem = 64 << 20
# A pass's expression holds every rule of the pass, and its DFA a state per combination of
# partial matches alive at once: text that mixes many near-misses (prefixes, runs of key
# characters) in no fixed order visits far more of them than prose does. With 64 MB the
# cache of the token pass filled and was rebuilt over and over on 1 MB of such text (0.45 s
# a pass, every time); with 256 MB it is built once (0.009 s the next time). It is a cap,
# not an allocation: prose builds a few hundred kilobytes of states.
SCAN_OPTIONS = re2.Options()
SCAN_OPTIONS.max_mem = 256 << 20

Spans = list[tuple[int, int]]  # (start, end) of group 0, 1, 2, ...; (-1, -1) if unset
# Fills a match's groups itself instead of RE2 (the private-key rule's, from the block's shape).
Shaper = Callable[[bytes, int, int, Spans, dict[str, int]], None]

# Matches longer than this are checked against a rule without groups (RE2's DFA) before
# the groups are extracted (its NFA, many times slower per byte) with the rule that matched.
_LONG: Final = 512
# How many leading bytes of a match the rule's possible range is compared with.
_HEAD: Final = 4
_GROUP = re2.compile(r"\(\?P<\w+>")


def groupless(pattern: str) -> str:
    """Return ``pattern`` with its named groups made non-capturing."""
    return str(_GROUP.sub("(?:", pattern))


def _without_assertions(pattern: str) -> str | None:
    r"""Return ``pattern`` with its empty-width assertions (``\b \B \A \z ^ $``) removed.

    What is left matches every string the pattern matches, in any context (and more), so
    its possible range holds for the pattern wherever it matches. None when the pattern
    uses a syntax this reader does not follow (``\Q...\E``).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            escape = pattern[i + 1 : i + 2]
            if escape == "Q":
                return None
            out.append("(?:)" if escape in ("b", "B", "A", "z") else pattern[i : i + 2])
            i += 2
        elif c == "[":  # a class: copied as it is ("^" and "$" inside are characters)
            j = i + 1 + pattern.startswith("^", i + 1)
            j += pattern.startswith("]", j)
            while j < n and pattern[j] != "]":
                if pattern[j] == "\\":
                    j += 2
                elif pattern.startswith("[:", j):
                    j = pattern.find(":]", j + 2) + 2
                    if j < 2:
                        return None
                else:
                    j += 1
            if j >= n:
                return None
            out.append(pattern[i : j + 1])
            i = j + 1
        else:
            out.append("(?:)" if c in "^$" else c)
            i += 1
    return "".join(out)


class _Public:
    """RE2's raw ``Match`` and ``PossibleMatchRange`` over re2's public API.

    Used when the binding does not expose its underlying ``_regexp`` (the raw one returns
    every group's span in one call; the public one wraps each match in an object).
    """

    UNANCHORED: Final = 0
    ANCHOR_BOTH: Final = 2

    def __init__(self, regex: Any) -> None:
        self._regex = regex
        self._width = regex.groups + 1

    def Match(self, anchor: int, buf: bytes, pos: int, end: int) -> Spans:
        find = self._regex.search if anchor == self.UNANCHORED else self._regex.fullmatch
        m = find(buf, pos, end)
        return [(-1, -1)] * self._width if m is None else [m.span(i) for i in range(self._width)]

    def PossibleMatchRange(self, maxlen: int) -> tuple[bool, bytes, bytes]:
        return False, b"", b""


_ANCHORS = getattr(re2, "_Anchor", None)
_RAW = _ANCHORS is not None and hasattr(re2.compile("a")._regexp, "Match")
_UNANCHORED: Final[Any] = _ANCHORS.UNANCHORED if _RAW and _ANCHORS else _Public.UNANCHORED
#: The anchor to pass a pass's ``find.Match`` for a search (RE2's, or the public API's).
UNANCHORED: Final = _UNANCHORED
_BOTH: Final[Any] = _ANCHORS.ANCHOR_BOTH if _RAW and _ANCHORS else _Public.ANCHOR_BOTH


def _raw(pattern: str, public: bool, options: Any = OPTIONS) -> Any:
    regex = re2.compile(pattern, options)
    return _Public(regex) if public or not _RAW else regex._regexp


@dataclass(frozen=True, slots=True)
class Entry:
    """One rule of a pass, compiled on its own."""

    rule: Rule
    index: int  # its place in the pass
    groups: dict[str, int]  # the rule's group names -> indexes in its spans
    grouped: Any  # the rule's expression (re2's raw RE2, or _Public)
    alone: Any  # the same without groups: RE2 answers with its DFA alone
    width: int  # how many spans a match has: its groups and the whole match
    lo: bytes  # every match m of the rule has lo <= m[:_HEAD] <= hi
    hi: bytes
    shaper: Shaper | None  # fills the groups of a long match instead of RE2
    public: bool  # compiled for re2's public API only (no plans: they need the raw matcher)


@dataclass(frozen=True, slots=True)
class Pass:
    """Rules scanned together: one expression finds their leftmost match."""

    find: Any  # the alternation of every rule without groups
    entries: tuple[Entry, ...]  # in priority order
    by_byte: tuple[tuple[Entry, ...], ...]  # per first byte of a match: the rules it may be
    # The rules without assertions, anchored at both ends: which of them a match's bytes
    # alone fit (None when not every rule could be read: see _without_assertions).
    fits: Any


def _entry(rule: Rule, index: int, shapers: dict[str, Shaper], public: bool) -> Entry:
    grouped = re2.compile(rule.pattern, OPTIONS)
    loose = _without_assertions(groupless(rule.pattern))
    ok, lo, hi = False, b"", b""
    if loose is not None and not public:
        try:
            ok, lo, hi = re2.compile(loose, OPTIONS)._regexp.PossibleMatchRange(_HEAD)
        except re2.error:
            ok = False
    if not ok:
        lo, hi = b"", b"\xff" * (_HEAD + 1)  # nothing known: every match is in range
    return Entry(
        rule,
        index,
        dict(grouped.groupindex),
        _raw(rule.pattern, public),
        _raw(groupless(rule.pattern), public),
        grouped.groups + 1,
        lo[:_HEAD],
        hi,
        shapers.get(rule.check),
        public,
    )


@functools.lru_cache(maxsize=1024)
def plan_of(pattern: str) -> Plan | None:
    """Return the plan that finds the groups of ``pattern``'s long matches with RE2's DFA.

    Made at a rule's first long match, not at import: a plan compiles a dozen expressions.
    """
    return plan(pattern, OPTIONS)


def compile_pass(
    rules: tuple[Rule, ...], shapers: dict[str, Shaper] | None = None, public: bool = False
) -> Pass:
    """Compile ``rules`` into one pass.

    Args:
        rules: the rules, in priority order (at one position the first that matches wins).
        shapers: per rule check, a function that fills the groups of a long match of that
            rule from its shape, instead of RE2's group extraction.
        public: use only re2's public API (as when the binding hides its raw matcher).

    Returns:
        The pass, for :func:`search`.
    """
    entries = tuple(_entry(r, i, shapers or {}, public) for i, r in enumerate(rules))
    find = _raw("|".join(f"(?:{groupless(r.pattern)})" for r in rules), public, SCAN_OPTIONS)
    by_byte = tuple(
        tuple(e for e in entries if e.lo[:1] <= bytes((b,)) <= e.hi[:1]) for b in range(256)
    )
    return Pass(find, entries, by_byte, None if public else _fits(rules))


def _fits(rules: tuple[Rule, ...]) -> Any:
    """Return an RE2 set of ``rules`` without groups nor assertions, anchored at both ends."""
    fits = re2._re2.Set(_BOTH, OPTIONS)
    for rule in rules:
        loose = _without_assertions(groupless(rule.pattern))
        if loose is None or fits.Add(loose.encode()) < 0:
            return None
    return fits if fits.Compile() else None


def first_set(sp: Spans, g: dict[str, int], names: tuple[str, ...]) -> tuple[int, int, str]:
    """Return the span of the first set group of ``names`` (``-1, -1`` if none) and its name."""
    for name in names:
        i = g.get(name)
        if i is not None and sp[i][0] >= 0:
            return sp[i][0], sp[i][1], name
    return -1, -1, ""


def _char_start(buf: bytes, at: int) -> int:
    """Return ``at`` moved back to the start of the UTF-8 character it falls inside."""
    # Continuation bytes are 0b10xxxxxx; a character has at most three of them.
    low = max(at - 3, 0)
    while at > low and at < len(buf) and buf[at] & 0xC0 == 0x80:
        at -= 1
    return at


def text_of(buf: bytes, start: int, end: int) -> str:
    """Return the text of ``buf[start:end]`` (UTF-8; lone surrogates kept as they are).

    A bound that falls inside a multi-byte character (a look-back of a fixed number of
    bytes) is moved forward to the next character: the part of a character is no text.
    """
    try:
        return buf[start:end].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        pass
    # Past the continuation bytes at the start; before a character that the end cuts.
    while start < end and buf[start] & 0xC0 == 0x80:
        start += 1
    if end < len(buf):
        end = max(_char_start(buf, end), start)
    raw = buf[start:end]
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:  # not UTF-8 inside (no text this package encodes has any)
        return raw.decode("utf-8", "replace")


def leftmost(pattern: str) -> Callable[[bytes, int, int], Spans | None]:
    """Return a function giving the spans of every group of ``pattern``'s leftmost match in
    ``buf[pos:end]`` (None if none) in one call to RE2, without re2's match object."""
    regex = _raw(pattern, False)
    width = re2.compile(pattern, OPTIONS).groups + 1

    def search(buf: bytes, pos: int, end: int) -> Spans | None:
        spans: Spans = regex.Match(_UNANCHORED, buf, pos, end)
        return None if spans[0][0] < 0 else spans[:width]

    return search


def find(scan: Pass, buf: bytes, pos: int, end: int) -> tuple[int, int] | None:
    """Return the span of the leftmost match in ``buf[pos:end]`` (RE2's DFA alone)."""
    ((ms, me),) = scan.find.Match(_UNANCHORED, buf, pos, end)
    return None if ms < 0 else (ms, me)


def search(scan: Pass, buf: bytes, pos: int, end: int) -> tuple[Entry, Spans] | None:
    """Return the leftmost match in ``buf[pos:end]``: its rule, and its rule's group spans.

    The match is found first without groups (RE2 then runs only its DFA, the fast engine),
    then parsed (see :func:`parse`).
    """
    span = find(scan, buf, pos, end)
    return None if span is None else parse(scan, buf, span[0], span[1])


def parse(scan: Pass, buf: bytes, ms: int, me: int) -> tuple[Entry, Spans]:
    """Return the rule the pass's match ``buf[ms:me]`` belongs to, and its group spans.

    Its rule is the first, in priority order, whose own expression matches exactly there,
    anchored at both ends (the alternation takes the first alternative that matches at a
    position, and with both ends fixed no other parse of it ranks above the one found);
    only rules whose possible range holds the match's first bytes are tried. The rule's own
    expression then gives the groups: a program many times smaller than the alternation's,
    which makes RE2's group extraction that much cheaper.
    """
    entries: Sequence[Entry] = scan.by_byte[buf[ms]]
    several = len(entries) > 1
    if several:
        head = buf[ms : min(ms + _HEAD, me)]
        entries = [e for e in entries if e.lo <= head <= e.hi]
        several = len(entries) > 1
        if several and scan.fits is not None:
            # Rules whose bytes fit the match, whatever the context: a superset of the rules
            # that match there, in one DFA run instead of one per rule.
            fit = scan.fits.Match(buf[ms:me])
            entries = [e for e in entries if e.index in fit]
            several = len(entries) > 1
    long = me - ms > _LONG
    for entry in entries:
        if long:
            # The DFA says whether it matches; groups are extracted once, for the one that does.
            if several and entry.alone.Match(_BOTH, buf, ms, me)[0][0] < 0:
                continue
            found = None if entry.public else plan_of(entry.rule.pattern)
            if entry.shaper is not None or found is not None:
                spans: Spans = [(-1, -1)] * entry.width
                spans[0] = (ms, me)
                if entry.shaper is not None:
                    entry.shaper(buf, ms, me, spans, entry.groups)
                else:
                    assert found is not None
                    found.fill(buf, ms, me, spans)
                return entry, spans
        spans = entry.grouped.Match(_BOTH, buf, ms, me)
        if spans[0][0] >= 0:
            return entry, spans
    raise AssertionError(f"no rule matches the pass's match at {ms}")  # pragma: no cover


def around(buf: bytes, ms: int, me: int, before: int, after: int) -> Any:
    """Return ``buf[ms:me]`` with up to ``before`` and ``after`` bytes around it, as a memo key
    that also tells where the match sits in it when the text's start or end cuts it short."""
    hi = me + after
    if ms >= before and hi <= len(buf):  # the whole window: its length tells the match's
        return buf[ms - before : hi]
    lo = ms - before if ms > before else 0
    return (buf[lo:hi], ms - lo, me - ms, hi > len(buf))
