"""Open a memory folder: lock it, read its manifest, repair the log, load the table and index."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._exceptions import FolderFormatError
from ..embedding._base import Embedder
from .check import verify_on_open
from .index._base import IndexBackend
from .index.deferred import DeferredIndex
from .lock import FolderLock, acquire_lock
from .log import RecordLog
from .manifest import check_model, read_checkpoint, read_manifest, stale_keywords, write_manifest
from .model import EmbedderFactory, FolderModel, manifest_model
from .modes import tighten, tighten_on_open
from .positions import Positions
from .table import Table
from .writer import Writer

__all__ = ["Folder", "open_folder", "public_url"]

EDGE = "qdrant-edge"
# What a Qdrant Edge shard (and the sealing count beside it) writes into index/.
_EDGE_CONFIG = "edge_config.json"
_EDGE_FILES = {_EDGE_CONFIG, "segments", "wal", "unsealed.json"}
SERVER = "qdrant-server"


@dataclass(slots=True)
class Folder:
    """The parts of an open memory folder; :meth:`aclose` releases them in order."""

    path: Path
    manifest: dict[str, Any]
    lock: FolderLock
    log: RecordLog
    table: Table
    index: IndexBackend
    positions: Positions
    writer: Writer
    model: FolderModel
    repairs: list[str]

    async def aclose(self) -> None:
        """Flush the index and positions, close everything, release the lock."""
        try:
            try:
                await self.writer.aclose()
                await self.positions.flush()
            finally:
                try:
                    await self.index.aclose()
                finally:
                    await self.model.aclose()
        finally:
            await asyncio.to_thread(self.table.close)
            await asyncio.to_thread(self.log.close)
            # The index library creates its files with the umask: back to owner-only (an
            # index never loaded created none).
            if not isinstance(self.index, DeferredIndex) or self.index.opened:
                await asyncio.to_thread(tighten, self.path)
            self.lock.release()


def public_url(url: str) -> str:
    """Return ``url`` without user, password or query (what may be written to disk)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


async def open_folder(
    path: Path,
    *,
    embedder: Embedder | EmbedderFactory | None = None,
    qdrant_url: str | None = None,
    qdrant_api_key: str | None = None,
    index: IndexBackend | None = None,
    threads: int | None = None,
    create: bool = True,
    role: str = "",
    wait: float = 30.0,
    wait_writer: float = 0.0,
) -> Folder:
    """Open (creating if allowed) the folder at ``path``; see :meth:`memtrails.Memory.open`.

    ``role``, ``wait`` and ``wait_writer`` go to :func:`.lock.acquire_lock`: by default an
    opener waits up to 30 s for a short reader (a ``memtrails mcp`` request) to let go, and
    fails at once when an import holds the folder.
    """
    if not create and not (path / "manifest.json").is_file():
        raise FolderFormatError(f"no memory folder at {path}; create one with `memtrails add`")
    await asyncio.to_thread(_make_folder, path)
    # Before the lock file: a folder that is not ours gets nothing written into it.
    await asyncio.to_thread(_refuse_foreign, path)
    lock = await acquire_lock(path, role=role, wait=wait, wait_writer=wait_writer)
    log: RecordLog | None = None
    table: Table | None = None
    backend: IndexBackend | None = None
    repairs: list[str] = []
    try:
        widened = await asyncio.to_thread(tighten_on_open, path)
        if widened:
            repairs.append(
                "permissions tightened to owner-only (0700 folders, 0600 files): "
                + ", ".join(widened[:5])
                + (f" and {len(widened) - 5} more" if len(widened) > 5 else "")
            )
        instance = embedder if isinstance(embedder, Embedder) else None
        manifest = await asyncio.to_thread(read_manifest, path)
        if embedder is None:
            factory = manifest_model(manifest["embedding"] if manifest else None, threads)
        elif instance is not None:
            factory = _fixed(instance)
        else:
            factory = embedder  # type: ignore[assignment]
        if manifest is None:
            if instance is None:
                instance = await factory()
            # The index first: a folder whose server cannot be reached is not created.
            fresh = {"embedding": instance.describe(), "index": _index_spec(qdrant_url, index)}
            backend = index or await _open_index(path, fresh, qdrant_url, qdrant_api_key)
            manifest = await asyncio.to_thread(
                write_manifest, path, fresh["embedding"], fresh["index"]
            )
        else:
            if instance is not None:
                check_model(path, manifest["embedding"], instance.describe())
            backend = index or _deferred_edge(path, manifest, qdrant_url)
            backend = backend or await _open_index(path, manifest, qdrant_url, qdrant_api_key)
        model = FolderModel(
            path,
            manifest["embedding"],
            factory,
            instance,
            owned=not isinstance(embedder, Embedder),
        )
        log = await asyncio.to_thread(RecordLog, path / "records.jsonl")
        dropped = await asyncio.to_thread(log.repair)
        if dropped:
            repairs.append(
                f"records.jsonl: cut an unfinished last line ({dropped} bytes; a write "
                "interrupted before it was reported added)"
            )
        opened, rebuilt = await asyncio.to_thread(Table.open, path, log)
        table = opened
        if rebuilt:
            repairs.append(rebuilt)
        positions = await asyncio.to_thread(_load_positions, path, log, repairs)
        checkpoint = await asyncio.to_thread(read_checkpoint, path)
        writer = Writer(path, log, opened, backend, checkpoint)
        deferred = backend if isinstance(backend, DeferredIndex) else None
        repairs += await verify_on_open(
            path, log, opened, backend, positions, writer, deferred=deferred, repairs=repairs
        )
        if (stale := stale_keywords(manifest)) is not None:
            repairs.append(stale)
    except BaseException:
        if backend is not None:
            await backend.aclose()
        if table is not None:
            table.close()
        if log is not None:
            log.close()
        if instance is not None and not isinstance(embedder, Embedder):
            await instance.aclose()
        lock.release()
        raise
    return Folder(path, manifest, lock, log, opened, backend, positions, writer, model, repairs)


def _make_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise FolderFormatError(f"{path} exists and is not a folder; choose another --home")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def _refuse_foreign(path: Path) -> None:
    """Refuse a folder that holds files but no manifest: it is someone's, not a memory folder.

    The lock file and a manifest's temp file are what an interrupted first open leaves.
    """
    if (path / "manifest.json").is_file():
        read_manifest(path)  # someone else's manifest.json is refused before the lock file
        return
    foreign = sorted(
        entry.name
        for entry in os.scandir(path)
        if entry.name != "memory.lock"
        and not entry.name.startswith(".manifest.json.")
        and not (entry.name == "index" and _edge_leftover(path / "index"))
    )
    if foreign:
        raise FolderFormatError(
            f"{path} is not a memory folder (no manifest.json) and is not empty (it holds "
            f"{foreign[0]!r}{' and more' if len(foreign) > 1 else ''}); memtrails creates "
            "its folder only in a new or empty one: choose another --home"
        )


def _edge_leftover(index: Path) -> bool:
    # A new folder's index is made before its manifest: what an open stopped in between
    # (a full disk, a kill) leaves is an index folder holding only Qdrant Edge's own files.
    return index.is_dir() and {e.name for e in os.scandir(index)} <= _EDGE_FILES


def _load_positions(path: Path, log: RecordLog, repairs: list[str]) -> Positions:
    def mark() -> dict[str, Any]:
        return {"size": log.size, "tail": log.tail(log.size)}

    try:
        return Positions.load(path, mark=mark)
    except FolderFormatError:
        repairs.append(
            "sources.json is not readable JSON: its saved positions were dropped, so the next "
            "add reads every source in full"
        )
        return Positions(path, {}, mark=mark)


def _deferred_edge(
    path: Path, manifest: dict[str, Any], qdrant_url: str | None
) -> DeferredIndex | None:
    """Return the folder's Qdrant Edge shard, to be loaded by its first use, or None.

    Loading a shard reads all its segments (seconds at a million points): a folder opened
    for what does not search or write (an import that finds nothing new) never loads it.
    A folder without its shard, or of another kind, opens its index now (the missing shard
    is created and found empty at once).
    """
    if manifest["index"].get("kind") == SERVER or qdrant_url:
        return None
    folder = path / "index"
    if not (folder / _EDGE_CONFIG).is_file():
        return None

    async def load() -> IndexBackend:
        return await _open_index(path, manifest, None, None)

    return DeferredIndex(load, {"kind": EDGE, "path": str(folder)})


def _fixed(embedder: Embedder) -> EmbedderFactory:
    async def make() -> Embedder:
        return embedder

    return make


def _index_spec(qdrant_url: str | None, index: IndexBackend | None) -> dict[str, Any]:
    if index is not None:
        return {"kind": str(index.describe().get("kind", SERVER))}
    if qdrant_url:
        # Credentials stay out of the folder: an API key comes from the caller or
        # $QDRANT_API_KEY each time.
        return {"kind": SERVER, "url": public_url(qdrant_url), "collection": "memtrails"}
    return {"kind": EDGE}


async def _open_index(
    path: Path, manifest: dict[str, Any], qdrant_url: str | None, api_key: str | None
) -> IndexBackend:
    spec = manifest["index"]
    dims = int(manifest["embedding"]["dims"])
    if spec.get("kind") == SERVER:
        url = spec.get("url") if qdrant_url is None else qdrant_url
        if not url:
            raise FolderFormatError(
                f"the index of memory folder {path} is on a Qdrant server whose URL it does not "
                "record; give it with --qdrant-url"
            )
        from .index.server import ServerIndex

        return await ServerIndex.open(
            url,
            collection=str(spec.get("collection") or "memtrails"),
            dims=dims,
            api_key=api_key or os.environ.get("QDRANT_API_KEY"),
        )
    if qdrant_url:
        raise FolderFormatError(
            f"memory folder {path} keeps its index in {path / 'index'} (Qdrant Edge), not on a "
            "server; drop --qdrant-url, or import into a new folder to use a server"
        )
    from .index.edge import EdgeIndex

    return await EdgeIndex.open(path / "index", dims=dims)
