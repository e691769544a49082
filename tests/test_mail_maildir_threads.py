"""Maildir threads as the mbox and .eml readers do: a reply joins its parent's thread."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, records

from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState


def message(n: str, *headers: str) -> bytes:
    lines = [f"From: p{n}@example.com", f"Subject: {n}", f"Message-ID: <{n}@x>", *headers]
    return ("\n".join(lines) + f"\n\nthis is {n}\n").encode()


# A root, a reply naming it, and replies naming only their parent: In-Reply-To alone, or a
# References list that lost its root (the first entry is a mail no one kept).
CONVERSATION = {
    "a": message("a"),
    "b": message("b", "In-Reply-To: <a@x>", "References: <a@x>"),
    "c": message("c", "In-Reply-To: <b@x>"),
    "d": message("d", "References: <lost@x> <c@x>", "In-Reply-To: <c@x>"),
}


def maildir(root: Path, names: list[str]) -> Path:
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        (root / "cur" / f"100{i}.M1P1.host:2,S").write_bytes(CONVERSATION[name])
    return root


async def test_a_reply_naming_only_its_parent_joins_the_thread(tmp_path: Path) -> None:
    # Before: the thread was the first id named, so "c" made a thread of "b" and "d" one
    # of a mail that is not there
    items = await collect(from_maildir(maildir(tmp_path / "Maildir", ["a", "b", "c", "d"])))
    assert {r.title: r.thread for r in records(items)} == {
        "a": "a@x",
        "b": "a@x",
        "c": "a@x",
        "d": "a@x",
    }


async def test_maildir_and_mbox_give_the_same_threads(tmp_path: Path) -> None:
    names = ["a", "b", "c", "d"]
    box = tmp_path / "all.mbox"
    box.write_bytes(
        b"".join(b"From x Mon Jan  1 00:00:00 2024\n" + CONVERSATION[n] + b"\n" for n in names)
    )
    from_box = {r.title: r.thread for r in records(await collect(from_mbox(box)))}
    from_dir = {
        r.title: r.thread
        for r in records(await collect(from_maildir(maildir(tmp_path / "Maildir", names))))
    }
    assert from_dir == from_box


async def test_a_reply_read_in_a_later_run_joins_the_thread_of_a_mail_read_before(
    tmp_path: Path,
) -> None:
    root = maildir(tmp_path / "Maildir", ["a", "b"])
    first = await collect(from_maildir(root))
    (end,) = [i for i in first if isinstance(i, SourceState)]
    (root / "new" / "2000.M1P1.host").write_bytes(CONVERSATION["c"])
    second = await collect(from_maildir(root, state=end.state))
    assert [(r.title, r.thread) for r in records(second)] == [("c", "a@x")]
    (end,) = [i for i in second if isinstance(i, SourceState)]
    (root / "new" / "2001.M1P1.host").write_bytes(CONVERSATION["d"])
    third = await collect(from_maildir(root, state=end.state))
    assert [(r.title, r.thread) for r in records(third)] == [("d", "a@x")]


async def test_a_reply_whose_parent_left_the_maildir_still_joins_its_thread(
    tmp_path: Path,
) -> None:
    # Before: once "b" was deleted after a run had read it (a cron import, then the user
    # tidies the inbox), a reply naming only "b" made a thread "b@x" of its own
    root = maildir(tmp_path / "Maildir", ["a", "b"])
    first = await collect(from_maildir(root))
    (end,) = [i for i in first if isinstance(i, SourceState)]
    (root / "cur" / "1001.M1P1.host:2,S").unlink()
    second = await collect(from_maildir(root, state=end.state))
    (end,) = [i for i in second if isinstance(i, SourceState)]
    (root / "new" / "2000.M1P1.host").write_bytes(CONVERSATION["c"])  # a run later
    third = await collect(from_maildir(root, state=end.state))
    assert [(r.title, r.thread) for r in records(third)] == [("c", "a@x")]
