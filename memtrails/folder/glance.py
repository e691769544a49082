"""``memtrails status`` without an event loop: a sound folder's status, read from its kept counts.

Opening a folder for a status (``Memory.open``, ``folder_status``) takes ~10 ms of work at a
million records; starting asyncio and the modules of the open took 0.1-0.2 s more, over
half of the command. :func:`glance` reads the same files synchronously, with only the
folder's light modules, and answers only when opening would have found nothing to repair
and the index's counts and disk use are kept in ``index.json``: then its answer is the one
``folder_status`` gives. In every other case (a service holds the folder, a crash left
lines to repair or index, another process holds the lock, an index on a server, anything
unexpected) it returns None, having changed nothing, and the command opens the folder as
before, with its repairs, waits and errors.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .._exceptions import MemtrailsError
from .disk import INDEX_DIR, folder_disk_bytes, index_mark
from .lock import READER, FolderLock
from .log import RecordLog
from .manifest import (
    read_checkpoint_counts,
    read_checkpoint_mark,
    read_manifest,
    scrub_rules,
    stale_keywords,
    stale_points,
)
from .positions import Positions
from .table import Table

__all__ = ["checkpoint_problem", "glance", "index_dims", "mark_problem"]

# The Qdrant Edge kind's names (``index.edge_kind``, which imports the index protocols:
# tests/test_folder_status_counts.py holds the two to the same values).
EDGE = "qdrant-edge"
EDGE_CONFIG = "edge_config.json"
EDGE_OWNER = "owner.json"
SERVICE_FILE = "service.json"  # ``service.discovery.SERVICE_FILE``, checked the same way


def glance(home: Path) -> dict[str, Any] | None:
    """Return ``folder_status(...).to_json()`` of the folder at ``home`` when it is sound, else None.

    Blocking, and never raises for a folder it cannot answer for: None says "open it".
    """
    path = Path(home).expanduser()
    try:
        if (path / SERVICE_FILE).exists() or not (path / "manifest.json").is_file():
            return None
        manifest = read_manifest(path)
        if manifest is None or not _edge_folder(path, manifest) or _wider(path):
            return None
        lock = FolderLock(path, READER)
    except (MemtrailsError, OSError, ValueError, KeyError, TypeError):
        return None
    try:
        return _read(path, manifest)
    except (MemtrailsError, OSError, ValueError, KeyError, TypeError, LookupError):
        return None
    finally:
        lock.release()


def _edge_folder(path: Path, manifest: dict[str, Any]) -> bool:
    """An Edge index in the folder that opening defers, marked as this folder's."""
    index = manifest["index"]
    if index.get("kind", EDGE) != EDGE or not (path / INDEX_DIR / EDGE_CONFIG).is_file():
        return False
    try:
        owner = json.loads((path / INDEX_DIR / EDGE_OWNER).read_text(encoding="utf-8"))["folder"]
    except (OSError, ValueError, KeyError, TypeError):
        return False  # opening marks an unmarked index (a write)
    mine = manifest.get("id")
    return (
        isinstance(owner, str)
        and isinstance(mine, str)
        and owner == mine
        and _same_dims(path, manifest)
    )


def _same_dims(path: Path, manifest: dict[str, Any]) -> bool:
    """Whether the index holds vectors of the size the manifest names: when not, opening
    refuses the folder in plain words (``opening._check_index_dims``), which a status must
    say too rather than print the manifest's size."""
    size = index_dims(path)
    return size is not None and size == manifest["embedding"]["dims"]


def index_dims(path: Path) -> int | None:
    """Return the vector size the folder's Edge index was made for (its ``edge_config.json``),
    or None when there is none or it cannot be read."""
    try:
        config = json.loads((path / INDEX_DIR / EDGE_CONFIG).read_text(encoding="utf-8"))
        size = config["vectors"]["dense"]["size"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return size if type(size) is int else None


def _wider(path: Path) -> bool:
    """Whether opening would tighten a mode (``modes.tighten_on_open``), found without changing one."""
    uid = os.geteuid()
    st = os.lstat(path)
    if st.st_uid != uid or stat.S_IMODE(st.st_mode) & 0o077:
        return True
    with os.scandir(path) as entries:
        for entry in entries:
            found = entry.stat(follow_symlinks=False)
            if stat.S_ISLNK(found.st_mode) or found.st_uid != uid:
                continue
            if stat.S_IMODE(found.st_mode) & 0o077:
                return True
    return False


def _read(path: Path, manifest: dict[str, Any]) -> dict[str, Any] | None:
    if stale_keywords(manifest) is not None:
        return None
    log = RecordLog(path / "records.jsonl")
    table: Table | None = None
    try:
        if log.size and not log.ends_line_at(log.size):
            return None  # a torn last line: opening cuts it
        checkpoint, tail, problem = read_checkpoint_mark(path)
        if problem is not None or (checkpoint and checkpoint_problem(log, checkpoint, tail)):
            return None
        kept = read_checkpoint_counts(path)
        if kept is None or not kept.offset == log.size == checkpoint:
            return None  # lines not indexed, or counts not kept: opening loads the index
        if kept.records and _stale_points(manifest):
            return None  # opening says what the points lack
        index_bytes: int | None = None
        if kept.index_disk is not None:
            index_bytes, mark = kept.index_disk
            if index_mark(path / INDEX_DIR) != mark:
                return None
        positions = Positions.load(path)
        if (
            positions.log_mark is not None
            and positions.entries()
            and mark_problem(log, positions.log_mark) is not None
        ):
            return None
        table = Table.open_current(path, log)
        if table is None:
            return None
        sources = dict(sorted(table.per_source().items()))
        return {
            "path": str(path),
            "records": len(table),
            "indexed": kept.records,
            "points": kept.points,
            "sources": sources,
            "model": dict(manifest["embedding"]),
            "index": {"kind": EDGE, "path": str(path / INDEX_DIR)},
            "log_bytes": log.size,
            "pending_bytes": log.size - checkpoint,
            "disk_bytes": folder_disk_bytes(path, index_bytes),
            "watermarks": {
                source: {**entry["state"], "saved": entry.get("saved")}
                for source, entry in positions.entries().items()
                if isinstance(entry.get("state"), dict) and "cursor" in entry["state"]
            },
            "secrets": {"rules": scrub_rules(manifest)},
            "counted": "checkpoint",
            "disk_counted": "walk" if index_bytes is None else "checkpoint",
        }
    finally:
        if table is not None:
            table.close()
        log.close()


def checkpoint_problem(log: RecordLog, checkpoint: int, tail: str | None) -> str | None:
    """Say why ``index.json``'s checkpoint does not fit the log, or None when it does."""
    if checkpoint > log.size:
        return (
            f"index.json points past the end of records.jsonl (byte {checkpoint} of "
            f"{log.size}): the log was cut"
        )
    if not log.ends_line_at(checkpoint):
        return f"index.json points into the middle of a line of records.jsonl (byte {checkpoint})"
    if tail is not None and tail != log.tail(checkpoint):
        return f"records.jsonl before byte {checkpoint} changed since it was indexed"
    return None


def mark_problem(log: RecordLog, mark: dict[str, Any]) -> str | None:
    """Say why the log mark saved with ``sources.json`` does not fit the log, or None."""
    size = mark.get("size")
    if not isinstance(size, int):
        return None
    if log.size < size:
        return (
            f"records.jsonl is shorter ({log.size} bytes) than when positions were saved ({size})"
        )
    if mark.get("tail") and mark["tail"] != log.tail(size):
        return f"records.jsonl before byte {size} changed since positions were saved"
    return None


def _stale_points(manifest: dict[str, Any]) -> bool:
    """Whether opening would say the index's points lack what the search reads."""
    if stale_points(manifest, True) is None:
        return False
    # Here, not at the top: ranking loads numpy, which a current folder's glance never needs.
    from .ranking import reads_across

    return reads_across(manifest["embedding"].get("model_id"))
