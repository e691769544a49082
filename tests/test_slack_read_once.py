"""Each day file of a Slack export is read once: the bytes read to find a channel's edits
and deletions are the ones its records are made from (up to a bound, past which the rest
are read again), in a folder and in a zip alike."""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, slack_export, slack_message

from memtrails.importers.slack import _changes, from_slack_export, message_count

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]
DAYS = 6


def export(root: Path) -> Path:
    days = {
        f"{channel}/2024-01-{d:02d}": [
            slack_message(f"{d * 86400 + k}.000100", f"{channel} day {d} message {k}")
            for k in range(3)
        ]
        for channel in ("general", "random")
        for d in range(1, DAYS + 1)
    }
    # An edit on the last day of a message of the first: the edit pass finds it.
    days["general/2024-01-06"].append(
        {
            "type": "message",
            "subtype": "message_changed",
            "ts": "6.000200",
            "message": slack_message("86400.000100", "general day 1 message 0, edited"),
        }
    )
    return slack_export(root, days, USERS)


def zipped(root: Path) -> Path:
    archive = root.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*.json")):
            z.write(path, path.relative_to(root).as_posix())
    return archive


def count_opens(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count how often each day file is opened to be read, in a folder or a zip."""
    opened: Counter[str] = Counter()
    real_path_open, real_zip_open = Path.open, zipfile.ZipFile.open

    def path_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.parent.name in ("general", "random"):
            opened[f"{self.parent.name}/{self.name}"] += 1
        return real_path_open(self, *args, **kwargs)

    def zip_open(self: zipfile.ZipFile, name: Any, *args: Any, **kwargs: Any) -> Any:
        member = name.filename if isinstance(name, zipfile.ZipInfo) else name
        if member.startswith(("general/", "random/")):
            opened[member] += 1
        return real_zip_open(self, name, *args, **kwargs)

    monkeypatch.setattr(Path, "open", path_open)
    monkeypatch.setattr(zipfile.ZipFile, "open", zip_open)
    return opened


@pytest.mark.parametrize("as_zip", [False, True])
async def test_each_day_file_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_zip: bool
) -> None:
    root = export(tmp_path / "export")
    source = zipped(root) if as_zip else root
    opened = count_opens(monkeypatch)
    items = await collect(from_slack_export(source))
    assert errors(items) == []
    assert len(opened) == 2 * DAYS
    assert set(opened.values()) == {1}
    texts = {r.id: r.text for r in records(items)}
    assert len(texts) == 2 * DAYS * 3
    assert texts["general/86400.000100"] == "general day 1 message 0, edited"


@pytest.mark.parametrize("as_zip", [False, True])
async def test_past_the_bound_day_files_are_read_again_with_the_same_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_zip: bool
) -> None:
    root = export(tmp_path / "export")
    source = zipped(root) if as_zip else root
    whole = {r.id: r.text for r in records(await collect(from_slack_export(source)))}
    size = (root / "general" / "2024-01-01.json").stat().st_size
    monkeypatch.setattr(_changes, "HELD_BYTES", 2 * size + 10)  # two day files held at most
    opened = count_opens(monkeypatch)
    items = await collect(from_slack_export(source))
    assert errors(items) == []
    assert {r.id: r.text for r in records(items)} == whole
    assert max(opened.values()) == 2 and min(opened.values()) == 1
    assert sum(opened.values()) == 2 * DAYS + 2 * (DAYS - 2)
    assert message_count(source) == (len(whole), 0)
