"""Loading an ONNX text encoder off the event loop: the one path every model's loader takes.

``OnnxEmbedder.packaged`` and ``from_paths`` and the multilingual model's loader all come
here, so the hash checks, the thread count and the device are settled in one place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from ._long_queries import LongQueries
from ._session import open_session

_E = TypeVar("_E")

__all__ = ["load_embedder"]


async def load_embedder(
    make: Callable[..., _E],
    model_path: Path,
    tokenizer_path: Path,
    *,
    model_id: str,
    sha256: str | None,
    tokenizer_sha256: str | None,
    source: Mapping[str, Any],
    max_tokens: int,
    threads: int | None,
    batch_size: int,
    batch_tokens: int,
    overlap: int = 32,
    query_prefix: str = "",
    passage_prefix: str = "",
    graph: tuple[Path, str] | None = None,
    device: str | None = None,
    compact_tokenizer: bool = False,
    long_queries: tuple[Path, str] | None = None,
) -> _E:
    """Open ``model_path`` (or ``graph``, a file and its pin, in its stead) in a worker
    thread and wrap it with ``make`` (``OnnxEmbedder``) as that model.

    ``sha256`` pins the model file; a ``graph`` built from it carries its own pin, and the
    embedder still reports the model's ``sha256``, since its vectors are the model's.
    ``compact_tokenizer``: see :func:`open_session`. ``long_queries``: a graph and its pin
    that reads the long queries (``_int8_queries``), opened on first use.

    Raises:
        ValueError: ``threads`` is below 1.
        EmbeddingError: a file is missing, does not match its pin, or cannot be loaded.
    """
    if threads is not None and threads < 1:
        raise ValueError(f"`threads` must be at least 1, got {threads}")
    path, pin = graph or (model_path, sha256)

    def load() -> _E:
        session, tokenizer, actual, tok_actual, used = open_session(
            path,
            tokenizer_path,
            pin,
            tokenizer_sha256,
            threads,
            device,
            compact_tokenizer=compact_tokenizer,
        )
        return make(
            session,
            tokenizer,
            model_id=model_id,
            sha256=actual if graph is None else str(sha256),
            tokenizer_sha256=tok_actual,
            source=source,
            max_tokens=max_tokens,
            overlap=overlap,
            batch_size=batch_size,
            batch_tokens=batch_tokens,
            threads=used,
            query_prefix=query_prefix,
            passage_prefix=passage_prefix,
            optimized=graph is not None,
            **({"long_queries": LongQueries(*long_queries, used)} if long_queries else {}),
        )

    return await asyncio.to_thread(load)
