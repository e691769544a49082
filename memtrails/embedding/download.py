"""Pinned model downloads into ~/.cache/memtrails: size + SHA-256 checked, under a lock file."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

import httpx

from .._exceptions import EmbeddingError
from .onnx import OnnxEmbedder, sha256_file

__all__ = ["PinnedFile", "cache_root", "fetch_model", "pinned_onnx_embedder"]

_CHUNK = 1 << 20
_LOCK_POLL = 0.05  # seconds between attempts on a held lock file


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """A file to fetch: where from, and the size and SHA-256 it must have."""

    url: str
    sha256: str
    size: int


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the download cache: ``cache_dir``, ``$MEMTRAILS_CACHE`` or ``~/.cache/memtrails``."""
    if cache_dir is not None:
        return Path(cache_dir)
    env = os.environ.get("MEMTRAILS_CACHE")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "memtrails"


async def fetch_model(
    url: str,
    *,
    sha256: str,
    size: int,
    cache_dir: str | os.PathLike[str] | None = None,
    stall_timeout: float = 30.0,
) -> Path:
    """Return the local path of a pinned file, downloading it on first use.

    The file lands in ``<cache>/<sha256>/<name from the URL>``. The download streams into a
    private temporary folder (mode 0700) inside the cache, is checked against ``size`` and
    ``sha256``, and is then renamed into place, so a half-written or wrong file is never
    found there. A lock file serialises processes and tasks fetching the same file: the
    second one waits and then finds the finished file.

    Args:
        url: where to download the file from (http or https; redirects are followed).
        sha256: the file's expected SHA-256 (hex).
        size: the file's expected size in bytes.
        cache_dir: the cache folder (default: ``$MEMTRAILS_CACHE`` or ``~/.cache/memtrails``).
        stall_timeout: give up when no byte arrives for this many seconds.

    Returns:
        The path of the verified file.

    Raises:
        EmbeddingError: the download failed, stalled, or gave the wrong size or hash.

    Example::

        path = await fetch_model("https://example.org/model.onnx",
                                 sha256="8199be6f...", size=22_928_619)
    """
    if size < 0:
        raise ValueError(f"`size` must not be negative, got {size}")
    if stall_timeout <= 0:
        raise ValueError(f"`stall_timeout` must be positive, got {stall_timeout}")
    digest = sha256.lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ValueError(f"`sha256` must be 64 hex digits, got {sha256!r}")
    name = Path(urlsplit(url).path).name or "model"
    root = cache_root(cache_dir)
    target = root / digest / name
    await asyncio.to_thread(_make_private_dir, root)
    async with _file_lock(root / f"{digest}.lock"):
        if await asyncio.to_thread(_is_valid, target, digest, size):
            return target
        await asyncio.to_thread(_make_private_dir, target.parent)
        tmp = Path(await asyncio.to_thread(tempfile.mkdtemp, prefix=".fetch-", dir=root))
        try:
            part = tmp / name
            await _download(url, part, digest, size, stall_timeout)
            await asyncio.to_thread(os.replace, part, target)
        finally:
            await asyncio.to_thread(shutil.rmtree, tmp, True)
    return target


async def pinned_onnx_embedder(
    model: PinnedFile,
    tokenizer: PinnedFile,
    *,
    model_id: str,
    max_tokens: int = 256,
    overlap: int = 32,
    threads: int | None = None,
    batch_size: int = 32,
    cache_dir: str | os.PathLike[str] | None = None,
    stall_timeout: float = 30.0,
) -> OnnxEmbedder:
    """Fetch (first use only) a pinned ONNX model and tokenizer, and load them.

    Args:
        model: the ``.onnx`` file's URL, size and SHA-256.
        tokenizer: the ``tokenizer.json`` file's URL, size and SHA-256.
        model_id: the model's stable name for the manifest.
        max_tokens: the model's window in word pieces, special tokens included.
        overlap: word pieces shared by consecutive windows.
        threads: onnxruntime intra-op threads.
        batch_size: windows per inference run.
        cache_dir: the download cache (default ``~/.cache/memtrails``).
        stall_timeout: give up a download after this many seconds without a byte.

    Returns:
        The loaded embedder; its :meth:`~OnnxEmbedder.describe` carries the URLs and pins,
        so :func:`memtrails.embedding.load_embedder` can rebuild it.

    Raises:
        EmbeddingError: a download failed or a file does not match its pin.

    Example::

        embedder = await pinned_onnx_embedder(
            PinnedFile("https://host/e5.onnx", "ab12...", 118_000_000),
            PinnedFile("https://host/tokenizer.json", "cd34...", 17_000_000),
            model_id="multilingual-e5-small", max_tokens=512)
    """
    async with asyncio.TaskGroup() as tg:
        model_task = tg.create_task(
            fetch_model(
                model.url,
                sha256=model.sha256,
                size=model.size,
                cache_dir=cache_dir,
                stall_timeout=stall_timeout,
            )
        )
        tokenizer_task = tg.create_task(
            fetch_model(
                tokenizer.url,
                sha256=tokenizer.sha256,
                size=tokenizer.size,
                cache_dir=cache_dir,
                stall_timeout=stall_timeout,
            )
        )
    return await OnnxEmbedder.from_paths(
        model_task.result(),
        tokenizer_task.result(),
        model_id=model_id,
        sha256=model.sha256,
        tokenizer_sha256=tokenizer.sha256,
        max_tokens=max_tokens,
        overlap=overlap,
        threads=threads,
        batch_size=batch_size,
        source={
            "url": model.url,
            "size": model.size,
            "tokenizer_url": tokenizer.url,
            "tokenizer_size": tokenizer.size,
        },
    )


# --------------------------------------------------------------------- internals


def _make_private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


async def _built_once(
    cache_dir: str | os.PathLike[str] | None,
    name: str,
    build: Callable[[Path], None],
    *,
    force: bool,
) -> Path | None:
    """Return ``models/<name>/model.onnx`` in the cache, ``build`` making the folder first
    (in a worker thread, under a lock file) when it is not there or ``force``; None when it
    cannot be had here (no ``onnx`` package, a cache that is not writable, other bytes than
    the pin's)."""
    folder = cache_root(cache_dir) / "models" / name
    path = folder / "model.onnx"
    try:
        await asyncio.to_thread(_make_private_dir, folder.parent)
        async with _file_lock(folder.parent / f"{name}.lock"):
            if force or not await asyncio.to_thread(path.is_file):
                await asyncio.to_thread(build, folder)
    except (OSError, ImportError, EmbeddingError):
        return None
    return path


def _install_built(folder: Path, data: bytes, sha256: str, what: str) -> None:
    """Write a graph built here as ``folder/model.onnx``: into a temporary folder beside
    ``folder``, synced, checked against ``sha256``, then renamed into place (a killed build
    leaves only the temporary folder, which nothing reads)."""
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=folder.parent))
    try:
        with open(tmp / "model.onnx", "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if sha256_file(tmp / "model.onnx") != sha256:
            raise EmbeddingError(f"{what} built here is not the pinned one")
        if folder.exists():
            shutil.rmtree(folder)
        os.rename(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _is_valid(path: Path, sha256: str, size: int) -> bool:
    """Return whether a cached file is complete; remove it when it is not."""
    try:
        if path.stat().st_size == size and sha256_file(path) == sha256:
            return True
    except FileNotFoundError:
        return False
    # Wrong size or hash: someone changed it. Fetch it again rather than load it.
    path.unlink(missing_ok=True)
    return False


@contextlib.asynccontextmanager
async def _file_lock(path: Path) -> AsyncIterator[None]:
    """Hold an exclusive ``flock`` on ``path``, polling so waiting never blocks the loop.

    Polling with ``LOCK_NB`` (rather than a blocking ``flock`` in a thread) keeps a cancelled
    waiter from taking the lock later in an orphaned thread and never letting it go.
    """
    fd = await asyncio.to_thread(os.open, path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(_LOCK_POLL)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


async def _download(url: str, dest: Path, sha256: str, size: int, stall_timeout: float) -> None:
    """Stream ``url`` into ``dest`` and check its size and hash, or raise EmbeddingError."""
    # httpx's read timeout is the longest wait for the next chunk: exactly a stall.
    timeout = httpx.Timeout(stall_timeout)
    digest = hashlib.sha256()
    received = 0
    try:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=True) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise EmbeddingError(
                    f"downloading {url} failed: HTTP {response.status_code}; "
                    "check the URL or try again later"
                )
            f: BinaryIO = await asyncio.to_thread(open, dest, "wb")
            try:
                # Count bytes as they arrive (for the stall message), write in ~1 MiB pieces.
                pending = bytearray()
                async for chunk in response.aiter_bytes():
                    received += len(chunk)
                    if received > size:
                        raise EmbeddingError(
                            f"downloading {url}: more than the pinned {size} bytes; "
                            "the file on the server is not the pinned one"
                        )
                    digest.update(chunk)
                    pending += chunk
                    if len(pending) >= _CHUNK:
                        await asyncio.to_thread(f.write, bytes(pending))
                        pending.clear()
                await asyncio.to_thread(f.write, bytes(pending))
                await asyncio.to_thread(_sync_close, f)
            except BaseException:
                f.close()
                raise
    except httpx.TimeoutException as exc:
        raise EmbeddingError(
            f"downloading {url} stalled: no data for {stall_timeout:g} s after "
            f"{received} of {size} bytes; try again later"
        ) from exc
    except httpx.HTTPError as exc:
        raise EmbeddingError(f"downloading {url} failed: {exc}") from exc
    if received != size:
        raise EmbeddingError(
            f"downloading {url}: got {received} bytes, the pin says {size}; try again"
        )
    actual = digest.hexdigest()
    if actual != sha256:
        raise EmbeddingError(
            f"downloading {url}: SHA-256 is {actual}, the pin says {sha256}; the file was not kept"
        )


def _sync_close(f: BinaryIO) -> None:
    f.flush()
    os.fsync(f.fileno())
    f.close()
