"""A day of another calendar, as ``Intl.DateTimeFormat`` writes it with ``-u-ca-hebrew``,
``-u-ca-persian`` or ``-u-ca-buddhist``, is converted or no date, never read as a Gregorian
year: ``8 Nisan 5776`` was 8 April 5776 (Turkish's Nisan), ``08.08.76 AM`` (Anno Mundi) 1
August 1976 08:00, ``波斯曆 1395/1/28`` 28 January 1395; ``April 16, 2559 BE`` is 2016's, and
so are ``April 16, 28 Heisei`` (Japan's era) and ``April 16, 105 Minguo`` (the ROC's)."""

from __future__ import annotations

import pytest
from helpers import in_tz

from memtrails.export_dates import text_ms
from memtrails.records import At


@pytest.mark.parametrize(
    "text",
    [
        "8 Nisan 5776",
        "Saturday, 8 Nisan 5776",
        "08.08.76 AM",
        "8\u200f/8\u200f/5776 ص",
        "波斯曆 1395/1/28",
        "8. Nisan 5776 AM um 23:40",
        "16.04.05 Minguo",  # the Republic's 105 cut to two digits (it was 1916)
    ],
)
def test_a_day_of_another_calendar_is_no_date(text: str) -> None:
    assert text_ms(text) is None


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("April 16, 2559 BE at 11:40 PM", "2016-04-16T23:40:00Z"),
        ("16. April 2559 BE um 23:40", "2016-04-16T23:40:00Z"),
        ("April 16, 28 Heisei", "2016-04-16T00:00:00Z"),  # Japan's era (it was no date)
        ("16.04.28 Heisei", "2016-04-16T00:00:00Z"),
        ("March 28, 88 Minguo at 1:23 AM", "1999-03-28T01:23:00Z"),  # the Republic of China's
        ("2034. 1. 11. AM 12:04:40", "2034-01-11T00:04:40Z"),  # Korean's AM before its clock
        ("3 May 2024 10:30 AM", "2024-05-03T10:30:00Z"),
        ("+010000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z"),  # ISO 8601 says its year
    ],
)
def test_a_converted_or_plain_day_is_read(text: str, want: str) -> None:
    with in_tz("UTC"):  # the wall clocks without a zone are local time
        assert text_ms(text) == At.of(want).ms
