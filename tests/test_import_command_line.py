"""What an import that answers reads is named by (its refusals, ``service.json``, the status
of its readers): the command that runs it, a script's as a script's, secrets scrubbed."""

from __future__ import annotations

import pytest

from memtrails.service.during_import import command_line


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["/home/ann/.venv/bin/memtrails", "add", "mail.mbox"], "memtrails add mail.mbox"),
        (["sync.py", "--full"], "python sync.py --full"),
        (["/srv/jobs/sync.py"], "python sync.py"),
        (["-c", "/tmp/m"], "python -c /tmp/m"),
        (["/usr/bin/nightly-import", "notes"], "nightly-import notes"),
        (
            ["sync.py", "postgresql://app:hunter2pass@db.internal/helpdesk"],
            "python sync.py postgresql://app:[secret:url-password]@db.internal/helpdesk",
        ),
    ],
)
def test_an_import_is_named_by_its_command_without_its_secrets(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], named: str
) -> None:
    monkeypatch.setattr("sys.argv", argv)
    assert command_line() == named


def test_a_long_command_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.argv", ["sync.py", *[f"table{n}" for n in range(100)]])
    named = command_line()
    assert (
        len(named) == 160 and named.startswith("python sync.py table0 ") and named.endswith("...")
    )
