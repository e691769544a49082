"""A datetime whose tzinfo gives no offset (``utcoffset()`` is None) is naive, as Python's own
comparisons and ``isoformat()`` say: it is read as local time, as any naive
datetime is, never as UTC. Drivers and ORMs hand such values over (a "floating" time zone
class, a tzinfo stub whose offset is unknown)."""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo
from pathlib import Path

import pytest
from helpers import in_tz

from memtrails import Memory, from_iterable
from memtrails.record_values import meta_value
from memtrails.records import At, MemoryRecord
from memtrails.testing import HashingEmbedder


class Floating(tzinfo):
    """A time zone that knows no offset: Python treats its datetimes as naive."""

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        return None

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None

    def tzname(self, dt: datetime | None) -> str | None:
        return "floating"


WALL = datetime(2024, 5, 3, 10, 0, 0)
FLOATING = WALL.replace(tzinfo=Floating())


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "Asia/Kolkata"])
def test_at_of_reads_a_floating_datetime_as_the_naive_one(zone: str) -> None:
    with in_tz(zone):
        naive = At.of(WALL)
        assert At.of(FLOATING) == naive
        assert FLOATING.replace(tzinfo=None) == WALL  # Python compares it as naive
        assert MemoryRecord(id="1", text="x", at=FLOATING).at == naive


def test_a_floating_datetime_in_meta_is_written_without_an_offset() -> None:
    assert meta_value("when", FLOATING) == "2024-05-03T10:00:00"


async def test_a_rows_floating_datetime_is_its_local_time(tmp_path: Path) -> None:
    rows = [{"id": "r1", "text": "meeting notes", "at": FLOATING}]
    with in_tz("Europe/Berlin"):
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            report = await memory.ingest(from_iterable(rows), name="rows")
            assert report.added == 1, report.errors
            got = await memory.get("r1")
    assert got is not None and got.at is not None
    assert got.at.iso() == "2024-05-03T08:00:00.000Z"  # 10:00 in Berlin (CEST), not 10:00 UTC
