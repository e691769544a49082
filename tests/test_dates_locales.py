"""Dates as other locales write them (Intl.DateTimeFormat's forms in Croatian, Serbian,
Slovenian, Lithuanian, Latvian, Irish, Welsh, Kazakh, Norwegian, Finnish, Albanian, Korean,
Canadian French...), and values ``Date.parse`` reads as a day they do not name: a word it
does not know before a year ("Spring 2024", "Bealtaine 2024") was 1 January."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import in_tz

from memtrails.export_dates import text_ms
from memtrails.records import At


def _day(wall: str) -> int:
    """``wall`` ("2024-05-03" or "2024-05-03 10:30:15") as a UTC instant's milliseconds."""
    day, _, clock = wall.partition(" ")
    return At.of(f"{day}T{clock or '00:00'}Z").ms


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        # Croatian: "listopad" is October where the text is Croatian (the dot after its year
        # or its day, a Croatian weekday); Polish and Czech write November's the same.
        ("1. listopada 2021.", "2021-10-01"),
        ("petak, 1. listopada 2021. u 12:00", "2021-10-01 12:00"),
        ("listopad 2021.", "2021-10-01"),
        ("1. lis 2021.", "2021-10-01"),
        ("3. lip 2024.", "2024-06-03"),
        ("3. svibnja 2024.", "2024-05-03"),
        ("studeni 2023.", "2023-11-01"),
        ("prosinac 2024.", "2024-12-01"),
        ("1 listopada 2021", "2021-11-01"),  # Polish
        ("1. listopadu 2021", "2021-11-01"),  # Czech
        ("3 lip 2024", "2024-07-03"),  # Polish's July
        # Serbian and Bosnian (Latin and Cyrillic), Slovenian.
        ("oktobar 2021.", "2021-10-01"),
        ("17. avg. 2022", "2022-08-17"),
        ("дец 2024.", "2024-12-01"),
        # Norwegian, Icelandic, Indonesian, Malay, Filipino, Estonian, Azerbaijani, Albanian.
        ("des. 2024", "2024-12-01"),
        ("Dis 2024", "2024-12-01"),
        ("Nob 2023", "2023-11-01"),
        ("veebr 2026", "2026-02-01"),
        ("noy 2023", "2023-11-01"),
        ("nën 2023", "2023-11-01"),
        # Finnish's month stems, Irish, Welsh, Lithuanian, Latvian, Kazakh, Austrian German.
        ("marras 2023", "2023-11-01"),
        ("Bealtaine 2024", "2024-05-01"),
        ("Tachwedd 2023", "2023-11-01"),
        ("Jänner 2025", "2025-01-01"),
        ("3 қазан 2024", "2024-10-03"),
    ],
)
def test_a_month_named_in_another_language_is_that_month(text: str, wall: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    "text",
    [
        "Spring 2024",
        "Summer of 2024",
        "Frühling 2024",
        "printemps 2024",
        "Copyright 2024",
        "late 2024",
        "Jan-Mar 2024",  # a span of months: Date.parse reads March
        "January to March 2024",
        "Martes, Setyembre 2024",  # Filipino: Tuesday, which Date.parse reads as March
        "ພ.ພ. 2024",  # Lao's May, abbreviated: no table has it
        "មេសា-ឧសភា 2024",  # two months
        "ꯃꯦ 2024",  # Meitei: no table has the script
    ],
)
def test_a_year_beside_words_naming_no_month_or_several_is_no_date(text: str) -> None:
    # Date.parse passes over the words and gives 1 January: a day the text does not name
    # (a season's months depend on the hemisphere). A year alone is still its first day.
    assert text_ms(text) is None
    assert text_ms("2024") == _day("2024-01-01")


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("2023. 11. 14. PM 10:13:20", "2023-11-14 22:13:20"),  # Korean, Latin AM/PM first
        ("2022. 8. 17. AM 12:00:00", "2022-08-17 00:00:00"),
        ("2023/11/14\u2009下午10:13", "2023-11-14 22:13"),  # Taiwan
        ("2022/8/17\u2009凌晨12:00", "2022-08-17 00:00"),
        ("14 nëntor 2023 në 10:13 m.d.", "2023-11-14 22:13"),  # Albanian: after noon
        ("17 gusht 2022 në 12:00 p.d.", "2022-08-17 00:00"),  # before noon
        ("3 mai 2024, 10 h 30 min 15 s", "2024-05-03 10:30:15"),  # Canadian French
        ("24. 5. 3.", "2024-05-03"),  # Korean's short day: year first
        ("23. 11. 14. PM 10:13", "2023-11-14 22:13"),
        ("3. 5. 2024.", "2024-05-03"),  # Serbian's: day first, as before
    ],
)
def test_a_clock_as_other_locales_write_it_is_that_time(text: str, wall: str) -> None:
    # Date.parse read "PM 10:13" and "10:13 m.d." as 10:13 in the morning, passed over
    # "15 s", and read "24. 5. 3." as 24 May 2003.
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("ngày 5 tháng 5 năm 2024", "2024-05-05"),
        ("tháng 5 năm 2024", "2024-05-01"),
        ("thg 5 2024", "2024-05-01"),
        ("Thứ Sáu, 3 tháng 5, 2024", "2024-05-03"),
        ("Thứ Năm, 14 tháng 11, 2023", "2023-11-14"),  # "năm" is five in Thursday's name
        ("3 thg 5, 2024", "2024-05-03"),
        ("lúc 10:30 3 tháng 5, 2024", "2024-05-03 10:30"),
        ("10:30:15 3 thg 5, 2024", "2024-05-03 10:30:15"),
        ("ngày 3 tháng 5 năm 2024 lúc 10:30 CH", "2024-05-03 22:30"),
        ("ngày 03/05/2024", "2024-05-03"),  # "ngày" says the day comes first
    ],
)
def test_a_vietnamese_day_is_that_day(text: str, wall: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    "text",
    ["tháng 5", "họp ngày 3 tháng 5 năm 2024", "ngày 31 tháng 2 năm 2024", "tháng 13 năm 2024"],
)
def test_a_vietnamese_value_that_is_more_or_less_than_a_day_is_no_date(text: str) -> None:
    # A month without its year; a word beside the day ("meeting"); a day February lacks.
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("3 मई 2024 को 10:30 am बजे", "2024-05-03 10:30"),  # Hindi: "on", "o'clock"
        ("३ मे, २०२४ रोजी १०:३० AM वाजता", "2024-05-03 10:30"),  # Marathi
        ("3, మే 2024, శుక్రవారం", "2024-05-03"),  # Telugu: the weekday after the day
        ("3 మే, 2024 10:30 AMకి", "2024-05-03 10:30"),
        ("ಮೇ 3, 2024 ರಂದು 10:30 AM ಸಮಯಕ್ಕೆ", "2024-05-03 10:30"),  # Kannada
        ("2024 മേയ് 3, വെള്ളിയാഴ്\u200cച", "2024-05-03"),  # Malayalam
        ("2024 മേയ് 3, 10:30 AM-ന്", "2024-05-03 10:30"),
        ("२०२४ मे ३, शुक्रबार", "2024-05-03"),  # Nepali
        ("नव॰ 2023", "2023-11-01"),  # Hindi's abbreviation sign
    ],
)
def test_an_indic_day_with_the_words_around_it_is_that_day(text: str, wall: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    "text",
    [
        "10:15:: Apr 2 2024",  # was 10 April 2015
        "49 foo Mar 10 2024 2:30",  # 10 March 2049
        "Sept2024-03-10T02:30 32",  # 3 September 2010
        "31/pm 99, +002024/Mar 10 2024 2:3012:00",  # 31 March 1999
        "12:00 AM 10:15 Nov 3 2024 1:30 AM",  # 10 November 2015
        "apr  CDT 2024-03-10T02:30",  # 3 April 2024: two days, a month's name and a number's
        "Apr13 /, 2024/04/02",  # 4 April 2024
        "2024-02-30, -, Mar 10 2024 2:30/UT 2024-11-03T01:30",  # 2 March 2024
    ],
)
def test_a_soup_of_tokens_is_no_date_of_a_year_it_does_not_write(text: str) -> None:
    # Date.parse gives NaN (conformance/fixtures/dates_fuzz.json); the mail Date reader, asked
    # last, took other numbers for the year. A day read must have its year written, and a
    # month's name beside a day in numbers is two days: none is taken.
    with in_tz("America/New_York"):
        assert text_ms(text) is None
        assert text_ms("Sent on: Apr 2, 2024 at 10:15") == At.of("2024-04-02T14:15Z").ms
        assert text_ms("3. maj 2024, 10.30.15") == At.of("2024-05-03T14:30:15Z").ms  # Danish


FIXTURES = Path(__file__).parent.parent / "conformance" / "fixtures"


def test_where_date_parse_reads_no_date_a_record_s_time_writes_the_year_it_reads() -> None:
    # Every input of the Date.parse fixtures (mail, chat, logs, and 800 token soups): where
    # Date.parse gives NaN and a record's time reads a date all the same, the value writes
    # that date's year; where both read one, they differ only by the documented rules (a
    # dotted day is day first, a leap second, full-width digits, a number is an epoch stamp).
    wrong = []
    with in_tz("America/New_York"):
        for name in ("dates", "dates_fuzz", "dates_forms"):
            for case in json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))["cases"]:
                text, ms = case["text"], case["ms"]
                got = text_ms(text)
                if got is None or got == ms:
                    continue
                year = int(At(got).iso()[:-20])  # "+010000-01-01T..." too
                years = {int(y) for y in re.findall(r"(?<![\d+])\d{4}(?!\d)", text)}
                if re.fullmatch(r"[\d.eE]+", text):  # a number alone: an epoch stamp
                    continue
                if ms is None:
                    read_right = bool({year - 1, year, year + 1} & years)
                else:  # the documented departures
                    read_right = bool(re.search(r"\d\.\d|:60|[\uff10-\uff19]", text))
                if not read_right:
                    wrong.append((text, got))
    assert wrong == []


@pytest.mark.parametrize("text", ["०२/१/१३", "१४/११/२३, १०:१३ pm", "৩/৫/২৪", "३/५/२४"])
def test_a_slashed_day_in_indic_digits_with_a_two_digit_year_is_no_date(text: str) -> None:
    # Hindi, Marathi and Bengali write it day first, Nepali year first; it was read month
    # first (3 May 2024 as 5 March), which none of them means.
    assert text_ms(text) is None
    with in_tz("UTC"):
        assert text_ms("३/५/२०२४") == _day("2024-05-03")  # a four-digit year: day first


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("3 მაისი, 2024, 10:30", "2024-05-03 10:30"),  # Georgian
        ("მაი. 2024", "2024-05-01"),
        ("3 ሜይ 2024 10:30 ጥዋት", "2024-05-03 10:30"),  # Amharic: in the morning
        ("14/11/2023 ከሰዓት 10:13:20", "2023-11-14 22:13:20"),  # in the afternoon
        ("សុក្រ 3 ឧសភា 2024", "2024-05-03"),  # Khmer
        ("ធ្នូ 2024", "2024-12-01"),
        ("3 ພຶດສະພາ 2024, 10:30", "2024-05-03 10:30"),  # Lao
    ],
)
def test_a_day_in_georgian_amharic_khmer_or_lao_words_is_that_day(text: str, wall: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("2024. gada 3. maijs", "2024-05-03"),  # Latvian
        ("2024. g. maijs", "2024-05-01"),
        ("2024 m. gegužės 3 d.", "2024-05-03"),  # Lithuanian
        ("2024 ж. 3 мамыр", "2024-05-03"),  # Kazakh
        ("03 մայիսի, 2024 թ., 10:30", "2024-05-03 10:30"),  # Armenian
        ("2024 թ\u2024 մայիս", "2024-05-01"),
        ("2024(e)ko maiatzaren 3(a) (10:30)", "2024-05-03 10:30"),  # Basque
        ("2023(e)ko aza. 14(a)", "2023-11-14"),
    ],
)
def test_a_year_written_first_with_its_word_is_that_day(text: str, wall: str) -> None:
    # Each was no date: the month readers take the year after the day.
    with in_tz("UTC"):
        assert text_ms(text) == _day(wall)


@pytest.mark.parametrize(
    "text", ["3-5 May 2024", "May 3-5, 2024", "Apr  UTC 4/2/2024/24:00", "EST/: Apr 02/.5 2024"]
)
def test_a_day_date_parse_reads_in_a_year_the_text_does_not_write_is_no_date(text: str) -> None:
    # Date.parse reads "3-5 May 2024" as 3 May 2005 (the "5" as the year) and the others as
    # 2002 and 2005; a year it writes is the year a record's time may have.
    with in_tz("UTC"):
        assert text_ms(text) is None
        # A time whose offset moves it into the next year still writes its year.
        assert text_ms("Dec 31 2024 23:00 -1200") == At.of("2025-01-01T11:00Z").ms
