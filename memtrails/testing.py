"""Test doubles shipped with memtrails: a hashing embedder, an in-memory index, a virtual clock.

For tests and benchmarks that are about something other than the model (plumbing, memory,
back-pressure, timers). Nothing in memtrails uses them by default.
"""

from __future__ import annotations

import asyncio
import hashlib
import selectors
from collections.abc import Sequence
from typing import Any

import numpy as np

from .embedding._base import Passage, Vector
from .folder.index.memory import MemoryIndex

__all__ = ["HashingEmbedder", "MemoryIndex", "VirtualClockLoop"]

# Defined beside the other backends (folder/index/memory.py); its public name is here.
MemoryIndex.__module__ = __name__


class HashingEmbedder:
    """A cheap, deterministic stand-in for the model: one passage per text.

    Implements the ``Embedder`` protocol and counts what it is asked to embed.

    Args:
        dims: vector length.
        words: ``True``: a bag of hashed words (texts sharing words get close vectors, so
            searches return something sensible); ``False``: one hash of the whole text
            (constant cost per byte, for measuring the pipeline's own cost).
        delay: seconds each ``embed`` call waits (a slow model, for back-pressure tests).

    Raises:
        ValueError: ``dims`` is under 1 or ``delay`` negative.

    Example: ``calls`` and ``texts`` count what it was asked to embed:

        >>> import asyncio
        >>> from memtrails.testing import HashingEmbedder
        >>> embedder = HashingEmbedder(8)
        >>> async def run():
        ...     [[passage]] = await embedder.embed(["hello world"])
        ...     query = await embedder.embed_query("hello")
        ...     return passage.start, passage.end, round(float(passage.vector @ query), 3)
        >>> asyncio.run(run()), embedder.calls, embedder.texts
        ((0, 11, 0.707), 1, 1)

    Pass it as ``Memory.open(path, embedder=HashingEmbedder())`` (:class:`memtrails.SearchHit`
    shows a search with it).
    """

    def __init__(self, dims: int = 384, *, words: bool = True, delay: float = 0.0) -> None:
        if dims < 1:
            raise ValueError("`dims` must be positive")
        if delay < 0:
            raise ValueError("`delay` must not be negative")
        self._dims = dims
        self._words = words
        self.delay = delay
        self.calls = 0
        self.texts = 0

    @property
    def model_id(self) -> str:
        """``hashing-words-384`` or ``hashing-text-384``."""
        return f"hashing-{'words' if self._words else 'text'}-{self._dims}"

    @property
    def dims(self) -> int:
        """Vector length."""
        return self._dims

    def describe(self) -> dict[str, Any]:
        """Return what a folder's manifest records about this embedder."""
        return {"kind": "hashing", "model_id": self.model_id, "dims": self._dims}

    def vector(self, text: str) -> Vector:
        """Return the unit vector of ``text``."""
        if self._words:
            v = np.zeros(self._dims, dtype=np.float32)
            for word in text.lower().split():
                digest = hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=4)
                v[int.from_bytes(digest.digest(), "little") % self._dims] += 1.0
        else:
            raw = hashlib.shake_256(text.encode("utf-8", "surrogatepass")).digest(self._dims)
            v = np.frombuffer(raw, dtype=np.int8).astype(np.float32)
        norm = float(np.linalg.norm(v)) or 1.0
        return v / norm

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        """Return one passage per text."""
        self.calls += 1
        self.texts += len(texts)
        if self.delay:
            await asyncio.sleep(self.delay)
        return [[Passage(0, len(t), self.vector(t))] for t in texts]

    async def embed_query(self, text: str) -> Vector:
        """Return the query's vector."""
        return self.vector(text)

    async def aclose(self) -> None:
        """Nothing to release."""


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps ahead whenever every task is waiting on a timer.

    Timeouts and sleeps then take no real time, and timing-dependent code (an idle flush,
    a throttle) runs deterministically: ``asyncio.wait_for(..., 1.0)`` expires exactly
    when nothing else can run first. Meant for code that waits on timers and other tasks:
    time spent in worker threads is not virtual, and timers may fire while a thread works.

    Example::

        with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
            runner.run(main())
    """

    def __init__(self) -> None:
        super().__init__(_JumpingSelector(self))
        self._virtual = 0.0

    def time(self) -> float:
        """Return the virtual time."""
        return self._virtual

    def _jump(self, seconds: float) -> None:
        self._virtual += seconds


class _JumpingSelector(selectors.DefaultSelector):
    def __init__(self, loop: VirtualClockLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if ready or timeout is None or timeout <= 0:
            return ready if ready or timeout is not None else super().select(None)
        # Nothing ready and a timer pending: wake the next timer now, in virtual time. A
        # worker thread reports through the loop's self-pipe, so a short real wait first
        # lets finished threads be seen before timers jump past them.
        ready = super().select(min(timeout, 0.001))
        if not ready:
            self._loop._jump(timeout)
        return ready
