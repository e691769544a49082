"""A day in numbers whose first two numbers are both 12 or less ("05/04/2024") is 5 April in
most of the world and 4 May in the United States. It was read month first, as ``Date.parse``
reads it, which was wrong for every day-first locale (258 of the 268 wrong days of
``benchmarks/dates_intl.py 31337``). It is now read on evidence (the caller's: a file's other
days; the value's own: a right-to-left comma, a script no month-first locale writes) and is
no date without any."""

from __future__ import annotations

import pytest

from memtrails.day_order import file_order, ordered
from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    "text", ["05/04/2024", "5/4/24", "02-04-2033, 09:29", "Mon 05/04/2024", "4 10 2000"]
)
def test_a_day_of_no_known_order_is_no_date(text: str) -> None:
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "day_first", "want"),
    [
        ("05/04/2024", True, "2024/04/05"),
        ("05/04/2024", False, "2024/05/04"),
        ("2/4/33, 9:29", True, "2033/04/02 9:29"),
        ("02-04-2033 10:00", False, "2033/02/04 10:00"),
    ],
)
def test_the_order_given_reads_it(text: str, day_first: bool, want: str) -> None:
    assert text_ms(text, day_first=day_first) == At.of(want).ms


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("25/04/2024", "2024/04/25"),  # its own numbers say, whatever is given
        ("04/25/2024", "2024/04/25"),
        ("05/05/2024", "2024/05/05"),  # the order does not matter
    ],
)
def test_a_day_that_shows_its_order_is_read_in_it(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms
    assert text_ms(text, day_first=text.startswith("04")) == At.of(want).ms


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2/4/33، 9:29 AM", "2033/04/02 9:29 AM"),  # Urdu's comma: day first
        ("2/4/2033 ጥዋት 9:29:39", "2033/04/02 9:29:39"),  # Amharic (ጥዋት, morning)
        ("Δευ 2/4/2033", "2033/04/02"),  # Greek
    ],
)
def test_a_value_s_own_words_show_a_day_first_locale(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms


def test_a_sources_days_show_its_order_only_where_they_agree() -> None:
    assert file_order(["05/04/2024", "25/12/2023"]) is True
    assert file_order(["05/04/2024", "12/25/2023"]) is False
    assert file_order(["05/04/2024", "12/25/2023", "25/12/2023"]) is None
    assert file_order(["05/04/2024"]) is None
    assert ordered("M10/01/28") == "M10/01/28"  # a Japanese era's day: not this form


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("10/11/6", "2010/11/06"),  # Basque's short form: yy/M/d (it was read 11 October 2006)
        ("91/9/9", "1991/09/09"),
        ("17/8/3 (04:46)", "2017/08/03 04:46"),
    ],
)
def test_a_one_digit_last_number_is_basque_s_year_first(text: str, want: str) -> None:
    assert text_ms(text) == At.of(want).ms


def test_a_one_digit_last_number_after_a_one_digit_first_is_no_date() -> None:
    assert text_ms("3/4/5") is None
