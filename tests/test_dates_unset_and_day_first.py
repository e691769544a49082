"""What exports write for a time never set (Go's zero time, .NET's MinValue and MaxValue,
SQL Server's empty datetime, the epoch, pandas' NaT as an integer) is no date, not a record
of the year 1, 1677, 1970 or 9999; and a day written with dots is day first ("03.05.24" is
3 May), in a row as in a JSON Lines line."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from memtrails import MemoryRecord, from_jsonl
from memtrails.records import At

UNSET = [
    "0001-01-01T00:00:00Z",  # Go's time.Time{}
    "0001-01-01T00:00:00",  # .NET's DateTime.MinValue
    "0001-01-01 00:00:00+00:00",
    "1601-01-01T00:00:00Z",  # FILETIME zero
    "1900-01-01 00:00:00.000",  # SQL Server's empty datetime
    "1970-01-01T00:00:00Z",
    "1970-01-01T00:00:00.000Z",
    "1970-01-01 00:00:00 UTC",
    "9999-12-31T23:59:59.9999999",  # .NET's DateTime.MaxValue
    "9999-12-31",
    -62135596800,  # Go's zero time in seconds
    -62135596800000,
    -(2**63),  # pandas' NaT as an int64 of nanoseconds
]


@pytest.mark.parametrize("value", UNSET, ids=repr)
async def test_a_time_never_set_is_no_date(tmp_path: Path, value: str | int) -> None:
    assert MemoryRecord(id="1", text="x", at=value).at is None
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "x", "created_at": value}) + "\n")
    items = [item async for item in from_jsonl(path)]
    record = items[0]
    assert isinstance(record, MemoryRecord), record
    # Kept, not a time (an integer past 2**53 as its digits, as any in meta).
    kept = str(value) if isinstance(value, int) and abs(value) >= 2**53 else value
    assert record.at is None and record.meta["created_at"] == kept


@pytest.mark.parametrize(
    ("value", "iso"),
    [
        ("1970-01-01T00:00:01Z", "1970-01-01T00:00:01.000Z"),  # a second after: a time
        ("1900-01-02", "1900-01-02T00:00:00.000Z"),
        ("9999-12-30", "9999-12-30T00:00:00.000Z"),
        (-100_000_000, "1966-10-31T14:13:20.000Z"),  # before 1970, after 1900: a time
    ],
)
def test_days_beside_them_are_still_times(value: str | int, iso: str) -> None:
    record = MemoryRecord(id="1", text="x", at=value)
    assert record.at is not None and record.at.iso() == iso


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("03.05.2024", "2024/05/03 00:00"),
        ("03.05.24", "2024/05/03 00:00"),
        ("3.5.24 10:32", "2024/05/03 10:32"),
        ("31.12.99", "1999/12/31 00:00"),
        ("03.05.2024.", "2024/05/03 00:00"),
    ],
)
async def test_a_dotted_day_is_day_first_in_a_row_and_a_line(
    tmp_path: Path, text: str, day: str
) -> None:
    want = At.of(day)
    assert MemoryRecord(id="1", text="x", at=text).at == want
    assert At.of(text) == want
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "x", "date": text}) + "\n")
    items = [item async for item in from_jsonl(path)]
    assert isinstance(items[0], MemoryRecord) and items[0].at == want


@pytest.mark.parametrize(
    "value",
    [date.min, datetime.min, datetime.max, date(9999, 12, 31), datetime(1970, 1, 1, tzinfo=UTC)],
    ids=repr,
)
def test_a_drivers_date_never_set_is_no_date(value: date) -> None:
    """A DATE column of 0001-01-01, or a driver's -infinity and infinity as date.min and
    datetime.max: no date, as their strings are."""
    assert MemoryRecord(id="1", text="x", at=value).at is None
    assert MemoryRecord(id="1", text="x", at=datetime(1970, 1, 2, tzinfo=UTC)).at is not None
