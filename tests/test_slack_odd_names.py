"""Hostile or odd shapes: zip members named through "." folders, ts written in exponent
notation or with a sign (never by Slack, but by a script's export)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from helpers import collect, errors, records, slack_message

from memtrails.importers.slack import from_slack_export, message_count

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]


async def test_members_named_through_dot_folders_are_their_channels_day_files(
    tmp_path: Path,
) -> None:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("users.json", json.dumps(USERS))
        z.writestr("./general/2024-01-01.json", json.dumps([slack_message("1.000100", "one")]))
        z.writestr("general/./2024-01-02.json", json.dumps([slack_message("2.000100", "two")]))
        z.writestr("random/2024-01-01.json", json.dumps([slack_message("3.000100", "three")]))
    items = await collect(from_slack_export(archive))
    assert errors(items) == []
    assert sorted((r.id, r.text) for r in records(items)) == [
        ("general/1.000100", "one"),
        ("general/2.000100", "two"),
        ("random/3.000100", "three"),
    ]
    assert message_count(archive) == (3, 0)


async def test_a_ts_in_another_notation_is_the_one_slack_writes(tmp_path: Path) -> None:
    root = tmp_path / "export"
    (root / "general").mkdir(parents=True)
    (root / "users.json").write_text(json.dumps(USERS))
    day = [
        slack_message("1.7040672e9", "parent in exponent form", reply_count=1),
        slack_message("1704067260.000000", "a reply", thread_ts="1704067200.000000"),
        slack_message("+1704067300.5", "signed"),
        {
            "type": "message",
            "subtype": "message_deleted",
            "ts": "1704067400.000000",
            "deleted_ts": "1704067300.500000",
        },
    ]
    (root / "general" / "2024-01-01.json").write_text(json.dumps(day))
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    got = sorted((r.id, r.thread, r.text) for r in records(items))
    assert got == [
        ("general/1704067200.000000", "general/1704067200.000000", "parent in exponent form"),
        ("general/1704067260.000000", "general/1704067200.000000", "a reply"),
    ]
