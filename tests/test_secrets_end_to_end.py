"""Every kind of secret, through every importer, never reaches the memory folder or an output.

One folder, every importer (JSON Lines, mbox, eml, Maildir, Slack, a notes folder, Git commit
messages, and a compressed mbox and JSON Lines file),
the real model and the real index. Each source carries the same body: labelled secrets of every
kind the scrubber knows (tests/data/secrets_labelled.jsonl), plus secrets in the fields and
names each importer reads (authors, subjects, threads, meta, ids, file names, a bad date).
"""

from __future__ import annotations

import gzip
import json
import lzma
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import labelled_secrets

from memtrails import Memory
from memtrails.importers.eml import from_eml
from memtrails.importers.files import from_files
from memtrails.importers.git import from_git
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.importers.slack import from_slack_export
from memtrails.keys import record_uid
from memtrails.secrets import KINDS, RULES_VERSION, marker

LABELLED = labelled_secrets()


def _planted() -> tuple[str, list[str]]:
    """Return a body with two labelled secret rows of every kind, and the secrets it holds."""
    rows: list[dict[str, Any]] = []
    per_kind: Counter[str] = Counter()
    for row in LABELLED:
        if row["expect"] and per_kind[row["rule"]] < 2:
            per_kind[row["rule"]] += 1
            rows.append(row)
    assert set(per_kind) == set(KINDS)
    body = "Notes from the incident review.\n\n" + "\n\n".join(r["text"] for r in rows) + "\n"
    return body, [s for r in rows for s in r["secrets"]]


BODY, BODY_SECRETS = _planted()
# Secrets that ride in fields and names rather than in the body.
GHP = "ghp_" + "Q8dLmW2xR5tY7uI9oP3aS6fG1hJ4kZ0cV2bN"
AKIA = "AKIA" + "J7QW2ZRT5XKP9LMB"
SLACK = "xoxb-" + "48213377125" + "-" + "902771236640" + "-" + "bT4qWd9ZrLm2XcVn7YsKp3Hf"
GLPAT = "glpat-" + "Vx7Rq2Lm9TzW4bNc8KpD"
FIELD_SECRETS = [GHP, AKIA, SLACK, GLPAT]
SECRETS = BODY_SECRETS + FIELD_SECRETS


def _jsonl(path: Path) -> None:
    records = [
        {
            "id": f"incident-{GHP}",
            "text": BODY,
            "title": f"review {AKIA}",
            "author": f"Ann ({SLACK})",
            "thread": f"ops {GLPAT}",
            "meta": {"labels": ["ops", {"note": f"token {GHP}"}], GLPAT: "as a key"},
        },
        {"id": "bad-date", "text": "a record with a token for a date", "at": GHP},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _message(message_id: str) -> str:
    return (
        f'From: "Ann {AKIA}" <ann@example.com>\nTo: team@example.com\n'
        f"Subject: incident review {GHP}\nDate: Tue, 1 Apr 2025 10:00:00 +0000\n"
        f"Message-ID: <{message_id}@example.com>\nContent-Type: text/plain; charset=utf-8\n"
        "Content-Transfer-Encoding: 8bit\n\n" + BODY
    )


def _maildir(folder: Path) -> None:
    for sub in ("cur", "new", "tmp"):
        (folder / sub).mkdir(parents=True)
    (folder / "cur" / "1743501600.M1P1.host:2,S").write_text(_message("maildir-1"))


def _compressed(tmp_path: Path) -> None:
    """The mbox again as .mbox.gz, the JSON Lines as .jsonl.xz (other ids, so they are added)."""
    mbox = (tmp_path / "archive.mbox").read_bytes().replace(b"mbox-1@", b"mbox-gz-1@")
    (tmp_path / "archive.mbox.gz").write_bytes(gzip.compress(mbox))
    jsonl = (tmp_path / "records.jsonl").read_bytes().replace(b"incident-", b"xz-incident-")
    (tmp_path / "records.jsonl.xz").write_bytes(lzma.compress(jsonl))


def _slack(folder: Path) -> None:
    (folder / "ops").mkdir(parents=True)
    users = [{"id": "U1", "name": "bob", "real_name": f"Bob {SLACK}"}]
    (folder / "users.json").write_text(json.dumps(users))
    (folder / "channels.json").write_text(json.dumps([{"id": "C1", "name": "ops"}]))
    messages = [{"type": "message", "user": "U1", "ts": "1711965600.000100", "text": BODY}]
    (folder / "ops" / "2024-04-01.json").write_text(json.dumps(messages))


def _notes(folder: Path) -> None:
    folder.mkdir()
    (folder / "review.md").write_text("# Incident review\n\n" + BODY)
    (folder / f"deploy-{GHP}.md").write_text("deploy notes, nothing secret inside\n")
    (folder / f"dump-{AKIA}.bin").write_bytes(b"\x00\x01\x02binary\x00" * 64)


def _git(folder: Path) -> None:
    # No GIT_* variable of the caller's (a git hook running the suite sets GIT_DIR and
    # GIT_INDEX_FILE: git would then init and commit into that repository instead of this
    # one), nor its git configuration (commit signing, hooks, a message cleanup mode).
    env = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GIT_")},
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": f"Cy {AKIA}",
        "GIT_AUTHOR_EMAIL": "cy@example.com",
        "GIT_COMMITTER_NAME": "Cy",
        "GIT_COMMITTER_EMAIL": "cy@example.com",
        "GIT_AUTHOR_DATE": "2025-04-02T10:00:00Z",
        "GIT_COMMITTER_DATE": "2025-04-02T10:00:00Z",
    }
    subprocess.run(["git", "init", "-q", str(folder)], check=True, env=env)
    (folder / "ci.yml").write_text("deploy: true\n")
    subprocess.run(["git", "-C", str(folder), "add", "."], check=True, env=env)
    (folder.parent / "message.txt").write_text(f"Add CI deploy {GHP}\n\n{BODY}")
    subprocess.run(
        ["git", "-C", str(folder), "commit", "-q", "-F", str(folder.parent / "message.txt")],
        check=True,
        env=env,
    )


def _leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


@pytest.mark.slow
async def test_no_secret_reaches_the_folder_or_an_output(tmp_path: Path, embedder: Any) -> None:
    _jsonl(tmp_path / "records.jsonl")
    (tmp_path / "archive.mbox").write_text(
        "From ann@example.com Tue Apr  1 10:00:00 2025\n" + _message("mbox-1") + "\n"
    )
    (tmp_path / "mail").mkdir()
    (tmp_path / "mail" / "review.eml").write_text(_message("eml-1"))
    _slack(tmp_path / "slack")
    _notes(tmp_path / "notes")
    _git(tmp_path / "repo")
    _maildir(tmp_path / "maildir")
    _compressed(tmp_path)
    importers = {
        "jsonl": lambda: from_jsonl(tmp_path / "records.jsonl"),
        "mbox": lambda: from_mbox(tmp_path / "archive.mbox"),
        "eml": lambda: from_eml(tmp_path / "mail"),
        "slack": lambda: from_slack_export(tmp_path / "slack"),
        "notes": lambda: from_files(tmp_path / "notes"),
        "git": lambda: from_git(tmp_path / "repo"),
        "maildir": lambda: from_maildir(tmp_path / "maildir"),
        "mbox.gz": lambda: from_mbox(tmp_path / "archive.mbox.gz"),
        "jsonl.xz": lambda: from_jsonl(tmp_path / "records.jsonl.xz"),
    }
    folder = tmp_path / "memory"
    outputs: list[str] = []
    async with Memory.open(folder, embedder=embedder) as memory:
        for name, importer in importers.items():
            report = await memory.ingest(importer())
            outputs.append(json.dumps(report.to_json()))
            outputs.extend(str(e) for e in report.errors)
            assert report.added >= 1, (name, report.errors)
            # Every kind was found in every source, and counted in the report's own words.
            missing = set(KINDS) - set(report.secrets)
            assert not missing, (name, missing)
            if name == "jsonl":
                # The bad date's error names the date without the token in it.
                assert any("[secret:github-token]" in e.reason for e in report.errors)
            if name == "notes":
                # The binary file's error names it by its scrubbed name.
                assert any(marker("aws-access-key") in e.where for e in report.errors)

        # A record whose id holds a secret: stored scrubbed, still found by its raw id, and a
        # re-import finds it unchanged instead of adding a second copy.
        source = str(tmp_path / "records.jsonl")
        record = await memory.get(f"incident-{GHP}", source=source)
        assert record is not None and record.id == "incident-[secret:github-token]"
        assert record.author == "Ann ([secret:slack-token])"
        again = await memory.ingest(from_jsonl(tmp_path / "records.jsonl"))
        assert (again.added, again.updated, again.unchanged) == (0, 0, 1)
        outputs.append(json.dumps(again.to_json()))

        for query in [*FIELD_SECRETS, *BODY_SECRETS[:6], "incident review"]:
            for hit in await memory.search(query, k=10):
                outputs.append(json.dumps(hit.to_json()))
                found = await memory.get(hit.id, source=hit.source)
                if found is not None:
                    outputs.append(json.dumps(found.to_json()))
        status = await memory.status()
        assert status.secrets == {"rules": [RULES_VERSION]}
        outputs.append(json.dumps(status.to_json()))

    assert record_uid(source, f"incident-{GHP}") != record_uid(source, record.id)
    for text in outputs:
        assert not _leaks(text), (_leaks(text), text[:300])
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert any("index" in p.relative_to(folder).parts for p in files)
    assert (folder / "sources.json").is_file()
    for path in files:
        data = path.read_bytes()
        leaked = [s for s in SECRETS if s.encode() in data]
        assert not leaked, f"{path.relative_to(folder)} holds {leaked}"
