"""Index points of a record: one per passage, with its dense and keyword vectors and payload."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..items import Staged, embed_text
from ..keys import point_id
from ..records import MemoryRecord
from ..words import passage_keywords
from .index._base import IndexPoint, SparseVector
from .scripts import prose_scripts

__all__ = ["passage_scripts", "passage_span", "passage_text", "points_for"]


def points_for(todo: Sequence[Staged]) -> list[IndexPoint]:
    """Return the points of embedded records (blocking: the keyword vectors use ICU)."""
    points = []
    for staged in todo:
        record = staged.record
        text = embed_text(record)
        payload_base = {
            "uid": staged.uid,
            "kind": record.kind,
            "author": record.author,
            "title": record.title,
            "at": record.at.ms if record.at else None,
            "source": record.source,
            "thread": record.thread,
        }
        for n, passage in enumerate(staged.passages):
            span = text[passage.start : passage.end] if passage.end > passage.start else text
            terms = passage_keywords(span)
            scripts = passage_scripts(text, passage.start, passage.end)
            points.append(
                IndexPoint(
                    id=point_id(staged.uid, n),
                    dense=passage.vector,
                    sparse=SparseVector(list(terms), list(terms.values())),
                    payload={
                        **payload_base,
                        "passage": n,
                        "start": passage.start,
                        "end": passage.end,
                        # Kept empty too (as `reindex --payloads` writes it): a passage too
                        # short to tell is in no script, and the search need not read its
                        # record to learn so (foreign.grouped_by_script).
                        "scripts": scripts,
                    },
                )
            )
    return points


def passage_scripts(text: str, start: int, end: int) -> list[str]:
    """The scripts the prose of a record's passage ``text[start:end]`` (the whole text when
    ``end`` is not past ``start``) is written in, sorted: what its point keeps, for a search
    to ask for the passages in other scripts than its question's (foreign.py)."""
    return sorted(prose_scripts(text[start:end] if end > start else text))


def passage_span(text: str, payload: Mapping[str, Any]) -> tuple[int, int]:
    """The span of ``text`` (a record's ``embed_text``) that a point's payload names: its
    ``start`` and ``end``, the whole text when it names none."""
    start, end = int(payload.get("start", 0)), int(payload.get("end", 0))
    return (start, end) if end > start else (0, len(text))


def passage_text(record: MemoryRecord, payload: Mapping[str, Any]) -> str:
    """The text of the passage a point of ``record`` stands for: the span of the text the
    model saw (``embed_text``) that its payload names, the whole text when it names none."""
    text = embed_text(record)
    start, end = passage_span(text, payload)
    return text[start:end]
