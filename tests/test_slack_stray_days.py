"""A day file outside any channel's folder (beside channels.json, or a workspace's in
``teams/<ws>/``) holds messages of no known channel: named as not read, with the reason,
never dropped silently; a folder of day files alone (one channel's folder) is refused
saying so. A channel folder channels.json does not list is read as its own channel."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from helpers import collect, errors, records, slack_export, slack_message, write_json

from memtrails import Memory, SourceError
from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]


def export(root: Path) -> Path:
    slack_export(
        root,
        {
            "general/2024-01-01": [slack_message("1704103200.000100", "in general")],
            "unlisted/2024-01-01": [slack_message("1704103300.000100", "channels.json lacks it")],
        },
        USERS,
        channels=[{"id": "C1", "name": "general"}],
    )
    write_json(root / "2024-01-02.json", [slack_message("1704189600.000100", "whose?")])
    return root


def zipped(root: Path, out: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path in sorted(root.rglob("*.json")):
            z.writestr(path.relative_to(root).as_posix(), path.read_bytes())
    out.write_bytes(buffer.getvalue())
    return out


@pytest.mark.parametrize("form", ["folder", "zip"])
async def test_a_day_file_at_the_top_is_named_as_not_read(tmp_path: Path, form: str) -> None:
    root = export(tmp_path / "export")
    path = zipped(root, tmp_path / "export.zip") if form == "zip" else root
    items = await collect(from_slack_export(path))
    assert {r.id for r in records(items)} == {
        "general/1704103200.000100",
        "unlisted/1704103300.000100",
    }
    [error] = errors(items)
    assert error.where == "2024-01-02.json"
    assert "outside any channel's folder" in error.reason and "not read" in error.reason
    assert [s.complete for s in items if isinstance(s, SourceState)][-1]
    assert message_count(path) == (3, 0)  # two records and the error, as the import sees


async def test_a_workspace_s_day_file_at_its_top_is_named_too(tmp_path: Path) -> None:
    root = tmp_path / "export"
    slack_export(root, {}, USERS, channels=[])
    ws = root / "teams" / "acme"
    slack_export(ws, {"general/2024-01-01": [slack_message("1704103200.000100", "hi")]}, USERS)
    write_json(ws / "2024-01-03.json", [slack_message("1704276000.000100", "whose?")])
    for path in (root, zipped(root, tmp_path / "export.zip")):
        items = await collect(from_slack_export(path))
        assert [e.where for e in errors(items)] == ["teams/acme/2024-01-03.json"]
        assert len(records(items)) == 1


async def test_the_import_reports_it(tmp_path: Path) -> None:
    root = export(tmp_path / "export")
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_slack_export(root))
    assert report.added == 2
    assert [e.where for e in report.errors] == ["2024-01-02.json"]


def test_a_channel_s_folder_alone_is_refused_saying_so(tmp_path: Path) -> None:
    folder = tmp_path / "general"
    write_json(folder / "2024-01-01.json", [slack_message("1704103200.000100", "hi")])
    with pytest.raises(SourceError, match=r"2024-01-01\.json is a day file.*export.s folder"):
        message_count(folder)
