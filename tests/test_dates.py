"""Date.parse-compatible reading and toISOString-compatible writing."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import in_tz

from memtrails.dates import iso_from_ms, parse_date


@pytest.fixture
def new_york() -> Iterator[None]:
    with in_tz("America/New_York"):
        yield


def _iso(value: str) -> str | None:
    ms = parse_date(value)
    return None if ms is None else iso_from_ms(ms)


def test_mail_dates() -> None:
    assert parse_date("Tue, 1 Apr 2003 10:00:00 -0500") == 1049209200000
    assert _iso("Tue, 02 Apr 2024 10:15:30 +0000 (UTC)") == "2024-04-02T10:15:30.000Z"
    assert _iso("Tue, 2 Apr 2024 10:15:30 PDT") == "2024-04-02T17:15:30.000Z"
    assert _iso("Tue, 2 Apr 2024 10:15:30 GMT+0200") == "2024-04-02T08:15:30.000Z"
    assert _iso("Tue, 2 Apr 99 10:15:30 GMT") == "1999-04-02T10:15:30.000Z"
    assert _iso("Tue, 2 Apr 49 10:15:30 GMT") == "2049-04-02T10:15:30.000Z"


def test_iso_forms() -> None:
    assert _iso("2024-04-02") == "2024-04-02T00:00:00.000Z"  # date-only: UTC
    assert _iso("2024-04-02T10:15:30.123456Z") == "2024-04-02T10:15:30.123Z"
    assert _iso("2024-04-02T10:15:30+0200") == "2024-04-02T08:15:30.000Z"
    assert _iso("2024-02-30") == "2024-03-01T00:00:00.000Z"  # as V8: the day rolls over
    assert _iso("+275760-09-13T00:00:00Z") == "+275760-09-13T00:00:00.000Z"
    assert parse_date("+275760-09-13T00:00:00.001Z") is None  # past the end of time


@pytest.mark.usefixtures("new_york")
def test_forms_without_offset_are_local_time() -> None:
    assert _iso("2024-04-02T10:15") == "2024-04-02T14:15:00.000Z"  # EDT
    assert _iso("2024-01-15T12:00") == "2024-01-15T17:00:00.000Z"  # EST
    assert _iso("4/2/2024 10:15 PM") == "2024-04-03T02:15:00.000Z"
    assert _iso("April 2026") == "2026-04-01T04:00:00.000Z"
    assert _iso("Apr 2") == "2001-04-02T04:00:00.000Z"  # V8: a missing year is 2001
    # DST changes: a skipped time takes the offset before the change, a repeated one the first.
    assert _iso("2024-03-10T02:30") == "2024-03-10T07:30:00.000Z"
    assert _iso("2024-11-03T01:30") == "2024-11-03T05:30:00.000Z"
    assert _iso("1800-01-01T00:00") == "1800-01-01T04:56:02.000Z"  # local mean time


def test_local_time_followsin_tz() -> None:
    with in_tz("Europe/Paris"):
        assert _iso("2024-07-01T12:00") == "2024-07-01T10:00:00.000Z"
    with in_tz("Asia/Tokyo"):
        assert _iso("2024-07-01T12:00") == "2024-07-01T03:00:00.000Z"


@pytest.mark.parametrize(
    "text",
    ["", "now", "not a date", "2024-13-01", "2024-04-02T25:00Z", "Tue, 2 Apr 2024 10:15:30 CET",
     "foo2 Apr 2024", "Tue, 2 Apr 2024 10:15:30 GMT garbage", "2024-04-02T10:15:30+25:00"],
)  # fmt: skip
def test_invalid_dates(text: str) -> None:
    assert parse_date(text) is None


def test_iso_from_ms() -> None:
    assert iso_from_ms(0) == "1970-01-01T00:00:00.000Z"
    assert iso_from_ms(-1) == "1969-12-31T23:59:59.999Z"
    assert iso_from_ms(-62198755200000) == "-000001-01-01T00:00:00.000Z"
    assert iso_from_ms(253402300800000) == "+010000-01-01T00:00:00.000Z"
    with pytest.raises(ValueError, match="range of a JavaScript Date"):
        iso_from_ms(8_640_000_000_000_001)


def test_round_trip_of_the_stored_form() -> None:
    for ms in (0, 1, -1, 1711965600123, -62167219200000, 253402300799999):
        assert parse_date(iso_from_ms(ms)) == ms
