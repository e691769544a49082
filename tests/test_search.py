"""Memory.search on the real model and index: raw scores, confidence, dates, --source."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.cli import main
from memtrails.folder.ranking import CONFIDENT_COSINE
from memtrails.records import MemoryRecord

# MT-Bench's 80 first-turn prompts: varied requests, none about gardening or car repair.
MT_BENCH = "jsonl/fastchat-mt_bench-question.jsonl"


def prompts(corpora: Path) -> list[MemoryRecord]:
    rows = [json.loads(line) for line in (corpora / MT_BENCH).read_text().splitlines()]
    return [
        MemoryRecord(id=str(row["question_id"]), text=row["turns"][0], source="mt-bench")
        for row in rows
    ]


@pytest.mark.slow
async def test_hits_carry_raw_scores_and_abstain_when_nothing_is_close(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(prompts(corpora))
        hits = await memory.search("travel blog about a trip to Hawaii", k=3)
        top = hits[0]
        assert top.id == "81" and "Hawaii" in top.snippet
        assert top.confident and top.dense is not None and top.dense > 0.5
        assert top.keyword is not None and top.keyword > 0
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        as_json = top.to_json()
        assert (as_json["dense"], as_json["keyword"], as_json["confident"]) == (
            round(top.dense, 6),
            round(top.keyword, 6),
            True,
        )

        # A question these prompts cannot answer: flagged, and nothing at all when asked so.
        nothing = "symptoms of vitamin D deficiency"
        flagged = await memory.search(nothing, k=3)
        assert flagged and not any(h.confident for h in flagged)
        assert all(h.confidence is not None and h.confidence < CONFIDENT_COSINE for h in flagged)
        assert await memory.search(nothing, k=3, min_confidence=CONFIDENT_COSINE) == []
        sure = await memory.search("travel blog about Hawaii", min_confidence=CONFIDENT_COSINE)
        assert sure[0] == (await memory.search("travel blog about Hawaii"))[0]

        # A rare name the model cannot place: the keyword match alone makes the search sure.
        await memory.ingest(
            [MemoryRecord(id="x", text="Ticket QX-7731 Zorblatt firmware rollback", source="ops")]
        )
        (named,) = await memory.search("Zorblatt QX-7731", k=1)
        assert named.id == "x" and named.confident

        # The same query twice ranks the same way.
        again = await memory.search("write a poem", k=10)
        assert [h.uid for h in again] == [h.uid for h in await memory.search("write a poem", k=10)]


async def test_a_month_named_in_the_query_favours_records_written_then(
    tmp_path: Path, embedder: Any
) -> None:
    records = [
        MemoryRecord(id=f"r{m}", text="The billing service was deployed", at=f"2024-{m:02}-05")
        for m in (1, 3, 6)
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(records)
        assert (await memory.search("billing deployed in March 2024", k=1))[0].id == "r3"
        assert (await memory.search("billing deployed in June 2024", k=1))[0].id == "r6"


@pytest.mark.slow
def test_cli_search_by_source(corpora: Path, tmp_path: Path, embedder: Any) -> None:
    home = tmp_path / "home"

    async def build() -> None:
        async with Memory.open(home, embedder=embedder) as memory:
            await memory.ingest(prompts(corpora))
            await memory.ingest(
                [MemoryRecord(id="n1", text="Travel notes: a week on Hawaii", source="notes")]
            )

    asyncio.run(build())
    result = CliRunner().invoke(
        main,
        ["search", "trip to Hawaii", "--home", str(home), "--json", "--source", "notes"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    hits = json.loads(result.stdout)
    assert [(h["source"], h["id"]) for h in hits] == [("notes", "n1")]
    assert {"dense", "keyword", "confident"} <= set(hits[0])
