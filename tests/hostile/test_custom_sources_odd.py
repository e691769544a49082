"""Custom sources that yield odd values or misbehave: huge numbers, sets, odd watermarks,
sources that fail, are cancelled or are left unfinished."""

from __future__ import annotations

import asyncio
import string
from collections.abc import AsyncIterator, Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory, MemoryRecord, SourceError, from_iterable
from memtrails.importers.cursor import from_cursor, read_watermark
from memtrails.pipeline.normalise import normalise_item
from memtrails.records import At, RecordError, SourceState
from memtrails.testing import HashingEmbedder

HUGE = 10**5000  # str() refuses an int of over 4,300 digits


class DatabaseError(Exception):
    """What a driver raises when the connection drops."""


def _rows(n: int, prefix: str = "r") -> list[dict[str, Any]]:
    return [{"id": f"{prefix}{i}", "text": f"row {i}"} for i in range(n)]


# -- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        {"id": HUGE, "text": "x"},
        {"id": "h", "text": "x", "at": HUGE},
    ],
    ids=["id", "at"],
)
async def test_an_int_too_long_to_write_out_is_one_records_error(
    tmp_path: Path, bad: dict[str, Any]
) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest([bad, {"id": "ok", "text": "fine"}], name="src")
    assert (report.added, report.skipped) == (1, 1), report.errors
    reason = report.errors[0].reason
    assert "set_int_max_str_digits" not in reason  # Python's advice, not the user's
    assert "digits" in reason or "not a time" in reason


def test_an_id_too_long_to_write_out_says_so() -> None:
    item = normalise_item({"id": HUGE, "text": "x"}, "src", 1)
    assert isinstance(item, RecordError)
    assert "`id` is an integer of over" in item.reason and "set_int_max_str" not in item.reason


def test_a_set_in_meta_is_stored_in_one_order_whatever_the_hash_seed() -> None:
    # Set order follows the hash seed: a re-run in another process would find the record
    # changed and embed it again. {8, 1} iterates as [8, 1] in CPython.
    letters = set(string.ascii_lowercase)
    item = normalise_item(
        {"id": "a", "text": "x", "tags": letters, "meta": {"n": {8, 1}, "f": [frozenset({8, 1})]}},
        "src",
        1,
    )
    assert isinstance(item, MemoryRecord)
    assert item.meta["tags"] == sorted(letters)
    assert item.meta["n"] == [1, 8]
    assert item.meta["f"] == [[1, 8]]


def test_a_date_is_read_as_utc_midnight_as_an_iso_date_is() -> None:
    assert At.of(date(2024, 5, 3)) == At.of("2024-05-03")
    item = normalise_item({"id": "a", "text": "x", "at": date(2024, 5, 3)}, "src", 1)
    assert isinstance(item, MemoryRecord) and item.at == At.of("2024-05-03")


def test_a_value_that_cannot_be_a_time_says_what_can() -> None:
    with pytest.raises(TypeError, match="ISO 8601") as caught:
        At.of(Decimal("1700000000"))  # type: ignore[arg-type]
    assert "Decimal" in str(caught.value)


# -- watermarks --------------------------------------------------------------------------------


async def _items(fetch: Any, **options: Any) -> list[Any]:
    return [item async for item in from_cursor(fetch, name="s", cursor="u", **options)]


@pytest.mark.parametrize(
    ("value", "named"),
    [
        (b"\x01", "bytes"),
        ((1, 2), "tuple"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (HUGE, "digits"),
    ],
    ids=["bytes", "tuple", "nan", "inf", "huge int"],
)
async def test_a_cursor_value_that_cannot_be_a_watermark_is_named(value: Any, named: str) -> None:
    items = await _items(lambda since: [{"id": "a", "text": "x", "u": value}])
    errors = [i for i in items if isinstance(i, RecordError)]
    assert len(errors) == 1 and named in errors[0].reason, errors
    assert "no `u` value" not in errors[0].reason  # it has one, of a kind that cannot be used
    state = items[-1]
    assert isinstance(state, SourceState) and "value" not in state.state


async def test_a_huge_int_watermark_never_reaches_the_folders_positions(tmp_path: Path) -> None:
    rows = [{"id": "a", "text": "x", "u": HUGE}, {"id": "b", "text": "y", "u": 5}]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(lambda since: rows, name="s", cursor="u")
        assert (report.added, report.skipped) == (1, 1)
        assert memory.source_state("s") == {"cursor": "u", "type": "int", "value": 5}
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert memory.source_state("s") == {"cursor": "u", "type": "int", "value": 5}


@pytest.mark.parametrize(
    "returned",
    [None, {"id": "a", "text": "x", "u": 1}, "rows", 5],
    ids=["none", "dict", "str", "int"],
)
async def test_a_fetch_that_returns_no_rows_says_what_it_must_return(returned: Any) -> None:
    with pytest.raises(TypeError, match="`fetch` returned a"):
        await _items(lambda since: returned)


def test_a_watermark_scrubbed_of_a_secret_is_read_as_none() -> None:
    # The scrub stage replaces a secret in a position; a marker is no watermark to ask from.
    state = {"cursor": "u", "type": "str", "value": "[secret:github-token]"}
    assert read_watermark(state, "u") is None


async def test_naive_and_aware_datetimes_say_which_is_which() -> None:
    from datetime import UTC, datetime

    rows = [
        {"id": "a", "text": "x", "u": datetime(2024, 1, 1)},
        {"id": "b", "text": "y", "u": datetime(2024, 1, 2, tzinfo=UTC)},
    ]
    errors = [i for i in await _items(lambda since: rows) if isinstance(i, RecordError)]
    assert len(errors) == 1 and "time zone" in errors[0].reason, errors


# -- sources that fail, stop or are cancelled --------------------------------------------------


async def test_a_source_that_fails_keeps_what_came_before_and_names_the_source(
    tmp_path: Path,
) -> None:
    async def rows() -> AsyncIterator[dict[str, Any]]:
        for row in _rows(10):
            yield row
        raise DatabaseError("connection lost")

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(DatabaseError, match="connection lost") as caught:
            await memory.ingest(rows(), name="tickets", batch=64)
        notes = " ".join(getattr(caught.value, "__notes__", []))
        assert "'tickets'" in notes and "10 items" in notes
        # The ten rows were in a partial batch when the source failed: they are kept.
        assert (await memory.status()).records == 10
        again = await memory.ingest(_rows(10), name="tickets")
        assert (again.added, again.unchanged) == (0, 10)


async def test_a_blocking_source_read_in_threads_keeps_what_came_before(tmp_path: Path) -> None:
    def rows() -> Iterator[dict[str, Any]]:
        yield from _rows(10)
        raise DatabaseError("connection lost")

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(DatabaseError, match="connection lost"):
            await memory.ingest(from_iterable(rows(), in_thread=True), name="tickets")
        # The ten rows were read in one worker call with the failure: they are kept.
        assert (await memory.status()).records == 10


async def test_a_plain_generator_is_closed_when_the_import_stops(tmp_path: Path) -> None:
    closed: list[int] = []

    def rows() -> Iterator[dict[str, Any]]:
        n = 0
        try:
            yield {"id": "bad", "text": 5}
            while True:
                n += 1
                yield {"id": f"r{n}", "text": "x"}
        finally:
            closed.append(n)  # a driver closes its cursor here

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(Exception, match="`text` must be a string"):
            await memory.ingest(rows(), name="src", strict=True)
        assert closed, "the generator was left open (its cursor too) when the import stopped"


async def test_a_plain_generator_is_closed_when_the_import_is_cancelled(tmp_path: Path) -> None:
    closed: list[int] = []
    started = asyncio.Event()

    def rows() -> Iterator[dict[str, Any]]:
        n = 0
        try:
            while True:
                n += 1
                if n == 100:
                    started.set()
                yield {"id": f"r{n}", "text": "x"}
        finally:
            closed.append(n)

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        task = asyncio.ensure_future(memory.ingest(rows(), name="src"))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert closed, "the generator was left open when the import was cancelled"


@pytest.mark.parametrize("rows", [200, 5000])
async def test_strict_mode_stops_a_long_source_at_its_first_bad_record(
    tmp_path: Path, rows: int
) -> None:
    # The teardown once waited for ever: the stage reading the source swallowed the
    # cancellation (asyncio.wait_for in Python 3.11) and filled a queue nobody read.
    source = [{"id": "bad", "text": 5}, *_rows(rows)]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(SourceError, match="item 1: `text` must be a string"):
            async with asyncio.timeout(120):  # a guard against the hang, not a speed check
                await memory.ingest(source, name="src", strict=True)


async def test_an_async_fetch_is_closed_when_a_cursor_import_stops(tmp_path: Path) -> None:
    closed: list[bool] = []

    async def fetch(since: Any) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {"id": "bad", "text": 5, "u": 1}
            for n in range(10_000):
                yield {"id": f"r{n}", "text": "x", "u": n}
        finally:
            closed.append(True)  # an async driver closes its cursor here

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(SourceError, match="`text` must be a string"):
            await memory.ingest(fetch, name="s", cursor="u", strict=True)
        assert closed, "the fetch generator was left open when the import stopped"
