"""An mbox resumed after a million mails: the Message-IDs earlier runs placed (15 bytes a
mail in its position) are held as one sorted table, not a dict entry per mail (which took
about 150 MB and 5 s before the first appended mail was read), and still tell a copy of an
earlier mail, a mail reusing an earlier id and a new id apart."""

from __future__ import annotations

import base64
import hashlib
import tracemalloc
from datetime import UTC, datetime

from memtrails.importers.mail.book import MailBook, core_digest
from memtrails.records import MemoryRecord


def _mail(mid: str, text: str) -> MemoryRecord:
    at = datetime(2024, 1, 1, tzinfo=UTC)
    return MemoryRecord(id=mid, text=text, kind="mail", title="s", author="a@x", at=at)


def _entry(mid: str, text: str) -> bytes:
    key = hashlib.blake2b(mid.encode(), digest_size=8).digest()
    return key + bytes.fromhex(core_digest(_mail(mid, text))[:14])


def _saved(count: int) -> list[str]:
    """What a run that placed ``count`` mails saves, in two runs' pieces."""
    half = count // 2
    first = b"".join(_entry(f"{n}@x", f"mail {n}") for n in range(half))
    second = b"".join(_entry(f"{n}@x", f"mail {n}") for n in range(half, count))
    return [base64.b64encode(first).decode(), base64.b64encode(second).decode()]


def test_earlier_runs_mails_are_told_apart_after_recall() -> None:
    book = MailBook()
    book.recall(_saved(2_000))
    assert book.place(_mail("7@x", "mail 7")) is None  # a copy of an earlier mail
    assert book.place(_mail("1500@x", "mail 1500")) is None  # in the second piece too
    reused = book.place(_mail("1999@x", "other words"))
    assert reused is not None and reused.id.startswith("1999@x#")
    assert reused.meta["message_id"] == "1999@x"
    new = book.place(_mail("new@x", "a new mail"))
    assert new is not None and new.id == "new@x"
    again = book.place(_mail("new@x", "a new mail"))
    assert again is None and book.duplicates == 3
    assert len(book.placed_ids()) == 3  # the two saved pieces, then this run's


def test_the_recalled_mails_cost_about_their_saved_bytes() -> None:
    saved = _saved(100_000)
    size = sum(len(base64.b64decode(chunk)) for chunk in saved)  # 15 bytes a mail
    tracemalloc.start()
    try:
        book = MailBook()
        book.recall(saved)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert book.place(_mail("99999@x", "mail 99999")) is None
    assert held < 3 * size  # a dict entry per mail held about 15 times the saved bytes
