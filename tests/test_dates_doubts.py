"""What a record's time refuses rather than guess: a zone's name that names zones hours apart
(``IST``: India +05:30, Israel +02:00, Ireland +01:00; it was read as India's, and
``10:00 AST 3 May 2024`` as UTC), and a value that writes two years (``30 Dec 2023 - 2 Jan
2024``, which was read as 30 January 2023: a span across a year end, no one day)."""

from __future__ import annotations

import pytest

from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-03 10:00 IST",
        "3 May 2024 10:00 IST",
        "Fri, 3 May 2024 10:00:00 BST",
        "10:00 AST 3 May 2024",
        "3 May 2024 10:00 GST",
    ],
)
def test_a_zone_name_of_several_zones_is_no_date(text: str) -> None:
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2024-05-03 10:00 +0530 IST", "2024-05-03T04:30:00.000Z"),  # the offset says
        ("2024-05-03T10:00:00+05:30 (IST)", "2024-05-03T04:30:00.000Z"),
        ("2024-05-03 10:00 CET", "2024-05-03T09:00:00.000Z"),
        ("2024-05-03 10:00 PST", "2024-05-03T18:00:00.000Z"),  # Date.parse's own: US Pacific
    ],
)
def test_a_zone_of_one_reading_or_with_an_offset_is_read(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms


@pytest.mark.parametrize(
    "text",
    ["Dec 2023 - Jan 2024", "30 Dec 2023 - 2 Jan 2024", "Dec 30, 2023 - Jan 2, 2024"],
)
def test_a_span_across_a_year_end_is_no_date(text: str) -> None:
    assert text_ms(text) is None


def test_one_year_written_twice_is_read() -> None:
    assert text_ms("3 May 2024 (2024)") == At.of("2024-05-03").ms


@pytest.mark.parametrize("text", ["listopad 2021", "1 listopad 2021", "Listopad 2021"])
def test_listopad_without_evidence_of_its_language_is_no_date(text: str) -> None:
    # October in Croatian, November in Polish and Czech: it was read as November.
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("listopad 2021.", "2021-10-01"),  # Croatian's dot after the year
        ("listopad 2021 r.", "2021-11-01"),  # Polish's "r." (rok, year)
        ("czwartek, 4 listopad 2021", "2021-11-04"),  # a Polish weekday
        ("1 listopada 2021", "2021-11-01"),  # Polish's date form
    ],
)
def test_listopad_is_read_on_its_language_s_evidence(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms
