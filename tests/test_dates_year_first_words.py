"""A year written first with its word for year, then the day (Lithuanian, Armenian, Kazakh,
Basque): a weekday after the day and a comma (``2024 m. gegužės 5 d., ketvirtadienis``, as
``Intl.DateTimeFormat`` writes the full form) made it no date, and so did Basque's endings
as people write them, without brackets (``2024ko maiatzaren 5a``, ``2021eko urriaren 1ean``)."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2024 m. gegužės 5 d., ketvirtadienis", "2024-05-05"),
        ("2024 թ. մայիսի 5, հինգշաբթի", "2024-05-05"),
        ("2016 ж. 16 сәуір, сенбі", "2016-04-16"),
        ("2016(e)ko apirilaren 16(a), larunbata", "2016-04-16"),
        ("2024ko maiatzaren 5a", "2024-05-05"),
        ("2021eko urriaren 1ean", "2021-10-01"),
        ("2024ko maiatzaren 5a, osteguna", "2024-05-05"),
    ],
)
def test_a_year_first_day_is_read(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms


def test_a_clock_after_the_comma_is_kept() -> None:
    assert text_ms("2024ko maiatzaren 5a, 10:30") == At.of("2024/05/05 10:30").ms
    assert text_ms("2024 m. gegužės 5 d., 10:30") == At.of("2024/05/05 10:30").ms


def test_welsh_am_before_the_clock_is_at_not_before_noon() -> None:
    # "am" is Welsh's "at": "20 Mehefin 2001 am 12:16" was read as 00:16.
    with in_tz("UTC"):
        assert text_ms("20 Mehefin 2001 am 12:16") == At.of("2001-06-20T12:16:00Z").ms


def test_assamese_afternoon_before_a_dotted_clock_is_pm() -> None:
    # "অপৰাহ্ন 11.40" (afternoon, in Bengali digits as Intl writes it) was read as 11:40.
    written = "১৬ এপ্ৰিল, ২০১৬ at অপৰাহ্ন ১১.৪০"  # noqa: RUF001 (Bengali digits, on purpose)
    with in_tz("UTC"):
        got = text_ms(written)
    assert got == At.of("2016-04-16T23:40:00Z").ms
