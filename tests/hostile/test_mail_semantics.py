"""Mail whose meaning is odd rather than its bytes: ids and references of hostile length,
repeated Message-IDs in a Maildir, dates in zones Date.parse does not know, quoted display
names, base64 bodies with a list footer after them, digests whose parts skip the blank line."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails import Memory
from memtrails.importers.mail import MailBook, message_to_item
from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)

HEAD = b"From: Ann <ann@example.com>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n"


def mail(headers: bytes, body: bytes = b"hello\n") -> bytes:
    """One message: ``HEAD``, then ``headers`` (with their line ends), a blank line, ``body``."""
    return HEAD + headers + b"\n" + body


def convert(raw: bytes, book: MailBook | None = None) -> MemoryRecord:
    item = message_to_item(raw, source="s", where="w", book=book)
    assert isinstance(item, MemoryRecord), item
    return item


def mbox_of(*messages: bytes) -> bytes:
    return b"".join(b"From x@y Mon Jan  1 00:00:00 2024\n" + m + b"\n" for m in messages)


async def test_a_megabyte_reference_or_message_id_does_not_lose_the_mail(tmp_path: Path) -> None:
    # Before: the 1 MB id became the record's thread (or id), over Limits.max_field_bytes,
    # and the whole mail was refused.
    huge = b"<" + b"a" * (1 << 20) + b"@x>"
    path = tmp_path / "a.mbox"
    path.write_bytes(
        mbox_of(
            mail(b"Subject: big ref\nMessage-ID: <z@x>\nReferences: " + huge + b" <root@x>\n"),
            mail(b"Subject: big id\nMessage-ID: " + huge + b"\n", b"a mail with a huge id\n"),
            mail(b"Subject: long id\nMessage-ID: <" + b"k" * 2048 + b"@x>\n"),
        )
    )
    items = records(await collect(from_mbox(path)))
    assert [r.thread for r in items[:1]] == ["root@x"]  # the next reference is the root
    assert items[1].id.startswith("sha256:") and items[1].meta["message_id_missing"] is True
    assert items[2].id == "k" * 2048 + "@x"  # a 2 KB id is still an id
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_mbox(path))
        assert (report.added, report.errors) == (3, [])


def test_ten_thousand_references_per_mail_do_not_grow_the_book_without_bound() -> None:
    book = MailBook()
    for n in range(20):
        ids = b" ".join(b"<r%d.%d@x>" % (n, i) for i in range(10_000))
        rec = convert(
            mail(b"Subject: s\nMessage-ID: <m%d@x>\nReferences: " % n + ids + b"\n"), book
        )
        assert rec.thread == f"r{n}.0@x"
    # Before: every id of every References header was noted (200,000 here).
    assert len(book._threads) <= 20 * 65


def test_reference_cycles_and_a_self_reference_give_one_stable_thread() -> None:
    book = MailBook()
    a = convert(mail(b"Subject: A\nMessage-ID: <a@x>\nIn-Reply-To: <b@x>\n"), book)
    b = convert(mail(b"Subject: B\nMessage-ID: <b@x>\nIn-Reply-To: <a@x>\n"), book)
    s = convert(mail(b"Subject: S\nMessage-ID: <s@x>\nReferences: <s@x>\n"), book)
    assert (a.thread, b.thread, s.thread) == ("b@x", "b@x", "s@x")


def test_a_list_footer_after_a_base64_body_does_not_garble_the_body() -> None:
    # Before: the footer's letters were read as base64 too, the garbage bytes made the body
    # fail UTF-8, and the whole text came out in cp1252 ("wÃ¶rld").
    body = base64.encodebytes("Hello wörld, grüße aus Köln; this is the real body.".encode())
    footer = (
        b"_______________________________________________\n"
        b"Twisted-Python mailing list\nTwisted-Python@twistedmatrix.com\n"
        b"http://twistedmatrix.com/cgi-bin/mailman/listinfo/twisted-python\n"
    )
    rec = convert(
        mail(
            b"Subject: s\nMessage-ID: <f@x>\nMIME-Version: 1.0\n"
            b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n",
            body + footer,
        )
    )
    assert rec.text == "Hello wörld, grüße aus Köln; this is the real body."
    # One damaged line in the middle costs that line, not every line after it.
    lines = base64.encodebytes(("Zeile eins äöü. " * 20).encode()).splitlines()
    lines[2] = lines[2][:10] + " Привет ".encode() + lines[2][10:]
    rec = convert(
        mail(
            b"Subject: s\nMessage-ID: <g@x>\nMIME-Version: 1.0\n"
            b"Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n",
            b"\n".join(lines) + b"\n",
        )
    )
    assert rec.text.startswith("Zeile eins äöü.") and rec.text.endswith("Zeile eins äöü.")
    assert "Ã" not in rec.text


def _maildir(root: Path) -> Path:
    for box in ("cur", "new", "tmp"):
        (root / box).mkdir(parents=True, exist_ok=True)
    return root


def _said(mid: bytes, subject: bytes, body: bytes) -> bytes:
    return mail(b"Subject: " + subject + b"\nMessage-ID: " + mid + b"\n", body + b"\n")


async def test_a_maildir_keeps_two_mails_that_share_a_message_id_and_folds_copies(
    tmp_path: Path,
) -> None:
    # Before: the second mail with <same@x> and the copy in another folder were refused by
    # the pipeline ("the same id and other content"): the second mail was lost.
    root = _maildir(tmp_path / "Maildir")
    _maildir(root / ".Archive")
    (root / "cur" / "1.a.host:2,S").write_bytes(_said(b"<same@x>", b"first", b"first mail"))
    (root / "cur" / "2.b.host:2,S").write_bytes(_said(b"<same@x>", b"second", b"another mail"))
    (root / ".Archive" / "cur" / "3.c.host:2,S").write_bytes(
        _said(b"<same@x>", b"first", b"first mail")
    )
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await memory.ingest(from_maildir(root))
        assert (first.added, first.duplicates, first.errors) == (2, 1, [])
        ids = sorted([r.id async for r in memory.records()])
        assert ids[0] == "same@x" and ids[1].startswith("same@x#")
        again = await memory.ingest(from_maildir(root))
        assert (again.added, again.updated, again.errors) == (0, 0, [])
        # Later: flags change (both read again), a copy of the first arrives in new/, and a
        # third mail reuses the id. The two keep their ids, the copy is one, the third is new.
        os.rename(root / "cur" / "1.a.host:2,S", root / "cur" / "1.a.host:2,RS")
        os.rename(root / "cur" / "2.b.host:2,S", root / "cur" / "2.b.host:2,FS")
        (root / "new" / "4.d.host").write_bytes(_said(b"<same@x>", b"first", b"first mail"))
        (root / "new" / "5.e.host").write_bytes(_said(b"<same@x>", b"third", b"a third one"))
        later = await memory.ingest(from_maildir(root))
        assert (later.added, later.updated, later.errors) == (1, 2, [])
        assert len(sorted([r.id async for r in memory.records()])) == 3
        last = await memory.ingest(from_maildir(root))
        assert (last.added, last.updated, last.unchanged, last.errors) == (0, 0, 3, [])


def test_quotes_inside_a_display_name_are_kept() -> None:
    # Before: every '"' at either end was stripped, so the name lost its closing quote.
    rec = convert(
        mail(
            b"Subject: s\nMessage-ID: <n@x>\n"
            b'To: "O\'Neil \\"Bob\\"" <bob@x>, "Smith, A." <a@x>, "=?utf-8?Q?J=C3=B6rg?=" <j@x>\n'
        )
    )
    assert rec.meta["to"] == ['O\'Neil "Bob" <bob@x>', "Smith, A. <a@x>", "Jörg <j@x>"]
