"""The stages: batching on size and idle time, bounded read-ahead, errors flowing through."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import functools
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiostream import stream

from memtrails import Memory
from memtrails.extend import in_flight_bound
from memtrails.folder.log import RecordLog
from memtrails.pipeline.batch import batch, prefetch
from memtrails.pipeline.normalise import normalise
from memtrails.records import MemoryRecord, RecordError
from memtrails.testing import HashingEmbedder, VirtualClockLoop


async def _collect(xs: stream.Stream) -> list:  # type: ignore[type-arg]
    async with xs.stream() as it:
        return [x async for x in it]


async def test_batch_flushes_on_size() -> None:
    chunks = await _collect(stream.range(10) | batch.pipe(4, None))
    assert chunks == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_batch_flushes_a_partial_batch_exactly_when_the_source_has_been_quiet_for_idle() -> None:
    """On a virtual clock: a slow cursor's rows come out ``idle`` seconds after the last one."""
    got: list[tuple[list[int], float]] = []

    async def trickle() -> AsyncIterator[int]:
        yield 1
        await asyncio.sleep(0.5)  # quieter than idle: 1 and 2 share a batch
        yield 2
        await asyncio.sleep(30)  # the source stalls, as a slow cursor would
        yield 3

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with (stream.iterate(trickle()) | batch.pipe(100, 1.0)).stream() as it:
            async for chunk in it:
                got.append((chunk, loop.time()))

    with asyncio.Runner(loop_factory=VirtualClockLoop) as runner:
        runner.run(main())
    # [1, 2] left 1 s after 2 arrived (t=0.5), long before the stalled source woke up;
    # [3] left when the source ended.
    assert got == [([1, 2], 1.5), ([3], 30.5)]


async def test_prefetch_reads_at_most_depth_ahead() -> None:
    produced = 0

    async def source() -> AsyncIterator[int]:
        nonlocal produced
        for i in range(100):
            produced += 1
            yield i

    async with (stream.iterate(source()) | prefetch.pipe(3)).stream() as it:
        async for item in it:
            await asyncio.sleep(0.001)
            # the pump holds one item beyond the queue's three
            assert produced - (item + 1) <= 3 + 1


async def test_prefetch_cancels_its_task_on_early_exit() -> None:
    closed = asyncio.Event()

    async def source() -> AsyncIterator[int]:
        try:
            for i in range(1000):
                yield i
        finally:
            closed.set()

    async with (stream.iterate(source()) | prefetch.pipe(2)).stream() as it:
        async for item in it:
            if item == 5:
                break
    assert closed.is_set()
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    assert not [t for t in tasks if "pump" in repr(t)]


async def test_prefetch_and_batch_hand_a_source_failure_to_the_consumer() -> None:
    async def failing() -> AsyncIterator[int]:
        yield 1
        raise OSError("disk went away")

    for stage in (prefetch.pipe(2), batch.pipe(4, None)):
        seen = []
        with pytest.raises(OSError, match="disk went away"):
            async with (stream.iterate(failing()) | stage).stream() as it:
                async for item in it:
                    seen.append(item)
        assert seen in ([1], [])  # what came before the failure, then the failure itself


async def test_normalise_turns_bad_items_into_errors_and_keeps_going() -> None:
    items = [
        {"id": 1, "text": "  hello\u00a0"},
        {"text": "no id"},
        {"id": "x", "text": 5},
        "not a record",
        MemoryRecord(id="r", text="kept"),
        RecordError("src", "line 9", "broken"),
        {"id": "e", "text": "   "},
    ]
    out = await _collect(stream.iterate(items) | normalise.pipe("mine"))
    assert isinstance(out[0], MemoryRecord)
    assert (out[0].id, out[0].text, out[0].source) == ("1", "hello", "mine")
    assert [type(x).__name__ for x in out] == [
        "MemoryRecord",
        "RecordError",
        "RecordError",
        "RecordError",
        "MemoryRecord",
        "RecordError",
        "RecordError",
    ]
    assert "missing `id`" in out[1].reason and out[1].where == "item 2"
    assert "`text` must be a string" in out[2].reason
    assert out[4].source == "mine"
    assert out[6].reason == "record has no text and no title"


async def test_a_meta_value_json_cannot_hold_is_that_records_error_not_the_imports(
    tmp_path: Path,
) -> None:
    # A database row's date or Decimal, put in meta as it came, is read as a row's extra
    # column is; binary bytes or an object of the caller's own are that record's error.
    records = [
        MemoryRecord(id="a", text="first", meta={"n": 1, "due": datetime.date(2024, 1, 2)}),
        MemoryRecord(id="b", text="second", meta={"price": {"net": decimal.Decimal("1.50")}}),
        MemoryRecord(id="c", text="third", meta={"blob": b"\x00\x01\xff\xfe binary"}),
        MemoryRecord(id="d", text="fourth", meta={"n": 3, "obj": object()}),
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(records, name="rows")
        assert (report.added, len(report.errors)) == (2, 2)
        blob, obj = report.errors
        assert blob.where == "record 'c'" and "meta.blob` holds 11 bytes of binary" in blob.reason
        assert obj.where == "record 'd'" and "meta 'obj'" in obj.reason
        assert "isoformat()" in obj.reason
        a, b = await memory.get("a"), await memory.get("b")
        assert a is not None and a.meta["due"] == "2024-01-02"
        assert b is not None and b.meta["price"] == {"net": 1.5}


@pytest.mark.slow
async def test_fast_source_slow_sink_keeps_a_bounded_number_in_flight(tmp_path: Path) -> None:
    """Back-pressure: a source that could produce 2,000 records at once is held back."""
    produced = 0
    reported = 0
    worst = 0
    size = 8

    async def fast_source() -> AsyncIterator[MemoryRecord]:
        nonlocal produced, worst
        for i in range(2000):
            produced += 1
            worst = max(worst, produced - reported)
            yield MemoryRecord(id=str(i), text=f"record number {i}")

    def on_progress(report: object) -> None:
        nonlocal reported
        reported = report.seen  # type: ignore[attr-defined]

    embedder = HashingEmbedder(delay=0.002)  # the slow part of the sink
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        report = await memory.ingest(fast_source(), batch=size, on_progress=on_progress)
    assert report.added == 2000
    # docs/pipeline.md's promise: at most 8 x batch + 2 records held at once.
    assert in_flight_bound(size) == 8 * size + 2
    assert 0 < worst <= 8 * size + 2
    # and it really is the sink that sets the pace: the source was ahead by more than a batch
    assert worst > size


async def test_a_few_edits_spread_through_a_source_are_written_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records the folder already holds do not fill batches: 10 edits spread through a JSON
    Lines file of 1,000 records are a log write or two (one fsync, one index update each),
    not one per 64 records read."""
    from memtrails.add import add_path

    rows = [{"id": str(i), "text": f"record number {i}"} for i in range(1000)]
    source = tmp_path / "records.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    appends: list[int] = []
    append = RecordLog.append

    def counted(log: RecordLog, lines: list[bytes]) -> tuple[int, list[int]]:
        appends.append(len(lines))
        return append(log, lines)

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await add_path(memory, source)
        edited = [
            {**r, "text": f"{r['text']} edited"} if i % 100 == 50 else r for i, r in enumerate(rows)
        ]
        source.write_text("".join(json.dumps(r) + "\n" for r in edited))
        monkeypatch.setattr(RecordLog, "append", counted)
        # No flush for want of input (`idle`): on a loaded machine a pause of a second in
        # the reading would split the batch, and that is not what this test is about.
        monkeypatch.setattr(Memory, "ingest", functools.partialmethod(Memory.ingest, idle=None))
        report = await add_path(memory, source)
        got = await memory.get("150", source=report.sources[0].source)
    assert (report.updated, report.unchanged, report.added) == (10, 990, 0)
    assert sum(appends) == 10 and len(appends) <= 2
    assert got is not None and got.text == "record number 150 edited"
