"""A manifest.json that is JSON but not a whole manifest (a section lost, a value of the wrong
type, no format) beside the folder's records: opening names `memtrails check --repair`, and
the repair (which reads the manifest with the same parser) gives the folder a new one.
Before, a lost section said "restore it from a backup" though --repair would have made it,
and a manifest without its "format" was taken for a newer memtrails's: never repaired."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtrails import FolderFormatError, Memory, MemoryRecord
from memtrails.folder.recover import lost_manifest, recover_manifest
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(300)

RECORDS = [MemoryRecord(id=f"r{n}", text=f"pears and plums, basket {n}") for n in range(12)]

Damage = Callable[[dict[str, Any]], Any]


def _without(key: str) -> Damage:
    return lambda m: {k: v for k, v in m.items() if k != key}


def _with(key: str, value: Any) -> Damage:
    return lambda m: {**m, key: value}


def _dims(value: Any) -> Damage:
    return lambda m: {**m, "embedding": {**m["embedding"], "dims": value}}


DAMAGE: dict[str, Damage] = {
    "no embedding section": _without("embedding"),
    "no index section": _without("index"),
    "no format": _without("format"),
    "format as a string": _with("format", "1"),
    "format true": _with("format", True),
    "format 0": _with("format", 0),
    "keywords as a list": _with("keywords", []),
    "dims as a string": _dims("384"),
    "an empty object": lambda m: {},
    "a string": lambda m: "manifest",
}


async def _folder(home: Path) -> dict[str, Any]:
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)
    manifest: dict[str, Any] = json.loads((home / "manifest.json").read_text())
    return manifest


@pytest.mark.parametrize("how", list(DAMAGE), ids=list(DAMAGE))
async def test_a_manifest_lacking_a_part_names_check_repair_which_makes_a_new_one(
    tmp_path: Path, how: str
) -> None:
    home = tmp_path / "m"
    manifest = await _folder(home)
    (home / "manifest.json").write_text(json.dumps(DAMAGE[how](manifest)))
    why = lost_manifest(home)
    assert why is not None
    with pytest.raises(FolderFormatError) as said:
        async with Memory.open(home, embedder=HashingEmbedder(), create=False):
            pass
    message = str(said.value)
    assert f"memtrails check --repair --home {home}" in message and "records.jsonl" in message
    assert why in message  # one reading of the manifest, said the same way by both
    await recover_manifest(home, HashingEmbedder())
    assert lost_manifest(home) is None
    async with Memory.open(home, embedder=HashingEmbedder(), create=False) as memory:
        hits = await memory.search("pears and plums", k=100)
        assert sorted(h.id for h in hits) == sorted(r.id for r in RECORDS)


async def test_a_newer_format_is_not_taken_for_damaged_and_says_what_to_do(
    tmp_path: Path,
) -> None:
    home = tmp_path / "m"
    manifest = await _folder(home)
    (home / "manifest.json").write_text(json.dumps({**manifest, "format": 2}))
    assert lost_manifest(home) is None
    with pytest.raises(FolderFormatError, match=r"has format 2; .*newer memtrails"):
        async with Memory.open(home, embedder=HashingEmbedder(), create=False):
            pass
    with pytest.raises(FolderFormatError, match="nothing to recover"):
        await recover_manifest(home, HashingEmbedder())


async def test_a_damaged_manifest_without_records_says_what_to_do(tmp_path: Path) -> None:
    home = tmp_path / "m"
    home.mkdir()
    (home / "manifest.json").write_text('{"format": 1, "index": {}}')
    with pytest.raises(FolderFormatError, match=r"has no 'embedding' section; .*another --home"):
        await Memory.open(home, embedder=HashingEmbedder())
