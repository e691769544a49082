"""The bound on what one record costs to embed: MAX_WINDOWS windows, the rest found by words."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

from memtrails import Memory
from memtrails.embedding import MAX_WINDOWS
from memtrails.embedding._tokens import cut_windows
from memtrails.embedding.server import char_windows
from memtrails.records import MemoryRecord
from memtrails.words import KEYWORD_CHUNK_WORDS, _term_id, passage_keywords

TOKENIZER = Path(
    str(resources.files("memtrails.embedding").joinpath("data", "minilm-l6-v2-tokenizer.json"))
)
LATE = "The quarterly Zorblatt ledger was reconciled by Marisol Quennell."


def long_text(corpora: Path, windows: int) -> str:
    """Return real prose (GSM8K answers) of about ``windows`` model windows, then LATE."""
    answers = [
        json.loads(line)["answer"]
        for line in (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()
    ]
    # About 60 word pieces an answer, 224 a window step.
    return "\n\n".join(answers[: windows * 4]) + "\n\n" + LATE


@pytest.fixture
def tokenizer() -> Tokenizer:
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    return tok


def test_a_text_past_the_bound_gets_max_windows_covering_it_whole(
    corpora: Path, tokenizer: Tokenizer
) -> None:
    text = long_text(corpora, 3 * MAX_WINDOWS)
    [short] = [long_text(corpora, 4)]
    windows = cut_windows(tokenizer, [short, text], 254, 30, first_only=False)
    mine = [w for w in windows if w.text_index == 1]
    assert len(mine) == MAX_WINDOWS
    # Each runs the model over one window's word pieces at most ...
    assert all(len(w.ids) <= 254 for w in mine)
    # ... and the passages still cover the text: the last one spans the rest of it.
    assert mine[0].start == 0 and mine[-1].end == len(text)
    assert mine[-1].start < len(text) // 2
    # A short text is cut as before: its last window ends at its last word piece.
    theirs = [w for w in windows if w.text_index == 0]
    assert 1 < len(theirs) < MAX_WINDOWS and theirs[-1].end == len(short)
    # A query is still its first window.
    [query] = cut_windows(tokenizer, [text], 254, 30, first_only=True)
    assert (query.start, query.end) == (0, mine[0].end)


def test_server_windows_are_bounded_too() -> None:
    text = "word " * 1000
    spans = char_windows(text, 40, 10, max_windows=5)
    assert len(spans) == 5 and spans[0][0] == 0
    assert len(char_windows(text, 40, 10)) == MAX_WINDOWS


def test_a_long_span_weighs_its_words_as_a_passage_would() -> None:
    filler = " ".join(f"w{n}" for n in range(20 * KEYWORD_CHUNK_WORDS))
    # A passage of one chunk's words, "heron" among them once.
    alone = passage_keywords(" ".join(f"w{n}" for n in range(KEYWORD_CHUNK_WORDS - 1)) + " heron")
    span = passage_keywords(filler + " heron")
    heron = _term_id("heron")
    # Over the whole span, one word among 10,000 would weigh almost nothing (0.014 here);
    # in chunks of at most KEYWORD_CHUNK_WORDS it weighs what it does in such a passage.
    assert alone[heron] <= span[heron] <= 1.1 * alone[heron]
    assert list(span) == sorted(span)
    # An ordinary passage is one chunk: the weights are the saturated counts as before.
    assert passage_keywords("tea tea tea")[_term_id("tea")] == pytest.approx(1.6158, abs=1e-4)


@pytest.mark.slow
async def test_a_record_past_the_bound_is_found_by_its_late_words(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    text = long_text(corpora, 2 * MAX_WINDOWS)
    [passages] = await embedder.embed([text])
    assert len(passages) == MAX_WINDOWS and passages[-1].end == len(text)
    others = [
        MemoryRecord(id=f"n{n}", text=f"Note {n}: the ledger of the allotment garden.", source="s")
        for n in range(5)
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest([MemoryRecord(id="month", text=text, source="s"), *others])
        assert report.added == 6
        # Words said only past the bound: found by keyword search alone.
        top = (await memory.search("Zorblatt Quennell", k=3))[0]
        assert top.id == "month" and top.keyword is not None and top.keyword > 0
        # Words of the embedded part are found as before.
        early = text[:300].split("\n")[0]
        assert (await memory.search(early, k=1))[0].id == "month"
