"""Two different mails that reuse one Message-ID: both are kept, and each is threaded by
what it says itself (its own parent, or a thread of its own), not by the other one."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.eml import from_eml
from memtrails.importers.mbox import from_mbox


def mail(title: str, mid: str, day: int, *headers: str, body: str = "") -> bytes:
    lines = [
        f"From: {title}@example.com",
        f"Subject: {title}",
        f"Date: Mon, {day} Jan 2024 10:00:00 +0000",
        f"Message-ID: <{mid}>",
        *headers,
    ]
    return ("\n".join(lines) + f"\n\n{body or 'this is ' + title}\n").encode()


ROOT = mail("root", "r1@x", 1)
REUSED_REPLY = mail("reply", "same@x", 2, "In-Reply-To: <r1@x>", "References: <r1@x>")
REUSED_ROOT = mail("lonely", "same@x", 3)
P1, P2 = mail("p1", "p1@x", 4), mail("p2", "p2@x", 5)
TO_P1 = mail("to-p1", "twice@x", 6, "In-Reply-To: <p1@x>")
TO_P2 = mail("to-p2", "twice@x", 7, "In-Reply-To: <p2@x>")


def _mbox(path: Path, mails: list[bytes]) -> Path:
    path.write_bytes(b"".join(b"From x Mon Jan  1 00:00:00 2024\n" + m + b"\n" for m in mails))
    return path


def _threads(items: list[object]) -> dict[str | None, tuple[str, str | None]]:
    return {r.title: (r.id, r.thread) for r in records(items)}


@pytest.mark.parametrize("order", ["reply first", "root first"])
async def test_a_root_reusing_a_replys_id_is_a_thread_of_its_own(
    tmp_path: Path, order: str
) -> None:
    # Before: the plan merged the two under one id, so the root that names no parent took
    # the reply's parent and landed in "r1@x"'s thread
    two = [REUSED_REPLY, REUSED_ROOT] if order == "reply first" else [REUSED_ROOT, REUSED_REPLY]
    got = _threads(await collect(from_mbox(_mbox(tmp_path / "box.mbox", [ROOT, *two]))))
    assert set(got) == {"root", "reply", "lonely"}  # nothing dropped or merged
    assert got["reply"][1] == "r1@x"
    lonely_id, lonely_thread = got["lonely"]
    assert lonely_id.startswith("same@x") and lonely_thread.startswith("same@x")
    assert got["reply"][0] != lonely_id


async def test_two_replies_reusing_one_id_each_keep_their_parent(tmp_path: Path) -> None:
    # Before: both were put in the thread of the last parent the plan noted ("p2@x")
    got = _threads(await collect(from_mbox(_mbox(tmp_path / "b.mbox", [P1, P2, TO_P1, TO_P2]))))
    assert got["to-p1"][1] == "p1@x"
    assert got["to-p2"][1] == "p2@x"
    assert got["to-p1"][0] != got["to-p2"][0]


async def test_a_folder_of_eml_files_threads_reused_ids_alike(tmp_path: Path) -> None:
    for n, data in enumerate([TO_P2, P1, TO_P1, P2]):
        (tmp_path / f"{n}.eml").write_bytes(data)
    got = _threads(await collect(from_eml(tmp_path)))
    assert (got["to-p1"][1], got["to-p2"][1]) == ("p1@x", "p2@x")


async def test_a_copy_without_references_still_joins_its_thread(tmp_path: Path) -> None:
    # one mail archived twice (same Date), once without its References: the copy read first
    # is the one kept, in the thread its other copy names
    stripped = mail("reply", "same@x", 2)
    got = _threads(
        await collect(from_mbox(_mbox(tmp_path / "c.mbox", [stripped, ROOT, REUSED_REPLY])))
    )
    assert got["reply"] == ("same@x", "r1@x")


async def test_a_mail_archived_twice_in_two_forms_stays_in_its_thread(tmp_path: Path) -> None:
    # Pipermail keeps a mail rejected as too big (its text scrubbed) and its resend under one
    # Message-ID and one Date (twisted-python-2003-April.mbox): two records, one thread
    scrubbed = mail("big", "big@x", 8, body="An embedded message was scrubbed...")
    resent = mail("big", "big@x", 8)
    reply = mail("answer", "ans@x", 9, "In-Reply-To: <big@x>")
    items = await collect(from_mbox(_mbox(tmp_path / "d.mbox", [scrubbed, reply, resent])))
    assert [(r.id.split("#")[0], r.thread) for r in records(items)] == [
        ("big@x", "big@x"),
        ("ans@x", "big@x"),
        ("big@x", "big@x"),
    ]


async def test_a_mail_sent_twice_under_one_id_stays_in_one_thread(tmp_path: Path) -> None:
    # the same words sent again 15 s later under the same Message-ID (Evolution did, in
    # twisted-python-2004-February.mbox): another Date, the same subject
    first = mail("offline", "twice@x", 10)
    again = first.replace(b"10:00:00", b"10:00:15")
    items = await collect(from_mbox(_mbox(tmp_path / "t.mbox", [first, again])))
    assert [r.thread for r in records(items)] == ["twice@x", "twice@x"]
