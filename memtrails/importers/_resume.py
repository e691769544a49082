"""Resuming an append-only file (JSON Lines, mbox) where the last run stopped, when it is safe."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import IO, Any

from ..records import SourceState

__all__ = ["SAMPLE", "prefix_marks", "unfinished", "why_not_resumable"]

# Bytes hashed at each end of the part already read. Hashing the whole prefix would make an
# unchanged re-run cost a full read; a rewrite of an append-only archive (a mail client
# compacting an mbox, a log rotated and refilled) changes its size or these bytes.
SAMPLE = 64 * 1024


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


def why_not_resumable(f: IO[bytes], state: Mapping[str, Any] | None) -> str | None:
    """Return why the file cannot be resumed at ``state["offset"]``, or None when it can.

    It can when the file is at least that long and the first and last 64 KiB before the
    offset hash as they did when the last run stopped there.
    """
    if not state:
        return "no earlier run"
    try:
        offset = int(state["offset"])
        head, tail = str(state["head"]), str(state["tail"])
    except (KeyError, TypeError, ValueError):
        return "the saved position is not one this version reads"
    size = os.fstat(f.fileno()).st_size
    if size < offset:
        return f"the file shrank ({size} bytes, {offset} read before)"
    marks = prefix_marks(f, offset)
    if marks["head"] != head or marks["tail"] != tail:
        return "the part read before has changed"
    return None


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
