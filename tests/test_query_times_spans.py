"""Times a question names in several words: a month of a year said in words, holidays, parts
of a year, decades, counts back, and times counted from a date (folder/when_spans.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memtrails.folder.when import query_windows
from memtrails.folder.when_spans import HOLIDAY_REACH, TOLD_AFTER

# A Wednesday.
NOW = datetime(2024, 7, 10, 15, 0, tzinfo=UTC)


def day(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        # A month or a season of a year said in words, or with two digits.
        ("What did Ann cook in May last year?", "2023-05-01", "2023-06-01"),
        ("What did Ann cook in May of last year?", "2023-05-01", "2023-06-01"),
        ("What did Ann plant on the 3rd of May last year?", "2023-05-03", "2023-05-04"),
        ("What did Ann cook in March this year?", "2024-03-01", "2024-04-01"),
        ("Where did they go in June the year before last?", "2022-06-01", "2022-07-01"),
        ("What did Ann cook in May '23?", "2023-05-01", "2023-06-01"),
        ("Which trip was in spring '23?", "2023-03-01", "2023-06-01"),
        ("What did we build in the summer of '98?", "1998-06-01", "1998-09-01"),
        # "last May" is the latest May before this month; "this March" this year's.
        ("What did Ann cook last May?", "2024-05-01", "2024-06-01"),
        ("What did Ann cook last July?", "2023-07-01", "2023-08-01"),
        ("What did Ann cook last September?", "2023-09-01", "2023-10-01"),
        # Counted back from the day asked.
        ("What did Ann cook the month before last?", "2024-05-01", "2024-06-01"),
        ("What did Ann cook the year before last?", "2022-01-01", "2023-01-01"),
        ("Where did we eat the weekend before last?", "2024-06-29", "2024-07-01"),
        ("What did Ann cook over the past two weeks?", "2024-06-26", "2024-07-11"),
        ("What has Ann said in the last few days?", "2024-07-07", "2024-07-11"),
        ("What did Ann cook earlier this month?", "2024-07-01", "2024-07-11"),
        ("What did Ann decide earlier this year?", "2024-01-01", "2024-07-11"),
        ("What did Ann say this morning?", "2024-07-10", "2024-07-11"),
        ("What did Ann cook last night?", "2024-07-09", "2024-07-11"),
        ("What did Ann cook on Monday?", "2024-07-08", "2024-07-11"),
        # Counts past six, in words: a day's count is that day and one each side.
        ("What did Ann cook ten days ago?", "2024-06-29", "2024-07-02"),
        ("What did Ann cook eight weeks ago?", "2024-05-12", "2024-05-19"),
        # Parts of a year reach two weeks into the next part: they are told after.
        ("What happened in early 2023?", "2023-01-01", "2023-05-15"),
        ("What changed in mid-2023?", "2023-05-01", "2023-09-15"),
        ("What did we ship at the end of 2023?", "2023-09-01", "2024-01-15"),
        ("What did we ship late last year?", "2023-09-01", "2024-01-15"),
        ("What did we ship in the first half of 2022?", "2022-01-01", "2022-07-15"),
        ("the H2 2023 roadmap", "2023-07-01", "2024-01-15"),
        ("What bands did Ann like in the 1990s?", "1990-01-01", "2000-01-01"),
        ("What bands did Ann like in the '80s?", "1980-01-01", "1990-01-01"),
        # Holidays of a year, from HOLIDAY_REACH days before to TOLD_AFTER days after.
        ("What did Ann cook for Christmas 2022?", "2022-12-15", "2023-01-09"),
        ("How did Noor travel for Christmas in 2022?", "2022-12-15", "2023-01-09"),
        ("What did Ann cook last Christmas?", "2023-12-15", "2024-01-09"),
        ("Where were they on New Year's Eve 2023?", "2023-12-21", "2024-01-15"),
        ("What did Ann do at Easter 2024?", "2024-03-21", "2024-04-15"),
        ("What did Ann do last Easter?", "2024-03-21", "2024-04-15"),
        ("What did the kids wear for Halloween 2023?", "2023-10-21", "2023-11-15"),
        ("Who came for Thanksgiving 2023?", "2023-11-13", "2023-12-08"),
        ("What did Ann get on Valentine's Day this year?", "2024-02-04", "2024-02-29"),
        # Counted from a full date: from that time to the end of the date (told on it) ...
        ("What did Melanie do the week before 9 June 2023?", "2023-06-02", "2023-06-10"),
        ("What did Melanie do the day before 9 June 2023?", "2023-06-08", "2023-06-10"),
        ("Where was Jon the Sunday before 25 May 2023?", "2023-05-21", "2023-05-26"),
        ("Where was Jon the weekend before 5 June 2023?", "2023-06-03", "2023-06-06"),
        ("What did Jon buy two days before May 5, 2023?", "2023-05-03", "2023-05-06"),
        ("What did Jon do the week before the 9th of June 2023?", "2023-06-02", "2023-06-10"),
        # ... or from the date's end to two weeks past that time.
        ("What did Jon do the day after 9 June 2023?", "2023-06-10", "2023-06-25"),
        ("What did Jon do the weekend after 7 June 2023?", "2023-06-10", "2023-06-26"),
    ],
)
def test_a_time_said_in_several_words_is_one_window(query: str, start: str, end: str) -> None:
    [(a, b)] = query_windows(query, NOW)
    assert (day(a), day(b)) == (start, end)


def test_a_holiday_still_to_come_is_told_of_in_the_plans_before_it() -> None:
    # Asked on 30 November: this year's Christmas has not come; what says where Dad spends it
    # was written before the question, so the window reaches back a month from the day asked.
    [(a, b)] = query_windows(
        "Where is Felix's dad spending Christmas this year?", datetime(2023, 11, 30, tzinfo=UTC)
    )
    assert day(a) == "2023-10-31" and day(b) == "2024-01-09"


def test_a_holiday_without_its_year_is_every_years() -> None:
    windows = query_windows("What did Ann cook over Christmas?", NOW)
    assert len(windows) == NOW.year + 2 - 1970
    assert (day(windows[-3][0]), day(windows[-3][1])) == ("2023-12-15", "2024-01-09")
    easter = query_windows("Where did they go at Easter?", NOW)
    # Easter moves: 2023's was on 9 April, 2024's on 31 March.
    assert [day(a) for a, _ in easter[-3:-1]] == ["2023-03-30", "2024-03-21"]
    assert all(b - a == (HOLIDAY_REACH + TOLD_AFTER + 1) * 86_400_000 for a, b in easter)


@pytest.mark.parametrize(
    "query",
    [
        "How long was their last march through town?",
        "Why this may take a while",  # "may" the verb
        "What does Ann think about Christmas trees?",  # no word placing a time
        "What did Ann do in his 30s?",
        "What does Ann cook on Tuesdays?",  # a habit, not a day
        "What will Ann cook on Tuesday?",  # not said of the past
    ],
)
def test_words_that_are_not_such_a_time_name_none(query: str) -> None:
    assert query_windows(query, NOW) == ()


def test_the_readings_before_stay_as_they_were() -> None:
    # The plain readings win where they read the same words: "the week before last" is
    # not a week counted from a date, "last week" not "the last two weeks".
    [(a, b)] = query_windows("What did Tom do the week before last?", NOW)
    assert (day(a), day(b)) == ("2024-06-24", "2024-07-01")
    [(a, b)] = query_windows("What did Tom do last week?", NOW)
    assert (day(a), day(b)) == ("2024-07-01", "2024-07-08")
    # A day named with its year stays that day, and "before" it opens to all time before.
    [(a, b)] = query_windows("What did Tom do on 9 June 2023?", NOW)
    assert (day(a), day(b)) == ("2023-06-09", "2023-06-10")
    [(a, b)] = query_windows("What did Tom buy before 9 June 2023?", NOW)
    assert day(b) == "2023-06-09"


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        # A month of last year, the month or year before last, said in other languages.
        ("작년 5월에 뭐 했어?", "2023-05-01", "2023-06-01"),
        ("去年五月你做了什么?", "2023-05-01", "2023-06-01"),
        ("Was hast du im Mai letzten Jahres gemacht?", "2023-05-01", "2023-06-01"),
        ("¿Qué hiciste en mayo del año pasado?", "2023-05-01", "2023-06-01"),
        ("Что ты делал в мае прошлого года?", "2023-05-01", "2023-06-01"),
        ("Qu'as-tu fait en mai de l'année dernière ?", "2023-05-01", "2023-06-01"),
        ("지지난달에 뭐 했어?", "2024-05-01", "2024-06-01"),
        ("上上个月你做了什么?", "2024-05-01", "2024-06-01"),
        ("재작년에 어디 갔어?", "2022-01-01", "2023-01-01"),
    ],
)
def test_such_times_in_other_languages_are_read_as_their_english(
    query: str, start: str, end: str
) -> None:
    [(a, b)] = query_windows(query, NOW)
    assert (day(a), day(b)) == (start, end)


@pytest.mark.parametrize(
    "query",
    [
        "크리스마스에 뭐 했어?",
        "圣诞节你做了什么?",
        "Was hast du an Weihnachten gemacht?",
        "¿Qué hiciste en Navidad?",
        "Qu'as-tu fait pour Noël ?",
        "Cosa hai fatto a Natale?",
        "Что ты делал на Рождество?",
    ],
)
def test_christmas_named_in_other_languages_is_every_years(query: str) -> None:
    windows = query_windows(query, NOW)
    assert (day(windows[-3][0]), day(windows[-3][1])) == ("2023-12-15", "2024-01-09")


@pytest.mark.parametrize(
    # "natal" and "Noël" alone are an adjective (a home town) and a name.
    "query",
    ["Qual é a cidade natal dela?", "Qu'a dit Noël ?", "Qual è la sua città natale?"],
)
def test_words_that_name_no_holiday_in_other_languages(query: str) -> None:
    assert query_windows(query, NOW) == ()


def test_a_long_text_of_many_such_words_reads_a_short_slice_after_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each "before" read the whole text after it, as a date and as the time it governs:
    # 2,000 of them in 300 KB took minutes. Now each reads a few dozen characters, so the
    # cost grows with the text's length, not with its square.
    from collections.abc import Callable
    from typing import Any

    from memtrails.folder import when, when_calendar, when_spans

    read: list[int] = []

    def spy(real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(text: str, *args: Any) -> Any:
            read.append(len(text))
            return real(text, *args)

        return wrapped

    monkeypatch.setattr(when_spans, "date_window", spy(when_calendar.date_window))
    monkeypatch.setattr(when, "_named_windows", spy(when._named_windows))
    text = "x the week before 9 x " * 2000 + "before 2020 " * 50
    query_windows(text, NOW)
    assert len(read) > 2000
    assert max(read[1:]) <= 130  # the first is the whole text, read once


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("2023年初发生了什么?", "2023-01-01", "2023-05-15"),
        ("2023년 상반기에 뭐 했어?", "2023-01-01", "2023-07-15"),
        ("2023년 말에 뭐 했어?", "2023-09-01", "2024-01-15"),
        ("Was haben wir Anfang 2023 gemacht?", "2023-01-01", "2023-05-15"),
        ("Qu'avons-nous fait début 2023 ?", "2023-01-01", "2023-05-15"),
        ("¿Qué hicimos a mediados de 2023?", "2023-05-01", "2023-09-15"),
        ("O que fizemos no final de 2023?", "2023-09-01", "2024-01-15"),
        ("Cosa abbiamo fatto a fine 2023?", "2023-09-01", "2024-01-15"),
        ("Что мы сделали в конце 2023 года?", "2023-09-01", "2024-01-15"),
    ],
)
def test_parts_of_a_year_in_other_languages(query: str, start: str, end: str) -> None:
    [(a, b)] = query_windows(query, NOW)
    assert (day(a), day(b)) == (start, end)


def test_english_words_like_those_parts_name_no_part() -> None:
    # "Meta" and "fine" are English words before a year too.
    [(a, b)] = query_windows("What did Meta 2023 earnings show?", NOW)
    assert (day(a), day(b)) == ("2023-01-01", "2024-01-01")
    [(a, b)] = query_windows("Was the 2023 audit fine?", NOW)
    assert (day(a), day(b)) == ("2023-01-01", "2024-01-01")


def test_a_span_of_months_or_a_month_since_without_a_year_is_every_years() -> None:
    windows = query_windows("What did Ann grow from March to May?", NOW)
    assert (day(windows[-3][0]), day(windows[-3][1])) == ("2023-03-01", "2023-06-01")
    windows = query_windows("Where did they ski between December and February?", NOW)
    assert (day(windows[-3][0]), day(windows[-3][1])) == ("2023-12-01", "2024-03-01")
    # "since March" is March, as "since March 2023" is March 2023: what began then.
    windows = query_windows("What has Ann been growing since March?", NOW)
    assert (day(windows[-3][0]), day(windows[-3][1])) == ("2023-03-01", "2023-04-01")
