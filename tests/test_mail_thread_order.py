"""A mail's thread does not depend on the order its source holds the mails in: a reply read
before its parent (a Maildir's new/ before cur/, an mbox in reverse) joins the same thread."""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState


def message(n: str, *headers: str) -> bytes:
    lines = [f"From: p{n}@example.com", f"Subject: {n}", f"Message-ID: <{n}@x>", *headers]
    return ("\n".join(lines) + f"\n\nthis is {n}\n").encode()


MAILS = {
    # a root, a reply naming it, replies naming only their parent (In-Reply-To alone, or
    # References that lost their root)
    "a": message("a"),
    "b": message("b", "In-Reply-To: <a@x>", "References: <a@x>"),
    "c": message("c", "In-Reply-To: <b@x>"),
    "d": message("d", "References: <lost@x> <c@x>", "In-Reply-To: <c@x>"),
    # another thread, whose root was not kept: its replies name it only
    "e": message("e", "References: <gone@x>"),
    "f": message("f", "In-Reply-To: <e@x>"),
    # a mail of its own
    "g": message("g"),
}
THREADS = {
    "a": "a@x",
    "b": "a@x",
    "c": "a@x",
    "d": "a@x",
    "e": "gone@x",
    "f": "gone@x",
    "g": "g@x",
}


def _mbox(path: Path, names: list[str] | tuple[str, ...]) -> Path:
    path.write_bytes(
        b"".join(b"From x Mon Jan  1 00:00:00 2024\n" + MAILS[n] + b"\n" for n in names)
    )
    return path


def _threads(items: list[object]) -> dict[str | None, str | None]:
    return {r.title: r.thread for r in records(items)}


@pytest.mark.parametrize("names", ["abcdefg", "gfedcba", "dcbagfe", "cadbfge"])
async def test_an_mbox_gives_the_same_threads_in_any_order(tmp_path: Path, names: str) -> None:
    # Before: read after "b", "c" (naming only "b") was in "a"'s thread; read before it, in
    # a thread "b@x" of its own
    items = await collect(from_mbox(_mbox(tmp_path / "box.mbox", list(names))))
    assert _threads(items) == THREADS


async def test_every_order_of_four_mails_gives_one_thread(tmp_path: Path) -> None:
    for n, order in enumerate(itertools.permutations("abcd")):
        items = await collect(from_mbox(_mbox(tmp_path / f"{n}.mbox", order)))
        assert set((_threads(items)).values()) == {"a@x"}, order


async def test_a_compressed_mbox_in_reverse_order_gives_the_same_threads(tmp_path: Path) -> None:
    plain = _mbox(tmp_path / "box.mbox", list("gfedcba"))
    packed = tmp_path / "box.mbox.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert _threads(await collect(from_mbox(packed))) == THREADS


def _maildir(root: Path, cur: str, new: str) -> Path:
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(cur):
        (root / "cur" / f"100{i}.M1P1.host:2,S").write_bytes(MAILS[name])
    for i, name in enumerate(new):
        (root / "new" / f"200{i}.M1P1.host").write_bytes(MAILS[name])
    return root


@pytest.mark.parametrize(
    ("cur", "new"),
    [
        ("abg", "cdef"),  # the replies that came last wait in new/, read first
        ("ae", "bcdfg"),
        ("dcba", "gfe"),
        ("", "dcbagfe"),
    ],
)
async def test_a_maildir_gives_the_same_threads_whichever_folder_a_mail_is_in(
    tmp_path: Path, cur: str, new: str
) -> None:
    items = await collect(from_maildir(_maildir(tmp_path / "Maildir", cur, new)))
    assert _threads(items) == THREADS


async def test_a_reply_in_a_later_run_joins_the_thread_its_parent_was_given(
    tmp_path: Path,
) -> None:
    root = _maildir(tmp_path / "Maildir", "ab", "")
    first = await collect(from_maildir(root))
    (end,) = [i for i in first if isinstance(i, SourceState)]
    (root / "new" / "3000.M1P1.host").write_bytes(MAILS["d"])
    (root / "new" / "3001.M1P1.host").write_bytes(MAILS["c"])
    second = await collect(from_maildir(root, state=end.state))
    assert _threads(second) == {"c": "a@x", "d": "a@x"}
