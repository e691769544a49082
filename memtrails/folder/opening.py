"""Open a memory folder: lock it, read its manifest, repair the log, load the table and index."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import FolderAccessError, FolderFormatError, NoMemoryFolderError
from .._uncancelled import to_the_end
from ..embedding._base import Embedder
from .check import verify_on_open
from .damaged import cut_tail_note, damaged_notes
from .disk import INDEX_DIR
from .glance import index_dims
from .idf import IdfCache
from .index._base import IndexBackend, IndexPlace
from .index.deferred import DeferredIndex
from .index.edge_kind import EDGE
from .index.registry import INDEX_KINDS, index_kind, index_leftover, new_index_spec, public_url
from .lock import FolderLock, acquire_lock
from .log import RecordLog, holds_memory_records
from .manifest import (
    Advice,
    check_model,
    lost_manifest_message,
    read_checkpoint,
    read_manifest,
    stale_keywords,
    stale_points,
)
from .model import EmbedderFactory, FolderModel, manifest_model
from .modes import tighten, tighten_on_open
from .next_in_line import NEXT_FILE
from .positions import Positions
from .ranking import reads_across
from .recent_turns import RecentTurns
from .reorder import PieceCache
from .table import TABLE_FILE, Table
from .writer import Writer, create_manifest, cut_torn_line, open_table

__all__ = ["Folder", "open_folder", "public_url", "save_derived"]


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
    # The word-piece cache of the reordering (reorder.py); None: not kept for this folder.
    pieces: PieceCache | None = None
    # The IDF of the words searches asked, until the index changes (idf.py).
    idf: IdfCache = field(default_factory=IdfCache)
    # The chat turns' context kept between imports (recent_turns.py); None: not kept.
    turns: RecentTurns | None = None

    async def aclose(self) -> None:
        """Flush the index and positions, close everything, release the lock.

        A cancelled caller (an MCP request, a timeout) waits for the close to finish: one
        stopped half-way would keep the lock, and the folder, from every other process.
        """
        await to_the_end(self._close())

    async def _close(self) -> None:
        try:
            try:
                await self.writer.aclose()
                await self.positions.flush()
                await save_derived(self)
            finally:
                try:
                    await self.index.aclose()
                finally:
                    await self.model.aclose()
        finally:
            try:
                await asyncio.to_thread(self.table.close)
                await asyncio.to_thread(self.log.close)
                # The index library creates its files with the umask: back to owner-only
                # (an index never loaded created none).
                if not isinstance(self.index, DeferredIndex) or self.index.opened:
                    await asyncio.to_thread(tighten, self.path)
            finally:
                self.lock.release()


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

    Raises:
        FolderAccessError: a file or folder inside ``path`` (or ``path`` itself) cannot be
            written: a read-only mount, another user's folder.
        FolderFormatError: one of the folder's files is a directory.
    """
    try:
        return await _open_folder(
            path,
            embedder,
            qdrant_url,
            qdrant_api_key,
            index,
            threads,
            create,
            role,
            wait,
            wait_writer,
        )
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            # A file of the folder replaced by a directory (the second name: a rename's).
            name = exc.filename2 if exc.filename2 is not None else exc.filename
            if _inside(name, path) and Path(name) != path:
                raise FolderFormatError(_not_a_file(path, Path(name))) from exc
        if exc.errno not in _NOT_WRITABLE or not _inside(exc.filename, path):
            raise
        raise FolderAccessError(path, str(exc.filename), exc.strerror or str(exc)) from exc


# What moving a file of the folder out of the way costs (the others are made anew from the
# log), for one that is a directory.
_NOT_REMADE = {
    "records.jsonl": "it stands for the folder's records: restore records.jsonl from a backup",
    "sources.json": "memtrails writes it anew without the sources' saved positions: the next "
    "add reads every source in full",
}


def _not_a_file(folder: Path, name: Path) -> str:
    """What to do about a directory where the folder keeps a file."""
    where = name.relative_to(folder).parts[0]
    fix = _NOT_REMADE.get(where, "memtrails makes it anew from records.jsonl")
    return (
        f"{folder / where} is a directory, where the memory folder keeps a file: move it out "
        f"of the folder ({fix})"
    )


# The errors of a folder that cannot be written: no permission, an immutable file, a
# read-only file system.
_NOT_WRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def _inside(name: object, folder: Path) -> bool:
    """Whether the file an OSError names is ``folder`` or inside it."""
    if not isinstance(name, str | os.PathLike):
        return False
    return Path(name) == folder or Path(name).is_relative_to(folder)


async def _open_folder(
    path: Path,
    embedder: Embedder | EmbedderFactory | None,
    qdrant_url: str | None,
    qdrant_api_key: str | None,
    index: IndexBackend | None,
    threads: int | None,
    create: bool,
    role: str,
    wait: float,
    wait_writer: float,
) -> Folder:
    if not create and not (path / "manifest.json").is_file():
        if holds_memory_records(path):
            raise FolderFormatError(lost_manifest_message(path, "it has no manifest.json"))
        raise NoMemoryFolderError(path)
    await asyncio.to_thread(_make_folder, path)
    # Before the lock file: a folder that is not ours gets nothing written into it, nor does
    # one whose index is of a kind this memtrails cannot open.
    existing = await asyncio.to_thread(_refuse_foreign, path)
    if existing is not None and index is None:
        index_kind(existing, path)
    lock = await acquire_lock(path, role=role, wait=wait, wait_writer=wait_writer)
    log: RecordLog | None = None
    table: Table | None = None
    backend: IndexBackend | None = None
    # Set before anything can be cancelled: the clean-up below reads it, and a cancellation
    # in the first await must still release the lock.
    instance: Embedder | None = None
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
            embedding, spec = instance.describe(), new_index_spec(qdrant_url, index)
            place = IndexPlace(path, spec, int(embedding["dims"]), qdrant_url, qdrant_api_key)
            backend = index or await INDEX_KINDS[spec["kind"]].open(place)
            manifest = await asyncio.to_thread(create_manifest, path, embedding, spec)
        else:
            if instance is not None:
                check_model(path, manifest["embedding"], instance.describe())
            dims = int(manifest["embedding"]["dims"])
            await asyncio.to_thread(_check_index_dims, path, manifest, dims)
            place = IndexPlace(path, manifest["index"], dims, qdrant_url, qdrant_api_key)
            backend = index or await index_kind(manifest, path).open(place)
        model = FolderModel(
            path,
            manifest["embedding"],
            factory,
            instance,
            owned=not isinstance(embedder, Embedder),
        )
        log = await asyncio.to_thread(RecordLog, path / "records.jsonl")
        dropped = await asyncio.to_thread(cut_torn_line, log)
        if dropped:
            repairs.append(await asyncio.to_thread(cut_tail_note, log, dropped, path / TABLE_FILE))
        opened, rebuilt = await asyncio.to_thread(open_table, path, log)
        table = opened
        if rebuilt:
            repairs.append(rebuilt)
        repairs += map(Advice, damaged_notes(log.path, opened.damaged))
        opened.damaged.clear()
        positions = await asyncio.to_thread(_load_positions, path, log, repairs)
        checkpoint = await asyncio.to_thread(read_checkpoint, path)
        writer = Writer(path, log, opened, backend, checkpoint, manifest=manifest)
        deferred = backend if isinstance(backend, DeferredIndex) else None
        repairs += await verify_on_open(
            path, log, opened, backend, positions, writer, deferred=deferred, repairs=repairs
        )
        if (stale := stale_keywords(manifest)) is not None:
            repairs.append(stale)
        if len(opened) and (
            lacking := stale_points(manifest, reads_across(manifest["embedding"].get("model_id")))
        ):
            repairs.append(lacking)
    except BaseException:
        owned = instance if not isinstance(embedder, Embedder) else None
        # To its end even when cancelled again meanwhile: the lock must not stay behind.
        await to_the_end(_undo_open(lock, backend, table, log, owned))
        raise
    embedding = manifest["embedding"]
    identity = f"{embedding.get('model_id')}:{embedding.get('sha256')}"
    return Folder(
        path,
        manifest,
        lock,
        log,
        opened,
        backend,
        positions,
        writer,
        model,
        repairs,
        PieceCache(path, identity),
        turns=RecentTurns(path, identity),
    )


async def _undo_open(
    lock: FolderLock,
    backend: IndexBackend | None,
    table: Table | None,
    log: RecordLog | None,
    model: Embedder | None,
) -> None:
    """Close what a failed open had opened, and release the lock whatever fails."""
    try:
        if backend is not None:
            await backend.aclose()
    finally:
        try:
            if table is not None:
                table.close()
            if log is not None:
                log.close()
            if model is not None:
                await model.aclose()
        finally:
            lock.release()


async def save_derived(folder: Folder) -> None:
    """Write the folder's word-piece cache and chat turns' context where an import changed
    them; a failure is logged (derived data: the next reindex builds it again), never raised."""
    for kept, what in ((folder.pieces, "word-piece cache"), (folder.turns, "chat turns' context")):
        if kept is None:
            continue
        try:
            await asyncio.to_thread(kept.save)
        except OSError as exc:
            logging.getLogger(__name__).warning("%s not saved: %s", what, exc)


def _make_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise FolderFormatError(f"{path} exists and is not a folder; choose another --home")
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


def _refuse_foreign(path: Path) -> dict[str, Any] | None:
    """Refuse a folder that holds files but no manifest: it is someone's, not a memory folder.

    The lock file and a manifest's temp file are what an interrupted first open leaves.
    Returns the folder's manifest, None when it has none yet.
    """
    if (path / "manifest.json").is_file():
        return read_manifest(path)  # someone else's manifest.json is refused before the lock
    foreign = sorted(
        entry.name
        for entry in os.scandir(path)
        if entry.name not in ("memory.lock", NEXT_FILE)
        and not entry.name.startswith(".manifest.json.")
        and not (entry.name == "index" and index_leftover(path / "index"))
    )
    if "records.jsonl" in foreign and holds_memory_records(path):
        raise FolderFormatError(lost_manifest_message(path, "it has no manifest.json"))
    if foreign:
        raise FolderFormatError(
            f"{path} is not a memory folder (no manifest.json) and is not empty (it holds "
            f"{foreign[0]!r}{' and more' if len(foreign) > 1 else ''}); memtrails creates "
            "its folder only in a new or empty one: choose another --home"
        )
    return None


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


def _fixed(embedder: Embedder) -> EmbedderFactory:
    async def make() -> Embedder:
        return embedder

    return make


def _check_index_dims(path: Path, manifest: dict[str, Any], dims: int) -> None:
    """Refuse, in plain words, a folder whose own index holds vectors of another size than
    its manifest's model makes (a manifest or an index from another folder or model), before
    the index refuses it in Qdrant's words.

    Raises:
        FolderFormatError: the sizes differ; the message says what to do.
    """
    if manifest["index"].get("kind") != EDGE:
        return
    index = path / INDEX_DIR
    size = index_dims(path)
    if size is None or size == dims:  # none or unreadable: the index's own open says why
        return
    model = manifest["embedding"].get("model_id")
    raise FolderFormatError(
        f"memory folder {path}: its index holds {size}-dimension vectors, but its "
        f"manifest.json names the model {model!r}, which makes {dims}: the two come from "
        "different models (a manifest or an index copied from another folder, or edited). "
        f"The index is made from records.jsonl alone: if {model!r} is the folder's model, "
        f"move the index away (`mv {index} {index}.old`) and run the command again, which "
        "rebuilds it with that model; else restore manifest.json from a backup"
    )
