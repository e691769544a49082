"""A time written as French and Portuguese write it ("10h30", "à 10 h 30", "10h") or with
German's "Uhr" after it, in a day named in words: it was passed over and the record was
dated midnight (or, with "Uhr", was no date)."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("3 mai 2024 10h30", "2024-05-03T10:30"),
        ("vendredi 3 mai 2024 à 10h30", "2024-05-03T10:30"),
        ("3 mai 2024 à 10 h 30", "2024-05-03T10:30"),
        ("3 mai 2024 à 9h", "2024-05-03T09:00"),
        ("3 de maio de 2024 às 10h30", "2024-05-03T10:30"),
        ("3. Mai 2024 um 10:30 Uhr", "2024-05-03T10:30"),
        ("3. Mai 2024, 10 Uhr", "2024-05-03T10:00"),
        ("3 mai 2024 10h30 CEST", "2024-05-03T10:30:00+02:00"),
    ],
)
def test_a_clock_in_hours_and_minutes_words_is_that_time(text: str, same_as: str) -> None:
    with in_tz("America/New_York"):
        assert text_ms(text) == At.of(same_as).ms


@pytest.mark.parametrize(
    "text", ["3 mai 2024 25h30", "3 mai 2024 10h75", "3. Mai 2024 um 24:30 Uhr"]
)
def test_no_such_time_is_no_date(text: str) -> None:
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "instant"),
    [
        # macOS's and ICU's full form: "at", and the zone's long name.
        ("Friday, May 3, 2024 at 10:30:00 AM Eastern Daylight Time", "2024-05-03T14:30:00Z"),
        ("3 May 2024 10:30 Central European Summer Time", "2024-05-03T08:30:00Z"),
        ("May 3, 2024 10:30 Pacific Standard Time", "2024-05-03T18:30:00Z"),
        ("3 May 2024 10:30 Coordinated Universal Time", "2024-05-03T10:30:00Z"),
    ],
)
def test_a_time_followed_by_a_zones_long_name_is_read_in_that_zone(text: str, instant: str) -> None:
    """Outlook's long names were read in a mail's Date only: a value with one was no date."""
    with in_tz("Asia/Tokyo"):
        assert text_ms(text) == At.of(instant).ms
