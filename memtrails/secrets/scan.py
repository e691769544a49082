"""The rules' passes, and the scan of one: each match found, checked, its outcome remembered."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from .checks import check_command, check_match
from .commands import Commands, flag_of
from .identifiers import PUBLIC_MEMBER_READS
from .markers import markers_in
from .passes import UNANCHORED, Pass, Spans, around, compile_pass, parse
from .rule import Rule
from .rules import RULES
from .shapes import pem_groups
from .spans import Span

__all__ = [
    "ASSIGNMENTS",
    "COMMAND_FLAGS",
    "HEADERS",
    "TOKENS",
    "UNKNOWN_TOKENS",
    "compile_rules",
    "matches",
    "tokens",
]


def compile_rules(rules: tuple[Rule, ...], public: bool = False) -> Pass:
    """Compile ``rules`` into one pass (``public``: with re2's public API only)."""
    return compile_pass(rules, {"pem": pem_groups}, public)


# Several passes, not one: RE2's DFA builds a state per combination of live partial matches,
# and the assignment rules (a key of any identifier) combined with the URL rule (a scheme of
# any word) multiply into so many states that one combined pass ran at ~20 MB/s; the key
# names of XML elements and the flags of command lines did the same to the assignment pass
# (360 -> 95 MB/s), so they scan on their own. The token pass also runs inside assignment and
# URL-password values, so that "token: ghp_..." is counted as a github-token, not a password.
TOKENS = compile_rules(tuple(r for r in RULES if r.scan == "tokens"))
ASSIGNMENTS = compile_rules(tuple(r for r in RULES if r.scan == "assignments"))
HEADERS = compile_rules(tuple(r for r in RULES if r.scan == "headers"))
# Command-line flags on their own: a flag with no command before it skips the rest of its
# line up to the next command word, which is safe only where no other rule can match there.
COMMAND_FLAGS = compile_rules(tuple(r for r in RULES if r.scan == "commands"))
# Tokens of services no rule names, on their own: their prefixes are any word, which in the
# token pass multiplied its DFA's states (232 -> 130 MB/s), and a value's kind says more.
UNKNOWN_TOKENS = compile_rules(tuple(r for r in RULES if r.scan == "unknown"))


# How far each check reads around its match (bytes before, after), on top of the byte on
# either side that RE2's assertions read: what the outcome memo of matches keys on. A check
# not listed here is never remembered, nor is an outcome for which check says it read
# further. A check that starts reading further must say so here. The command rule's check
# reads the nearest command word before the flag on its line (commands.Commands): its outcome is
# remembered with that command instead (see matches).
_READS: Final = {
    "": (0, 0),  # the value group, or the span kept as it is
    "alnum": (0, 0),
    "mixed": (0, 0),
    "aws": (0, 0),
    "random": (0, 0),
    "random_string": (PUBLIC_MEMBER_READS, 0),  # a JSON member's name before the quote
    "b64": (0, 0),
    "jwt": (0, 0),
    "pem": (0, 0),
    "basic": (0, 0),
    "cookies": (0, 0),
    "pair": (0, 0),
    # inner_spans runs the token pass from one byte before the value, and RE2 reads one more
    # before that: inside the match, or its shape, since these rules' values never start
    # the match (a key, a scheme word or a URL's user comes first).
    "keyed": (0, 0),
    "bearer": (0, 0),
    "url": (0, 0),
    "assignment": (3, 24),  # "://" before the key, the word after a bare value
    "prose": (48, 24),  # the words before the key word, a label's line, a YAML tag's block
}
# Per check, the bytes around a match its outcome is remembered by: what it reads, and at
# least the byte on either side that RE2's assertions read (the match's shape, below).
_WINDOWS: Final = {check: (max(1, b), max(1, a)) for check, (b, a) in _READS.items()}
# Those that read past the shape: their outcomes go to the second memo.
_WIDE: Final = {check: window for check, window in _WINDOWS.items() if window != (1, 1)}
_REREAD: Final = 256  # bytes of a match from a marker's end that the scan reads again
_MEMO_LONGEST: Final = 1024  # longer matches are not remembered
_MEMO_SIZE: Final = 4096  # different matches remembered per text and memo (then forgotten)


def matches(compiled: Pass, buf: bytes, start: int, end: int) -> Iterator[Span]:
    """Yield the replacements in ``buf[start:end]``, in order and without overlaps.

    Memos, per text, spare the work on a match seen before. Its rule and groups depend on its
    bytes and the byte on either side (all that RE2's assertions read): its *shape*. Its
    check's outcome depends on the bytes around it as far as the check reads (see _READS):
    for most token rules no further than the shape, so the shape's memo holds it too; for the
    others, a second memo keyed by the rule and its window; for the command rule, by the
    shape and the command found on the flag's line. Near-misses repeated a thousand times
    cost one parse and one check, not a thousand, whatever stands between them.
    """
    pos = start
    size = len(buf)
    # shape -> [rule, its groups' spans relative to the match start, the check's outcome
    # when the check reads no further than the shape (else None)]
    shapes: dict[Any, list[Any]] = {}
    outcomes: dict[Any, tuple[tuple[Span, ...], int]] = {}
    commands = Commands(buf)  # the command words of the text's lines, as flags need them
    match = compiled.find.Match  # one RE2 call per match: this loop is the scan's hot path
    markers = markers_in(buf, start, end)  # our own: None in any text not yet scrubbed
    while pos < end:
        ((ms, me),) = match(UNANCHORED, buf, pos, end)
        if ms < 0:
            return
        if markers is not None and (inside := markers.end_of(ms)):
            # A match starting inside one of our markers: its words are ours. The scan goes on
            # from the marker's end ("[secret:ai-key]-x.set_password('V')"), or past a long
            # match as past a rejected one (its length again from each marker's end would
            # make a line of them quadratic).
            pos = inside if me - inside <= _REREAD else max(inside, me)
            continue
        if me - ms > _MEMO_LONGEST:
            entry, long = parse(compiled, buf, ms, me)
            out, resume, _ = check_match(buf, entry.rule, long, entry.groups, tokens, commands)
            yield from out
            pos = max(resume, pos + 1)
            continue
        shape = buf[ms - 1 : me + 1] if ms and me < size else around(buf, ms, me, 1, 1)
        known = shapes.get(shape)
        sp: Spans | None = None
        if known is None:
            entry, parsed = parse(compiled, buf, ms, me)
            sp = parsed
            if len(shapes) >= _MEMO_SIZE:
                shapes.clear()
            known = [entry, tuple([(s - ms, e - ms) for s, e in parsed]), None]
            shapes[shape] = known
        elif known[2] is not None:
            relative, resume = known[2]
            for s, e, kind in relative:
                yield (s + ms, e + ms, kind)
            resume += ms
            pos = resume if resume > pos else pos + 1
            continue
        else:
            entry = known[0]
        check = entry.rule.check
        key: Any = None
        command = 0
        if check == "command":
            command = commands.before(ms + flag_of(known[1], entry.groups)[0])
            if command:  # else the check reads on to the next command: not remembered
                key = (entry.index, shape, command)
        elif (wide := _WIDE.get(check)) is not None:
            key = (entry.index, around(buf, ms, me, *wide))
        if key is not None:
            hit = outcomes.get(key)
            if hit is not None:
                relative, resume = hit
                for s, e, kind in relative:
                    yield (s + ms, e + ms, kind)
                resume += ms
                if command and not relative:
                    resume = commands.skip(resume, ms)
                pos = resume if resume > pos else pos + 1
                continue
        if sp is None:
            sp = [(s + ms, e + ms) if s >= 0 else (-1, -1) for s, e in known[1]]
        if check == "command":
            out, resume, bounded = check_command(
                buf, sp, entry.groups, entry.rule.kind, command, tokens
            )
        else:
            out, resume, bounded = check_match(buf, entry.rule, sp, entry.groups, tokens)
        yield from out
        if bounded and (key is not None or check in _WINDOWS):
            # Tuples of numbers and strings: the garbage collector stops tracking them.
            outcome = tuple([(s - ms, e - ms, kind) for s, e, kind in out]), resume - ms
            if key is None:
                known[2] = outcome
            else:
                if len(outcomes) >= _MEMO_SIZE:
                    outcomes.clear()
                outcomes[key] = outcome
        if command and not out:
            resume = commands.skip(resume, ms)
        pos = max(resume, pos + 1)


def tokens(buf: bytes, start: int, end: int) -> Iterator[Span]:
    """Yield the token pass's replacements in ``buf[start:end]`` (see :data:`inner.Tokens`)."""
    return matches(TOKENS, buf, start, end)
