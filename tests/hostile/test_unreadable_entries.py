"""Folder walkers (Maildir, Slack export, .eml folder) meeting entries they cannot read: a
symlink loop, a folder that refuses listing, a file that refuses reading. Each is a named
error, the rest is imported, and a prune never forgets what could not be looked at."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import deny

from memtrails import Memory
from memtrails.add import add_path
from memtrails.records import ImportReport
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(60)


def reasons(report: ImportReport) -> dict[str, str]:
    return {e.where: e.reason for e in report.errors}


def loop(folder: Path, a: str, b: str) -> None:
    """Make ``a`` and ``b`` symlinks to each other: looking at either fails with ELOOP."""
    os.symlink(b, folder / a)
    os.symlink(a, folder / b)


async def ids(memory: Memory, *wanted: str) -> list[str]:
    """The ids among ``wanted`` that the memory holds."""
    return [i for i in wanted if await memory.get(i) is not None]


# -- Maildir ------------------------------------------------------------------------------


def _mail(n: int) -> bytes:
    return f"From: a@x\nSubject: message {n}\nMessage-ID: <{n}@x>\n\nbody walrus {n}\n".encode()


def _maildir(root: Path) -> Path:
    """INBOX with three messages in cur/ and one in new/, and a Maildir++ folder with one."""
    for box in ("cur", "new", "tmp", ".Lists/cur"):
        (root / box).mkdir(parents=True)
    for n in (1, 2, 3):
        (root / "cur" / f"{n}.host:2,S").write_bytes(_mail(n))
    (root / "new" / "4.host").write_bytes(_mail(4))
    (root / ".Lists" / "cur" / "5.host:2,").write_bytes(_mail(5))
    return root


_ALL = ("1@x", "2@x", "3@x", "4@x", "5@x")


async def test_a_symlink_loop_in_cur_is_one_error_and_prune_keeps_the_box(
    tmp_path: Path,
) -> None:
    root = _maildir(tmp_path / "Maildir")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, root)).added == 5
        loop(root / "cur", "loop1", "loop2.host:2,S")
        (root / "cur" / "6.host:2,S").write_bytes(_mail(6))
        report = await add_path(memory, root, prune=True)
        assert (report.added, report.unchanged, report.removed) == (1, 5, 0)
        assert await ids(memory, *_ALL, "6@x") == [*_ALL, "6@x"]
    got = reasons(report)
    assert set(got) == {"cur/loop1", "cur/loop2.host:2,S"}
    assert all("Too many levels of symbolic links" in r for r in got.values())


async def test_a_first_import_beside_a_loop_reads_every_message(tmp_path: Path) -> None:
    root = _maildir(tmp_path / "Maildir")
    loop(root / "new", "x.host", "y.host")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
        assert await ids(memory, *_ALL) == list(_ALL)
    assert (report.added, sorted(reasons(report))) == (5, ["new/x.host", "new/y.host"])


@pytest.mark.parametrize("locked", ["cur", ".Lists", ".Lists/cur"])
async def test_a_folder_that_cannot_be_listed_is_named_and_not_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, locked: str
) -> None:
    root = _maildir(tmp_path / "Maildir")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, root)).added == 5
        (root / "new" / "6.host").write_bytes(_mail(6))
        deny(monkeypatch, root / locked)
        report = await add_path(memory, root, prune=True)
        monkeypatch.undo()
        assert (report.added, report.removed) == (1, 0)
        assert await ids(memory, *_ALL, "6@x") == [*_ALL, "6@x"]
        # listed again, the folder needs no re-read and a prune works again
        (root / "cur" / "1.host:2,S").unlink()
        again = await add_path(memory, root, prune=True)
        assert (again.added, again.removed, again.errors) == (0, 1, [])
    assert "cannot list the folder: Permission denied" in reasons(report)[locked]


async def test_a_known_message_that_cannot_be_read_keeps_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _maildir(tmp_path / "Maildir")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await add_path(memory, root)
        # a mail client flags message 1 (it must be read again), which then refuses reading
        os.rename(root / "cur" / "1.host:2,S", root / "cur" / "1.host:2,FS")
        deny(monkeypatch, root / "cur" / "1.host:2,FS")
        report = await add_path(memory, root, prune=True)
        monkeypatch.undo()
        assert report.removed == 0 and await ids(memory, "1@x") == ["1@x"]
        assert "Permission denied" in reasons(report)["cur/1.host:2,FS"]
        # readable again: it is read on the next run, not remembered as an error
        again = await add_path(memory, root, prune=True)
        assert (again.updated, again.errors) == (1, [])
        one = await memory.get("1@x")
        assert one is not None and one.meta["tags"] == ["flagged", "seen"]


# -- Slack export -------------------------------------------------------------------------


def _say(text: str, ts: str) -> str:
    return json.dumps([{"type": "message", "user": "U1", "text": text, "ts": ts}])


def _slack(root: Path) -> Path:
    """#general with days 1 and 4 (2 and 3 come later), #random with one day."""
    for channel in ("general", "random"):
        (root / channel).mkdir(parents=True)
    (root / "users.json").write_text('[{"id": "U1", "name": "ann"}]')
    (root / "channels.json").write_text('[{"id": "C1", "name": "general"}]')
    (root / "general" / "2024-01-01.json").write_text(_say("hello narwhal", "1700000001.0001"))
    (root / "general" / "2024-01-04.json").write_text(_say("bye narwhal", "1700000004.0001"))
    (root / "random" / "2024-01-01.json").write_text(_say("a walrus", "1700000009.0001"))
    return root


_SAID = ("general/1700000001.0001", "general/1700000004.0001", "random/1700000009.0001")
_LOOPED = ["general/2024-01-02.json", "general/2024-01-03.json"]


async def test_a_symlink_loop_among_day_files_is_named_and_the_other_days_import(
    tmp_path: Path,
) -> None:
    root = _slack(tmp_path / "export")
    loop(root / "general", "2024-01-02.json", "2024-01-03.json")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await add_path(memory, root)
        assert await ids(memory, *_SAID) == list(_SAID)
        again = await add_path(memory, root)  # resumed: the loop is still named
        pruned = await add_path(memory, root, prune=True)
        assert await ids(memory, *_SAID) == list(_SAID)
    assert (first.added, sorted(reasons(first))) == (3, _LOOPED)
    assert "Too many levels of symbolic links" in reasons(first)[_LOOPED[0]]
    assert sorted(reasons(again)) == _LOOPED
    assert (pruned.removed, sorted(reasons(pruned))) == (0, _LOOPED)


async def test_a_channel_folder_that_cannot_be_listed_is_named_and_not_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _slack(tmp_path / "export")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, root)).added == 3
        deny(monkeypatch, root / "random")
        report = await add_path(memory, root, prune=True)
        monkeypatch.undo()
        assert (report.unchanged, report.removed) == (2, 0)
        assert await ids(memory, *_SAID) == list(_SAID)
    assert reasons(report) == {
        "random": "cannot list the channel folder (Permission denied); its messages were not read"
    }


async def test_a_users_file_that_cannot_be_read_is_named_not_taken_for_missing(
    tmp_path: Path,
) -> None:
    root = _slack(tmp_path / "export")
    (root / "users.json").unlink()
    loop(root, "users.json", "people.json")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
        assert await ids(memory, *_SAID) == list(_SAID)
    assert "Too many levels of symbolic links" in reasons(report)["users.json"]


# -- a folder of .eml files (read as one kind: ``--kind eml``) ----------------------------


def _emls(root: Path) -> Path:
    (root / "sub").mkdir(parents=True)
    for rel, n in (("a.eml", 1), ("b.eml", 2), ("sub/c.eml", 3)):
        (root / rel).write_bytes(_mail(n))
    return root


async def test_an_eml_symlink_loop_is_named_not_left_out_unsaid(tmp_path: Path) -> None:
    root = _emls(tmp_path / "saved")
    loop(root, "x.eml", "y.eml")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await add_path(memory, root, kind="eml")
        pruned = await add_path(memory, root, kind="eml", prune=True)
        assert await ids(memory, "1@x", "2@x", "3@x") == ["1@x", "2@x", "3@x"]
    assert (pruned.unchanged, pruned.removed, sorted(reasons(pruned))) == (3, 0, ["x.eml", "y.eml"])
    assert "Too many levels of symbolic links" in reasons(pruned)["x.eml"]


async def test_an_eml_folder_that_cannot_be_listed_is_named_and_not_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _emls(tmp_path / "saved")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, root, kind="eml")).added == 3
        deny(monkeypatch, root / "sub")
        report = await add_path(memory, root, kind="eml", prune=True)
        monkeypatch.undo()
        assert (report.unchanged, report.removed) == (2, 0)
        assert await ids(memory, "1@x", "2@x", "3@x") == ["1@x", "2@x", "3@x"]
    assert reasons(report) == {
        "sub": "cannot list the folder: Permission denied; its messages were not read"
    }


async def test_a_mail_folder_without_kind_given_prunes_nothing_it_could_not_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without --kind the folder is planned by detect: a folder of mail alone had a notes
    # part of the same source, there only to say what was left out, and its prune forgot
    # every message (they were read again and re-embedded; the unlisted one was lost).
    root = _emls(tmp_path / "saved")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, root)).added == 3
        loop(root, "x.eml", "y.eml")
        looped = await add_path(memory, root, prune=True)
        assert (looped.added, looped.removed, looped.unchanged) == (0, 0, 3)
        assert {"x.eml", "y.eml"} <= set(reasons(looped))
        deny(monkeypatch, root / "sub")
        denied = await add_path(memory, root, prune=True)
        monkeypatch.undo()
        assert (denied.added, denied.removed) == (0, 0)
        assert "sub" in reasons(denied)
        assert await ids(memory, "1@x", "2@x", "3@x") == ["1@x", "2@x", "3@x"]
