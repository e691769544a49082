"""The embed stage: one model call per batch, for the records that need it."""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence

import numpy as np
from aiostream import pipable_operator, streamcontext

from ..embedding._base import Embedder
from ..embedding.pieces import PieceSink, embed_with_pieces
from ..items import Staged, StageItem, embed_text
from .turn_context import TurnContext

__all__ = ["embed", "embed_text"]

_log = logging.getLogger("memtrails.embedding")


@pipable_operator
async def embed(
    source: AsyncIterable[Sequence[StageItem]],
    embedder: Embedder | Callable[[], Awaitable[Embedder]],
    pieces: PieceSink | None = None,
    context: TurnContext | None = None,
) -> AsyncIterator[Sequence[StageItem]]:
    """Attach passages with vectors to every record of each batch; other items pass through.

    An aiostream operator: ``embed.pipe(embedder)``, after :data:`memtrails.extend.batch`.

    Args:
        source: batches of what :func:`dedup` yields.
        embedder: the model, or an async function returning it: then the model is loaded
            only when a batch first holds a record to embed, so a re-run over unchanged
            input never loads it.
        pieces: where the word pieces' vectors go, summed per batch (the folder's
            word-piece cache), when it wants the model's: the same model run gives them.
        context: the chat turns before (``turn_context``), when the caller keeps them
            between streams (a folder does); else this stream's alone.

    Yields:
        Each batch as it came, once every ``Staged`` in it has its ``passages`` (a list of
        :class:`memtrails.extend.Passage`, each a span of the text and its vector).

    Raises:
        Exception: what the embedder raises, as it raises it (the shipped models: an
            :class:`EmbeddingError` when they cannot load or run).

    Example (the test embedder; ``memtrails.default_embedder()`` is the real model):

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails import embed
        >>> from memtrails.items import Staged
        >>> from memtrails.records import MemoryRecord
        >>> from memtrails.testing import HashingEmbedder
        >>> async def run(batches):
        ...     async with (stream.iterate(batches) | embed.pipe(HashingEmbedder(8))).stream() as out:
        ...         return [batch async for batch in out]
        >>> [[staged]] = asyncio.run(run([[Staged(MemoryRecord(id="1", text="hello"))]]))
        >>> [(p.start, p.end, p.vector.shape) for p in staged.passages]
        [(0, 5, (8,))]
    """
    model = embedder if isinstance(embedder, Embedder) else None
    context = TurnContext() if context is None else context
    async with streamcontext(source) as batches:
        async for items in batches:
            todo = [item for item in items if isinstance(item, Staged)]
            if todo:
                if model is None:
                    model = await embedder()  # type: ignore[operator]
                texts = [embed_text(s.record) for s in todo]
                if pieces is not None and pieces.wants(model.model_id):
                    vectors = await embed_with_pieces(model, texts, pieces.add)
                else:
                    vectors = await model.embed(texts)
                for staged, passages in zip(todo, vectors, strict=True):
                    staged.passages = passages
            # Every batch, one with no record to embed too: an undoable context pairs them.
            await context.mix(todo, functools.partial(_blank, model) if model else _no_blank)
            yield items


async def _no_blank() -> np.ndarray | None:
    return None  # never asked: a batch with nothing embedded holds no turn


async def _blank(model: Embedder) -> np.ndarray | None:
    """The model's vector of a blank passage, or None where it gives none: a server may
    refuse a blank input, and the turns' context is a refinement the import goes on without
    (their vectors are then the plain sum: see ``turn_context``)."""
    try:
        [passages] = await model.embed([" "])
    except Exception as exc:
        _log.info("no vector of a blank passage (%s): chat turns' context kept whole", exc)
        return None
    return passages[0].vector if passages else None
