"""A mail whose header block is over 2 MiB (thousands of junk header lines before the ones
that matter: a hostile or broken mailer) keeps, of the lines cut past that size, the
fields that say what the mail is: its subject, addresses, date, ids and MIME headers; the
body is read in the transfer encoding and charset they give, not shown as raw base64."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.eml import from_eml
from memtrails.importers.mbox import from_mbox

BODY = "Hallo Welt, schöne Grüße aus Köln."


def flooded(lines: int, crlf: bool = False) -> bytes:
    junk = b"".join(b"X-Junk-%d: v\n" % i for i in range(lines))
    encoded = base64.b64encode(BODY.encode())
    raw = (
        b"From: Ann <ann@example.org>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n"
        + junk
        + b"To: bob@example.org\n"
        + b"Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\n  aus K\xc3\xb6ln\n"
        + b"Message-ID: <flood@example.org>\nMIME-Version: 1.0\n"
        + b'Content-Type: text/plain;\n charset="utf-8"\nContent-Transfer-Encoding: base64\n\n'
        + encoded
        + b"\n"
    )
    return raw.replace(b"\n", b"\r\n") if crlf else raw


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
async def test_the_fields_past_the_cut_are_kept(tmp_path: Path, crlf: bool) -> None:
    raw = flooded(200_000, crlf)
    assert len(raw) > 3 << 20
    (tmp_path / "a.eml").write_bytes(raw)
    [record] = records(await collect(from_eml(tmp_path)))
    assert record.title == "Grüße aus Köln"
    assert record.text == BODY
    assert "flood@example.org" in record.id and "message_id_missing" not in record.meta
    assert "bob@example.org" in record.meta["to"]
    assert "TooLargeDefect" in record.meta["defects"]  # the junk lines were cut


async def test_in_an_mbox_too(tmp_path: Path) -> None:
    mbox = tmp_path / "a.mbox"
    mbox.write_bytes(b"From ann@example.org Mon Jan  1 10:00:00 2024\n" + flooded(200_000))
    [record] = records(await collect(from_mbox(mbox)))
    assert (record.title, record.text) == ("Grüße aus Köln", BODY)


async def test_a_flood_of_wanted_fields_stays_bounded(tmp_path: Path) -> None:
    """Subject lines by the hundred thousand past the cut: what is kept of them is bounded,
    the first one read."""
    raw = flooded(200_000).replace(
        b"To: bob", b"".join(b"Subject: spam %d\n" % i for i in range(100_000)) + b"To: bob"
    )
    (tmp_path / "a.eml").write_bytes(raw)
    [record] = records(await collect(from_eml(tmp_path)))
    assert record.title == "spam 0"
    assert record.text == BODY
