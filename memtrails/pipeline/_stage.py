"""One per-record stage: its declaration, its context, and the guard every call goes through.

A stage is one function from an item to an item (``normalise``, ``scrub``, ``fit``,
``dedup``); the import's loop (:mod:`memtrails.pipeline.prepare`) walks
:data:`memtrails.pipeline.stages.STAGES` for every item, and each public operator
(``normalise.pipe(...)``, ``scrub.pipe()``, ``dedup.pipe(claims)``) is :func:`each` over the
same function. An unexpected exception inside a stage becomes a
:class:`~memtrails.records.RecordError` for that one record, naming the stage: the import
goes on, and the traceback goes to the ``memtrails.pipeline`` debug log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiostream import streamcontext

from ..items import Staged
from ..limits import Limits
from ..portable import js_well_formed, utf16_cut
from ..records import RecordError
from ..secrets import scrub_text

if TYPE_CHECKING:
    from .dedup import Claims

__all__ = ["Stage", "StageContext", "each", "run_stage"]

_log = logging.getLogger("memtrails.pipeline")


@dataclass(slots=True)
class StageContext:
    """What the stages know of the import: the source name, the limits, the folder's claims.

    Args:
        name: the source name given to records that name none.
        limits: the size and nesting limits records are held to.
        claims: the folder's answers to dedup (None: ``dedup`` cannot run).
        margin: UTF-16 units normalise keeps past a text limit, for the scrubber.
        position: the current item's number in its source, for error messages.
        raw: the digest of the input the current item was made from (kept with its record).
    """

    name: str = "custom"
    limits: Limits = field(default_factory=Limits)
    claims: Claims | None = None
    margin: int = 0
    position: int = 0
    raw: bytes | None = None


def _light(item: Any) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Stage:
    """One per-record stage: its name (in errors), its function, and when it runs off the loop.

    Args:
        name: what errors call it.
        run: item and context in, item out; never awaits.
        heavy: tells whether an item costs enough to be run in a worker thread.
    """

    name: str
    run: Callable[[Any, StageContext], Any]
    heavy: Callable[[Any], bool] = _light


def run_stage(stage: Stage, item: Any, ctx: StageContext) -> Any:
    """Return ``stage``'s output for ``item``; an unexpected exception becomes a RecordError.

    The error names the stage, the record and the exception (scrubbed: an exception's
    message may quote the record); the traceback is logged at debug level.
    """
    try:
        return stage.run(item, ctx)
    except Exception as exc:
        _log.debug("the %s stage failed on item %d", stage.name, ctx.position, exc_info=True)
        return _failed(stage, item, ctx, exc)


def _failed(stage: Stage, item: Any, ctx: StageContext, exc: Exception) -> RecordError:
    record = item.record if isinstance(item, Staged) else item
    source = getattr(record, "source", None)
    source = source if isinstance(source, str) and source else ctx.name
    raw_id = getattr(record, "id", None)
    raw_id = raw_id if isinstance(raw_id, str) else None
    shown: str | None = None
    try:
        detail = scrub_text(js_well_formed(f"{type(exc).__name__}: {exc}"))[0]
        if raw_id is not None:
            shown = scrub_text(js_well_formed(utf16_cut(raw_id, 80)))[0]
    except Exception:  # the scrubber itself failed: say nothing that could hold a secret
        detail, shown = type(exc).__name__, None
    return RecordError(
        js_well_formed(source),
        f"record {shown!r}" if shown is not None else f"item {ctx.position}",
        f"the {stage.name} stage failed on this record ({utf16_cut(detail, 300)}); it was "
        "skipped and the import went on. This is a bug: please report it with the debug log "
        "(logging 'memtrails.pipeline')",
        # The id lets the import count the record as seen (not pruned), unless it held a
        # secret: an error's id is printed.
        id=raw_id if shown is not None and shown == raw_id else None,
    )


async def each(source: AsyncIterable[Any], stage: Stage, ctx: StageContext) -> AsyncIterator[Any]:
    """Yield every item of ``source`` through ``stage`` (the public operators' one loop)."""
    async with streamcontext(source) as items:
        async for item in items:
            ctx.position += 1
            if stage.heavy(item):
                yield await asyncio.to_thread(run_stage, stage, item, ctx)
            else:
                yield run_stage(stage, item, ctx)
