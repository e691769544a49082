"""The scan's machinery: which rule a match is, its groups, and the memos, against plain RE2."""

from __future__ import annotations

import random
from typing import Any

import pytest
import re2
from helpers import benchmark, labelled_secrets

from memtrails.secrets import engine, groups, passes
from memtrails.secrets import scan as scanning
from memtrails.secrets.rule import Rule

LABELLED = [row["text"] for row in labelled_secrets()]
KEY = "\n".join(["MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB"] * 12)
LONG = [  # matches longer than the 512 bytes above which groups come from the DFA
    f"-----BEGIN RSA PRIVATE KEY-----\n{KEY}\n-----END RSA PRIVATE KEY-----\nbye",
    f"-----BEGIN RSA PRIVATE KEY-----\n{KEY}\n\nbye",
    f"> -----BEGIN RSA PRIVATE KEY-----\r\n> {KEY}\r\n>  -----END RSA PRIVATE KEY-----",
    f"x -----BEGIN RSA PRIVATE KEY-----\nComment: {'c' * 900}\n{KEY}",
    "-----BEGIN EC PRIVATE KEY-----\nAb\nhttps://a:" + "b" * 2000 + "\nnext",
    "-----BEGIN EC PRIVATE KEY-----\\n" + KEY.replace("\n", "\\n") + '\\n"',
    "data:image/png;base64," + "QUJD" * 500 + " AKCp" + "x" * 900 + " ",
    'password: "' + "x1" * 800 + '" and https://u:' + "p" * 700 + "@host",
    "token = Bearer " + "Ab1" * 300 + " and :_authToken=" + "z9" * 400,
    "https://user:" + "p@ss" * 300 + "@host/x https://a:" + "b" * 900 + "@",
    "sk-proj-" * 200 + " AKCp" + "Q" * 700 + " pypi-AgE" + "x_" * 400,
]
PASSES = {
    "tokens": engine._TOKENS,
    "assignments": engine._ASSIGNMENTS,
    "headers": engine._HEADERS,
    "commands": engine._COMMAND_FLAGS,
    "unknown": engine._UNKNOWN_TOKENS,
}


HOSTILE = benchmark("scrub_speed").HOSTILE


def _texts() -> list[bytes]:
    """Labelled secrets and near-misses, hostile inputs, long matches, and glued fragments."""
    texts = [t.encode() for t in LABELLED + LONG]
    texts += [build(4096).encode() for build in HOSTILE.values()]
    rng = random.Random(7)
    seps = [b"", b" ", b"\n", b"=", b": ", b'"', b"-", b"@", b"\\n", b"\r\n> "]
    for _ in range(400):
        parts = []
        for _ in range(rng.randint(2, 8)):
            frag = rng.choice(texts[: len(LABELLED)] + [t[:200] for t in texts[len(LABELLED) :]])
            a = rng.randrange(len(frag) + 1)
            parts.append(frag[a : a + rng.randint(1, 160)])
            parts.append(rng.choice(seps))
        texts.append(b"".join(parts).decode("utf-8", "ignore").encode())
    return texts


TEXTS = _texts()


def _combined(rules: tuple[Rule, ...]) -> Any:
    """The pass as one RE2 expression with every rule's groups (what the engine used to run)."""
    parts = [f"(?P<{r.name}>{r.pattern.replace('(?P<', f'(?P<{r.name}__')})" for r in rules]
    return re2.compile("|".join(parts), passes.OPTIONS)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PASSES))
def test_each_match_gets_the_rule_and_groups_of_the_combined_expression(name: str) -> None:
    """The rule a match belongs to and its groups are the ones RE2 gives when every rule of
    the pass is one alternation with all their groups."""
    scan = PASSES[name]
    rules = tuple(e.rule for e in scan.entries)
    combined = _combined(rules)
    for text in TEXTS:
        pos = 0
        while (m := combined.search(text, pos)) is not None:
            rule = next(r for r in rules if m.group(r.name) is not None)
            found = passes.search(scan, text, pos, len(text))
            assert found is not None
            entry, spans = found
            assert entry.rule is rule, text[m.start() : m.start() + 60]
            assert spans[0] == m.span()
            for group, index in entry.groups.items():
                outer = combined.groupindex[f"{rule.name}__{group}"]
                assert spans[index] == m.span(outer), (rule.name, group)
            pos = max(m.end(), pos + 1)
        assert passes.search(scan, text, pos, len(text)) is None


def test_groups_from_the_dfa_equal_re2s() -> None:
    """Every rule's plan, on every match of the rule alone (short and long), sets the spans
    RE2's own group extraction sets."""
    checked = 0
    for scan in PASSES.values():
        for entry in scan.entries:
            plan = passes.plan_of(entry.rule.pattern)
            assert plan is not None, entry.rule.name  # every rule of the set can be planned
            alone = passes.compile_pass((entry.rule,))
            for text in TEXTS:
                pos = 0
                while (span := passes.find(alone, text, pos, len(text))) is not None:
                    ms, me = span
                    spans: passes.Spans = [(-1, -1)] * entry.width
                    spans[0] = span
                    plan.fill(text, ms, me, spans)
                    assert spans == entry.grouped.Match(re2._Anchor.ANCHOR_BOTH, text, ms, me)
                    checked += 1
                    pos = max(me, pos + 1)
    assert checked > 1000


def test_plans_follow_flags_optional_and_repeated_groups() -> None:
    """Patterns shaped unlike today's rules: flags around groups, optional and repeated
    groups, a part whose first parse is not the one (the NFA then finds it)."""
    patterns = [
        r"(?i:key(?P<a>[a-z]+))=(?P<b>[0-9]+)",
        r"x(?P<a>ab|a)(?P<b>bc|c)y",
        r"(?:(?P<a>q)-)?(?P<b>\w+)",
        r"(?:(?P<a>[a-c])(?P<b>[0-9]))+z",
        r"(?P<a>[a-z]+)(?P<b>[a-z]{3})\b",
        r"\b(?P<a>u)(?P<b>(?:v|w)*)(x)?",
    ]
    texts = [b"KEYabc=123 keyZ=9", b"xabcy xacy", b"q-word -word", b"a1b2c3z c3z", b"abcdefgh"]
    texts += [b"uvwvwx uvv u", b"KeY" + b"q" * 900 + b"=1" + b"2" * 900]
    for pattern in patterns:
        plan = groups.plan(pattern, passes.OPTIONS)
        assert plan is not None, pattern
        regex = re2.compile(pattern, passes.OPTIONS)
        for text in texts:
            for m in regex.finditer(text):
                spans: passes.Spans = [(-1, -1)] * (regex.groups + 1)
                spans[0] = m.span()
                plan.fill(text, m.start(), m.end(), spans)
                assert spans == [m.span(i) for i in range(regex.groups + 1)], (pattern, text)


def test_possible_ranges_hold_every_match() -> None:
    """A match's first bytes lie in its rule's possible range, in any context: the table
    that narrows the rules to try never leaves out the right one."""
    for scan in PASSES.values():
        for entry in scan.entries:
            alone = passes.compile_pass((entry.rule,))
            for text in TEXTS:
                pos = 0
                while (span := passes.find(alone, text, pos, len(text))) is not None:
                    head = text[span[0] : min(span[0] + 4, span[1])]
                    assert entry.lo <= head <= entry.hi, (entry.rule.name, head)
                    assert entry in scan.by_byte[text[span[0]]]
                    pos = max(span[1], pos + 1)


def test_assertions_are_removed_outside_classes_only() -> None:
    strip = passes._without_assertions
    assert strip(r"\bab$") == "(?:)ab(?:)"
    assert strip(r"(?:^|[^A-Z^$\]])x\z") == "(?:(?:)|[^A-Z^$\\]])x(?:)"
    assert strip(r"\\b[\b]") == r"\\b[\b]"  # a backslash then b; a class
    assert strip(r"[[:alpha:]^]\Bq") == "[[:alpha:]^](?:)q"
    assert strip(r"\Qa\E") is None


@pytest.mark.slow
def test_public_api_finds_the_same() -> None:
    """Without re2's raw matcher (its public API only), every pass finds the same."""
    for scan in PASSES.values():
        public = engine._compile(tuple(e.rule for e in scan.entries), public=True)
        for text in TEXTS:
            fast = list(engine._matches(scan, text, 0, len(text)))
            assert list(engine._matches(public, text, 0, len(text))) == fast


@pytest.mark.slow
def test_remembered_outcomes_equal_fresh_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near-misses and secrets repeated with different bytes around them: remembering the
    outcome of a match changes nothing (the memo's window holds what each check reads)."""
    rng = random.Random(11)
    units = [t.encode() for t in LABELLED] + [b(64).encode() for b in HOSTILE.values()]
    around = [b" ", b"\n", b"=", b"://", b"x", b"-", b"mysql ", b"curl -u ", b"\n\n", b'"']
    texts = []
    for _ in range(60):
        picked = rng.sample(units, 6)
        texts.append(b"".join(rng.choice(around) + rng.choice(picked) for _ in range(300)))
    remembered = [engine.find_spans(t) for t in texts]
    monkeypatch.setattr(scanning, "_MEMO_LONGEST", -1)
    assert [engine.find_spans(t) for t in texts] == remembered


def test_flags_after_commands_get_the_same_outcome_remembered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines of command words and password flags in random order: the command found for one
    flag, reused for the next ones on the line, and the remembered outcomes change nothing."""
    rng = random.Random(23)
    words = [b"mysql", b"curl", b"sshpass", b"redis-cli", b"wget", b"https://h/x", b"echo"]
    flags = [b"-pS3cr3t!x", b"-p S3cr3t!x", b"-u ann:S3cr3t!x", b"-a S3cr3t!x", b"-p${PASS}"]
    fillers = [b" ", b" --opt=1 ", b" " + b"x" * 120 + b" ", b"\n", b" -v "]
    texts = []
    for _ in range(80):
        parts = []
        for _ in range(rng.randint(5, 60)):
            parts.append(rng.choice(words + flags + flags))
            parts.append(rng.choice(fillers))
        texts.append(b"".join(parts))
    remembered = [engine.find_spans(t) for t in texts]
    assert any(kind == "password" for spans in remembered for _, _, kind in spans)
    monkeypatch.setattr(scanning, "_MEMO_LONGEST", -1)
    assert [engine.find_spans(t) for t in texts] == remembered


def test_flags_a_command_does_not_take_are_skipped_safely(monkeypatch: pytest.MonkeyPatch) -> None:
    """After two flags its command does not take, the scan jumps to the next flag it takes or
    the next command: on long lines of such flags, what is found equals a flag-by-flag scan."""
    rng = random.Random(31)
    commands = [b"mysql", b"curl", b"sshpass", b"redis-cli", b"smbclient", b"az", b"docker login"]
    flags = [b"-u a:b", b"-U ann%S3cr3t!x", b"-a R3d1s!pw", b"-p Ss7h!pass", b"-pMy5ql!pw"]
    flags += [b"-u ann:Cu7l!Pass", b"--user bob:Pw0rd!xx", b"-x 1", b"--p=1"]
    texts = []
    for _ in range(60):
        line = []
        for _ in range(rng.randint(1, 8)):
            line.append(rng.choice(commands))
            line += [rng.choice(flags) for _ in range(rng.randint(0, 40))]
        texts.append(b" ".join(line) + rng.choice([b"", b"\n", b"\nls -a x -p y\n"]))
    skipped = [engine.find_spans(t) for t in texts]
    assert sum(kind == "password" for spans in skipped for _, _, kind in spans) > 100
    monkeypatch.setattr(scanning, "_MEMO_LONGEST", -1)  # no memo, no skip: every flag checked
    assert [engine.find_spans(t) for t in texts] == skipped
