"""A manifest naming another vector size (dims) than its model makes, or than the folder's
index holds: opening says what is wrong and what to do, not Qdrant's words."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails._exceptions import FolderFormatError
from memtrails.cli import main
from memtrails.folder.glance import glance
from memtrails.folder.manifest import _PACKAGED_DIMS
from memtrails.folder.recover import lost_manifest, recover_manifest
from memtrails.testing import HashingEmbedder


def _notes(n: int) -> list[dict[str, str]]:
    return [{"id": f"n{i}", "text": f"note {i} on the walrus colony"} for i in range(n)]


def _set_dims(folder: Path, dims: int) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["embedding"]["dims"] = dims
    path.write_text(json.dumps(manifest))


def test_the_packaged_models_dims_are_the_ones_a_manifest_is_checked_against(
    embedder: Any,
) -> None:
    described = embedder.describe()
    assert _PACKAGED_DIMS[described["model_id"]] == described["dims"]


@pytest.mark.parametrize("dims", [512, 768, 1])
async def test_a_manifest_naming_a_packaged_model_with_other_dims_is_refused_clearly(
    tmp_path: Path, embedder: Any, dims: int
) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest(_notes(4), name="notes")
    model = embedder.describe()["model_id"]
    _set_dims(folder, dims)
    for given in (None, embedder):
        with pytest.raises(FolderFormatError) as caught:
            async with Memory.open(folder, embedder=given):
                pass
        said = str(caught.value)
        assert f"embedding.dims is {dims}, but the model it names, {model!r}, makes 384" in said
        assert f"memtrails check --repair --home {folder}" in said
    # What it says to do works: a new manifest, the index rebuilt, every record found.
    assert lost_manifest(folder) is not None
    await recover_manifest(folder, embedder)
    async with Memory.open(folder, embedder=embedder) as memory:
        hits = await memory.search("walrus colony", k=10)
        assert sorted(h.id for h in hits) == [f"n{i}" for i in range(4)]


@pytest.mark.parametrize("dims", [768, 128])
async def test_an_index_of_other_dims_than_the_manifest_is_refused_clearly(
    tmp_path: Path, dims: int
) -> None:
    """A manifest of another model than the index's (copied in, or an older folder's):
    not Qdrant's "Incompatible config for vector", nor advice (reindex) that fails the same
    way, but both sizes and what to do."""
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(_notes(4), name="notes")
    _set_dims(folder, dims)
    with pytest.raises(FolderFormatError) as caught:
        async with Memory.open(folder) as memory:
            await memory.search("walrus", k=3)
    said = str(caught.value)
    assert "its index holds 384-dimension vectors, but its manifest.json names the model " in said
    assert f"'hashing-words-384', which makes {dims}" in said
    assert f"mv {folder / 'index'} {folder / 'index'}.old" in said
    assert "Incompatible" not in said
    # What it says to do works: the manifest as it was (from a backup) reads the index.
    _set_dims(folder, 384)
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        hits = await memory.search("walrus colony", k=10)
        assert sorted(h.id for h in hits) == [f"n{i}" for i in range(4)]


def test_status_of_a_folder_whose_index_has_other_dims_says_what_opening_says(
    tmp_path: Path,
) -> None:
    """`memtrails status` reads a sound folder without opening it (folder.glance); a manifest
    naming another size than the index holds must not be printed as if it were the folder's."""
    folder = tmp_path / "mem"

    async def build() -> None:
        async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
            await memory.ingest(_notes(4), name="notes")

    asyncio.run(build())
    assert glance(folder) is not None  # a sound folder is read without opening it
    _set_dims(folder, 768)
    assert glance(folder) is None
    result = CliRunner().invoke(main, ["status", "--home", str(folder)])
    assert result.exit_code != 0
    assert "its index holds 384-dimension vectors" in result.output
    assert "768 dims" not in result.output
