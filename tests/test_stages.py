"""The per-record stages: one form each, a guard around each, and cuts made after scrubbing."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from aiostream import stream

from memtrails import Limits, Memory, MemoryRecord, RecordError
from memtrails.pipeline import scrub as scrub_module
from memtrails.pipeline.batch import read_ahead
from memtrails.pipeline.normalise import normalise
from memtrails.pipeline.stages import STAGES
from memtrails.testing import HashingEmbedder

TOKEN = "ghp_" + "Zq7Rw2Lk9Xv4Bn8Mt3Hy6Jd1Fs5Gc0Pa2We4R"  # GitHub's classic token shape


def test_an_import_walks_every_stage_in_order() -> None:
    assert [stage.name for stage in STAGES] == ["normalise", "scrub", "fit", "dedup"]


async def test_a_stage_that_raises_on_one_record_costs_only_that_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real = scrub_module.scrub_record

    def brittle(record: MemoryRecord) -> Any:
        if "BOOM" in record.text:  # a scrubber bug, as a multi-byte cut once was
            raise UnicodeDecodeError("utf-8", b"\xe2\x94", 0, 1, f"cut near {TOKEN}")
        return real(record)

    monkeypatch.setattr(scrub_module, "scrub_record", brittle)
    records = [
        MemoryRecord(id="a", text="before"),
        MemoryRecord(id="b", text="BOOM ─── Access Token"),
        MemoryRecord(id="c", text="after"),
    ]
    caplog.set_level(logging.DEBUG, logger="memtrails.pipeline")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(records, name="s")
        assert report.added == 2 and report.skipped == 1
        (error,) = report.errors
        assert error.where == "record 'b'" and "the scrub stage failed" in error.reason
        assert "UnicodeDecodeError" in error.reason
        assert TOKEN not in error.reason  # the exception's message is scrubbed too
        assert await memory.get("c") is not None and await memory.get("b") is None
    assert "Traceback" in caplog.text or any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize("lead", [10, 25, 60])
async def test_a_secret_across_the_text_limit_is_scrubbed_whole(tmp_path: Path, lead: int) -> None:
    limit = 200
    text = "x" * (limit - lead) + " " + TOKEN + " and then more words " * 20
    title = "y" * (500 - lead) + " " + TOKEN
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(
            [MemoryRecord(id="r", text=text, title=title)],
            name="s",
            limits=Limits(max_text_units=limit),
        )
        stored = await memory.get("r")
    assert stored is not None and report.secrets == {"github-token": 2}
    for value, cap in ((stored.text, limit), (stored.title or "", 500)):
        assert len(value) <= cap
        # no piece of the token is left, and a marker is whole or absent
        assert not any(TOKEN[i : i + 6] in value for i in range(len(TOKEN) - 5))
        assert "[secret" not in value or "[secret:github-token]" in value
    cuts = {note["field"]: note for note in stored.meta["_cut"]}
    assert cuts["text"]["kept"] == len(stored.text) and cuts["text"]["was"] == len(text.strip())


async def test_the_operators_turn_a_failure_into_an_error() -> None:
    class Exploding(dict[str, Any]):
        def __iter__(self) -> Any:
            raise RuntimeError("a row that cannot be read")

    composed = stream.iterate([{"id": "1", "text": "ok"}, Exploding(id="2")]) | normalise.pipe("s")
    async with composed.stream() as items:
        out = [item async for item in items]
    assert isinstance(out[0], MemoryRecord)
    assert isinstance(out[1], RecordError) and "the normalise stage failed" in out[1].reason


async def test_a_cancellation_during_teardown_propagates() -> None:
    """A consumer cancelled while a stage waits for its pump to close stops there."""
    closing = asyncio.Event()
    reached_after = False

    async def source() -> AsyncIterator[int]:
        try:
            for n in range(1000):
                yield n
                await asyncio.sleep(0)
        finally:
            closing.set()
            await asyncio.sleep(0.3)  # a slow close (a file, a thread, a connection)

    async def consume() -> None:
        nonlocal reached_after
        async with aclosing(read_ahead(source(), 1)) as items:
            async for _ in items:
                break
        reached_after = True
        await asyncio.sleep(0)

    task = asyncio.ensure_future(consume())
    await closing.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not reached_after, "the cancellation was swallowed by the stage's teardown"


async def test_a_source_that_swallows_its_cancellation_does_not_hang_the_teardown(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A custom source that catches CancelledError and goes on yielding (a retry loop
    written with ``except asyncio.CancelledError: continue``) still lets its stage close."""
    swallowed = 0

    async def source() -> AsyncIterator[int]:
        nonlocal swallowed
        n = 0
        while True:
            try:
                await asyncio.sleep(0.001)  # a poll, a network read
            except asyncio.CancelledError:
                swallowed += 1
                continue
            n += 1
            yield n

    caplog.set_level(logging.WARNING, logger="memtrails.pipeline")
    async with asyncio.timeout(20):  # the teardown used to wait here for ever
        async with aclosing(read_ahead(source(), 4)) as items:
            async for _ in items:
                break
    assert swallowed >= 1
    assert "went on after its cancellation" in caplog.text


async def test_a_source_that_fails_to_close_does_not_hang_the_teardown() -> None:
    """A source with a bare ``except:`` around its yield catches the teardown's
    cancellation and yields again, so its close fails; with its stage's queue full, handing
    that failure to a consumer that has left used to wait for ever."""
    caught: list[type[BaseException]] = []

    async def source() -> AsyncIterator[int]:
        n = 0
        while True:
            try:
                n += 1
                yield n
            except BaseException as exc:  # the bug this test is about
                caught.append(type(exc))
                yield -1

    async with asyncio.timeout(20):
        async with aclosing(read_ahead(source(), 1)) as items:
            async for _ in items:
                await asyncio.sleep(0.01)  # the pump fills the queue meanwhile
                break
    assert asyncio.CancelledError in caught
