"""Dates as exports write them where Date.parse reads none: epoch stamps in any unit, as
numbers or digits, ISO 8601's basic form and comma fraction, MongoDB's Extended JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, RecordError, SourceState

MEANT = "2023-11-14T22:13:20.000Z"  # 1700000000 seconds since 1970


@pytest.mark.parametrize(
    "stamp",
    [
        1_700_000_000,  # seconds: date +%s, time.time()
        1_700_000_000_000,  # milliseconds: Date.now()
        1_700_000_000_000_000,  # microseconds: BigQuery, Postgres epoch * 1e6
        1_700_000_000_000_000_000,  # nanoseconds: Go's UnixNano, pandas
        1.7e9,
        1.7e15,
        1.7e18,
        "1700000000",
        "1700000000000",
        "1700000000000000",
        "1700000000000000000",
        " 1700000000 ",
    ],
)
def test_an_epoch_stamp_in_any_unit_is_its_day_not_1970_nor_the_year_55840(
    stamp: int | float | str,
) -> None:
    assert At.of(stamp).iso() == MEANT


def test_fractions_of_an_epoch_stamp_keep_their_milliseconds() -> None:
    assert At.of("1700000000.25").iso() == "2023-11-14T22:13:20.250Z"
    assert At.of("1700000000.000200").iso() == MEANT  # Slack's ts, written as a string
    assert At.of(1_700_000_000_250_000).iso() == "2023-11-14T22:13:20.250Z"


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("20231114", "2023-11-14T00:00:00.000Z"),
        ("20231114T221320Z", MEANT),
        ("20231114T221320+0100", "2023-11-14T21:13:20.000Z"),
        ("20231114T2213Z", "2023-11-14T22:13:00.000Z"),
        ("20231114T221320.5z", "2023-11-14T22:13:20.500Z"),
        ("2023-11-14T22:13:20,123Z", "2023-11-14T22:13:20.123Z"),
        ("2023-11-14T22:13:20,5+01:00", "2023-11-14T21:13:20.500Z"),
    ],
)
def test_iso_8601_basic_form_and_comma_fraction(written: str, meant: str) -> None:
    assert At.of(written).iso() == meant


@pytest.mark.parametrize("written", ["20231399", "2023111", "12345678901234567890", "1700000000x"])
def test_digits_that_are_no_date_stay_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)


def test_what_date_parse_reads_is_read_as_it_reads_it() -> None:
    # Four digits are a year to Date.parse, and the fixtures hold its results: not seconds.
    assert At.of("2023").iso() == "2023-01-01T00:00:00.000Z"
    assert At.of("2023-11-14T22:13:20.123456Z").iso() == "2023-11-14T22:13:20.123Z"


async def test_json_lines_read_epoch_strings_and_mongodb_dates(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "digits", "created_at": "1700000000"},
        {"id": "b", "text": "micros", "timestamp": 1_700_000_000_000_000},
        {"id": "c", "text": "relaxed", "date": {"$date": "2023-11-14T22:13:20Z"}},
        {"id": "d", "text": "canonical", "date": {"$date": {"$numberLong": "1700000000000"}}},
        {"id": "e", "text": "compact", "time": "20231114T221320Z"},
        {"id": "f", "text": "not a date", "date": {"$date": {"$numberLong": "soon"}}},
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = [i async for i in from_jsonl(path) if not isinstance(i, SourceState)]
    records = {i.id: i for i in items if isinstance(i, MemoryRecord)}
    assert {k: r.at.iso() for k, r in records.items() if r.at} == dict.fromkeys("abcde", MEANT)
    errors = [i for i in items if isinstance(i, RecordError)]
    assert len(errors) == 1 and "line 6" in str(errors[0]) and "'date'" in errors[0].reason
