"""A Unigram ``tokenizer.json`` loaded without tokenizers' trie: the same ids, offsets, less memory."""

from __future__ import annotations

import functools
import itertools
import json
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tokenizers import PreTokenizedString, Token, Tokenizer, pre_tokenizers

__all__ = ["compact_unigram"]

_UNK_PENALTY = 10.0  # tokenizers' (and SentencePiece's) K_UNK_PENALTY
_CACHE = 10_000  # words whose pieces are kept, as tokenizers' own Unigram cache
_CHECKED = 2_000  # scores parsed by tokenizers itself to choose how to read the rest


class _Number(str):
    """A JSON number's text, as the file spells it."""


def compact_unigram(path: Path) -> Tokenizer:
    """Load a Unigram ``tokenizer.json`` as a tokenizer with the same ids and offsets.

    ``Tokenizer.from_file`` keeps a Unigram vocabulary in a trie with a hash map per node:
    ~280 MiB for multilingual-e5-small's 250,002 pieces. Here the file's own normaliser,
    added tokens, pre-tokeniser and post-processor are kept as they are; a last
    pre-tokeniser step gives each word its pieces from a dict (piece -> id) and an array of
    scores (~45 MiB), by the Viterbi search tokenizers runs (``Unigram::encode_optimized``:
    the same scores, read as tokenizers reads them, the same order of candidates and ties,
    an unknown character scored ``min - 10``, runs of unknowns fused into one piece). The
    words come out already tokenised, so the model (a ``WordLevel`` of the special pieces,
    there for their ids) never runs.

    Args:
        path: the ``tokenizer.json``.

    Returns:
        The tokenizer (it cannot be saved: its last pre-tokeniser step is Python).

    Raises:
        ValueError: the file is not a Unigram model this loader reproduces (byte fallback,
            no unknown piece, floats outside the vocabulary), or tokenizers reads its
            scores in a way this loader does not know.
    """
    text = path.read_text(encoding="utf-8")
    at = text.find(_VOCAB)
    if at < 0:
        raise ValueError(f"{path} is not a Unigram model (no vocabulary list)")
    read = _score_reader([m.group(2) for m in itertools.islice(_entries(text, at), _CHECKED)])
    pieces: list[str] = []
    scores = array("d")
    end = at
    for m in _entries(text, at):
        piece = m.group(1)
        pieces.append(json.loads(f'"{piece}"') if "\\" in piece else piece)
        scores.append(read(m.group(2)))
        end = m.end()
    doc = json.loads(text[:at] + _VOCAB + "]" + text[end:], parse_float=_Number)
    del text
    model = doc.get("model") or {}
    unk_id = model.get("unk_id")
    if model.get("type") != "Unigram" or model.get("byte_fallback") or unk_id is None:
        raise ValueError(f"{path} is not a Unigram model without byte fallback")
    if model.get("vocab") != [] or _has_float(doc):
        raise ValueError(f"{path}: numbers with a fraction outside the model's vocabulary")
    ids: dict[str, int] = {}
    longest: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        ids[piece] = i  # the last of two equal pieces wins, as in tokenizers' token_to_ids
        if len(piece) > longest.get(piece[0], 0):
            longest[piece[0]] = len(piece)
    unk = pieces[unk_id]
    # The added tokens take their ids from the model: it must know those pieces.
    special = {t["content"]: ids[t["content"]] for t in doc.get("added_tokens", ())}
    doc["model"] = {"type": "WordLevel", "vocab": {unk: ids[unk], **special}, "unk_token": unk}
    del pieces
    tokenizer = Tokenizer.from_str(json.dumps(doc, ensure_ascii=False))
    step = pre_tokenizers.PreTokenizer.custom(_Viterbi(ids, scores, longest, unk_id))
    first = tokenizer.pre_tokenizer
    tokenizer.pre_tokenizer = step if first is None else pre_tokenizers.Sequence([first, step])
    return tokenizer


class _Viterbi:
    """The pre-tokeniser step that gives each word its Unigram pieces."""

    def __init__(
        self, ids: dict[str, int], scores: array[float], longest: dict[str, int], unk_id: int
    ) -> None:
        self._ids = ids
        self._scores = scores
        self._longest = longest
        self._unk_id = unk_id
        # tokenizers scores an unknown character below the lowest score of the vocabulary
        # (special pieces included).
        self._unk_score = min(scores) - _UNK_PENALTY
        self.tokens = functools.lru_cache(maxsize=_CACHE)(self._tokens)

    def pre_tokenize(self, pretok: PreTokenizedString) -> None:
        """Tokenise every split (called by tokenizers)."""
        pretok.tokenize(self.tokens)

    def _tokens(self, text: str) -> list[Token]:
        """Return a word's tokens, with offsets in UTF-8 bytes of ``text`` as the model's."""
        spans = self.spans(text)
        at: Sequence[int] = range(len(text) + 1)
        if not text.isascii():
            at = list(itertools.accumulate((len(ch.encode("utf-8")) for ch in text), initial=0))
        ids = self._ids
        # A fused run of unknowns is looked up as one string, as tokenizers does.
        return [
            Token(ids.get(text[s:e], self._unk_id), text[s:e], (at[s], at[e])) for s, e in spans
        ]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Return the best path's pieces as (start, end) in ``text``, unknowns fused.

        The lattice of ``Unigram::encode_optimized``: positions in order, candidates from
        the shortest; a candidate replaces a node's best path only if its score is higher,
        so the first of equal paths stays. Scores add up in floats as there.
        """
        n = len(text)
        best = [0.0] + [float("-inf")] * n
        start = [0] * (n + 1)
        get, longest, scores = self._ids.get, self._longest.get, self._scores
        for i in range(n):
            base = best[i]
            if text[i] not in self._ids:  # no piece of this one character: an unknown
                score = self._unk_score + base
                if score > best[i + 1]:
                    best[i + 1], start[i + 1] = score, i
            for j in range(i + 1, min(n, i + longest(text[i], 0)) + 1):
                k = get(text[i:j])
                if k is not None:
                    score = scores[k] + base
                    if score > best[j]:
                        best[j], start[j] = score, i
        spans: list[tuple[int, int]] = []
        end, run_end = n, 0
        while end:
            begin = start[end]
            # An unknown character, or the unknown piece itself, fuses with its neighbours.
            if get(text[begin:end], self._unk_id) == self._unk_id:
                run_end = run_end or end
            else:
                if run_end:
                    spans.append((end, run_end))
                    run_end = 0
                spans.append((begin, end))
            end = begin
        if run_end:
            spans.append((0, run_end))
        spans.reverse()
        return spans


_VOCAB = '"vocab":['
_ENTRY = re.compile(r'\["((?:[^"\\]|\\.)*)",(-?[0-9][0-9.eE+-]*)\]([,\]])')


def _entries(text: str, at: int) -> Iterator[re.Match[str]]:
    """Yield the ``["piece",score]`` entries of the vocabulary list that starts at ``at``.

    The vocabulary is read entry by entry rather than by ``json.loads``: its 250,002 lists
    and numbers would leave as many holes among the pieces that stay (~40 MiB kept).

    Raises:
        ValueError: the list is not one of ``[string, number]``.
    """
    pos = at + len(_VOCAB)
    while (m := _ENTRY.match(text, pos)) is not None:
        yield m
        if m.group(3) == "]":
            return
        pos = m.end()
    raise ValueError(f"the vocabulary is not a list of [piece, score] at character {pos}")


def _has_float(node: Any) -> bool:
    if isinstance(node, _Number):
        return True
    if isinstance(node, dict):
        return any(_has_float(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_float(v) for v in node)
    return False


def _score_reader(sample: list[str]) -> Callable[[str], float]:
    """Return the function that reads a score's text into the float tokenizers holds.

    tokenizers reads its JSON with serde_json, which (without its ``float_roundtrip``
    feature) is off by one unit in the last place for about a quarter of e5's scores; a
    different score can change a tie. The sample is read by tokenizers itself, and the
    reader that agrees on all of it is used.

    Raises:
        ValueError: neither reader agrees with tokenizers.
    """
    vocab = ",".join(f'["{i}",{text}]' for i, text in enumerate(sample))
    probe = Tokenizer.from_str(
        '{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],'
        '"normalizer":null,"pre_tokenizer":null,"post_processor":null,"decoder":null,'
        f'"model":{{"type":"Unigram","unk_id":null,"vocab":[{vocab}],"byte_fallback":false}}}}'
    )
    held = [float(s) for _, s in json.loads(probe.to_str())["model"]["vocab"]]
    for reader in (_serde_float, float):
        if [reader(text) for text in sample] == held:
            return reader
    raise ValueError("tokenizers reads the vocabulary's scores in a way not known here")


def _serde_float(text: str) -> float:
    """Read a JSON number as serde_json does by default: its digits as an integer, then
    one multiplication or division by a power of ten (exact up to 10**22).

    Raises:
        ValueError: more digits than fit in 64 bits (serde_json reads those otherwise).
    """
    mantissa, _, exp = text.lower().partition("e")
    whole, _, frac = mantissa.partition(".")
    negative = whole.startswith("-")
    digits = whole.lstrip("-") + frac
    if len(digits) > 19:
        raise ValueError(f"{text}: too many digits")
    exponent = int(exp or 0) - len(frac)
    if abs(exponent) > 308:
        raise ValueError(f"{text}: exponent out of the table")
    value = float(int(digits))
    value = value * float(10**exponent) if exponent >= 0 else value / float(10**-exponent)
    return -value if negative else value
