"""Word pieces and windows: what the ONNX embedder feeds its model, and what it gives back."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from ..portable import js_well_formed
from ._base import MAX_WINDOWS, Vector

__all__ = [
    "QUERY_PIECES",
    "TokenPassage",
    "Window",
    "batch_passages",
    "content_window",
    "cut_windows",
    "length_batches",
    "pad_id",
    "padded_feeds",
    "pooled_vectors",
    "prompt_ids",
    "run_length_batches",
    "sha256_file",
    "special_tokens",
    "token_ids",
]

T = TypeVar("T")
_FloatArray = npt.NDArray[np.float32]
_IntArray = npt.NDArray[np.int64]

# A query's meaning is read from its first this many word pieces (about 35 English words);
# its words, for the keyword side, from all of it. The model's time grows with the pieces it
# reads: a question pasted with a page of text (the p95 of search_latency.py's queries is
# 173 pieces) took 45-60 ms of the 2-core budget before any search, about 20 ms at 48. Of the
# dev set's 629 questions, 82 run past 48 pieces (the longest 109): at 64 and at 48 none
# changed rank; at 32 two long quoted snippets lost first place (benchmarks/README.md,
# issue 32).
QUERY_PIECES = 48


@dataclass(frozen=True, slots=True)
class TokenPassage:
    """A passage with its per-token vectors as well as its pooled sentence vector.

    ``tokens`` has one row per content word piece (special tokens and padding excluded), as
    the model's last hidden state gives them (not normalised); ``offsets`` holds each word
    piece's ``(start, end)`` in the text (Python str indices). ``tokens`` is ``None`` for a
    model whose only output is already pooled.
    """

    start: int
    end: int
    vector: Vector
    tokens: _FloatArray | None
    offsets: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class Window:
    text_index: int
    start: int
    end: int
    ids: list[int]
    offsets: tuple[tuple[int, int], ...]


def sha256_file(path: Path) -> str:
    """Return the SHA-256 hex digest of a file, read in 1 MiB chunks (blocking)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def token_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    """Return the word-piece ids of ``text``, without special tokens (blocking)."""
    # The ids alone: tokenizers' call without offsets (0.21 on) takes a fifth of the time of
    # `encode` (0.1 against 0.5 ms for a 1,500-character passage; the reordering asks it for
    # ten passages a search). A batch of one starts no thread pool.
    fast = getattr(tokenizer, "encode_batch_fast", None)
    if fast is not None:
        return list(fast([text], add_special_tokens=False)[0].ids)
    return list(tokenizer.encode(text, add_special_tokens=False).ids)


def content_window(
    max_tokens: int, reserved: int, overlap: int, batch_size: int, batch_tokens: int
) -> int:
    """Return the text's word pieces per window: ``max_tokens`` less the ``reserved`` ones.

    Raises:
        ValueError: an argument is out of range.
    """
    window = max_tokens - reserved
    if window < 2:
        raise ValueError(f"`max_tokens` must leave room for text, got {max_tokens}")
    if not 0 <= overlap < window:
        raise ValueError(f"`overlap` must be in [0, {window}), got {overlap}")
    for name, value in (("batch_size", batch_size), ("batch_tokens", batch_tokens)):
        if value < 1:
            raise ValueError(f"`{name}` must be at least 1, got {value}")
    return window


# Characters a word piece may take, at the most, for a text's head to be read instead of
# all of it (see `_enough`): prose takes 3-5; a head short of pieces is read again whole.
_HEAD_CHARS_PER_PIECE = 6
_MARGIN = 64  # pieces past the last window: the head's last word may be read otherwise


def _enough(text: str, pieces: int) -> str:
    """The head of a long ``text`` that holds the word pieces its windows take, cut before a
    whitespace character (so its last word is whole and its pieces are the whole text's).

    A text of up to a million characters is tokenised in full otherwise, though only its
    first :data:`MAX_WINDOWS` windows are embedded: hundreds of megabytes of pieces and
    offsets for one record. A text without whitespace near the cut is taken whole.
    """
    limit = pieces * _HEAD_CHARS_PER_PIECE
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
    return text[:cut] if cut > limit // 2 else text


def cut_windows(
    tokenizer: Tokenizer,
    texts: list[str],
    size: int,
    overlap: int,
    *,
    first_only: bool,
    max_windows: int = MAX_WINDOWS,
) -> list[Window]:
    """Cut every text into windows of ``size`` content word pieces overlapping by ``overlap``.

    A text gets ``max_windows`` windows at most; the span of its last one then runs on to
    the text's end (its word pieces stay those of the window), so the passages still cover
    the whole text for the keyword vectors.
    """
    step = size - overlap
    needed = size if first_only else size + (max_windows - 1) * step
    # The tokenizer takes UTF-8 only: lone surrogates (a query typed with one) become
    # U+FFFD, as TextEncoder hands them to the reference's tokenizer.
    encodings = tokenizer.encode_batch(
        [js_well_formed(_enough(t, needed)) for t in texts], add_special_tokens=False
    )
    for k, (text, enc) in enumerate(zip(texts, encodings, strict=True)):
        if len(enc.ids) <= needed + _MARGIN and len(text) > len(_enough(text, needed)):
            # The head held fewer pieces than the windows take: the whole text, then.
            encodings[k] = tokenizer.encode(js_well_formed(text), add_special_tokens=False)
    windows: list[Window] = []
    for i, (text, enc) in enumerate(zip(texts, encodings, strict=True)):
        ids: list[int] = enc.ids
        offsets: list[tuple[int, int]] = enc.offsets
        n = len(ids)
        start, first = 0, len(windows)
        while True:
            end = min(start + size, n)
            # The first window starts at 0 and the last ends at len(text), so the passages
            # cover the whole text (keyword vectors then see every word).
            char_start = 0 if start == 0 else offsets[start][0]
            last = end == n or first_only or len(windows) - first + 1 >= max_windows
            char_end = len(text) if end == n or (last and not first_only) else offsets[end - 1][1]
            windows.append(
                Window(i, char_start, char_end, ids[start:end], tuple(offsets[start:end]))
            )
            if last:
                break
            start += step
    return windows


def pooled_vectors(hidden: _FloatArray, mask: _IntArray, *, already_pooled: bool) -> _FloatArray:
    """Return L2-normalised sentence vectors: the mean of the unmasked token vectors."""
    if already_pooled:
        pooled = hidden
    else:
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    normalised: _FloatArray = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
    return normalised


def batch_passages(
    batch: list[Window],
    hidden: _FloatArray,
    mask: _IntArray,
    first: int,
    pooled: bool,
    *,
    keep_tokens: bool,
) -> list[TokenPassage]:
    """Return one passage per window of a run: its sentence vector, and its token vectors
    (the rows from ``first`` on, one per content word piece) when ``keep_tokens``."""
    vectors = pooled_vectors(hidden, mask, already_pooled=pooled)
    passages = []
    for r, w in enumerate(batch):
        tokens: _FloatArray | None = None
        if keep_tokens and not pooled:
            tokens = hidden[r, first : first + len(w.ids)].copy()
        passages.append(TokenPassage(w.start, w.end, vectors[r].copy(), tokens, w.offsets))
    return passages


def special_tokens(tokenizer: Tokenizer) -> tuple[list[int], list[int]]:
    """Return the ids the post-processor puts before and after a single text."""
    enc = tokenizer.encode("a", add_special_tokens=True)
    special = enc.special_tokens_mask
    content = [i for i, s in enumerate(special) if not s]
    if not content:
        return [], []
    return list(enc.ids[: content[0]]), list(enc.ids[content[-1] + 1 :])


def prompt_ids(tokenizer: Tokenizer, prompt: str) -> list[int]:
    """Return a prompt's word pieces; its trailing space is the text's word boundary."""
    if not prompt.strip():
        return []
    return list(tokenizer.encode(prompt.rstrip(), add_special_tokens=False).ids)


def pad_id(tokenizer: Tokenizer) -> int:
    for name in ("[PAD]", "<pad>"):
        found = tokenizer.token_to_id(name)
        if found is not None:
            return int(found)
    return 0


async def run_length_batches(
    windows: list[Window],
    extra: int,
    batch_size: int,
    batch_tokens: int,
    run: Callable[[list[Window]], Awaitable[list[T]]],
) -> list[T]:
    """Run ``windows`` through ``run`` in batches of similar length (``length_batches``, each
    window ``extra`` pieces longer for its special and prompt pieces), one batch at a time;
    return the results in window order."""
    results: list[T | None] = [None] * len(windows)
    lengths = [len(w.ids) + extra for w in windows]
    for chunk in length_batches(lengths, batch_size, batch_tokens):
        for k, result in zip(chunk, await run([windows[k] for k in chunk]), strict=True):
            results[k] = result
    return [r for r in results if r is not None]


def length_batches(lengths: list[int], batch_size: int, batch_tokens: int) -> list[list[int]]:
    """Group item indices by similar length: at most ``batch_size`` items and ``batch_tokens``
    padded pieces per group (a longer item still goes, alone).

    On CPU a run over a few hundred pieces keeps its activations in cache: measured on the
    packaged model, 4 windows of ~60 pieces per run cost about half the CPU of 64 per run.
    """
    order = sorted(range(len(lengths)), key=lambda k: lengths[k])
    groups: list[list[int]] = []
    b = 0
    while b < len(order):
        # Ascending, so the last item taken is the widest: it sets the padding.
        e = b + 1
        while (
            e < len(order)
            and e - b < batch_size
            and (e - b + 1) * lengths[order[e]] <= batch_tokens
        ):
            e += 1
        groups.append(order[b:e])
        b = e
    return groups


def padded_feeds(rows: list[list[int]], pad: int, *, token_types: bool) -> dict[str, _IntArray]:
    """Return a model's inputs for rows of word-piece ids, padded to the longest row."""
    width = max(len(r) for r in rows)
    ids: _IntArray = np.full((len(rows), width), pad, dtype=np.int64)
    mask: _IntArray = np.zeros((len(rows), width), dtype=np.int64)
    for r, row in enumerate(rows):
        ids[r, : len(row)] = row
        mask[r, : len(row)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if token_types:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return feeds
