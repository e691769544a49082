"""Hostile Slack exports: attachments, files and the fields beside them of an odd JSON type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import MemoryRecord, RecordError

_TS = 1704067200


def message(n: int, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": f"{_TS + n}.000100", "text": f"m{n}", **extra}


def export_of(root: Path, messages: list[Any]) -> Path:
    root.mkdir(parents=True)
    (root / "users.json").write_text(json.dumps([{"id": "U1", "real_name": "Ada"}]))
    (root / "general").mkdir()
    (root / "general" / "2024-01-01.json").write_text(json.dumps(messages))
    return root


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"attachments": "build 7 failed"}, "`attachments` must be an array of objects, got a string"),
        ({"attachments": 7}, "`attachments` must be an array of objects, got a number"),
        ({"attachments": [{"text": "ok"}, "build 7 failed"]}, "attachment 2 must be an object, got a string"),
        ({"attachments": [{"text": 7}]}, "attachment 1: `text` must be a string, got a number"),
        ({"attachments": [{"title": {"a": 1}}]}, "attachment 1: `title` must be a string, got an object"),
        ({"attachments": [{"fallback": True}]}, "attachment 1: `fallback` must be a string, got true or false"),
        ({"attachments": [{"fields": "x"}]}, "attachment 1: `fields` must be an array of objects, got a string"),
        (
            {"attachments": [{"fields": [{"title": "T", "value": ["a"]}]}]},
            "attachment 1, field 1: `value` must be a string or a number, got an array",
        ),
        ({"files": "plan.pdf"}, "`files` must be an array of objects, got a string"),
        ({"files": [7]}, "file 1 must be an object, got a number"),
        ({"files": [{"name": 7}]}, "file 1: `name` must be a string, got a number"),
        ({"files": [{"name": "a.txt", "title": ["x"]}]}, "file 1: `title` must be a string, got an array"),
    ],
)  # fmt: skip
async def test_a_text_bearing_value_of_another_type_is_that_messages_error(
    tmp_path: Path, fields: dict[str, Any], reason: str
) -> None:
    """As a message text that is no string: named, never a record with that text lost or
    written as Python shows it; the messages around it import, the count agrees."""
    root = export_of(tmp_path / "export", [message(0), message(1, **fields), message(2)])
    items = await collect(from_slack_export(root, source="slack:test"))
    assert [r.text for r in records(items)] == ["m0", "m2"]
    assert errors(items) == [
        RecordError(
            "slack:test",
            "general/2024-01-01.json, message 2",
            reason,
            id=f"general/{_TS + 1}.000100",  # a prune keeps what an earlier run made of it
        )
    ]
    assert message_count(root) == (3, 0)


async def test_one_object_where_an_array_belongs_is_read_as_one(tmp_path: Path) -> None:
    """Nothing else could be meant, as exports before 2018 hold one ``file`` object."""
    root = export_of(
        tmp_path / "export",
        [
            message(0, files={"name": "plan.pdf", "title": "The plan"}),
            message(1, attachments={"title": "Build 7", "text": "failed"}),
        ],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert [r.text for r in records(items)] == [
        "m0\n[file: plan.pdf (The plan)]",
        "m1\nBuild 7\nfailed",
    ]


_ODD = ["odd", 7, 1.5, 1e300, True, None, {"a": 1}, ["x"], [{"a": 1}]]


def _odd_messages() -> list[dict[str, Any]]:
    """One message per field and odd value: every field of a message the importer reads."""
    shapes: list[dict[str, Any]] = []
    for v in _ODD:
        shapes += [
            {"attachments": v},
            {"attachments": [v]},
            *({"attachments": [{key: v}]} for key in ("pretext", "author_name", "title", "text")),
            {"attachments": [{"fallback": v, "title_link": v}]},
            {"attachments": [{"fields": v}]},
            {"attachments": [{"fields": [v]}]},
            {"attachments": [{"fields": [{"title": v, "value": v}]}]},
            {"files": v},
            {"files": [v]},
            {"file": v},
            *({"files": [{key: v}]} for key in ("name", "title", "preview", "id", "mimetype")),
            {"reactions": v},
            {"reactions": [v]},
            {"reactions": [{"name": v, "count": v}]},
            {"user_profile": v},
            {"user_profile": v, "user": "U9", "bot_id": "B1"},
            {"bot_profile": v, "bot_id": "B1", "subtype": "bot_message"},
            {"username": v, "user": None},
            {"comment": {"user": v}, "user": None},
            {"thread_ts": v},
            {"edited": {"ts": v}},
            {"reply_count": v},
            {"text": "", "blocks": v},
            {"text": "", "blocks": [{"type": "rich_text", "elements": [{"type": "text", "text": v}]}]},
            {"text": "", "blocks": [{"type": "link", "url": "https://x.test/", "text": v}]},
            {"subtype": v},
            {"user": v},
            {"bot_id": v, "app_id": v},
        ]  # fmt: skip
    return [message(n, **shape) for n, shape in enumerate(shapes)]


async def test_no_odd_value_of_any_field_is_a_bug_or_stops_the_export(tmp_path: Path) -> None:
    """Each message is one record or one named error (or, with no text and blocks of no
    words, nothing); no text or metadata holds a value Python's way (``{'a': 1}``,
    ``True``), and what metadata keeps is of its own type."""
    messages = _odd_messages()
    root = export_of(tmp_path / "export", messages)
    items = await collect(from_slack_export(root))
    made = [i for i in items if isinstance(i, MemoryRecord | RecordError)]
    made_ts = {i.meta["ts"] for i in records(items)} | {i.where for i in errors(items)}
    for n, m in enumerate(messages, 1):
        said = m["ts"] in made_ts or f"general/2024-01-01.json, message {n}" in made_ts
        assert said or m["text"] == "", m
    assert len(made) == message_count(root)[0]
    for error in errors(items):
        assert " must be " in error.reason and "bug" not in error.reason, error
    for record in records(items):
        assert not any(python in record.text for python in ("{'", "['", "True")), record
        json.dumps(record.meta, allow_nan=False)
        for f in record.meta.get("files", []):
            assert isinstance(f["name"], str)
            assert all(isinstance(f[k], str | None) for k in ("title", "mimetype"))
        for reaction in record.meta.get("reactions", []):
            assert isinstance(reaction["name"], str) and isinstance(reaction["count"], int | None)
        assert type(record.meta.get("reply_count", 0)) is int
