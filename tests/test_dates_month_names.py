"""Days and months named in the words of Hebrew, Arabic (Egypt's, the Maghreb's and the
Levant's names), Persian, Urdu, Greek, Indic scripts, Turkish, Polish, Czech, Slovak, Ukrainian and the
other languages of ``memtrails.month_names``, as ``Intl.DateTimeFormat`` writes them
(``tests/data/dates/intl_months.json``, written by Node: every month, five forms per
locale). They were no date, or a wrong one: Date.parse skips a word it does not know ("מאי
2024" was 1 January) and reads a word by its first three letters (Finnish "marraskuuta",
November, was March). A month of another calendar (Solar Hijri, Islamic, Hebrew) is never
read as the Gregorian month, whatever its year looks like."""

# ruff: noqa: RUF001 (Cyrillic, Arabic-Indic and Turkish letters and digits, on purpose)

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import in_tz

from memtrails import Memory
from memtrails.dates import utc_from_local_ms
from memtrails.export_dates import text_ms
from memtrails.importers.jsonl import from_jsonl
from memtrails.month_names import (
    _CYRILLIC,
    _LATIN,
    _OTHER_SCRIPTS,
    _key,
    month_of,
    unsure_month,
)
from memtrails.records import At, MemoryRecord
from memtrails.testing import HashingEmbedder

DATA = json.loads((Path(__file__).parent / "data/dates/intl_months.json").read_text("utf-8"))
CASES = [tuple(case) for case in DATA["cases"]]


def _wall_ms(wall: str) -> int:
    """The local time of "2024-05-03T10:30", as Date.parse reads a time without a zone."""
    day, clock = wall.split("T")
    year, month, date = (int(n) for n in day.split("-"))
    hour, minute = (int(n) for n in clock.split(":"))
    days = (At.of(f"{year:04d}-{month:02d}-{date:02d}").ms) // 86_400_000
    return utc_from_local_ms(days * 86_400_000 + (hour * 60 + minute) * 60_000)


@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_every_month_as_intl_writes_it_is_that_day(zone: str) -> None:
    with in_tz(zone):
        wrong = [
            (locale, form, text, wall, got)
            for locale, form, text, wall in CASES
            if (got := text_ms(text)) != _wall_ms(wall)  # with "को" and "बजे" too
            # "listopad 2024" (pl, cs: November) is Croatian's October less its dot: no date.
            and not (got is None and unsure_month(text))
        ]
    assert wrong == [], f"{len(wrong)} of {len(CASES)} misread, e.g. {wrong[:5]}"


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("3 במאי 2024", "2024-05-03"),
        ("3 מאי 2024", "2024-05-03"),
        ("\u0663 \u0645\u0627\u064a\u0648 \u0662\u0660\u0662\u0664", "2024-05-03"),  # ٣ مايو ٢٠٢٤
        ("3 أيار 2024", "2024-05-03"),
        ("3 ايار 2024", "2024-05-03"),  # without its hamza, as many type it
        ("3 كانون الأول 2024", "2024-12-03"),  # the Levant's two words: December
        ("3 كانون الثاني 2024", "2024-01-03"),  # and January
        ("۳ مهٔ ۲۰۲۴", "2024-05-03"),  # Persian, Gregorian calendar
        ("3 ΜΑΪΟΥ 2024", "2024-05-03"),  # Greek in capitals, its diaeresis kept
        ("3 Μαϊου 2024", "2024-05-03"),
        ("3 maja 2024", "2024-05-03"),
        ("3. května 2024", "2024-05-03"),
        ("3 травня 2024 р.", "2024-05-03"),
        ("3 MAYIS 2024", "2024-05-03"),
        ("3. marraskuuta 2024", "2024-11-03"),  # not March, as "mar..." reads to Date.parse
        ("marraskuu 2024", "2024-11-01"),
        ("מאי 2024", "2024-05-01"),  # not 1 January
        ("Μάιος 2024", "2024-05-01"),
        ("آب 2024", "2024-08-01"),
        ("मई 2024", "2024-05-01"),  # Hindi: not 1 January
        ("3 सितम्बर 2024", "2024-09-03"),  # a spelling Intl does not use
        ("৩ মে ২০২৪", "2024-05-03"),  # Bengali, its digits too
    ],
)
def test_a_day_in_other_scripts_words_is_that_day(text: str, day: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == At.of(day).ms


@pytest.mark.parametrize(
    "text",
    [
        "3 اردیبهشت 2024",  # Solar Hijri's second month, with a year that looks Gregorian
        "اردیبهشت 2024",
        "۱۴ اردیبهشت ۱۴۰۳",
        "3 آذر 2024",  # Solar Hijri's Azar, not the Levant's آذار (March)
        "3 رمضان 2024",  # the Islamic calendar's Ramadan
        "15 شعبان 2024",
        "3 בתשרי 2024",  # the Hebrew calendar's Tishrei
        "תשרי 2024",
        "3 Mayıs 2024 foo",  # a word after the day that is no weekday
    ],
)
def test_another_calendars_month_is_no_gregorian_date(text: str) -> None:
    assert text_ms(text) is None
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)


def test_no_word_names_two_months() -> None:
    seen: dict[str, int] = {}
    clashes = []
    for table in (_LATIN, _CYRILLIC, _OTHER_SCRIPTS):
        for month, words in table.items():
            for word in words.split():
                if seen.setdefault(_key(word), month) != month:
                    clashes.append((word, seen[_key(word)], month))
    assert clashes == []
    assert month_of("במאי") == month_of("מאי") == 5  # "in May": Hebrew's prefix read through


async def test_a_jsonl_field_in_hebrew_or_arabic_words_dates_its_record(tmp_path: Path) -> None:
    lines = [
        {"id": "he", "text": "ישיבת צוות", "date": "יום שישי, 3 במאי 2024 בשעה 10:30"},
        {"id": "ar", "text": "اجتماع الفريق", "date": "الجمعة، ٣ أيار ٢٠٢٤ في ١٠:٣٠ م"},
        {"id": "el", "text": "σύσκεψη", "date": "Παρασκευή 3 Μαΐου 2024 στις 10:30 π.μ."},
        {"id": "fa", "text": "جلسه", "date": "۱۴ اردیبهشت ۱۴۰۳"},
    ]
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), "utf-8")
    with in_tz("UTC"):
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            report = await memory.ingest(from_jsonl(path), name="notes")
            got = {i: await memory.get(i) for i in ("he", "ar", "el")}
    assert {i: r.at.iso() if r and r.at else None for i, r in got.items()} == {
        "he": "2024-05-03T10:30:00.000Z",
        "ar": "2024-05-03T22:30:00.000Z",
        "el": "2024-05-03T10:30:00.000Z",
    }
    assert report.added == 3 and len(report.errors) == 1  # the Solar Hijri day: said, not guessed
    assert "calendar" in report.errors[0].reason


@pytest.mark.parametrize("year", ["۱۴۰۳", "١٤٤٥", "۱۴۰۳۰۲۱۴"])
def test_a_record_time_in_other_digits_is_read_as_at_of_reads_it(year: str) -> None:
    """A Persian or Hijri year in its own digits was the Gregorian year 1403 given as a
    record's time in code (``MemoryRecord(at=...)``, a row's value), where ``At.of`` and a
    JSON Lines field refuse it; an epoch stamp in such digits is still read."""
    with pytest.raises(ValueError, match="not a date"):
        MemoryRecord(id="r", text="t", at=year)
    stamp = "\u0661\u0667\u0661\u0664\u0666\u0669\u0664\u0664\u0660\u0660"  # 1714694400
    assert MemoryRecord(id="r", text="t", at=stamp).at == At.of(1714694400) == At.of(stamp)


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("mar. 3 déc. 2024", "2024-12-03"),  # French "mar.": Tuesday, not March
        ("Martes, Setyembre 3, 2024", "2024-09-03"),  # Filipino: Tuesday, September
        ("mié. 3 dic. 2024", "2024-12-03"),
        ("3 d'abril de 2024", "2024-04-03"),  # Catalan
        ("abril del 2024", "2024-04-01"),
        ("3 de xuño de 2024", "2024-06-03"),  # Galician
        ("3. veebruar 2024", "2024-02-03"),  # Estonian
        ("3 Agustus 2024", "2024-08-03"),  # Indonesian
        ("3 Ogos 2024", "2024-08-03"),  # Malay
        ("3 Oktoba 2024", "2024-10-03"),  # Swahili
        ("3 qershor 2024", "2024-06-03"),  # Albanian
        ("3 avqust 2024", "2024-08-03"),  # Azerbaijani
        ("3. ágúst 2024", "2024-08-03"),  # Icelandic
        ("Desember 2024", "2024-12-01"),  # Afrikaans, Indonesian, Norwegian: not 1 January
        ("avgust 2024", "2024-08-01"),  # Slovenian
    ],
)
def test_more_languages_and_weekdays_that_read_as_months(text: str, day: str) -> None:
    with in_tz("UTC"):
        assert text_ms(text) == At.of(day).ms


def test_a_day_with_dashes_in_other_digits_is_day_first_as_with_slashes() -> None:
    """Assamese and Bengali write "০৩-০৫-২০২৪" (3 May); it was read month first, 5 March."""
    with in_tz("UTC"):
        assert text_ms("০৩-০৫-২০২৪") == text_ms("٠٣/٠٥/٢٠٢٤") == At.of("2024-05-03").ms
