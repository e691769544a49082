"""Files in a Slack export's channel folders that are not named ``YYYY-MM-DD.json``: a day
file under another name read, anything else named as not read, never dropped silently."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import SourceState


def _msg(ts: str, text: str) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text}


def _export(root: Path) -> Path:
    write_json(root / "users.json", [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(root / "general/2024-01-01.json", [_msg("1704100000.000100", "by date")])
    # A browser's second download of a day, a tool's day file of its own naming.
    write_json(root / "general/2024-01-02 (1).json", [_msg("1704200000.000100", "a copy")])
    write_json(root / "general/2024-01-03_part2.json", [_msg("1704300000.000100", "a part")])
    # Not a day: a tool's one file of a channel's messages; Slack's list of canvases.
    write_json(root / "general/messages.json", [_msg("1704400000.000100", "elsewhere")])
    write_json(root / "general/canvases_in_conversation.json", [{"id": "F1", "title": "Plan"}])
    return root


def _zipped(root: Path, to: Path) -> Path:
    with zipfile.ZipFile(to, "w") as z:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(root).as_posix())
    return to


@pytest.mark.parametrize("zipped", [False, True])
async def test_files_not_named_by_date_are_read_or_named(tmp_path: Path, zipped: bool) -> None:
    root = _export(tmp_path / "export")
    path = _zipped(root, tmp_path / "export.zip") if zipped else root
    items = await collect(from_slack_export(path))
    assert sorted(r.text for r in records(items)) == ["a copy", "a part", "by date"]
    assert [(e.where, e.reason) for e in errors(items)] == [
        ("general/messages.json", "not a day file (named YYYY-MM-DD.json): not read")
    ]
    # Named, and still a complete run: nothing it could read was left unread.
    state = items[-1]
    assert isinstance(state, SourceState) and state.complete
    assert message_count(path) == (4, 0)


async def test_an_empty_day_file_says_it_is_empty(tmp_path: Path) -> None:
    root = _export(tmp_path / "export")
    (root / "general/2024-01-04.json").write_bytes(b"")
    (root / "general/2024-01-05.json").write_bytes(b" \r\n")
    items = await collect(from_slack_export(root))
    assert [(e.where, e.reason) for e in errors(items)][1:] == [
        ("general/2024-01-04.json", "day file is empty (0 bytes): no messages read"),
        ("general/2024-01-05.json", "day file is empty (white space alone): no messages read"),
    ]
