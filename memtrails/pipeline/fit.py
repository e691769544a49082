"""The fit stage: text and title cut to their limits once their secrets are markers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..items import Staged
from ..limits import CUT_KEY
from ..portable import utf16_cut, utf16_len
from ..records import MemoryRecord
from ._stage import Stage, StageContext

__all__ = ["FIT", "fit_cuts"]

# A marker that a cut must not split: "[secret:github-token]".
_MARKER = re.compile(r"\[secret:[a-z0-9-]{0,40}\]?")
_MARKER_UNITS = 60  # longer than any marker


def fit_cuts(record: MemoryRecord) -> MemoryRecord:
    """Cut ``text`` and ``title`` to what their notes in ``meta["_cut"]`` say to keep.

    Normalisation in an import keeps a margin past each limit (``CUT_MARGIN``), so that a
    secret straddling the limit is scrubbed whole; this cut never splits a marker (it moves
    before one), and each note's ``kept`` is set to what was kept.
    """
    notes = record.meta.get(CUT_KEY)
    if not isinstance(notes, list):
        return record
    changes: dict[str, Any] = {}
    fixed: list[Any] = []
    for note in notes:
        field = note.get("field") if isinstance(note, Mapping) else None
        target = note.get("kept") if isinstance(note, Mapping) else None
        if (
            field not in ("text", "title")
            or note.get("unit") != "UTF-16"
            or not (isinstance(target, int) and target >= 0)
        ):
            fixed.append(note)
            continue
        value = getattr(record, field) or ""
        kept = _cut_between_markers(value, target)
        if kept is not value:
            changes[field] = kept
        fixed.append({**note, "kept": utf16_len(kept)})
    if not changes and fixed == notes:
        return record
    return replace(record, **changes, meta={**record.meta, CUT_KEY: fixed})


def _cut_between_markers(text: str, limit: int) -> str:
    if utf16_len(text) <= limit:
        return text
    kept = utf16_cut(text, limit)
    end = len(kept)
    tail = kept[max(0, end - _MARKER_UNITS) :]
    start = tail.rfind("[secret:")
    if start >= 0:
        at = end - len(tail) + start
        whole = _MARKER.match(text, at)
        if whole is not None and whole.end() > end:
            kept = kept[:at]  # the marker would be cut: leave it out whole
    return kept


def _fit(item: Any, ctx: StageContext) -> Any:
    if isinstance(item, Staged) and CUT_KEY in item.record.meta:
        item.record = fit_cuts(item.record)
    return item


FIT = Stage("fit", _fit)
"""Cuts what normalisation marked as over a limit (it keeps a margin for the scrubber)."""
