"""Years counted from an era: Japan's (令和5年, R5.4.1, 元年 its first year), the Republic
of China's (民國112年) and the Thai Buddhist era's (พ.ศ. 2566, 543 years ahead) are read as
the Gregorian year, never as the year 5, 112 or 2566; a day before its era began is none."""

# ruff: noqa: RUF001 (full-width letters and digits on purpose)

from __future__ import annotations

import random
from datetime import date, timedelta

import pytest
from helpers import in_tz

from memtrails import At
from memtrails.importers._jsonl_dates import record_time

# Each era's first day and its kanji name and initial.
ERAS = [
    ("明治", "M", date(1873, 1, 1)),  # Japan's days were lunar ones before 1873
    ("大正", "T", date(1912, 7, 30)),
    ("昭和", "S", date(1926, 12, 25)),
    ("平成", "H", date(1989, 1, 8)),
    ("令和", "R", date(2019, 5, 1)),
]
ERA_YEAR_ONE = {"明治": 1868, "大正": 1912, "昭和": 1926, "平成": 1989, "令和": 2019}
THAI = "มกราคม กุมภาพันธ์ มีนาคม เมษายน พฤษภาคม มิถุนายน กรกฎาคม สิงหาคม กันยายน ตุลาคม พฤศจิกายน ธันวาคม"
THAI_SHORT = "ม.ค. ก.พ. มี.ค. เม.ย. พ.ค. มิ.ย. ก.ค. ส.ค. ก.ย. ต.ค. พ.ย. ธ.ค."
KANJI = "〇一二三四五六七八九"


def _kanji(n: int) -> str:
    tens, ones = divmod(n, 10)
    return (("" if tens == 1 else KANJI[tens]) + "十" if tens else "") + (
        KANJI[ones] if ones else ""
    )


def _local(day: date, clock: str = "00:00") -> At:
    return At.of(f"{day.year}/{day.month:02d}/{day.day:02d} {clock}")


@pytest.mark.parametrize("tz", ["UTC", "Asia/Tokyo", "America/New_York"])
def test_japanese_era_days_are_their_gregorian_days(tz: str) -> None:
    rng = random.Random(61)
    with in_tz(tz):
        for name, initial, first in ERAS:
            for _ in range(60):
                day = first + timedelta(days=rng.randrange(7000))
                n = day.year - ERA_YEAR_ONE[name] + 1
                written = "元" if n == 1 else str(n)
                want = _local(day)
                assert At.of(f"{name}{written}年{day.month}月{day.day}日") == want
                assert (
                    At.of(
                        f"{name}{_kanji(n) if n > 1 else '元'}年{_kanji(day.month)}月{_kanji(day.day)}日"
                    )
                    == want
                )
                assert At.of(f"{initial}{n}.{day.month}.{day.day}") == want
                assert At.of(f"{initial}{n:02d}/{day.month:02d}/{day.day:02d}") == want
                assert At.of(f"{initial}{n}-{day.month}-{day.day} 15:20") == _local(day, "15:20")
                assert At.of(
                    f"{name}{written}年{day.month}月{day.day}日(金) 午後3時20分"
                ) == _local(day, "15:20")


def test_era_years_alone_months_and_first_years() -> None:
    with in_tz("Asia/Tokyo"):
        assert At.of("平成31年") == _local(date(2019, 1, 1))
        assert At.of("令和元年") == _local(date(2019, 5, 1))  # the era's first day
        assert At.of("令和5年4月") == _local(date(2023, 4, 1))
        assert At.of("令和元年5月1日") == _local(date(2019, 5, 1))
        assert At.of("民國112年3月4日") == At.of("民国112年3月4日") == _local(date(2023, 3, 4))
        assert At.of("中華民國112年3月4日") == _local(date(2023, 3, 4))
        assert At.of("民國元年1月1日") == _local(date(1912, 1, 1))
        assert At.of("民國112年") == _local(date(2023, 1, 1))
        assert At.of("二〇二四年五月三日") == _local(date(2024, 5, 3))
        # Full width, as Japanese forms write it, and an era's one sign (㍻ Heisei, ㋿ Reiwa).
        assert At.of("Ｈ３１．４．３０") == At.of("㍻31年4月30日") == _local(date(2019, 4, 30))
        assert At.of("㋿5年4月1日") == At.of("令和５年４月１日（土）") == _local(date(2023, 4, 1))


@pytest.mark.parametrize(
    "text",
    [
        "令和元年4月1日",  # before Reiwa began
        "平成1年1月7日",  # Showa's last day
        "令和0年1月1日",
        "R0.1.1",
        "令和5年2月30日",
        "令和5年度",  # a fiscal year: no day
        "平成令和5年4月1日",
        "r5.4.1",  # a version number, not an era
    ],
)
def test_what_no_era_day_is_stays_no_date(text: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)


@pytest.mark.parametrize("tz", ["UTC", "Asia/Bangkok"])
def test_thai_days_of_the_buddhist_era_are_their_gregorian_days(tz: str) -> None:
    rng = random.Random(62)
    digits = str.maketrans("0123456789", "๐๑๒๓๔๕๖๗๘๙")
    with in_tz(tz):
        for _ in range(300):
            day = date(1950, 1, 1) + timedelta(days=rng.randrange(40_000))
            be = day.year + 543
            month, short = THAI.split()[day.month - 1], THAI_SHORT.split()[day.month - 1]
            want = _local(day)
            assert At.of(f"{day.day} {month} {be}") == want
            assert At.of(f"{day.day} {month} พ.ศ. {be}") == want
            assert At.of(f"{day.day} {month} ค.ศ. {day.year}") == want
            assert At.of(f"{day.day} {month} {day.year}") == want  # a year below 2400: AD
            assert At.of(f"วันที่ {day.day} {short} {be}".translate(digits)) == want
            if 2500 <= be < 2600:
                assert At.of(f"{day.day} {short} {be % 100:02d}") == want
            assert At.of(f"วันจันทร์ที่ {day.day} {month} {be} เวลา 10.30 น.") == _local(day, "10:30")
            assert At.of(f"{month} {be}") == _local(day.replace(day=1))
        assert At.of("พ.ศ. 2566") == At.of("ปี 2566") == _local(date(2023, 1, 1))
        assert At.of("๒๕๖๖") == At.of("ปี ๒๕๖๖") == _local(date(2023, 1, 1))  # Thai digits
        assert At.of("ปี 2023") == At.of("ค.ศ. 2023") == _local(date(2023, 1, 1))


@pytest.mark.parametrize("text", ["31 กุมภาพันธ์ 2566", "2566 ศุกร์", "1 มกราคม"])
def test_a_thai_date_not_whole_is_no_date_never_the_year_2566(text: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)


def test_json_lines_reads_era_years_as_at_of_does() -> None:
    for text in ["令和5年4月1日", "R5.4.1", "H31/04/30", "民國112年3月4日", "1 มกราคม 2566"]:
        assert record_time({"date": text}, None) == (("date",), At.of(text))
