"""Tests for memtrails.secrets: the labelled set, markers, records, and hostile inputs."""

from __future__ import annotations

import doctest
import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import re2
from aiostream import stream
from helpers import benchmark, labelled_secrets

from memtrails import secrets
from memtrails.items import Staged
from memtrails.keys import record_uid
from memtrails.pipeline.normalise import normalise
from memtrails.pipeline.scrub import scrub
from memtrails.records import MemoryRecord, SourceState
from memtrails.secrets import engine, fields, scrub_record, scrub_text

LABELLED = labelled_secrets()
GHP = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"  # invented, of the right shape
AKIA = "AKIA" + "QX7RT2ZK9PLM4WNB"


HOSTILE: dict[str, Any] = benchmark("scrub_speed").HOSTILE


# --- The labelled set --------------------------------------------------------------------------


@pytest.mark.parametrize("row", LABELLED, ids=lambda r: f"{r['rule']}:{r['text'][:40]!r}")
def test_labelled(row: dict[str, Any]) -> None:
    out, found = scrub_text(row["text"])
    assert found == Counter(row["expect"])
    if not row["expect"]:
        assert out == row["text"]  # a false positive must survive untouched
        assert out is row["text"]
    for secret in row["secrets"]:
        assert secret not in out
    for kept in row["keep"]:
        assert kept in out
    for kind in row["expect"]:
        assert secrets.marker(kind) in out


def test_labelled_set_covers_every_kind() -> None:
    """At least three true and two false positives for every kind of marker."""
    true = Counter(r["rule"] for r in LABELLED if r["expect"])
    false = Counter(r["rule"] for r in LABELLED if not r["expect"])
    for kind in secrets.KINDS:
        assert true[kind] >= 3, kind
        assert false[kind] >= 2, kind
    assert false["generic"] >= 5


# --- Markers and shapes ------------------------------------------------------------------------


def test_markers_are_typed() -> None:
    assert scrub_text(f"key {AKIA}") == (
        "key [secret:aws-access-key]",
        Counter({"aws-access-key": 1}),
    )
    assert secrets.marker("jwt") == "[secret:jwt]"
    assert len(set(secrets.KINDS)) == len(secrets.KINDS)
    assert {r.kind for r in secrets.RULES} - {""} == set(secrets.KINDS)


def test_url_password_keeps_scheme_user_and_host() -> None:
    out, found = scrub_text("see https://bob:hunter22@example.com/x?y=1 and redis://:s3cr3t@cache")
    assert out == (
        "see https://bob:[secret:url-password]@example.com/x?y=1 and "
        "redis://:[secret:url-password]@cache"
    )
    assert found == Counter({"url-password": 2})


def test_assignment_replaces_only_the_value() -> None:
    text = 'DB_PASSWORD=hunter22\n"api_key": "5d41402abc4b2a76"\nAuthorization: Bearer abc123def456ghi789'
    out, found = scrub_text(text)
    assert out == (
        "DB_PASSWORD=[secret:password]\n"
        '"api_key": "[secret:password]"\n'
        "Authorization: Bearer [secret:password]"
    )
    assert found == Counter({"password": 3})


def test_value_that_is_a_provider_token_gets_the_provider_kind() -> None:
    assert scrub_text(f"token: {GHP}") == (
        "token: [secret:github-token]",
        Counter({"github-token": 1}),
    )
    # A token that is only part of a value: the whole value goes, counted once.
    out, found = scrub_text(f"password={AKIA}:more-secret-text")
    assert out == "password=[secret:password]"
    assert found == Counter({"password": 1})


def test_private_key_block_is_replaced_whole() -> None:
    body = "MIIEowIBAAKCAQEAx4UbaDzY5Z9k1+2q\nQWERTYUIOPASDFGHJKLzxcvbnm012345=="
    text = f"before\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nafter"
    assert scrub_text(text) == ("before\n[secret:private-key]\nafter", Counter({"private-key": 1}))


def test_unterminated_private_key_stops_after_its_base64_lines() -> None:
    text = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAA\nAAAB\n\nBye, Ann"
    )
    assert scrub_text(text) == ("[secret:private-key]\n\nBye, Ann", Counter({"private-key": 1}))


def test_non_ascii_text_around_secrets() -> None:
    parol = "\u043f\u0430\u0440\u043e\u043b\u044c123\u00fc"  # Cyrillic "parol" + "123ü"
    text = f"Grüße 👋 — 密码: {parol} and {GHP} ✓"  # 密码: "password"
    out, found = scrub_text(text)
    assert out == "Grüße 👋 — 密码: [secret:password] and [secret:github-token] ✓"
    assert found == Counter({"github-token": 1, "password": 1})
    out, found = scrub_text(f"password: {parol} ok")
    assert out == "password: [secret:password] ok"


def test_lone_surrogates_survive() -> None:
    text = f"bad \udc80 byte then {GHP} and \ud800 end"
    out, _ = scrub_text(text)
    assert out == "bad \udc80 byte then [secret:github-token] and \ud800 end"


def test_deterministic_and_idempotent() -> None:
    text = "\n".join(row["text"] for row in LABELLED)
    first, found = scrub_text(text)
    second, again = scrub_text(text)
    assert (first, found) == (second, again)
    assert sum(found.values()) >= sum(len(r["expect"]) for r in LABELLED) - 5
    # Markers are never read as secrets: scrubbing scrubbed text finds nothing.
    assert scrub_text(first) == (first, Counter())


def test_empty_and_clean_text_is_returned_as_is() -> None:
    assert scrub_text("") == ("", Counter())
    clean = "Nothing to see here: commit 3f786850e387550fdab836ed7e6dc881de23001b."
    out, found = scrub_text(clean)
    assert out is clean and not found


def test_docstring_examples() -> None:
    for module in (engine, fields):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted >= 1 and result.failed == 0, module.__name__


# --- Records -----------------------------------------------------------------------------------


def test_clean_record_is_returned_itself() -> None:
    record = MemoryRecord(id="1", text="hello", title="hi", meta={"a": ["b", {"c": "d"}], "n": 3})
    out, found = scrub_record(record)
    assert out is record
    assert found == Counter()


def test_record_title_text_and_nested_meta_are_scrubbed() -> None:
    meta = {
        "headers": {"X-Trace": "abc", "Cookie": f"session={GHP}"},
        "attachments": [{"name": "env", "text": f"AWS_ACCESS_KEY_ID={AKIA}"}, "plain"],
        "pair": ("ok", "postgres://app:pa55w0rd@db/app"),
        "count": 7,
        "flag": None,
    }
    record = MemoryRecord(
        id="m1",
        text=f"token is {GHP}",
        title=f"leaked {AKIA}",
        author=f"{GHP}@example.com",
        thread=f"deploy {AKIA}",
        meta=MappingProxyType(meta),
    )
    out, found = scrub_record(record)
    assert out is not record
    assert out.text == "token is [secret:github-token]"
    assert out.title == "leaked [secret:aws-access-key]"
    assert out.author == "[secret:github-token]@example.com"
    assert out.thread == "deploy [secret:aws-access-key]"
    assert out.id == record.id and out.source == record.source
    assert list(out.meta) == list(meta)  # keys untouched, in order
    assert out.meta["headers"]["Cookie"] == "session=[secret:github-token]"
    assert out.meta["headers"]["X-Trace"] == "abc"
    assert out.meta["attachments"][0]["text"] == "AWS_ACCESS_KEY_ID=[secret:aws-access-key]"
    assert out.meta["attachments"][1] == "plain"
    assert out.meta["pair"] == ("ok", "postgres://app:[secret:url-password]@db/app")
    assert out.meta["count"] == 7 and out.meta["flag"] is None
    assert found == Counter({"github-token": 3, "aws-access-key": 3, "url-password": 1})
    # Unchanged parts of meta are shared, not copied.
    assert out.meta["attachments"] is not meta["attachments"]
    assert scrub_record(out) == (out, Counter())


def test_meta_value_under_a_secret_key_name() -> None:
    record = MemoryRecord(
        id="1",
        text="x",
        meta={
            "password": "hunter22",
            "api_key": GHP,
            "token": "${TOKEN}",
            "tokens": "hunter33",  # "tokens" names no secret
            "event_token": "send_message",  # a name, not a token: no digit
            "nested": [{"client_secret": "x9Yz81Qw"}],
        },
    )
    out, found = scrub_record(record)
    assert out.meta == {
        "password": "[secret:password]",
        "api_key": "[secret:github-token]",
        "token": "${TOKEN}",
        "tokens": "hunter33",
        "event_token": "send_message",
        "nested": [{"client_secret": "[secret:password]"}],
    }
    assert found == Counter({"password": 2, "github-token": 1})


def test_every_copy_of_a_secret_in_a_text_goes() -> None:
    value = "Zx9Qw8Er7Ty6Ui5Op4As3"
    out, found = scrub_text(f"token = '{value}' | '{value}'")
    assert out == "token = '[secret:password]' | '[secret:password]'"
    assert found == Counter({"password": 2})
    # A key pasted into a message and quoted in the reply, the quote without its name.
    mail = f"> here it is:\n> {value}\n\nOn Mon, Ann wrote:\n> api_key = {value}"
    out, _ = scrub_text(mail)
    assert value not in out
    # A short password is replaced where it stands alone, not inside a longer word.
    out, _ = scrub_text("password: hunter2! then hunter2! and xhunter2!y")
    assert out == "password: [secret:password] then [secret:password] and xhunter2!y"


def test_every_copy_in_every_field_of_a_record_goes() -> None:
    value = "Q9w8E7r6T5y4U3i2"
    record = MemoryRecord(
        id=f"note-{value}",
        text=f"password = {value} and {GHP}",
        title=f"re: {GHP}",
        author=f"bot {value}",
        thread="t",
        meta={"quoted": [f"> {value}"], value: "as a key", "n": 1},
    )
    out, found = scrub_record(record)
    for text in (out.id, out.text, out.title, out.author, *out.meta, *out.meta["quoted"]):
        assert value not in text and GHP not in text
    assert out.id == "note-[secret:password]"
    assert out.title == "re: [secret:github-token]"
    assert out.meta["n"] == 1
    assert found == Counter({"password": 5, "github-token": 2})
    assert scrub_record(out) == (out, Counter())


def test_many_secrets_copied_are_found_in_one_scan() -> None:
    """More distinct secrets than are looked for one by one: one RE2 alternation finds them."""
    values = [f"Zq{i:02d}Xw8Er7Ty6Ui5Op4As" for i in range(20)]
    text = "\n".join(f"svc{i}_token = {v}" for i, v in enumerate(values))
    text += "\nrepeated: " + " ".join(reversed(values))
    out, found = scrub_text(text)
    assert not any(v in out for v in values)
    assert found == Counter({"password": 40})


# --- Linear time -------------------------------------------------------------------------------


def test_every_rule_compiles_under_re2_and_fires() -> None:
    """Every rule compiles under RE2 (no backreferences or lookarounds: linear time), and every
    rule, run alone, replaces something in the labelled set: no rule is dead or shadowed."""
    texts = [row["text"].encode() for row in LABELLED if row["expect"]]
    for rule in secrets.RULES:
        assert re2.compile(rule.pattern).programsize > 0, rule.name
        if not rule.kind:
            continue
        alone = engine._compile((rule,))
        kinds = {k for buf in texts for _, _, k in engine._matches(alone, buf, 0, len(buf))}
        assert rule.kind in kinds, rule.name


@pytest.mark.slow
@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_megabyte_completes(name: str) -> None:
    """1 MB of near-misses scrubs (the timeout is only a hang guard; see the benchmark)."""
    text = HOSTILE[name](1 << 20)
    assert len(text) == 1 << 20
    out, found = scrub_text(text)
    # Whatever was replaced, no more than the input came out, and counts match the markers.
    assert out.count("[secret:") == sum(found.values())
    assert len(out) <= len(text) + 25 * sum(found.values())


def test_hostile_inputs_cover_every_rule() -> None:
    families = {name.split(":")[0] for name in HOSTILE}
    assert set(secrets.KINDS) <= families


def test_scrub_names_one_thing() -> None:
    """``memtrails.scrub`` is the pipeline stage; the engine lives in ``memtrails.secrets``."""
    import memtrails

    assert memtrails.scrub is scrub
    assert importlib.util.find_spec("memtrails.scrub") is None
    assert secrets.scrub_text is engine.scrub_text


# --- The pipeline stage ------------------------------------------------------------------------


async def test_stage_scrubs_errors_positions_and_ids() -> None:
    """What the stage passes on holds no secret: a bad date's echo, a file name in a
    position, a record id; the uid still comes from the raw id."""
    items: list[Any] = [
        {"id": "bad", "text": "x", "at": GHP},
        {"id": f"note-{AKIA}.md", "text": "plain", "author": f"Ann <{GHP}>"},
        SourceState("notes", {"files": {f"notes/{AKIA}.md": [1, 2, "abc"]}}, why=f"was {GHP}"),
    ]
    async with scrub(normalise(stream.iterate(items), "notes")).stream() as it:
        out = [item async for item in it]
    error, staged, state = out
    assert GHP not in str(error) and "[secret:github-token]" in error.reason
    assert isinstance(staged, Staged)
    assert staged.record.id == "note-[secret:aws-access-key].md"
    assert staged.record.author == "Ann <[secret:github-token]>"
    assert staged.uid == record_uid("notes", f"note-{AKIA}.md")
    assert state.state == {"files": {"notes/[secret:aws-access-key].md": [1, 2, "abc"]}}
    assert state.why == "was [secret:github-token]"


# --- Cross-check with detect-secrets -----------------------------------------------------------


def detect_secrets_values(path: Path) -> list[tuple[str, str]]:
    """Return (type, value) of everything detect-secrets (every default plugin) finds in a file."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        found = SecretsCollection()
        found.scan_file(str(path))
        return [(s.type, s.secret_value) for _, s in found if s.secret_value]


def test_everything_detect_secrets_finds_is_scrubbed(tmp_path: Path) -> None:
    """Over the labelled inputs that hold secrets, every value detect-secrets reports is gone
    after scrubbing. (On the rows labelled as no secret the two disagree on purpose: commit
    hashes, placeholders such as ``password = None``, a BEGIN line without a key.)"""
    rows = [r["text"] for r in LABELLED if r["expect"]]
    path = tmp_path / "secrets.txt"
    path.write_text("\n\n".join(rows))
    scrubbed = "\n\n".join(scrub_text(text)[0] for text in rows)
    checked: Counter[str] = Counter()
    for kind, value in detect_secrets_values(path):
        assert value not in scrubbed, (kind, value)
        checked[kind] += 1
    # It found secrets of many kinds, not just one: the cross-check has teeth.
    assert len(checked) >= 15, checked


# --- The rule set a folder was scrubbed with ---------------------------------------------------


async def test_status_names_the_rule_sets_a_folder_was_scrubbed_with(tmp_path: Path) -> None:
    """A new folder records this rule set; a folder from before records were kept says rule
    set 1, and adds this one once it writes records scrubbed with it."""
    from memtrails import Memory
    from memtrails.testing import HashingEmbedder

    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert (await memory.status()).to_json()["secrets"] == {"rules": [secrets.RULES_VERSION]}
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["secrets"]  # as a folder written before the manifest kept it
    (folder / "manifest.json").write_text(json.dumps(manifest))
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert (await memory.status()).secrets == {"rules": [1]}
        await memory.ingest([{"id": "1", "text": "hello"}])
        assert (await memory.status()).secrets == {"rules": [1, secrets.RULES_VERSION]}
    rules = json.loads((folder / "manifest.json").read_text())["secrets"]["rules"]
    assert rules == [1, secrets.RULES_VERSION]


def test_position_with_a_file_name_that_is_not_utf8() -> None:
    """A position keyed by a file name holding a lone surrogate is scrubbed, not refused."""
    state = SourceState("notes", {"files": {"caf\udce9.md": [1], f"{GHP}\udce9.md": [2]}})
    out = secrets.scrub_state(state)
    assert out.state == {"files": {"caf\udce9.md": [1], "[secret:github-token]\udce9.md": [2]}}
