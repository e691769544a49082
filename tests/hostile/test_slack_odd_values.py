"""Hostile Slack exports: odd JSON values where Slack writes strings, members of one name."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import SourceState


def message(ts: str, text: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


def export_of(root: Path, messages: list[Any]) -> Path:
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(root / "general" / "2024-01-01.json", messages)
    write_json(root / "general" / "2024-01-02.json", [message("1704153600.000100", "next day")])
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
        # The message of no text at all says nothing: no record, as one whose text is "".
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


def zip_with_twins(path: Path) -> Path:
    """A zip holding two members of one name twice: a day file and users.json."""
    day = "general/2024-01-01.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for users in ([{"id": "U1", "real_name": "Ada"}], [{"id": "U2", "real_name": "Bob"}]):
                archive.writestr("users.json", json.dumps(users))
            archive.writestr(day, json.dumps([message("1704067200.000100", "first copy")]))
            archive.writestr(
                day, json.dumps([message("1704067300.000100", "second copy", user="U2")])
            )
            archive.writestr(
                "general/2024-01-02.json", json.dumps([message("1704153600.000100", "next day")])
            )
    return path


async def test_zip_members_of_one_name_are_each_read_once(tmp_path: Path) -> None:
    """Neither is lost, nor is the last read twice (as the name alone finds only the last);
    a re-run still skips the day file left as it was."""
    path = zip_with_twins(tmp_path / "export.zip")
    items = await collect(from_slack_export(path))
    assert errors(items) == []
    assert [(r.text, r.author) for r in records(items)] == [
        ("first copy", "Ada"),
        ("second copy", "Bob"),
        ("next day", "Ada"),
    ]
    assert message_count(path) == (3, 0)
    state = [i for i in items if isinstance(i, SourceState)][-1].state
    again = await collect(from_slack_export(path, state=state))
    assert [r.text for r in records(again)] == ["next day"]
    assert message_count(path, state) == (3, 2)


async def test_a_broken_member_of_a_shared_name_is_named_apart(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    day = "general/2024-01-01.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("users.json", json.dumps([{"id": "U1", "real_name": "Ada"}]))
            archive.writestr(day, json.dumps([message("1704067200.000100", "whole")]))
            archive.writestr(day, b'[{"type": "message", "te')
    items = await collect(from_slack_export(path))
    assert [r.text for r in records(items)] == ["whole"]
    (error,) = errors(items)
    assert error.where == f"{day} (copy 2 of 2 in the zip)"
    assert error.reason.startswith("day file is not valid JSON")


async def test_a_number_too_long_to_read_is_said_in_words(tmp_path: Path) -> None:
    """Not with Python's advice to call ``sys.set_int_max_str_digits()``."""
    root = export_of(tmp_path / "export", [])
    digits = b"9" * 5000
    day = b'[{"type": "message", "ts": "1704067200.000100", "n": ' + digits + b"}]"
    (root / "general" / "2024-01-01.json").write_bytes(day)
    (root / "channels.json").write_bytes(b'[{"id": "C1", "name": "general", "n": ' + digits + b"}]")
    items = await collect(from_slack_export(root))
    assert [r.text for r in records(items)] == ["next day"]
    assert [(e.where, e.reason) for e in errors(items)] == [
        ("channels.json", "holds a number of more than 4,300 digits, too long to read; not read"),
        (
            "general/2024-01-01.json",
            "day file holds a number of more than 4,300 digits, too long to read; not read",
        ),
    ]


async def test_a_day_file_nested_too_deeply_says_so_in_its_own_words(tmp_path: Path) -> None:
    # Python's RecursionError speaks of its interpreter ("maximum recursion depth
    # exceeded"); the user needs to hear what is wrong with the file.
    root = export_of(tmp_path / "export", [message("1704067200.000100", "kept")])
    (root / "general" / "2024-01-01.json").write_text("[" * 100_000 + "]" * 100_000)
    items = await collect(from_slack_export(root, source="slack:test"))
    assert [r.text for r in records(items)] == ["next day"]
    (error,) = errors(items)
    assert error.where.startswith("general/2024-01-01.json")
    assert "nested too deeply" in error.reason and "recursion" not in error.reason
