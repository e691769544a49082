"""Codex CLI's first sessions: one JSON document a session, rewritten whole after each turn.

The TypeScript Codex CLI (April to June 2025, before the Rust one) saved each session as
``~/.codex/sessions/rollout-<date>-<id>.json``: ``{"session": {"timestamp", "id",
"instructions"}, "items": [<Responses API items>]}``, indented (openai/codex
``codex-cli/src/utils/storage/save-rollout.ts``). The items are those later rollouts hold
line by line (``message``, ``function_call``, ``function_call_output``, ``reasoning``), with
no time of their own: each turn is dated by the session's start. Item N of ``items`` is
read as line N is in a JSON Lines session (its record's id ends ``:line-N``).

A later save only adds items, so a re-run reads the items after those it read before, once
their digest shows them unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Generator
from typing import Any, BinaryIO

from ..records import Item, MemoryRecord, RecordError
from ._guard import RecordStep
from ._shared import too_long_number
from ._transcript_text import line_text
from .transcripts_turns import Session

__all__ = ["WHOLE_HEAD", "read_whole"]

WHOLE_HEAD = re.compile(rb'\s*\{\s*"session"\s*:\s*\{')
"""How such a file starts (after a byte order mark)."""

_ITEM = RecordStep("agent transcripts", "item")


def _digest(items: list[Any]) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()


def _item(session: Session, item: Any, n: int, source: str) -> MemoryRecord | RecordError | None:
    try:
        return session.turn(item, n, source)
    except ValueError as exc:
        return RecordError(source, f"{session.rel}: item {n}", f"not a session item: {exc}")


def read_whole(
    f: BinaryIO, session: Session, mark: Any, source: str, limit: int
) -> Generator[Item, None, tuple[list[Any], int, int] | None]:
    """Yield the turns of a whole-document session from ``f``, after those ``mark`` says
    were read; return its new mark, the turns read and those passed over, or None when it
    could not be read (an error says why)."""
    size = os.fstat(f.fileno()).st_size
    if size > limit:
        yield RecordError(
            source,
            session.rel,
            f"session of {size:,} bytes is over {limit:,} (Limits.max_line_bytes); not read",
        )
        return None
    try:
        data = line_text(f.read())
    except RecursionError:
        reason = "nested too deeply to read"
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = str(exc)
    except ValueError:
        reason = too_long_number()
    else:
        header, items = (
            (data.get("session"), data.get("items")) if isinstance(data, dict) else (0, 0)
        )
        if isinstance(header, dict) and isinstance(items, list):
            return (yield from _items(session, header, items, mark, source))
        reason = 'expected {"session": {...}, "items": [...]}'
    yield RecordError(source, session.rel, f"not a Codex session: {reason}")
    return None


def _items(
    session: Session, header: dict[str, Any], items: list[Any], mark: Any, source: str
) -> Generator[Item, None, tuple[list[Any], int, int]]:
    start = turns = skipped = 0
    if (
        isinstance(mark, list)
        and len(mark) == 5
        and mark[0] == "whole"
        and isinstance(mark[1], int)
        and 0 < mark[1] <= len(items)
        and mark[2] == _digest(items[: mark[1]])
    ):
        start, turns = mark[1], int(mark[4])
        session.restore(mark[3])
        skipped = turns
    session.turn({k: v for k, v in header.items() if k != "type"}, 0, source)
    for n, item in enumerate(items[start:], start + 1):
        got = _ITEM.run(source, f"{session.rel}: item {n}", _item, session, item, n, source)
        if isinstance(got, MemoryRecord):
            turns += 1
        if got is not None:
            yield got
    done = ["whole", len(items), _digest(items), session.saved(), turns]
    return done, turns - skipped, skipped
