"""ISO 8601 with its time in hours or its offset in hours: ``date -Ihours`` writes
"2024-05-03T10+02:00", and ISO 8601 allows an offset of hours alone after a time
("2024-05-03T10:00:00+05"). ``Date.parse`` gives NaN for both, and they were no date; a
space before such an offset ("2024-05-03 10:00:00+02", PostgreSQL's text) was read."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        ("2024-05-03T10+02:00", "2024-05-03T08:00:00.000Z"),  # date -Ihours
        ("2024-05-03T10Z", "2024-05-03T10:00:00.000Z"),
        ("2024-05-03T10z", "2024-05-03T10:00:00.000Z"),
        ("2024-05-03T10-0330", "2024-05-03T13:30:00.000Z"),
        ("2024-05-03T10:00:00+05", "2024-05-03T05:00:00.000Z"),
        ("2024-05-03T10:00+05", "2024-05-03T05:00:00.000Z"),
        ("2024-05-03T10:00:00.123456789-03", "2024-05-03T13:00:00.123Z"),
    ],
)
def test_an_iso_time_in_hours_or_with_an_offset_in_hours_is_read(text: str, instant: str) -> None:
    with in_tz("Asia/Kolkata"):  # the offset says when: the local zone plays no part
        assert At.of(text).iso() == instant


def test_an_hour_without_a_zone_is_local_time_as_any_iso_time_without_one() -> None:
    with in_tz("Europe/Berlin"):
        assert text_ms("2024-05-03T10") == At.of("2024-05-03T10:00").ms


@pytest.mark.parametrize(
    "text", ["2024-05-03T25+02:00", "2024-02-30T10+02", "2024-05-03T10:61+02", "2024-05-03T10+2"]
)
def test_no_such_hour_or_day_is_no_date(text: str) -> None:
    assert text_ms(text) is None
