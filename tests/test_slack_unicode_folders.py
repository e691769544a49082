"""Channel folders whose accented names a Mac wrote decomposed (NFD: "e" and a combining
accent) are the channels the name files name in composed form (NFC), with the ids a folder or
zip made elsewhere gives them; folder or zip, first run or re-run."""

from __future__ import annotations

import unicodedata
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export
from memtrails.records import SourceState

USERS = [
    {"id": "U1", "name": "ann", "real_name": "Ann Archer"},
    {"id": "U2", "name": "jose", "real_name": "José Ortega"},
]


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def message(ts: str, text: str) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text}


def export(root: Path, decomposed: bool) -> Path:
    """An export whose two accented folders are written decomposed (NFD) or not (NFC)."""
    write_json(root / "users.json", USERS)
    write_json(root / "channels.json", [{"id": "C2", "name": "café"}])
    write_json(
        root / "mpims.json", [{"id": "G1", "name": "mpdm-ann--josé-1", "members": ["U1", "U2"]}]
    )
    for name in ("café", "mpdm-ann--josé-1"):
        folder = nfd(name) if decomposed else name
        write_json(root / folder / "2024-01-01.json", [message("1.000100", "see <#C2>")])
        write_json(root / folder / "2024-01-02.json", [message("86401.000100", "again")])
    return root


def zipped(root: Path, archive: Path) -> Path:
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(root.rglob("*.json")):
            z.write(path, path.relative_to(root).as_posix())
    return archive


@pytest.mark.parametrize("as_zip", [False, True])
async def test_decomposed_folder_names_are_the_channels_named(tmp_path: Path, as_zip: bool) -> None:
    made_elsewhere = await collect(from_slack_export(export(tmp_path / "nfc", False)))
    path = export(tmp_path / "nfd", True)
    names = {p.name for p in path.iterdir()}
    if nfd("café") not in names:
        pytest.skip("this file system composes the names it is given")
    if as_zip:
        path = zipped(path, tmp_path / "nfd.zip")
        with zipfile.ZipFile(path) as z:
            assert any(nfd("café") in n for n in z.namelist())
    items = await collect(from_slack_export(path))
    assert errors(items) == []
    seen = sorted((r.id, r.title, r.text) for r in records(items))
    assert seen == sorted((r.id, r.title, r.text) for r in records(made_elsewhere))
    group = "Group DM: Ann Archer, José Ortega"
    assert seen == [
        ("café/1.000100", "#café", "see #café"),
        ("café/86401.000100", "#café", "again"),
        ("mpdm-ann--josé-1/1.000100", group, "see #café"),
        ("mpdm-ann--josé-1/86401.000100", group, "again"),
    ]
    # A re-run finds the first days unchanged: only each channel's last day is read again.
    state = [i for i in items if isinstance(i, SourceState)][-1]
    again = await collect(from_slack_export(path, state=state.state))
    assert errors(again) == []
    assert [i for i in again if isinstance(i, SourceState)][-1].mode == "incremental"
    assert sorted(r.text for r in records(again)) == ["again", "again"]
