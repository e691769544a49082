"""JSON Lines: hostile date and id values that an earlier reading got wrong, each beside the
instant it stands for written as an ISO or a ``Date.parse`` form (so the tests hold in any
``TZ``)."""

# ruff: noqa: RUF001 (Cyrillic words, on purpose)

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import in_tz

from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, RecordError, SourceState


async def _import(tmp_path: Path, rows: list[Any]) -> list[MemoryRecord | RecordError]:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [i async for i in from_jsonl(path) if not isinstance(i, SourceState)]


async def _times(tmp_path: Path, values: dict[str, Any], key: str = "date") -> dict[str, Any]:
    """Each value's time under ``key`` (an ``At``), or its error's reason."""
    rows = [{"id": name, "text": "t", key: value} for name, value in values.items()]
    got: dict[str, Any] = {}
    for item in await _import(tmp_path, rows):
        if isinstance(item, MemoryRecord):
            got[item.id] = item.at
        else:
            got[item.where] = item.reason
    return got


# A day's ordinal as other languages write it, beside the same day without it (local time).
_ORDINALS = {
    "fr-1er": ("1er mai 2024", "2024/05/01"),
    "fr-2e": ("2e mai 2024 10:00", "2024/05/02 10:00"),
    "fr-3eme": ("3ème mai 2024", "2024/05/03"),
    "es-1o": ("1º de mayo de 2024", "2024/05/01"),
    "it-1deg": ("1° maggio 2024", "2024/05/01"),
    "pt-1a": ("1.º de maio de 2024", "2024/05/01"),
    "nl-3de": ("3de mei 2024", "2024/05/03"),
    "nl-1ste": ("1ste mei 2024", "2024/05/01"),
    "sv-1a": ("1:a maj 2024", "2024/05/01"),
    "ru-3go": ("3-го мая 2024", "2024/05/03"),
    "ru-3e": ("3-е мая 2024 10:00", "2024/05/03 10:00"),
}


@pytest.mark.parametrize("name", sorted(_ORDINALS))
async def test_a_days_ordinal_in_another_language_is_that_day(tmp_path: Path, name: str) -> None:
    written, meant = _ORDINALS[name]
    got = await _times(tmp_path, {"r": written})
    assert got == {"r": At.of(meant)}, written  # before: the line was an error, and skipped


@pytest.mark.parametrize("now", ["2026-12-01T00:00:00Z", "2035-06-01T00:00:00Z"])
async def test_ten_digits_that_are_an_hour_are_that_hour_not_seconds_of_2034(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, now: str
) -> None:
    """``2024050310`` (YYYYMMDDHH) was read as Unix seconds: 2034-02-20T12:11:50Z. The
    reading is the value's alone: the clock (here a year before and after) plays no part."""
    monkeypatch.setattr(time, "time", lambda: At.of(now).ms / 1000)
    values = {
        "int": 2024050310,
        "text": "2024050310",
        "float": 2024050310.0,
        "midnight": 2024050300,
        "no-hour": 2024050324,  # no hour 24: seconds (2034), as any ten digits are
        "no-day": 2024023110,  # no 31 February: seconds
        "slack": "2024050310.000200",  # a fraction: seconds, as Slack's ts
        "now": 1_714_732_320,  # a record's own seconds stay seconds
    }
    got = await _times(tmp_path, values)
    assert got == {
        "int": At.of("2024/05/03 10:00"),
        "text": At.of("2024/05/03 10:00"),
        "float": At.of("2024/05/03 10:00"),
        "midnight": At.of("2024/05/03 00:00"),
        "no-hour": At(2024050324 * 1000),
        "no-day": At(2024023110 * 1000),
        "slack": At(2024050310000),
        "now": At.of("2024-05-03T10:32:00Z"),
    }
    assert MemoryRecord(id="r", text="t", at=2024050310).at == At.of("2024/05/03 10:00")


@pytest.mark.parametrize(
    "now", ["2026-12-01T00:00:00Z", "2033-03-20T00:00:00Z", "2040-01-01T00:00:00Z"]
)
def test_ten_digits_read_the_same_whatever_the_clock(
    monkeypatch: pytest.MonkeyPatch, now: str
) -> None:
    """The reading of ten digits depended on the clock: ``1995050310`` was an hour of 1995
    a year before its seconds (2033-03-21) and seconds after, so the same file dated a
    record differently a year apart, and two machines with different clocks disagreed.
    Below 2e9 ten digits are seconds (up to May 2033, beginning with 1: never an hour)."""
    monkeypatch.setattr(time, "time", lambda: At.of(now).ms / 1000)
    seconds = 1_995_050_310  # 2033-03-21T20:38:30Z, and as digits an hour of 1995
    assert At.of(seconds) == At(seconds * 1000)
    assert MemoryRecord(id="r", text="t", at=str(seconds)).at == At(seconds * 1000)
    assert MemoryRecord(id="r", text="t", at=2_099_123_123).at == At.of("2099/12/31 23:00")
    assert MemoryRecord(id="r", text="t", at=1_999_123_123).at == At(1_999_123_123_000)


async def test_rfc_822s_military_zones_are_utc_not_local_time(tmp_path: Path) -> None:
    """RFC 2822 (4.3) reads a one-letter zone as "-0000": the wall clock is UTC. It was read
    in the importing machine's zone, a line's time moved by its offset (9 hours in Tokyo)."""
    values = {letter: f"Fri, 3 May 2024 10:00:00 {letter}" for letter in "AMNY"}
    values |= {"UT": "Fri, 3 May 2024 10:00:00 UT", "EDT": "Fri, 3 May 2024 10:00:00 EDT"}
    with in_tz("Asia/Tokyo"):
        got = await _times(tmp_path, values)
    utc = At.of("2024-05-03T10:00:00Z")
    assert got == {**dict.fromkeys("AMNY", utc), "UT": utc, "EDT": At.of("2024-05-03T14:00Z")}


async def test_a_month_named_in_another_language_without_a_day_is_that_month(
    tmp_path: Path,
) -> None:
    """``Date.parse`` passes over a word before the first number: "Mai 2024" was 1 January."""
    values = {
        "de": "Mai 2024",
        "fr": "avril 2024",
        "de-oct": "Oktober 2024",
        "es": "agosto de 2024",
        "fr-time": "juin 2024 10:00",
        "en": "May 2024",
    }
    got = await _times(tmp_path, values)
    assert got == {
        "de": At.of("May 2024"),
        "fr": At.of("April 2024"),
        "de-oct": At.of("October 2024"),
        "es": At.of("August 2024"),
        "fr-time": At.of("June 1, 2024 10:00"),
        "en": At.of("May 2024"),
    }


async def test_a_numeric_day_in_the_buddhist_era_is_its_gregorian_day(tmp_path: Path) -> None:
    """A Thai locale writes its short date day first with the Buddhist era's year (543
    ahead): "03/05/2567" is 3 May 2024, where it was 5 March 2567."""
    values = {
        "slash": "03/05/2567",
        "short": "3/5/2567 10:30",
        "dots": "03.05.2567",
        "ymd": "2567/05/03",
        # A Gregorian year: month first alone, day first here ("31/02/2567" says the file
        # writes the day first: importers._jsonl_dates.DayOrder).
        "gregorian": "03/05/2024",
        "far": "03/05/2700",  # 2157 by the Buddhist era, 2700 as written: no year of ours
        "no-day": "31/02/2567",
    }
    got = await _times(tmp_path, values)
    may_3 = At.of("2024/05/03")
    assert {k: v for k, v in got.items() if not k.startswith("line")} == {
        "slash": may_3,
        "short": At.of("2024/05/03 10:30"),
        "dots": may_3,
        "ymd": may_3,
        "gregorian": may_3,
    }
    assert "not a date" in got["line 6"] and "not a date" in got["line 7"]
    assert MemoryRecord(id="r", text="t", at="03/05/2567").at == may_3


async def test_integer_ids_past_2_53_keep_their_digits_and_stay_apart(tmp_path: Path) -> None:
    """A double cannot tell 2**53 + 1 from 2**53: the ids are the digits as written
    (conformance/README.md, "Ids given as numbers"), in full and when read ahead."""
    snowflakes = [2**53, 2**53 + 1, 1_790_000_000_000_000_001, 1_790_000_000_000_000_000]
    path = tmp_path / "export.jsonl"
    lines = [f'{{"id": {n}, "text": "t{i}", "thread": {n}}}' for i, n in enumerate(snowflakes)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = [i async for i in from_jsonl(path) if not isinstance(i, SourceState)]
    assert [(i.id, i.thread) for i in items if isinstance(i, MemoryRecord)] == [
        (str(n), str(n)) for n in snowflakes
    ]


# What right-to-left locales and word processors write in a date, beside what it means.
_MARKED = {
    "lrm": ("\u200e2024-05-03", "2024-05-03"),  # Excel's left-to-right mark
    "ar-intl": ("\u0663\u200f/\u0665\u200f/\u0662\u0660\u0662\u0664", "2024-05-03"),  # 3 May
    "ar-iso": ("\u0662\u0660\u0662\u0664-\u0660\u0665-\u0660\u0663", "2024-05-03"),
    "ar-time": (
        "\u0663\u200f/\u0665\u200f/\u0662\u0660\u0662\u0664 \u0661\u0660:\u0663\u0660",
        "2024/05/03 10:30",
    ),
    "rlm-ascii": ("03\u200f/05\u200f/2024", "2024-05-03"),
    "hi": ("\u0967\u0966/\u0966\u0665/\u0968\u0966\u0968\u096a", "2024-05-10"),  # 10 May
    "nb-hyphen": ("2024\u201105\u201103", "2024-05-03"),
    "en-dash": ("2024\u201305\u201303", "2024-05-03"),
    "minus": ("2024-05-03T10:00:00\u221205:00", "2024-05-03T15:00:00Z"),
    "isolates": ("\u20682024-05-03 10:00\u2069", "2024/05/03 10:00"),
    "thai-year": ("\u0e52\u0e55\u0e56\u0e57", "2024"),  # the Buddhist era's 2567, as At.of
}


@pytest.mark.parametrize("name", sorted(_MARKED))
async def test_marks_dashes_and_other_digits_are_read(tmp_path: Path, name: str) -> None:
    written, meant = _MARKED[name]
    got = await _times(tmp_path, {"r": written})
    assert got == {"r": At.of(meant)}, written  # before: an error, the line skipped
    assert MemoryRecord(id="r", text="t", at=written).at == At.of(meant)


@pytest.mark.parametrize(
    "written",
    [
        "\u06f1\u06f4\u06f0\u06f3/\u06f0\u06f2/\u06f1\u06f4",
        "\u0661\u0664\u0664\u0665/\u0661\u0660/\u0662\u0664",
    ],
    ids=["persian-1403", "hijri-1445"],
)
async def test_a_year_of_another_calendar_is_no_gregorian_date(
    tmp_path: Path, written: str
) -> None:
    got = await _times(tmp_path, {"r": written})
    assert "another calendar" in got["line 1"]
    with pytest.raises(ValueError, match="not a date"):
        MemoryRecord(id="r", text="t", at=written)


async def test_digits_past_a_nanosecond_stamps_nineteen_are_no_date(tmp_path: Path) -> None:
    """``At.of`` refused "12345678901234567890" while a record read it as nanoseconds of
    the year 2361; past nineteen digits (a 64-bit count of nanoseconds) it is no date."""
    written = "12345678901234567890"
    assert MemoryRecord(id="r", text="t", at=written).at is None
    items = await _import(tmp_path, [{"id": "r", "text": "t", "date": written}])
    assert [(i.at, i.meta) for i in items if isinstance(i, MemoryRecord)] == [
        (None, {"date": written})
    ]
    nanoseconds = "1714732320123456789"  # nineteen digits: still a time
    assert MemoryRecord(id="r", text="t", at=nanoseconds).at == At.of("2024-05-03T10:32:00.123Z")
