"""Embedders: models by name (packaged, or built once), any ONNX model by path or URL, a server.

The model runtimes (onnxruntime, tokenizers, httpx) are heavy to import: everything but the
interface in ``_base`` loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from ._base import IDENTITY_KEYS, MAX_WINDOWS, Embedder, Passage, same_model

if TYPE_CHECKING:
    from ._base import Vector
    from .download import PinnedFile, cache_root, fetch_model, pinned_onnx_embedder
    from .loading import default_embedder, load_embedder
    from .multilingual import build_multilingual_model, multilingual_embedder
    from .onnx import OnnxEmbedder, TokenPassage
    from .registry import DEFAULT_MODEL, MODEL_NAMES, embedder_by_name, model_name
    from .server import OpenAIEmbedder

__all__ = [
    "DEFAULT_MODEL",
    "IDENTITY_KEYS",
    "MAX_WINDOWS",
    "MODEL_NAMES",
    "Embedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "Passage",
    "PinnedFile",
    "TokenPassage",
    "Vector",
    "build_multilingual_model",
    "cache_root",
    "default_embedder",
    "embedder_by_name",
    "fetch_model",
    "load_embedder",
    "model_name",
    "multilingual_embedder",
    "pinned_onnx_embedder",
    "same_model",
]

_LAZY = {
    "Vector": "._base",  # numpy
    "OnnxEmbedder": ".onnx",
    "TokenPassage": ".onnx",
    "OpenAIEmbedder": ".server",
    "PinnedFile": ".download",
    "cache_root": ".download",
    "fetch_model": ".download",
    "pinned_onnx_embedder": ".download",
    "default_embedder": ".loading",
    "load_embedder": ".loading",
    "build_multilingual_model": ".multilingual",
    "multilingual_embedder": ".multilingual",
    "DEFAULT_MODEL": ".registry",
    "MODEL_NAMES": ".registry",
    "embedder_by_name": ".registry",
    "model_name": ".registry",
}


__getattr__ = _lazy_names(__name__, _LAZY, globals())
