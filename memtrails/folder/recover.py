"""A memory folder whose ``manifest.json`` is lost or damaged: written anew from its records.

The manifest names the model, the index and the schemes the folder was built with; the
records themselves are all in ``records.jsonl``, the source of truth. So a lost manifest
loses nothing that cannot be made again: a new one, for the model chosen now, and the index
(and the caches built for the old model) rebuilt from the records by the next open. The
table and the saved positions stand for the log, not the model, and are kept.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from .._exceptions import FolderFormatError
from ..embedding._base import Embedder
from .index.registry import new_index_spec
from .lock import acquire_lock
from .log import holds_memory_records
from .manifest import manifest_damage
from .recent_turns import TURNS_FILE
from .reorder import CACHE_FILE
from .writer import create_manifest

__all__ = ["lost_manifest", "recover_manifest"]

# What the lost manifest's model and index made: rebuilt from the log, never read again.
_DERIVED = ("index", "index.json", CACHE_FILE, TURNS_FILE)


def lost_manifest(folder: Path) -> str | None:
    """Say why ``folder`` holds records but no manifest memtrails can read ("it has no
    manifest.json", or the damage), or None: it has a readable manifest, one of another
    format (a newer memtrails's: never overwritten), or no records."""
    if not holds_memory_records(folder):
        return None
    if not (folder / "manifest.json").is_file() and not (folder / "manifest.json").is_dir():
        return "it has no manifest.json"
    try:
        why = manifest_damage(folder)
    except FolderFormatError:
        return None  # another format's
    return None if why is None else f"its manifest.json {why}"


async def recover_manifest(
    folder: Path, embedder: Embedder, qdrant_url: str | None = None
) -> list[str]:
    """Write a new manifest for ``embedder``'s model into ``folder``, whose own is lost or
    damaged (:func:`lost_manifest`); return what was done, for the check's report.

    The damaged manifest is kept beside, as ``manifest.json.damaged``; the index, its
    checkpoint and the word-piece cache are removed, for the next open to rebuild them from
    the records with this model. Holds the folder's lock meanwhile.

    Raises:
        FolderFormatError: the folder has a readable manifest, or no records.
    """
    why = lost_manifest(folder)
    if why is None:
        raise FolderFormatError(f"{folder} has a manifest, or no records: nothing to recover")
    lock = await acquire_lock(folder, role="check --repair")
    try:
        done = await asyncio.to_thread(_clear, folder)
        spec = new_index_spec(qdrant_url, None)
        described = embedder.describe()
        await asyncio.to_thread(create_manifest, folder, described, spec)
    finally:
        lock.release()
    model = described.get("model_id", "the model")
    return [
        f"manifest.json written anew for {model} ({why}); "
        + "; ".join(done)
        + "; the index is rebuilt from records.jsonl. The secret rule sets the records were"
        " scrubbed with, which the lost manifest listed, are not known: it lists this"
        " version's"
    ]


def _clear(folder: Path) -> list[str]:
    """Keep the damaged manifest aside and remove what the old model and index made."""
    done = []
    manifest = folder / "manifest.json"
    if manifest.exists():
        os.replace(manifest, folder / "manifest.json.damaged")
        done.append("the damaged one kept as manifest.json.damaged")
    for name in _DERIVED:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        else:
            continue
        done.append(f"{name} removed")
    return done
