"""ISO 8601's ordinal date (``2024-124``: a year and its day, as GNU ``date +%Y-%j`` and
mainframes' Julian dates write it) is the ISO date it names; ``Date.parse`` reads none, and
a JSON Lines line with one was an error, skipped."""

from __future__ import annotations

import pytest

from memtrails import At, MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.periods import bounds


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("2024-124", "2024-05-03"),  # 2024 is a leap year: 31+29+31+30+3
        ("2023-124", "2023-05-04"),
        ("2024-001", "2024-01-01"),
        ("2024-366", "2024-12-31"),
        ("2024-124T10:00:00Z", "2024-05-03T10:00:00Z"),
        ("2024-124T10:00:00+02:00", "2024-05-03T10:00:00+02:00"),
        ("2024-124 10:00", "2024-05-03T10:00"),  # local time, as the ISO date-time
    ],
)
def test_an_ordinal_date_is_the_day_it_names(written: str, meant: str) -> None:
    assert At.of(written) == At.of(meant)
    assert record_time({"date": written}, None)[1] == At.of(meant)
    assert MemoryRecord(id="r", text="t", at=written).at == At.of(meant)


@pytest.mark.parametrize("written", ["2023-366", "2024-367", "2024-000"])
def test_a_day_the_year_does_not_have_is_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)
    with pytest.raises(ValueError, match="not a date"):
        record_time({"date": written}, None)


def test_an_ordinal_date_is_a_whole_day_for_since_and_until() -> None:
    first, last = bounds("2024-124", "2024-124")
    assert (first, last) == bounds("2024-05-03", "2024-05-03")
    with pytest.raises(ValueError, match="2023 has no day 366"):
        bounds("2023-366", None)
