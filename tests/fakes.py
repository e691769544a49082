"""Test doubles for tests that are about something other than the model.

Used only where a test checks the pipeline's plumbing (back-pressure, batching, locking);
everything about search, dedup and the folder runs on the real model and the real index.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from memtrails.embedding._base import Passage, Vector

DIMS = 384


def _vector(text: str) -> Vector:
    v = np.zeros(DIMS, dtype=np.float32)
    for word in text.lower().split():
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
        v[h % DIMS] += 1.0
    norm = float(np.linalg.norm(v)) or 1.0
    return v / norm


class SlowHashEmbedder:
    """Bag-of-words hashing 'model' that can be made slow, and counts what it embeds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls = 0
        self.texts = 0

    @property
    def model_id(self) -> str:
        return "test-hash"

    @property
    def dims(self) -> int:
        return DIMS

    def describe(self) -> dict[str, Any]:
        return {"kind": "test", "model_id": self.model_id, "dims": DIMS, "sha256": None}

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        self.calls += 1
        self.texts += len(texts)
        if self.delay:
            await asyncio.sleep(self.delay)
        return [[Passage(0, len(t), _vector(t))] for t in texts]

    async def embed_query(self, text: str) -> Vector:
        return _vector(text)

    async def aclose(self) -> None:
        pass
