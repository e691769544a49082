"""Embedders: the packaged ONNX model, any ONNX model by path or pinned URL, an embedding server."""

from __future__ import annotations

from ._base import Embedder, Passage, Vector
from .onnx import OnnxEmbedder, TokenPassage

__all__ = [
    "Embedder",
    "OnnxEmbedder",
    "Passage",
    "TokenPassage",
    "Vector",
    "default_embedder",
]


async def default_embedder(threads: int | None = None) -> OnnxEmbedder:
    """Load the default model (all-MiniLM-L6-v2 int8, packaged; SHA-256 checked).

    Args:
        threads: onnxruntime intra-op threads (default ``os.cpu_count()``).

    Returns:
        The loaded embedder.

    Raises:
        EmbeddingError: the model package is missing or its file is not the pinned one.

    Example::

        embedder = await default_embedder(threads=2)
    """
    return await OnnxEmbedder.packaged(threads=threads)
