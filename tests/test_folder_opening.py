"""Opening a folder: only ours or an empty one is written to, and everything is owner-only."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails._exceptions import FolderAccessError, FolderFormatError
from memtrails.cli import main
from memtrails.testing import HashingEmbedder, MemoryIndex


@pytest.fixture
def umask_000() -> Iterator[None]:
    """Run with the most permissive umask, so that every mode comes from memtrails."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _modes(folder: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            found[path.relative_to(folder).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _user_folder(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    folder = tmp_path / "mine"
    folder.mkdir()
    files = {"records.jsonl": b'{"my": "own data"}\n', "index.json": b'{"mine": true}\n'}
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder, files


async def test_a_folder_that_is_not_a_memory_folder_is_refused_untouched(tmp_path: Path) -> None:
    folder, files = _user_folder(tmp_path)
    with pytest.raises(FolderFormatError, match=r"not a memory folder.*choose another --home"):
        await Memory.open(folder, embedder=HashingEmbedder())
    assert sorted(p.name for p in folder.iterdir()) == sorted(files)
    for name, data in files.items():
        assert (folder / name).read_bytes() == data


async def test_someone_elses_manifest_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name": "my-extension", "version": "1.0"}')
    with pytest.raises(FolderFormatError, match=r"manifest\.json has format None"):
        await Memory.open(folder, embedder=HashingEmbedder())
    assert [p.name for p in folder.iterdir()] == ["manifest.json"]


def test_cli_refuses_a_foreign_home_in_one_line(tmp_path: Path) -> None:
    folder, files = _user_folder(tmp_path)
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "1", "text": "a note"}\n')
    result = CliRunner().invoke(main, ["add", str(notes), "--home", str(folder)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "is not a memory folder" in lines[0], result.output
    assert (folder / "records.jsonl").read_bytes() == files["records.jsonl"]


async def test_an_empty_existing_folder_becomes_a_memory_folder(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    async with Memory.open(folder, embedder=HashingEmbedder(), index=MemoryIndex()) as memory:
        report = await memory.ingest([{"id": "a", "text": "first"}])
    assert report.added == 1
    assert (folder / "manifest.json").is_file()


async def test_everything_created_is_owner_only_whatever_the_umask(
    tmp_path: Path, umask_000: None
) -> None:
    folder = tmp_path / "a" / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": str(i), "text": f"note number {i}"} for i in range(50)])
        assert memory.repairs == []
    modes = _modes(folder)
    assert any(name.startswith("index/") for name in modes)  # the index's own files too
    wide = {
        name: oct(mode)
        for name, mode in modes.items()
        if mode != (0o700 if (folder / name).is_dir() else 0o600)
    }
    assert wide == {}


async def test_a_wider_memory_folder_is_tightened_and_said_so(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "a", "text": "first"}])
    folder.chmod(0o755)
    (folder / "records.jsonl").chmod(0o644)
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        said = memory.repairs
        assert await memory.get("a") is not None
    assert len(said) == 1 and "permissions tightened" in said[0]
    assert ". (was 0755)" in said[0] and "records.jsonl (was 0644)" in said[0]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "records.jsonl").stat().st_mode) == 0o600
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []


async def test_a_manifest_without_its_model_is_a_named_error(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder(), index=MemoryIndex()) as memory:
        await memory.ingest([{"id": "a", "text": "first"}])
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["embedding"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(FolderFormatError, match=r"manifest\.json has no 'embedding' section"):
        await Memory.open(folder)


async def test_an_index_left_by_an_interrupted_first_open_is_not_foreign(tmp_path: Path) -> None:
    from memtrails.folder.index.edge import EdgeIndex

    folder = tmp_path / "mem"
    # A new folder's index is made before its manifest is written: a full disk or a kill in
    # between leaves this, which the next open completes.
    await (await EdgeIndex.open(folder / "index", dims=384)).aclose()
    (folder / "memory.lock").touch()
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest([{"id": "a", "text": "first"}])).added == 1
    (folder / "manifest.json").unlink()
    (folder / "notes.txt").write_text("mine")
    # Refused still, as a memory that lost its manifest: its records are memtrails's.
    with pytest.raises(FolderFormatError, match=r"holds a memory's records.*check --repair"):
        await Memory.open(folder, embedder=HashingEmbedder())


class _OtherKindIndex(MemoryIndex):
    """A custom backend whose kind this memtrails does not know."""

    def describe(self) -> dict[str, Any]:
        return {"kind": "my-vector-db"}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


async def test_a_folder_of_an_unknown_index_kind_is_refused_and_left_as_it_was(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder(), index=_OtherKindIndex()) as memory:
        assert (await memory.ingest([{"id": "a", "text": "first"}])).added == 1
    assert json.loads((folder / "manifest.json").read_text())["index"] == {"kind": "my-vector-db"}
    before = _snapshot(folder)
    with pytest.raises(FolderFormatError) as raised:
        await Memory.open(folder, embedder=HashingEmbedder())
    message = str(raised.value)
    assert "\n" not in message and "'my-vector-db'" in message and "qdrant-edge" in message
    # Not re-created as a Qdrant Edge index, nothing re-embedded, no lock file left.
    assert _snapshot(folder) == before and not (folder / "index").exists()
    result = await asyncio.to_thread(
        CliRunner().invoke, main, ["search", "first", "--home", str(folder)]
    )
    assert result.exit_code != 0 and "'my-vector-db'" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    # With the index it was made with, it opens.
    async with Memory.open(folder, embedder=HashingEmbedder(), index=_OtherKindIndex()) as memory:
        assert await memory.get("a") is not None


@pytest.mark.parametrize(
    ("section", "value", "named"),
    [
        ("keywords", ["icu-word-break"], "'keywords' is a list"),
        ("index", "qdrant-edge", "'index' is a string"),
        ("embedding", {"model_id": "x", "dims": "384"}, "embedding.dims is a string"),
        ("secrets", {"rules": ["four"]}, "secrets.rules"),
        ("id", 7, "'id' is a number"),
        ("keywords", {"weight": 1.5}, "keywords.weight is a number"),
        (
            "embedding",
            {"kind": "hashing", "model_id": "x", "dims": 384, "max_tokens": "256"},
            "embedding.max_tokens is a string",
        ),
    ],
)
async def test_a_manifest_section_of_the_wrong_type_is_one_line_naming_the_file(
    tmp_path: Path, section: str, value: Any, named: str
) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder(), index=MemoryIndex()) as memory:
        await memory.ingest([{"id": "a", "text": "first"}])
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest[section] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(FolderFormatError) as raised:
        await Memory.open(folder, embedder=HashingEmbedder())
    message = str(raised.value)
    assert "\n" not in message and "manifest.json" in message and named in message
    result = await asyncio.to_thread(CliRunner().invoke, main, ["status", "--home", str(folder)])
    assert result.exit_code != 0 and "manifest.json" in result.output
    assert len(result.output.strip().splitlines()) == 1


async def test_an_index_copied_from_another_folder_is_noticed_and_rebuilt(
    tmp_path: Path, embedder: Any
) -> None:
    """Two folders with as many records: the count agrees, the owner mark does not."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder, text in ((ours, "apples and pears"), (theirs, "boats and harbours")):
        async with Memory.open(folder, embedder=embedder) as memory:
            await memory.ingest([{"id": "a", "text": text}])
    assert (ours / "index" / "owner.json").is_file()
    shutil.rmtree(ours / "index")
    shutil.copytree(theirs / "index", ours / "index")
    async with Memory.open(ours, embedder=embedder) as memory:
        assert any("belongs to another memory folder" in line for line in memory.repairs)
        # Rebuilt from our log: the other folder's record is not found here any more.
        assert all("apples" in hit.snippet for hit in await memory.search("boats harbours"))
        assert ["apples" in hit.snippet for hit in await memory.search("apples")] == [True]
    async with Memory.open(ours, embedder=embedder) as memory:
        assert memory.repairs == []  # marked as ours now: the next open finds nothing
    async with Memory.open(theirs, embedder=embedder) as memory:
        assert memory.repairs == []
        assert ["boats" in hit.snippet for hit in await memory.search("boats")] == [True]


_OPEN_THEN_MODULES = """
import asyncio, json, sys
from memtrails import Memory
from memtrails.testing import HashingEmbedder

async def main(folder):
    async with Memory.open(folder, create=False, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []

asyncio.run(main(sys.argv[1]))
print(json.dumps(sorted(sys.modules)))
"""


async def test_an_open_with_nothing_to_catch_up_loads_no_import_path(tmp_path: Path) -> None:
    """Opening a folder whose index is complete costs milliseconds: the pipeline and the secret
    scanner (~0.25 s to import) stay unloaded."""
    import subprocess
    import sys

    from memtrails import from_jsonl

    folder, source = tmp_path / "mem", tmp_path / "a.jsonl"
    source.write_text(
        "".join(json.dumps({"id": str(i), "text": f"t {i}"}) + "\n" for i in range(5))
    )
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(source))
    proc = subprocess.run(
        [sys.executable, "-c", _OPEN_THEN_MODULES, str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert "memtrails.folder.opening" in loaded
    assert (
        sorted(loaded & {"memtrails.ingest", "memtrails.pipeline", "memtrails.secrets.engine"})
        == []
    )


async def test_a_folder_that_cannot_be_written_says_so_and_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder on a read-only mount, or another user's: even a search writes its lock.
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder(), index=MemoryIndex()) as memory:
        await memory.ingest([{"id": "a", "text": "first"}])
    real_open = os.open

    def read_only(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(name).parent == folder and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise PermissionError(13, "Permission denied", str(name))
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(FolderAccessError) as raised:
        await Memory.open(folder, embedder=HashingEmbedder(), index=MemoryIndex())
    assert raised.value.folder == folder and "memory.lock" in raised.value.where
    result = await asyncio.to_thread(
        CliRunner().invoke, main, ["search", "first", "--home", str(folder)]
    )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "write access" in result.output and "memory.lock" in result.output
    assert len(result.output.strip().splitlines()) == 1
