"""Embedders: the packaged ONNX model, any ONNX model by path or pinned URL, an embedding server.

The model runtimes (onnxruntime, tokenizers, httpx) are heavy to import: everything but the
interface in ``_base`` loads on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._base import IDENTITY_KEYS, Embedder, Passage, Vector, same_model

if TYPE_CHECKING:
    from .download import PinnedFile, cache_root, fetch_model, pinned_onnx_embedder
    from .loading import default_embedder, load_embedder
    from .onnx import OnnxEmbedder, TokenPassage
    from .server import OpenAIEmbedder

__all__ = [
    "IDENTITY_KEYS",
    "Embedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "Passage",
    "PinnedFile",
    "TokenPassage",
    "Vector",
    "cache_root",
    "default_embedder",
    "fetch_model",
    "load_embedder",
    "pinned_onnx_embedder",
    "same_model",
]

_LAZY = {
    "OnnxEmbedder": ".onnx",
    "TokenPassage": ".onnx",
    "OpenAIEmbedder": ".server",
    "PinnedFile": ".download",
    "cache_root": ".download",
    "fetch_model": ".download",
    "pinned_onnx_embedder": ".download",
    "default_embedder": ".loading",
    "load_embedder": ".loading",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module, __name__), name)
