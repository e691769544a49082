"""Secrets pasted into a mail, a Slack message and a commit never reach the memory folder."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
from pathlib import Path
from typing import Any

from memtrails import Memory
from memtrails.importers.eml import from_eml
from memtrails.importers.git import from_git
from memtrails.importers.slack import from_slack_export

_rng = random.Random(20261130)


def _chars(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


# Made-up credentials of the real shapes (none of them was ever valid anywhere).
AWS_KEY = "AKIA" + _chars(16, string.ascii_uppercase + "234567")
AWS_SECRET = _chars(40, string.ascii_letters + string.digits + "/+")
GITHUB = "ghp_" + _chars(36)
SLACK = "xoxb-" + _chars(11, string.digits) + "-" + _chars(12, string.digits) + "-" + _chars(24)
STRIPE = "sk_live_" + _chars(24)
OPENAI = "sk-proj-" + _chars(48)
URL_PASSWORD = "Tr0ub4dor" + _chars(6)
PASSWORD = "hunter2-" + _chars(10)
PEM_BODY = "\n".join(_chars(64, string.ascii_letters + string.digits + "+/") for _ in range(6))
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"

SECRETS = {
    "aws-access-key": AWS_KEY,
    "aws-secret-key": AWS_SECRET,
    "github-token": GITHUB,
    "slack-token": SLACK,
    "stripe-key": STRIPE,
    "openai-key": OPENAI,
    "url-password": URL_PASSWORD,
    "password": PASSWORD,
    "private-key": PEM_BODY.splitlines()[2],
}


def _mail(folder: Path) -> None:
    folder.mkdir()
    body = (
        "Hi team,\n\nthe staging box is back. Credentials for the deploy job:\n\n"
        f"aws_access_key_id = {AWS_KEY}\naws_secret_access_key = {AWS_SECRET}\n\n"
        f"and the database is at postgres://deploy:{URL_PASSWORD}@db.internal:5432/app\n\n"
        f"{PEM}\n\nCheers, Ann\n"
    )
    (folder / "deploy.eml").write_text(
        "From: Ann Example <ann@example.com>\nTo: team@example.com\n"
        f"Subject: staging credentials {GITHUB}\nDate: Tue, 1 Apr 2025 10:00:00 +0000\n"
        "Message-ID: <deploy-1@example.com>\nContent-Type: text/plain; charset=utf-8\n\n" + body
    )


def _slack(folder: Path) -> None:
    (folder / "general").mkdir(parents=True)
    (folder / "users.json").write_text(json.dumps([{"id": "U1", "name": "bob", "real_name": "Bob Builder"}]))
    (folder / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]))
    messages = [
        {"type": "message", "user": "U1", "ts": "1711965600.000100", "text": f"bot token is {SLACK} and stripe {STRIPE}"},
        {"type": "message", "user": "U1", "ts": "1711965700.000200", "text": f"OPENAI_API_KEY={OPENAI}\npassword: {PASSWORD}"},
    ]
    (folder / "general" / "2024-04-01.json").write_text(json.dumps(messages))


def _git(folder: Path) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Cy",
        "GIT_AUTHOR_EMAIL": "cy@example.com",
        "GIT_COMMITTER_NAME": "Cy",
        "GIT_COMMITTER_EMAIL": "cy@example.com",
        "GIT_AUTHOR_DATE": "2025-04-02T10:00:00Z",
        "GIT_COMMITTER_DATE": "2025-04-02T10:00:00Z",
    }
    subprocess.run(["git", "init", "-q", str(folder)], check=True, env=env)
    (folder / "ci.yml").write_text("deploy: true\n")
    subprocess.run(["git", "-C", str(folder), "add", "."], check=True, env=env)
    message = f"Add CI deploy\n\nUses GITHUB_TOKEN={GITHUB} and aws key {AWS_KEY}.\npassword = '{PASSWORD}'\n"
    subprocess.run(["git", "-C", str(folder), "commit", "-q", "-m", message], check=True, env=env)


def _all_bytes(folder: Path) -> list[tuple[Path, bytes]]:
    return [(p, p.read_bytes()) for p in folder.rglob("*") if p.is_file()]


async def test_no_secret_reaches_the_folder_or_search(tmp_path: Path, embedder: Any) -> None:
    _mail(tmp_path / "mail")
    _slack(tmp_path / "slack")
    _git(tmp_path / "repo")
    folder = tmp_path / "memory"
    async with Memory.open(folder, embedder=embedder) as memory:
        reports = [
            await memory.ingest(from_eml(tmp_path / "mail")),
            await memory.ingest(from_slack_export(tmp_path / "slack")),
            await memory.ingest(from_git(tmp_path / "repo")),
        ]
        assert [r.added for r in reports] == [1, 2, 1]
        found: dict[str, int] = {}
        for report in reports:
            for kind, n in report.secrets.items():
                found[kind] = found.get(kind, 0) + n
        # Every kind planted was counted, in the report's own words.
        assert set(SECRETS) <= set(found), (found, [e for r in reports for e in r.errors])
        mail = await memory.get("deploy-1@example.com")
        assert mail is not None
        assert "[secret:aws-access-key]" in mail.text and "[secret:github-token]" in (mail.title or "")
        assert "postgres://deploy:[secret:url-password]@db.internal" in mail.text
        for kind, secret in SECRETS.items():
            for hit in await memory.search(secret, k=5):
                record = await memory.get(hit.id, source=hit.source)
                assert record is not None
                assert secret not in record.text and secret not in hit.snippet, kind

    files = _all_bytes(folder)
    assert any(p.parent.name == "index" or "index" in p.parts for p, _ in files)
    for kind, secret in SECRETS.items():
        needle = secret.encode()
        leaked = [str(p.relative_to(folder)) for p, data in files if needle in data]
        assert not leaked, f"{kind} found in {leaked}"
