"""Resuming an append-only file (JSON Lines, mbox) where the last run stopped, when it is safe."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping
from typing import IO, Any

from ..records import SourceState

__all__ = [
    "BAD_POSITION",
    "SAMPLE",
    "count_of",
    "prefix_marks",
    "unfinished",
    "unusable_position",
    "why_not_resumable",
]

# Bytes hashed at each end of the part already read. Hashing the whole prefix would make an
# unchanged re-run cost a full read; a rewrite of an append-only archive (a mail client
# compacting an mbox, a log rotated and refilled) changes its size or these bytes.
SAMPLE = 64 * 1024
BAD_POSITION = "the saved position is not one this version reads"
_log = logging.getLogger("memtrails.importers")
_MAX_COUNT = 1 << 62  # a saved offset or count past this was written by no run
# The key that marks each kind's saved position, and how a user asked for that kind.
_KIND_KEYS = {
    "messages": "--kind maildir",
    "files": "--kind files or transcripts",
    "channels": "--kind slack",
    "heads": "--git",
    "offset": "--kind mbox or jsonl",
    "compressed": "--kind mbox or jsonl (compressed)",
    "cursor": "a database cursor",
}


def _hash(f: IO[bytes], start: int, end: int) -> str:
    f.seek(start)
    return hashlib.sha256(f.read(max(0, end - start))).hexdigest()


def prefix_marks(f: IO[bytes], offset: int) -> dict[str, Any]:
    """Return what identifies the first ``offset`` bytes of an open file for the next run."""
    here = f.tell()
    try:
        return {
            "offset": offset,
            "head": _hash(f, 0, min(SAMPLE, offset)),
            "tail": _hash(f, max(0, offset - SAMPLE), offset),
        }
    finally:
        f.seek(here)


def count_of(state: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    """Return the saved count ``state[key]`` when it is one (an int, 0 or more), else None.

    ``default`` is what a missing key counts as (None: it must be there). A saved position
    is read back from ``sources.json``, which an older version, a run stopped part-way or a
    hand edit may have written: a count of another type (``"12"``, ``null``, ``true``, a
    list) or below 0 is no count.
    """
    value = state.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _MAX_COUNT:
        return None
    return value


def why_not_resumable(
    f: IO[bytes], state: Mapping[str, Any] | None, counts: tuple[str, ...] = ()
) -> str | None:
    """Return why the file cannot be resumed at ``state["offset"]``, or None when it can.

    It can when the file is at least that long and the first and last 64 KiB before the
    offset hash as they did when the last run stopped there. A position that is not one
    this version reads (a key missing, a value of another type: written by an older version
    or a run that stopped part-way) is never used: the file is read from its start.

    Args:
        f: the open file.
        state: the saved position.
        counts: the counts the caller reads from the position besides ``offset`` (JSON
            Lines: ``lines``); each must be an int, 0 or more. ``records``, when saved,
            must be one too.
    """
    if not state:
        return "no earlier run"
    if not isinstance(state, Mapping):
        return _unusable(state, BAD_POSITION)
    offset = count_of(state, "offset")
    head, tail = state.get("head"), state.get("tail")
    if (
        offset is None
        or not isinstance(head, str)
        or not isinstance(tail, str)
        or any(count_of(state, key) is None for key in counts)
        or count_of(state, "records", 0) is None
    ):
        return _unusable(state, unusable_position(state, "mbox or jsonl", ("offset", "compressed")))
    size = os.fstat(f.fileno()).st_size
    if size < offset:
        return f"the file shrank ({size} bytes, {offset} read before)"
    marks = prefix_marks(f, offset)
    if marks["head"] != head or marks["tail"] != tail:
        return "the part read before has changed"
    return None


def _unusable(state: Any, why: str) -> str:
    """Log the saved position a run does not use (a debug line), and return ``why``."""
    _log.debug("saved position not used, the file is read from its start (%s): %.300r", why, state)
    return why


def unusable_position(state: Mapping[str, Any], reader: str, own: tuple[str, ...]) -> str:
    """Say why a saved position is not used, for a run that then reads its source in full.

    A source read with another ``--kind`` before (``add FOLDER --kind maildir``, then ``add
    FOLDER --kind files``) holds that kind's position, not an older version's: said so.

    Args:
        state: the saved position, not one the importer reads.
        reader: the kind reading it now, as a user names it (``files``).
        own: the keys that mark the importer's own positions (``("files",)``).
    """
    if not any(key in state for key in own):
        for key, kind in _KIND_KEYS.items():
            if key in state:
                return f"last read as {kind}, whose saved position --kind {reader} cannot use"
    return BAD_POSITION


def unfinished(
    source: str, state: Mapping[str, Any] | None, *, mode: str, why: str | None, skipped: int = 0
) -> SourceState:
    """Return the position of a run that could not read its input to the end (damaged
    compressed data, a failing pipe or disk) where it has none of its own to give.

    Never complete: an importer that states nothing is taken as having read everything, and
    a prune would forget every record past the damage. It keeps the position it was given
    (still true of the input's start, or refused again by the next run), or none.
    """
    return SourceState(
        source, dict(state or {}), mode=mode, complete=False, why=why, skipped=skipped
    )
