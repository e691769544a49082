"""ISO week dates and days written with CJK or Cyrillic words, read by At.of and JSON Lines."""

# ruff: noqa: RUF001 (Cyrillic words on purpose)

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import pytest
from helpers import in_tz

from memtrails import At
from memtrails.importers._jsonl_dates import record_time
from memtrails.periods import bounds

_RU = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря"
_UK = "січня лютого березня квітня травня червня липня серпня вересня жовтня листопада грудня"
_BG = "януари февруари март април май юни юли август септември октомври ноември декември"


def _days(n: int) -> list[date]:
    rng = random.Random(18)
    return [date(1950, 1, 1) + timedelta(days=rng.randrange(55_000)) for _ in range(n)]


def test_iso_week_dates_read_as_the_day_they_name() -> None:
    for day in _days(300):
        year, week, weekday = day.isocalendar()
        want = At.of(day.isoformat())
        assert At.of(f"{year}-W{week:02d}-{weekday}") == want
        assert At.of(f"{year}W{week:02d}{weekday}") == want
        monday = At.of((day - timedelta(days=weekday - 1)).isoformat())
        assert At.of(f"{year}-W{week:02d}") == monday
        assert At.of(f"{year}-W{week:02d}-{weekday}T10:32:00Z") == At.of(f"{day}T10:32:00Z")


@pytest.mark.parametrize("text", ["2021-W53", "2024-W00", "2024-W54", "2024-W18-8", "2024-W18-0"])
def test_a_week_that_is_not_is_no_date(text: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)


@pytest.mark.parametrize("tz", ["UTC", "America/New_York"])
def test_cjk_days_read_as_the_day_and_time_they_name(tz: str) -> None:
    with in_tz(tz):
        for day in _days(200):
            y, m, d = day.year, day.month, day.day
            midnight = At.of(f"{y}/{m:02d}/{d:02d} 00:00")  # local time, as Date.parse
            afternoon = At.of(f"{y}/{m:02d}/{d:02d} 15:20")
            assert At.of(f"{y}年{m}月{d}日") == midnight
            assert At.of(f"{y}年{m:02d}月{d:02d}日 15:20") == afternoon
            assert At.of(f"{y}年{m}月{d}日(金) 午後3時20分") == afternoon
            assert At.of(f"{y}年{m}月{d}日 星期五 下午3:20") == afternoon
            assert At.of(f"{y}年{m}月{d}日 下午3点20分") == afternoon
            assert At.of(f"{y}年{m}月") == At.of(f"{y}/{m:02d}/01 00:00")  # a month
            assert At.of(f"{y}년 {m}월 {d}일") == midnight
            assert At.of(f"{y}년 {m}월 {d}일 (금) 오후 3:20") == afternoon
            assert At.of(f"{m}월 {d}일 {y}") == midnight


@pytest.mark.parametrize("tz", ["UTC", "Europe/Kyiv"])
def test_cyrillic_month_names_read_as_the_day_they_name(tz: str) -> None:
    with in_tz(tz):
        for day in _days(200):
            y, m, d = day.year, day.month, day.day
            midnight = At.of(f"{y}/{m:02d}/{d:02d} 00:00")
            morning = At.of(f"{y}/{m:02d}/{d:02d} 10:32")
            ru, uk, bg = (words.split()[m - 1] for words in (_RU, _UK, _BG))
            assert At.of(f"{d} {ru} {y}") == midnight, ru
            assert At.of(f"{d} {uk} {y}") == midnight, uk
            assert At.of(f"{d} {bg} {y} г.") == midnight, bg
            assert At.of(f"{d:02d} {ru} {y} г. в 10:32") == morning
            assert At.of(f"{d} {uk} {y} р. о 10:32") == morning
            first = At.of(f"{y}/{m:02d}/01 00:00")
            assert At.of(f"{ru} {y}") == first, ru  # a month: Date.parse alone says 1 January
            assert At.of(f"{uk} {y} р.") == first, uk


@pytest.mark.parametrize(
    "text",
    [
        "31 апреля 2024",  # 31 April
        "2024年2月30日",
        "3 мая",  # no year
        "2024年5月 foo",
        "пятница мая 2024",  # a weekday and no day
        "3 мая 2024 foo",
        "2024年5月3日 foo",
        "3 абвгд 2024",  # no month
        "3 мая 2024 25:00",
    ],
)
def test_what_is_not_a_whole_day_is_no_date(text: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)


def test_json_lines_reads_them_as_at_of_does() -> None:
    for text in ["2024-W18-5", "2024年5月3日 10:32", "3 травня 2024", "2024년 5월 3일"]:
        assert record_time({"date": text}, None) == (("date",), At.of(text))


def test_a_week_is_a_period_for_since_and_until() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    first, last = bounds("2024-W18", "2024-W18", now)
    assert first == At.of("2024-04-29") and last == At(At.of("2024-05-06").ms - 1)
    first, last = bounds("2024-W18-3", "20240501", now)
    assert first == At.of("2024-05-01") and last == At(At.of("2024-05-02").ms - 1)
