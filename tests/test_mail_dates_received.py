"""A mail without a readable Date: the newest Received gives its time, and its zone."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import mail, mail_at, mail_record

from memtrails.importers.eml import from_eml
from memtrails.records import MemoryRecord

# Newest first, as relays add them; the second relay's clock runs an hour ahead.
RECEIVED = [
    "Received: from mx.example.net by imap.example.com with LMTP;\n"
    "        Mon, 30 Jun 2008 02:34:00 -0700",
    "Received: from relay.example.org (relay [10.1.2.3]) by mx.example.net;\n"
    "        Mon, 30 Jun 2008 03:33:58 -0700 (PDT)",
    "Received: from [1.2.3.4] by relay.example.org with SMTP id 1.2.3.4",
]


@pytest.mark.parametrize(
    "date",
    [
        None,
        "Date: <HR>",
        "Date: Mon, 30 Jun 3609 15:33:50 +0600",  # a clock set wrong
        "Date: Thu, 01 Jan 1970 00:00:00 +0000",  # a zero time stamp
        "Date: Sat, 3 Jan 1970 10:00:00 -0500",
        "Date: Mon, 1 Jan 0001 00:00:00 GMT",
        "Date: Tue, 31 Feb 2009 10:00:00 +0100",  # no such day
        "Date: Wed, 15 Dec 2010    59:10 -0500",  # no such hour
    ],
)
def test_a_missing_or_junk_date_takes_the_newest_received(date: str | None) -> None:
    headers = [date] if date else []
    rec = mail_record(mail(*headers, *RECEIVED))
    # the topmost Received is the final delivery: 02:34:00 -0700, not the latest time
    assert rec.at is not None and rec.at.iso() == "2008-06-30T09:34:00.000Z"
    assert rec.meta["date_from"] == "received"
    if date:
        assert rec.meta["date_raw"] == " ".join(date.removeprefix("Date: ").split())


def test_received_without_a_time_or_junk_is_passed_over() -> None:
    received = [
        "Received: from [1.2.3.4] by relay.example.org with SMTP id 1.2.3.4",
        "Received: from a by b; Thu, 01 Jan 1970 00:00:00 +0000",
        "Received: from c by d; Tue, 3 Mar 2009 10:00:00 CET",
    ]
    assert mail_at(mail(*received)) == "2009-03-03T09:00:00.000Z"
    rec = mail_record(mail(*received[:2]))
    assert rec.at is None and "date_from" not in rec.meta


def test_a_readable_date_wins_over_received() -> None:
    rec = mail_record(mail("Date: Tue, 3 Mar 2009 10:00:00 CET", *RECEIVED))
    assert rec.at is not None and rec.at.iso() == "2009-03-03T09:00:00.000Z"
    assert "date_from" not in rec.meta and "date_raw" not in rec.meta


async def test_corpus_mails_with_a_junk_date_take_their_delivery_time(corpora: Path) -> None:
    async def one(rel: str) -> MemoryRecord:
        items = [i async for i in from_eml(corpora / "eml" / rel)]
        assert isinstance(items[0], MemoryRecord)
        return items[0]

    # Date: Mon, 30 Jun 3609 ...; delivered Mon, 30 Jun 2008 02:34:00 -0700
    rec = await one("mikel-mail/plain_emails/raw_email_bad_time.eml")
    assert rec.at is not None and rec.at.iso() == "2008-06-30T09:34:00.000Z"
    # Date: "Wed, 15 Dec 2010    59:10 -0500"; delivered Tue, 14 Dec 2010 22:59:10 -0800
    rec = await one("mikel-mail/error_emails/bad_date_header2.eml")
    assert rec.at is not None and rec.at.iso() == "2010-12-15T06:59:10.000Z"
    # Date: <HR>; the topmost Received (Yahoo's, 19:20:19 -0800), not the sender's relay
    # below it whose clock ran three hours ahead
    rec = await one("mikel-mail/error_emails/bad_date_header.eml")
    assert rec.at is not None and rec.at.iso() == "2010-12-11T03:20:19.000Z"
    assert rec.meta["date_raw"] == "<HR>" and rec.meta["date_from"] == "received"


def test_a_date_without_a_usable_zone_takes_the_zone_its_delivery_shows() -> None:
    delivered = "Received: from a by b; Tue, 12 Oct 2010 16:21:07 -0400"
    # the corpus's "H0500" (a mailer's typo): 16:21:05 in New York, as the relay shows
    rec = mail_record(mail("Date: Tue, 12 Oct 2010 16:21:05 H0500", delivered))
    assert rec.at is not None and rec.at.iso() == "2010-10-12T20:21:05.000Z"
    assert rec.meta["date_from"] == "date, zone from received"
    rec = mail_record(mail("Date: Tue Oct 12 16:21:05 2010", delivered))  # no zone at all
    assert rec.at is not None and rec.at.iso() == "2010-10-12T20:21:05.000Z"
    # a zone the Date names is never overruled, nor a delivery more than 15 hours away
    assert mail_at(mail("Date: Tue, 12 Oct 2010 16:21:05 CEST", delivered)) == (
        "2010-10-12T14:21:05.000Z"
    )
    late = "Received: from a by b; Fri, 15 Oct 2010 09:00:00 -0400"
    assert mail_at(mail("Date: Tue Oct 12 16:21:05 2010", late)) == "2010-10-12T16:21:05.000Z"


def test_only_the_topmost_received_headers_are_tried() -> None:
    # A mail with thousands of Received headers is junk, and each costs a read: the first
    # 64 are tried (a real mail has a handful), so one below them gives no time.
    junk = [f"Received: from h{n} by relay{n} with SMTP id {n}" for n in range(5000)]
    late = "Received: from a by b; Tue, 3 Mar 2009 10:00:00 +0100"
    rec = mail_record(mail(*junk, late))
    assert rec.at is None and "date_from" not in rec.meta
    assert mail_at(mail(*junk[:63], late)) == "2009-03-03T09:00:00.000Z"
