"""`memtrails status` reads a sound folder without opening it, and the answer is the open's.

``folder.glance`` answers only when opening would repair nothing and the index's counts are
kept; everywhere else it says None and changes nothing, and the command opens the folder
(with its repairs, waits and errors) as before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory, from_jsonl
from memtrails.folder import glance as glance_module
from memtrails.folder.glance import glance
from memtrails.folder.index import edge_kind
from memtrails.folder.lock import FolderLock
from memtrails.service import discovery
from memtrails.testing import HashingEmbedder


def _jsonl(path: Path, n: int) -> Path:
    path.write_text(
        "".join(
            json.dumps({"id": str(i), "text": f"note {i} " + "w " * 30}) + "\n" for i in range(n)
        ),
        encoding="utf-8",
    )
    return path


def _rows(since: Any) -> Iterator[dict[str, Any]]:
    for i in range(5):
        yield {"id": f"t{i}", "text": f"ticket {i}", "updated_at": f"2026-01-0{i + 1}T00:00:00Z"}


async def _folder(tmp_path: Path) -> Path:
    """A folder of two sources, one of them with a watermark, closed cleanly."""
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(_jsonl(tmp_path / "a.jsonl", 12)), batch=4)
        await memory.ingest(_rows, name="tickets", cursor="updated_at")
    return folder


async def _opened(folder: Path) -> dict[str, Any]:
    """The status as the command reads it by opening the folder."""
    async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
        return (await memory.status()).to_json()


def _files(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Each file's size, mode and modification time: what a read must leave as it was."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "memory.lock":
            st = p.stat()
            out[str(p.relative_to(folder))] = (st.st_size, st.st_mode, st.st_mtime_ns)
    return out


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtrails", "status", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


async def test_the_quick_read_is_the_opens_answer_key_for_key(tmp_path: Path) -> None:
    folder = await _folder(tmp_path)
    before = _files(folder)
    quick = glance(folder)
    assert quick is not None
    assert list(quick.items()) == list((await _opened(folder)).items())
    assert sorted(quick["sources"].values()) == [5, 12] and quick["records"] == 17
    assert quick["watermarks"]["tickets"]["cursor"] == "updated_at"
    assert _files(folder) == before
    # The command prints it: the same JSON, and the text that names the watermark.
    shown = _cli("--json", "--home", str(folder))
    assert shown.returncode == 0 and json.loads(shown.stdout) == quick
    text = _cli("--home", str(folder)).stdout
    assert "records:  17 (17 indexed" in text and "watermark: tickets: updated_at >=" in text


def _torn(folder: Path) -> None:
    with (folder / "records.jsonl").open("ab") as f:
        f.write(b'{"uid": "unfinished')


def _no_counts(folder: Path) -> None:
    data = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    del data["records"], data["points"]
    (folder / "index.json").write_text(json.dumps(data), encoding="utf-8")


def _wide(folder: Path) -> None:
    (folder / "sources.json").chmod(0o644)


def _unmarked(folder: Path) -> None:
    (folder / "index" / "owner.json").unlink()


def _stale_keywords(folder: Path) -> None:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["keywords"] = {"weight": "old"}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _table_gone(folder: Path) -> None:
    (folder / "table.sqlite").unlink()


def _service(folder: Path) -> None:
    (folder / "service.json").write_text(json.dumps({"pid": 1, "host": "x", "port": 1}))


@pytest.mark.parametrize(
    "damage", [_torn, _no_counts, _wide, _unmarked, _stale_keywords, _table_gone, _service]
)
async def test_a_folder_opening_would_repair_or_count_is_left_to_the_open(
    tmp_path: Path, damage: Any
) -> None:
    folder = await _folder(tmp_path)
    damage(folder)
    before = _files(folder)
    assert glance(folder) is None
    assert _files(folder) == before  # nothing repaired behind the open's back


async def test_a_held_folder_and_a_missing_one_are_left_to_the_open(tmp_path: Path) -> None:
    folder = await _folder(tmp_path)
    lock = FolderLock(folder, "memtrails add")
    try:
        assert glance(folder) is None
        shown = _cli("--json", "--home", str(folder))
        assert shown.returncode == 1 and "error" in json.loads(shown.stdout)
    finally:
        lock.release()
    missing = tmp_path / "typo"
    assert glance(missing) is None and not missing.exists()
    shown = _cli("--home", str(missing))
    assert shown.returncode == 1 and f"no memory folder at {missing}" in shown.stderr


async def test_a_torn_line_is_repaired_and_said_by_the_open_the_command_falls_back_to(
    tmp_path: Path,
) -> None:
    folder = await _folder(tmp_path)
    _torn(folder)
    shown = _cli("--json", "--home", str(folder))
    assert shown.returncode == 0 and "repaired: records.jsonl: cut an unfinished" in shown.stderr
    assert json.loads(shown.stdout)["records"] == 17


def test_the_names_it_reads_are_the_edge_kinds_and_the_services() -> None:
    assert glance_module.EDGE == edge_kind.EDGE
    assert glance_module.EDGE_CONFIG == edge_kind.CONFIG_FILE
    assert glance_module.EDGE_OWNER == edge_kind.OWNER_FILE
    assert glance_module.SERVICE_FILE == discovery.SERVICE_FILE
