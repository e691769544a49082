"""A zone's short name past the eight US ones (``CET``, ``JST``, ``AEST``) and a month named
in another language (``3 mai 2024``, ``3. März 2024``) in a row, a dict or
``MemoryRecord(at=...)`` are read as a mail's Date header and a JSON Lines field read them,
with the same tables (``memtrails.written_dates``); such a row was an error and skipped."""

# ruff: noqa: RUF001 (Cyrillic and Turkish words, on purpose)

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.importers.mail.dates import mail_date
from memtrails.pipeline.normalise import normalise_item

# A time with a zone's name, beside the instant it names.
_ZONED = {
    "cet": ("3 May 2024 10:00 CET", "2024-05-03T09:00:00Z"),
    "cest-rfc2822": ("Fri, 3 May 2024 10:00:00 CEST", "2024-05-03T08:00:00Z"),
    "ist-offset": ("2024-05-03T10:00:00+05:30 IST", "2024-05-03T04:30:00Z"),
    "jst-iso-space": ("2024-05-03 10:00 JST", "2024-05-03T01:00:00Z"),
    "aest": ("3 May 2024 10:00 AEST", "2024-05-03T00:00:00Z"),
    "msk": ("3 May 2024 10:00:00 MSK", "2024-05-03T07:00:00Z"),
    "nzdt-lower": ("2024-01-03 10:00 nzdt", "2024-01-02T21:00:00Z"),
    "npt-quarter": ("2024-05-03 10:00 NPT", "2024-05-03T04:15:00Z"),
    "eet-comment": ("3 May 2024 10:00 EET (Helsinki)", "2024-05-03T08:00:00Z"),
    "german-cest": ("3. Mai 2024 10:00 MESZ", "2024-05-03T08:00:00Z"),
}

# A day with a month named in another language, beside the same day as Date.parse reads it
# (local time, as a date without a zone).
_WORDS = {
    "fr": ("3 mai 2024", "2024/05/03"),
    "fr-ordinal": ("1er mai 2024", "2024/05/01"),
    "de-dot": ("3. März 2024", "2024/03/03"),
    "de-time": ("3. März 2024 10:00", "2024/03/03 10:00"),
    "es-de": ("3 de mayo de 2024", "2024/05/03"),
    "it": ("3 maggio 2024", "2024/05/03"),
    "pt": ("3 de maio de 2024", "2024/05/03"),
    "nl": ("3 mei 2024", "2024/05/03"),
    "pl": ("3 maja 2024", "2024/05/03"),
    "de-month-year": ("Mai 2024", "2024/05/01"),
    "es-month-year": ("agosto de 2024", "2024/08/01"),
    "ru-ordinal": ("3-го мая 2024", "2024/05/03"),
    "ja": ("2024年5月3日", "2024/05/03"),
}


def _readings(written: str) -> list[At | None]:
    """The time of ``written`` as each value reader reads it."""
    row = normalise_item({"id": "r", "text": "t", "at": written}, source="s", position=1)
    assert isinstance(row, MemoryRecord), row
    return [
        At.of(written),
        MemoryRecord(id="r", text="t", at=written).at,
        row.at,
        record_time({"date": written}, None)[1],
    ]


@pytest.mark.parametrize("name", sorted(_ZONED))
def test_a_zones_short_name_in_a_row_is_the_time_it_names(name: str) -> None:
    written, meant = _ZONED[name]
    with in_tz("America/Los_Angeles"):  # the importing machine's zone plays no part
        assert _readings(written) == [At.of(meant)] * 4


@pytest.mark.parametrize("name", sorted(_WORDS))
def test_a_month_named_in_another_language_in_a_row_is_that_month(name: str) -> None:
    written, meant = _WORDS[name]
    with in_tz("Europe/Berlin"):
        assert _readings(written) == [At.of(meant)] * 4


def test_a_row_and_a_mail_read_a_zone_name_alike() -> None:
    """One table: what a mail's Date header means by a name, a row's value means too."""
    for name in ("CET", "CEST", "JST", "AEST", "MSK", "SGT", "HKT", "WIB"):
        written = f"Fri, 3 May 2024 10:00:00 {name}"
        assert At.of(written).ms == mail_date(written), name


@pytest.mark.parametrize("name", ["IST", "BST", "AST", "GST"])
def test_a_name_of_zones_hours_apart_is_no_date_in_a_row(name: str) -> None:
    """``IST`` is India's +05:30, Israel's +02:00 and Ireland's +01:00: a mail's Date takes
    India's (its Received time corrects it), a row's value has nothing to correct a wrong
    hour, which can be a wrong day, so it is no date."""
    assert mail_date(f"Fri, 3 May 2024 10:00:00 {name}") is not None
    with pytest.raises(ValueError, match="not a date"):
        At.of(f"2024-05-03 10:00 {name}")


@pytest.mark.parametrize(
    "written",
    ["2024-05-03 10:00 XYZ", "3 blah 2024", "mai", "3 mai", "10:00 CET", "3 mai 24"],
    ids=["unknown-zone", "no-month", "word-alone", "no-year", "no-day", "short-year"],
)
def test_words_that_name_no_date_are_still_no_date(written: str) -> None:
    with pytest.raises(ValueError, match="not a date"):
        At.of(written)


# What Intl's toLocaleString and toLocaleDateString write in more languages, beside the day.
_LOCALES = {
    "cs-dots-spaced": ("3. 5. 2024 10:32:00", "2024/05/03 10:32"),  # was 5 March
    "da-dotted-clock": ("3.5.2024, 10.32.07", "2024/05/03 10:32:07"),
    "ar-eg-evening": (
        "\u0663\u200f/\u0665\u200f/\u0662\u0660\u0662\u0664\u060c \u0661\u0660:\u0663\u0662:\u0660\u0660 \u0645",
        "2024/05/03 22:32",
    ),
    "ar-eg-morning": (
        "\u0663\u200f/\u0665\u200f/\u0662\u0660\u0662\u0664\u060c \u0661\u0660:\u0663\u0662:\u0660\u0660 \u0635",
        "2024/05/03 10:32",
    ),
    "cs-long": ("3. května 2024", "2024/05/03"),
    "fi-long": ("3. toukokuuta 2024", "2024/05/03"),
    "hu-long": ("2024. május 3.", "2024/05/03"),
    "tr-long": ("3 Mayıs 2024", "2024/05/03"),
    "tr-kasim": ("3 Kasım 2024", "2024/11/03"),
    "ro-long": ("3 decembrie 2024", "2024/12/03"),
}


@pytest.mark.parametrize("name", sorted(_LOCALES))
def test_a_day_as_more_locales_write_it_is_that_day(name: str) -> None:
    written, meant = _LOCALES[name]
    with in_tz("Europe/Prague"):
        assert _readings(written) == [At.of(meant)] * 4


def test_a_mails_date_reads_the_same_month_names() -> None:
    """One table: a mail's Date header gains the months a row's value reads."""
    assert mail_date("Pá, 3 května 2024 10:00:00 +0200") == At.of("2024-05-03T08:00:00Z").ms
    assert mail_date("3 Mayıs 2024 10:00 +0300") == At.of("2024-05-03T07:00:00Z").ms
