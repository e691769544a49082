"""The embedding model a folder is bound to, loaded on first use and checked against the manifest."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from ..embedding._base import Embedder, Vector
from .manifest import check_model

__all__ = ["EmbedderFactory", "FolderModel", "manifest_model"]

EmbedderFactory = Callable[[], Awaitable[Embedder]]


def manifest_model(spec: Mapping[str, Any] | None, threads: int | None) -> EmbedderFactory:
    """Return a factory for the model a manifest names (the packaged default when none)."""

    async def make() -> Embedder:
        from ..embedding.loading import default_embedder, load_embedder

        if spec is None:
            return await default_embedder(threads=threads)
        return await load_embedder(spec, threads=threads)

    return make


class FolderModel:
    """Holds the folder's embedder: made once, on first use, and checked against the folder.

    An import that finds nothing new never loads the model.
    """

    def __init__(
        self,
        folder: Path,
        stored: Mapping[str, Any],
        factory: EmbedderFactory,
        embedder: Embedder | None = None,
        *,
        owned: bool = True,
    ) -> None:
        self._folder = folder
        self._stored = stored
        self._factory = factory
        self._embedder = embedder
        self._owned = owned  # a model the caller passed in is the caller's to close
        self._lock = asyncio.Lock()
        self._blank: Vector | None = None

    async def get(self) -> Embedder:
        """Return the embedder, making it on first use.

        Raises:
            ModelMismatchError: the model made is not the one the folder was built with.
        """
        if self._embedder is None:
            async with self._lock:
                if self._embedder is None:
                    made = await self._factory()
                    try:
                        check_model(self._folder, dict(self._stored), made.describe())
                    except BaseException:
                        await made.aclose()
                        raise
                    self._embedder = made
        return self._embedder

    async def blank(self) -> Vector:
        """Return the model's vector for a question that says nothing (made on first use):
        what every record is close to by the model's leaning alone (foreign.py)."""
        if self._blank is None:
            self._blank = await (await self.get()).embed_query(" ")
        return self._blank

    async def aclose(self) -> None:
        """Close the embedder if this folder made it."""
        if self._embedder is not None and self._owned:
            await self._embedder.aclose()
