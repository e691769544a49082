"""An mbox a mail program appends to, imported again from cron: a reply appended in a later
run joins its parent's thread even when it names only its parent (In-Reply-To), as in a
Maildir."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, records

from memtrails.importers.mail.book import THREADS_KEPT, MailBook
from memtrails.importers.mbox import from_mbox
from memtrails.records import MemoryRecord, SourceState


def message(n: str, *headers: str) -> bytes:
    lines = [f"From: p{n}@example.com", f"Subject: {n}", f"Message-ID: <{n}@x>", *headers]
    return (
        b"From x Mon Jan  1 00:00:00 2024\n" + ("\n".join(lines) + f"\n\nthis is {n}\n\n").encode()
    )


CONVERSATION = {
    "a": message("a"),
    "b": message("b", "In-Reply-To: <a@x>", "References: <a@x>"),
    "c": message("c", "In-Reply-To: <b@x>"),
    "d": message("d", "In-Reply-To: <c@x>"),
}


async def test_a_reply_appended_in_a_later_run_joins_its_parents_thread(tmp_path: Path) -> None:
    # Before: "c", appended after a run had read "a" and "b", named only "b" and made a
    # thread "b@x" of its own
    box = tmp_path / "inbox.mbox"
    state = None
    threads = {}
    for name in "abcd":
        with box.open("ab") as f:
            f.write(CONVERSATION[name])
        items = await collect(from_mbox(box, state=state))
        (end,) = [i for i in items if isinstance(i, SourceState)]
        assert end.mode == ("full" if name == "a" else "incremental")
        state = end.state
        threads |= {r.title: r.thread for r in records(items)}
    assert threads == {"a": "a@x", "b": "a@x", "c": "a@x", "d": "a@x"}


async def test_a_run_with_nothing_new_keeps_the_threads(tmp_path: Path) -> None:
    # "e" answers "b", not the last message read (whose thread the position kept before)
    box = tmp_path / "inbox.mbox"
    box.write_bytes(CONVERSATION["a"] + CONVERSATION["b"] + CONVERSATION["c"])
    (end,) = [i for i in await collect(from_mbox(box)) if isinstance(i, SourceState)]
    nothing = await collect(from_mbox(box, state=end.state))
    (again,) = [i for i in nothing if isinstance(i, SourceState)]
    with box.open("ab") as f:
        f.write(message("e", "In-Reply-To: <b@x>"))
    items = await collect(from_mbox(box, state=again.state))
    assert [(r.title, r.thread) for r in records(items)][-1] == ("e", "a@x")


def test_the_book_keeps_the_newest_reply_threads() -> None:
    book = MailBook()
    before = {f"old{n}@x": "root@x" for n in range(THREADS_KEPT)}
    reply = MemoryRecord(id="new@x", text="t", thread="root@x")
    assert book.place(reply) is not None
    kept = book.threads(before)
    assert len(kept) == THREADS_KEPT and list(kept)[-1] == "new@x" and "old0@x" not in kept
    root = MemoryRecord(id="root2@x", text="t", thread="root2@x")  # a root: its own thread
    assert book.place(root) is not None and "root2@x" not in book.threads({})
