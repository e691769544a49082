"""A record's time given as a number or as digits: bare numbers, compact stamps, zero.

``At.of`` reads what ``Date.parse`` reads, except a number alone, which ``Date.parse``
reads as a year ("0" is 2000, "7" July 2001); a record's ``at`` of 0 is no date, in the
Python API and a database row as in a JSON Lines line.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import in_tz

from memtrails import At, Memory, MemoryRecord, from_cursor
from memtrails.importers._jsonl_dates import record_time
from memtrails.testing import HashingEmbedder

# Numbers that are no date: a missing field, a count, a small id.
_NO_DATE = ["0", "00", "1", "7", "12", "31", "49", "99", "100", "123456", "1234567", "0.5", "-1"]


@pytest.mark.parametrize("text", _NO_DATE)
def test_a_bare_small_number_is_no_date(text: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)
    assert MemoryRecord(id="r", text="t", at=text).at is None


def test_a_four_digit_number_stays_a_year_and_ten_digits_stay_seconds() -> None:
    assert At.of("2024") == At.of("2024-01-01")
    assert At.of("1714694400") == At.of("2024-05-03T00:00:00Z")
    assert At.of("1714694400123") == At.of("2024-05-03T00:00:00.123Z")


def _random_times(n: int) -> list[datetime]:
    rng = random.Random(20240503)
    start = datetime(1900, 1, 1)
    span = (datetime(2100, 12, 31) - start).total_seconds()
    return [start + timedelta(seconds=rng.randrange(int(span))) for _ in range(n)]


@pytest.mark.parametrize("tz", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_compact_stamps_read_as_what_they_say(tz: str) -> None:
    with in_tz(tz):
        for when in _random_times(300):
            iso = when.strftime("%Y-%m-%dT%H:%M:%S")
            local = At.of(iso)  # ISO 8601 without an offset: local time
            digits = when.strftime("%Y%m%d%H%M%S")
            assert At.of(digits) == local, digits
            assert At.of(int(digits)) == local, digits
            assert At.of(digits[:-2]) == At.of(iso[:-3]), digits[:-2]  # YYYYMMDDhhmm
            assert At.of(digits[:8] + "T" + digits[8:]) == local
            assert At.of(digits + "Z") == At.of(iso + "Z"), digits + "Z"
            assert At.of(digits[:8] + "T" + digits[8:] + "Z") == At.of(iso + "Z")
            assert At.of(digits[:8]) == At.of(iso[:10])  # a day: UTC midnight, as ISO
            assert MemoryRecord(id="r", text="t", at=int(digits)).at == local
            assert At.of(digits + ".25") == At(local.ms + 250)  # a fraction of a second
            assert MemoryRecord(id="r", text="t", at=float(digits + ".5")).at == At(local.ms + 500)


@pytest.mark.parametrize(
    "digits",
    [
        "20240503256199",
        "20240503246000",
        "20241399103200",
        "20240431103200",
        "202405032561",
        "202405031032.5",  # a fraction belongs to seconds
    ],
)
def test_compact_digits_that_are_no_time_are_no_date(digits: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(digits)
    assert MemoryRecord(id="r", text="t", at=digits).at is None
    number = float(digits) if "." in digits else int(digits)
    assert MemoryRecord(id="r", text="t", at=number).at is None


@pytest.mark.parametrize("value", [0, 0.0, -0.0, 1, -1, 42, 86_400, 99_999_999, float("nan")])
def test_a_zero_or_small_number_in_a_record_is_no_date(value: float) -> None:
    record = MemoryRecord(id="r", text="t", at=value)
    assert record.at is None
    assert MemoryRecord.from_json(record.to_json()).at is None


def test_a_record_reads_a_number_as_a_json_lines_line_does() -> None:
    """One rule for both: seconds, milliseconds, microseconds, nanoseconds, years, days."""
    seconds = 1_714_732_320
    values: list[int | float] = [
        seconds,
        seconds + 0.25,
        seconds * 1000 + 123,
        seconds * 1_000_000 + 123_456,
        seconds * 1_000_000_000 + 123_456_789,
        -seconds,
        2019,
        20240503,
        20240503103200,
        0,
        7,
        45123,
    ]
    for value in values:
        _, from_line = record_time({"at": value}, None)
        assert MemoryRecord(id="r", text="t", at=value).at == from_line, value
        _, from_text = record_time({"at": str(value)}, None)
        assert MemoryRecord(id="r", text="t", at=str(value)).at == from_text, value
    assert MemoryRecord(id="r", text="t", at=seconds).at == At.of("2024-05-03T10:32:00Z")


async def test_a_zero_time_in_a_cursor_row_is_no_date(tmp_path: Path) -> None:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT, at INT, seq INT)")
    db.executemany(
        "INSERT INTO notes VALUES (?, ?, ?, ?)",
        [
            (1, "unset time", 0, 1),
            (2, "seconds", 1_714_694_400, 2),
            (3, "digits", 20240503103200, 3),
        ],
    )

    def fetch(since: int | None) -> sqlite3.Cursor:
        return db.execute("SELECT * FROM notes WHERE seq >= ?", (since or 0,))

    with in_tz("UTC"):
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            report = await memory.ingest(
                from_cursor(fetch, name="notes", cursor="seq"), name="notes"
            )
            assert report.added == 3, report.errors
            unset, seconds, digits = [await memory.get(str(i)) for i in (1, 2, 3)]
    assert unset is not None and unset.at is None
    assert seconds is not None and seconds.at == At.of(datetime(2024, 5, 3, tzinfo=UTC))
    assert digits is not None and digits.at == At.of("2024-05-03T10:32:00Z")


@pytest.mark.parametrize("text", ["0000-00-00", "0000-00-00 00:00:00", "0000-00-00T00:00:00.000Z"])
def test_mysql_zero_date_is_no_date(text: str) -> None:
    assert MemoryRecord(id="r", text="t", at=text).at is None
    assert record_time({"at": text}, None) == ((), None)
    assert record_time({"at": text, "created": 1_714_694_400}, None)[0] == ("created",)
