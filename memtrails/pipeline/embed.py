"""The embed stage: one model call per batch, for the records that need it."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Sequence

from aiostream import pipable_operator, streamcontext

from ..embedding._base import Embedder
from ..items import Staged, StageItem, embed_text

__all__ = ["embed", "embed_text"]


@pipable_operator
async def embed(
    source: AsyncIterable[Sequence[StageItem]],
    embedder: Embedder | Callable[[], Awaitable[Embedder]],
) -> AsyncIterator[Sequence[StageItem]]:
    """Attach passages with vectors to every record of each batch; other items pass through.

    Args:
        embedder: the model, or an async function returning it: then the model is loaded
            only when a batch first holds a record to embed, so a re-run over unchanged
            input never loads it.
    """
    model = embedder if isinstance(embedder, Embedder) else None
    async with streamcontext(source) as batches:
        async for items in batches:
            todo = [item for item in items if isinstance(item, Staged)]
            if todo:
                if model is None:
                    model = await embedder()  # type: ignore[operator]
                vectors = await model.embed([embed_text(s.record) for s in todo])
                for staged, passages in zip(todo, vectors, strict=True):
                    staged.passages = passages
            yield items
