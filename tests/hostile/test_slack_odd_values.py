"""Hostile Slack exports: odd JSON values where Slack writes strings, members of one name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails.importers.slack import from_slack_export


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def message(ts: str, text: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


def export_of(root: Path, messages: list[Any]) -> Path:
    write(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write(root / "general" / "2024-01-01.json", messages)
    write(root / "general" / "2024-01-02.json", [message("1704153600.000100", "next day")])
    return root


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (123, "a number"),
        (1.5, "a number"),
        (True, "true or false"),
        ({"a": 1}, "an object"),
        (["a"], "an array"),
    ],
)
async def test_a_text_that_is_no_string_is_that_messages_error(
    tmp_path: Path, value: Any, named: str
) -> None:
    """As JSON Lines refuses a text that is no string: never a record with its text lost."""
    root = export_of(
        tmp_path / "export",
        [
            message("1704067200.000100", "before"),
            message("1704067201.000100", value),
            message("1704067202.000100", "after"),
        ],
    )
    items = await collect(from_slack_export(root, source="slack:test"))
    assert [r.text for r in records(items)] == ["before", "after", "next day"]
    (error,) = errors(items)
    assert error.source == "slack:test"
    assert error.where.startswith("general/2024-01-01.json, message ")
    assert error.reason == f"message text must be a string, got {named}"


async def test_a_null_text_is_no_text(tmp_path: Path) -> None:
    """``null`` is a message without text: its files and attachments still make its text."""
    root = export_of(
        tmp_path / "export",
        [
            message("1704067200.000100", None, files=[{"name": "plan.pdf"}]),
            message("1704067201.000100", None, attachments=[{"text": "build 7 failed"}]),
            message("1704067202.000100", None),
        ],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert [r.text for r in records(items)] == [
        "[file: plan.pdf]",
        "build 7 failed",
        "",  # as a message whose text is "": its title (the channel) is what it has
        "next day",
    ]


async def test_a_messages_position_counts_from_one(tmp_path: Path) -> None:
    """As JSON Lines numbers its lines: "message 1" is the day file's first."""
    root = export_of(
        tmp_path / "export", ["not an object", message("1704067201.000100", "fine"), 7]
    )
    items = await collect(from_slack_export(root))
    assert [e.where for e in errors(items)] == [
        "general/2024-01-01.json, message 1",
        "general/2024-01-01.json, message 3",
    ]
