"""Dates in a row's, a dict's or a JSON Lines line's date field that an earlier reading got
wrong, each beside the instant it stands for (so the tests hold in any ``TZ``)."""

# ruff: noqa: RUF001 (full-width digits and signs, on purpose)

from __future__ import annotations

from datetime import datetime

import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.pipeline.normalise import normalise_item


def _readings(written: str, key: str = "date") -> list[At | None]:
    """The time of ``written`` as each value reader reads it: At.of, MemoryRecord's ``at``,
    a row's ``at`` and a JSON Lines field under ``key``."""
    row = normalise_item({"id": "r", "text": "t", "at": written}, source="s", position=1)
    assert isinstance(row, MemoryRecord), row
    return [
        At.of(written),
        MemoryRecord(id="r", text="t", at=written).at,
        row.at,
        record_time({key: written}, None)[1],
    ]


# An epoch stamp in exponent notation, as a spreadsheet writes a big number, and GNU date's
# "@seconds": each was "not a date", the row skipped.
_STAMPS = {
    "excel-seconds": ("1.71473E+09", 1_714_730_000_000),
    "lower-e": ("1.71473e9", 1_714_730_000_000),
    "decimal-comma": ("1,71473E+09", 1_714_730_000_000),
    "exponent-ms": ("1.71473232E+12", 1_714_732_320_000),
    "exponent-us": ("1.71473232E+15", 1_714_732_320_000),
    "at-seconds": ("@1714732320", 1_714_732_320_000),
    "at-fraction": ("@1714732320.250", 1_714_732_320_250),
    "at-small": ("@86400", 86_400_000),  # "@" names the unit: seconds, whatever the size
    "at-negative": ("@-86400", -86_400_000),
}


@pytest.mark.parametrize("name", sorted(_STAMPS))
def test_an_epoch_stamp_in_exponent_or_at_form_is_that_time(name: str) -> None:
    written, ms = _STAMPS[name]
    with in_tz("Asia/Kolkata"):
        assert _readings(written) == [At(ms)] * 4
        assert record_time({"created_at": written}, None)[1] == At(ms)


@pytest.mark.parametrize(
    "written", ["1E+400", "1e-5", "@", "@0", "@99999999999999", "1.5E", "E+09", "@1e9"]
)
def test_numbers_in_those_forms_that_are_no_time_are_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)


# A leap second, an ISO offset after a space, full-width digits and a year with a sign and
# four digits, beside the instant each stands for. A row read none of the first two (a JSON
# Lines field did), and Date.parse reads RFC 2822's "23:59:60" as 23:59:00, a minute early.
_FORMS = {
    "leap-utc": ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
    "leap-fraction": ("2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.500Z"),
    "leap-offset": ("2017-01-01T08:59:60+09:00", "2017-01-01T00:00:00Z"),
    "leap-rfc2822": ("Sat, 31 Dec 2016 23:59:60 +0000", "2017-01-01T00:00:00Z"),
    "spaced-offset": ("2024-05-03T10:00:00 +05:30", "2024-05-03T04:30:00Z"),
    "spaced-minus-sign": ("2024-05-03T10:00:00 \u221205:00", "2024-05-03T15:00:00Z"),
    "full-width-day": ("２０２４-０５-０３", "2024-05-03T00:00:00Z"),
    "full-width-time": (
        "２０２４－０５－０３Ｔ１０：００：００＋０９：００",
        "2024-05-03T01:00:00Z",
    ),
    "java-year-minus-1": ("-0001-05-03", "-000001-05-03T00:00:00Z"),
    "java-year-10000": ("+10000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z"),
}


@pytest.mark.parametrize("name", sorted(_FORMS))
def test_a_hostile_form_is_the_time_it_writes(name: str) -> None:
    written, meant = _FORMS[name]
    with in_tz("America/Sao_Paulo"):
        assert _readings(written) == [At.of(meant)] * 4


def test_a_local_leap_second_and_full_width_digits_read_as_local_time() -> None:
    with in_tz("Asia/Tokyo"):
        assert At.of("2016-12-31 23:59:60") == At.of("2017-01-01T00:00:00+09:00")
        assert At.of("２０２４／５／３　１０：００") == At.of("2024-05-03T10:00:00+09:00")


def test_a_time_alone_with_an_offset_is_no_date_not_the_year_100() -> None:
    """ "10:00 +0100" was read as 1 January of the year 100: the offset's digits as a year."""
    for written in ("10:00 +0100", "10:00 CET", "10:00:00 -0500"):
        with pytest.raises(ValueError, match="not a date"):
            At.of(written)


def test_a_naive_datetime_with_fold_1_is_the_second_of_a_repeated_hour() -> None:
    """``fold=1`` says which 01:30 of the night the clocks go back: the second (EST)."""
    with in_tz("America/New_York"):
        first = datetime(2024, 11, 3, 1, 30)
        second = datetime(2024, 11, 3, 1, 30, fold=1)
        assert At.of(first) == At.of("2024-11-03T01:30:00-04:00")  # as new Date(...)
        assert At.of(second) == At.of("2024-11-03T01:30:00-05:00")
        assert At.of(second).ms == second.timestamp() * 1000
        assert MemoryRecord(id="r", text="t", at=second).at == At.of(second)


# What a JSON Lines field read and a row did not: a day first past 12, .NET's JSON date.
_LINE_FORMS = {
    "day-past-12": ("13/05/2024", "2024/05/13"),
    "day-past-12-time": ("31-12-2024 10:00", "2024/12/31 10:00"),
    "dotnet": ("/Date(1714732320000)/", "2024-05-03T10:32:00Z"),
    "dotnet-offset": ("/Date(1714732320000+0200)/", "2024-05-03T10:32:00Z"),
}


@pytest.mark.parametrize("name", sorted(_LINE_FORMS))
def test_a_row_reads_what_a_json_lines_field_reads(name: str) -> None:
    written, meant = _LINE_FORMS[name]
    with in_tz("Europe/Paris"):
        assert _readings(written) == [At.of(meant)] * 4


@pytest.mark.parametrize("written", ["", "  ", "NaT", "null", "None", "N/A", "nan"])
def test_an_empty_time_in_a_row_is_no_date_as_in_a_json_lines_line(written: str) -> None:
    """A CSV's or a dataframe's empty cell ("", pandas' "NaT") in a row's ``at`` made the
    row an error, and it was skipped; a JSON Lines field read it as no date."""
    row = normalise_item({"id": "r", "text": "t", "at": written}, source="s", position=1)
    assert isinstance(row, MemoryRecord) and row.at is None
    assert MemoryRecord(id="r", text="t", at=written).at is None
    assert record_time({"date": written}, None) == ((), None)
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)  # asked for in code, a time is required


def test_a_value_of_many_leap_seconds_is_no_date_not_a_recursion_error() -> None:
    """Each ":60" was read by reading the value again with one fewer: 100,000 of them ran
    out of Python's stack (RecursionError, the row's import crashed, not skipped)."""
    with pytest.raises(ValueError, match="not a date"):
        At.of("10:00:60 " * 100_000)
    with pytest.raises(ValueError, match="not a date"):
        At.of("2016-12-31 23:59:60 23:59:60")  # a time has one second
