"""A mail's time: Date headers as mailers write them, and the newest Received when they fail."""

from __future__ import annotations

import pytest
from helpers import in_tz, mail, mail_at, mail_record

# Each value is the time of day 10:00 on 3 March 2009 in some zone: the instant it means.
ZONE_NAMES = [
    ("Tue, 3 Mar 2009 10:00:00 CET", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 cet", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 CEST", "2009-03-03T08:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 MEZ", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 EET", "2009-03-03T08:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 MSK", "2009-03-03T07:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 BST", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 IST", "2009-03-03T04:30:00.000Z"),  # India, as documented
    ("Tue, 3 Mar 2009 10:00:00 JST", "2009-03-03T01:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 AEST", "2009-03-03T00:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 NZDT", "2009-03-02T21:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 Pacific Standard Time", "2009-03-03T18:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 (CET)", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00 CET", "2009-03-03T09:00:00.000Z"),  # no seconds
    ("Tue, 3 Mar 2009 10:00:00 CET trailing junk 42", "2009-03-03T09:00:00.000Z"),
    ("Tue Mar  3 10:00:00 CET 2009", "2009-03-03T09:00:00.000Z"),  # date(1)'s order
    ("Tue, 3 Mar 2009 10:00:00 GMT+1", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 UTC+05:30", "2009-03-03T04:30:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 GMT-0500", "2009-03-03T15:00:00.000Z"),
    ("Tue, 03 Mar 2009 10:00:00 (GMT+01:00) Amsterdam, Berlin", "2009-03-03T09:00:00.000Z"),
    ("Di, 3 Mär 2009 10:00:00 MEZ", "2009-03-03T09:00:00.000Z"),
    ("mar., 3 mars 2009 10:00:00 +0100", "2009-03-03T09:00:00.000Z"),  # mar.: Tuesday
    ("3.3.2009 10:00 CET", "2009-03-03T09:00:00.000Z"),
    ("3 Mar 09 10:00:00 CET", "2009-03-03T09:00:00.000Z"),  # a two-digit year
]


@pytest.mark.parametrize(("value", "instant"), ZONE_NAMES)
def test_a_zone_name_gives_the_instant_it_means(value: str, instant: str) -> None:
    # Before: Date.parse knows only the RFC's US names, so "CET" lost the whole date
    rec = mail_record(mail(f"Date: {value}"))
    assert rec.at is not None and rec.at.iso() == instant
    assert "date_raw" not in rec.meta


# The RFC 5322 forms, its obsolete zones, and what Date.parse read right already: unchanged.
RFC_FORMS = [
    ("Tue, 3 Mar 2009 10:00:00 +0100", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 +0100 (CET)", "2009-03-03T09:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 -0800 (CET)", "2009-03-03T18:00:00.000Z"),  # offset wins
    ("3 Mar 2009 10:00 -0000", "2009-03-03T10:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 EST", "2009-03-03T15:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 CDT", "2009-03-03T15:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 CST", "2009-03-03T16:00:00.000Z"),  # US Central, per RFC
    ("Tue, 3 Mar 2009 10:00:00 PDT", "2009-03-03T17:00:00.000Z"),
    ("Tue, 3 Mar 2009 10:00:00 UT", "2009-03-03T10:00:00.000Z"),
    ("Thu, 13 Feb 1969 23:32 -0330 (Newfoundland Time)", "1969-02-14T03:02:00.000Z"),
    ("2009-03-03T10:00:00+01:00", "2009-03-03T09:00:00.000Z"),
    ("2009-03-03 10:00:00.250 +0100", "2009-03-03T09:00:00.250Z"),
]


@pytest.mark.parametrize(("value", "instant"), RFC_FORMS)
def test_rfc_forms_read_as_before(value: str, instant: str) -> None:
    assert mail_at(mail(f"Date: {value}")) == instant


def test_unknown_zone_and_no_zone_are_the_wall_clock_in_utc_wherever_read() -> None:
    # RFC 5322 reads "-0000" as "no information about the local zone": the time is kept as
    # written. Before, a Date without a zone took the zone of the machine importing it.
    for value in ("Thu Dec  1 02:14:52 2005", "Thu, 1 Dec 2005 02:14:52 XYZ"):
        for zone in ("America/New_York", "Asia/Tokyo"):
            with in_tz(zone):
                assert mail_at(mail(f"Date: {value}")) == "2005-12-01T02:14:52.000Z"


def test_junk_dates_without_received_leave_no_time_rather_than_a_wrong_one() -> None:
    for value in (
        "Thu, 01 Jan 1970 00:00:00 +0000",
        "Wed, 31 Dec 1969 19:00:00 -0500",
        "Mon, 30 Jun 3609 15:33:50 +0600",
        "1.2.3.4",
        "5",
        "Mar 3",
    ):
        rec = mail_record(mail(f"Date: {value}"))
        assert rec.at is None, value
        assert rec.meta["date_raw"] == value and "date_from" not in rec.meta
