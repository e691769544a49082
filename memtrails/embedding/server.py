"""Embedder backed by an OpenAI-compatible ``/v1/embeddings`` server, through httpx."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from .._exceptions import EmbeddingError
from ._base import MAX_WINDOWS, Passage, Vector

__all__ = ["OpenAIEmbedder", "char_windows"]

_RETRY_STATUS = frozenset({408, 429, 500, 502, 503, 504})


def char_windows(
    text: str, max_chars: int, overlap: int, max_windows: int = MAX_WINDOWS
) -> list[tuple[int, int]]:
    """Cut ``text`` into ``(start, end)`` windows of at most ``max_chars`` characters.

    Consecutive windows share about ``overlap`` characters. A window ends at a whitespace
    when one falls in its last fifth, so words are rarely cut. An empty text gives
    ``[(0, 0)]``. At most ``max_windows`` windows: the text past the last is not cut further.
    """
    n = len(text)
    if n <= max_chars:
        return [(0, n)]
    out: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + max_chars, n)
        if end < n:
            cut = text.rfind(" ", end - max_chars // 5, end)
            if cut > start + overlap:
                end = cut
        out.append((start, end))
        if end >= n or len(out) >= max_windows:
            return out
        start = max(end - overlap, start + 1)


class OpenAIEmbedder:
    """Embeds through an OpenAI-compatible server (text-embeddings-inference, vLLM, ...).

    Texts are cut into passages by characters (servers cut by tokens silently, so a long
    mail would otherwise lose its end), sent in batches with at most ``max_concurrency``
    requests in flight, retried on 408/429/5xx and transport errors with bounded exponential
    backoff, and the vectors are L2-normalised.

    Example::

        embedder = await OpenAIEmbedder.connect("http://gpu-box:8080", "bge-small-en-v1.5")
        passages = await embedder.embed(["first text", "second text"])
        await embedder.aclose()
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dims: int | None = None,
        max_concurrency: int = 4,
        batch_size: int = 64,
        max_chars: int = 2000,
        overlap_chars: int = 200,
        max_retries: int = 5,
        backoff: float = 0.5,
        timeout: float = 60.0,
    ) -> None:
        """Configure the client (nothing is sent until the first call).

        Args:
            base_url: the server, e.g. ``http://host:8080`` (a trailing ``/v1`` is accepted).
            model: the model name the server expects; also the manifest's model id.
            api_key: sent as ``Authorization: Bearer``.
            dims: the vectors' length; ``None`` learns it from the first response (see
                :meth:`connect`).
            max_concurrency: requests in flight at most.
            batch_size: passages per request.
            max_chars: characters per passage.
            overlap_chars: characters shared by consecutive passages.
            max_retries: retries per request after a retryable failure.
            backoff: first retry delay in seconds; doubles each time, capped at 30 s.
            timeout: seconds to wait for connecting and for each read.

        Raises:
            ValueError: an argument is out of range.
        """
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"`base_url` must be an http(s) URL, got {base_url!r}")
        if not model:
            raise ValueError("`model` must not be empty")
        for name, value, low in (
            ("max_concurrency", max_concurrency, 1),
            ("batch_size", batch_size, 1),
            ("max_chars", max_chars, 2),
            ("max_retries", max_retries, 0),
        ):
            if value < low:
                raise ValueError(f"`{name}` must be at least {low}, got {value}")
        if not 0 <= overlap_chars < max_chars // 2:
            raise ValueError(f"`overlap_chars` must be in [0, max_chars/2), got {overlap_chars}")
        if dims is not None and dims < 1:
            raise ValueError(f"`dims` must be positive, got {dims}")
        root = base_url.rstrip("/")
        self._url = root + ("/embeddings" if root.endswith("/v1") else "/v1/embeddings")
        self._base_url = base_url
        self._model = model
        self._dims = dims
        self._batch_size = batch_size
        self._max_chars = max_chars
        self._overlap = overlap_chars
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_concurrency = max_concurrency
        self._semaphore = asyncio.Semaphore(max_concurrency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            headers=headers,
            timeout=httpx.Timeout(timeout),
            limits=httpx.Limits(max_connections=max_concurrency),
        )
        self._closed = False

    @classmethod
    async def connect(
        cls, base_url: str, model: str, *, dims: int | None = None, **options: Any
    ) -> OpenAIEmbedder:
        """Create an embedder and, when ``dims`` is not given, learn it with one request.

        Args:
            base_url: the server, e.g. ``http://host:8080``.
            model: the model name the server expects.
            dims: the vectors' length if known (then nothing is sent here).
            **options: the other keyword arguments of :class:`OpenAIEmbedder`.

        Returns:
            An embedder whose :attr:`dims` is known.

        Raises:
            EmbeddingError: the server cannot be reached or answers with an error.

        Example::

            embedder = await OpenAIEmbedder.connect("http://localhost:8080", "bge-small")
        """
        embedder = cls(base_url, model, dims=dims, **options)
        if dims is None:
            try:
                await embedder._request(["dimension probe"])
            except BaseException:
                await embedder.aclose()
                raise
        return embedder

    @property
    def model_id(self) -> str:
        """The server's model name."""
        return self._model

    @property
    def dims(self) -> int:
        """The vectors' length.

        Raises:
            EmbeddingError: not given and no response seen yet (use :meth:`connect`).
        """
        if self._dims is None:
            raise EmbeddingError(
                f"dimensions of {self._model} are not known yet; pass dims= or create the "
                "embedder with `await OpenAIEmbedder.connect(...)`"
            )
        return self._dims

    def describe(self) -> dict[str, Any]:
        """Return the model's identity for the manifest (no API key)."""
        return {
            "kind": "openai",
            "model_id": self._model,
            "dims": self.dims,
            "base_url": self._base_url,
            "max_chars": self._max_chars,
            "overlap_chars": self._overlap,
        }

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        """Return, per text, its passages (character windows) with normalised vectors.

        Args:
            texts: the texts to embed.

        Returns:
            One list of passages per text, in order.

        Raises:
            EmbeddingError: the server failed after the retries, or the embedder is closed.
        """
        if isinstance(texts, str):
            raise TypeError("`texts` must be a sequence of strings, not one string")
        spans = [char_windows(t, self._max_chars, self._overlap) for t in texts]
        flat = [(i, s, e) for i, windows in enumerate(spans) for s, e in windows]
        inputs = [texts[i][s:e] for i, s, e in flat]
        vectors = await self._embed_all(inputs)
        out: list[list[Passage]] = [[] for _ in texts]
        for (i, s, e), v in zip(flat, vectors, strict=True):
            out[i].append(Passage(s, e, v))
        for text, passages in zip(texts, out, strict=True):
            # Past MAX_WINDOWS the last passage spans the rest: keyword-searchable, not embedded.
            last = passages[-1]
            if last.end < len(text):
                passages[-1] = Passage(last.start, len(text), last.vector)
        return out

    async def embed_query(self, text: str) -> Vector:
        """Return the vector of a query (its first ``max_chars`` characters).

        Raises:
            EmbeddingError: the server failed after the retries, or the embedder is closed.
        """
        start, end = char_windows(text, self._max_chars, self._overlap)[0]
        [vector] = await self._request([text[start:end]])
        return vector

    async def aclose(self) -> None:
        """Close the HTTP client. Idempotent."""
        if not self._closed:
            self._closed = True
            await self._client.aclose()

    async def __aenter__(self) -> OpenAIEmbedder:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ----------------------------------------------------------------- internals

    async def _embed_all(self, inputs: list[str]) -> list[Vector]:
        batches = [
            inputs[b : b + self._batch_size] for b in range(0, len(inputs), self._batch_size)
        ]
        # The semaphore inside _request bounds what is in flight; the task group owns the
        # tasks, so a failure cancels the rest and none is left behind.
        try:
            async with asyncio.TaskGroup() as tg:
                tasks = [tg.create_task(self._request(batch)) for batch in batches]
        except ExceptionGroup as group:
            # Callers expect the EmbeddingError itself, as from a single request.
            raise group.exceptions[0] from None
        return [v for task in tasks for v in task.result()]

    async def _request(self, batch: list[str]) -> list[Vector]:
        """POST one batch, retrying retryable failures; return normalised vectors."""
        if self._closed:
            raise EmbeddingError(f"embedder {self._model} was closed; create a new one")
        # Servers reject empty input strings; a space embeds as "no content" just the same.
        body = {"model": self._model, "input": [t if t else " " for t in batch]}
        attempt = 0
        while True:
            delay: float | None = None
            async with self._semaphore:
                try:
                    response = await self._client.post(self._url, json=body)
                except httpx.TransportError as exc:
                    problem = f"{type(exc).__name__}: {exc}"
                else:
                    if response.status_code == 200:
                        return self._parse(response, len(batch))
                    problem = f"HTTP {response.status_code}: {response.text[:200]}"
                    if response.status_code not in _RETRY_STATUS:
                        raise EmbeddingError(
                            f"embedding server {self._url} rejected the request ({problem})"
                        )
                    delay = _retry_after(response)
            if attempt >= self._max_retries:
                raise EmbeddingError(
                    f"embedding server {self._url} failed {attempt + 1} times, last: "
                    f"{problem}; check the server or lower max_concurrency"
                )
            if delay is None:
                # Full jitter keeps many clients from retrying in step.
                delay = random.uniform(0, min(30.0, self._backoff * 2**attempt))
            attempt += 1
            await asyncio.sleep(min(delay, 30.0))

    def _parse(self, response: httpx.Response, expected: int) -> list[Vector]:
        try:
            data = response.json()["data"]
            rows = sorted(data, key=lambda d: int(d["index"]))
            matrix = np.asarray([d["embedding"] for d in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingError(
                f"embedding server {self._url} sent an unexpected answer: {exc}"
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != expected:
            raise EmbeddingError(
                f"embedding server {self._url} sent {matrix.shape[0]} vectors for {expected} inputs"
            )
        if self._dims is None:
            self._dims = int(matrix.shape[1])
        elif matrix.shape[1] != self._dims:
            raise EmbeddingError(
                f"embedding server {self._url} sent {matrix.shape[1]}-dim vectors, "
                f"expected {self._dims}; is it serving another model?"
            )
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        normalised = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        return list(normalised)


def _retry_after(response: httpx.Response) -> float | None:
    """Return the server's ``Retry-After`` in seconds when it gives one as a number."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None
