"""The Maildir importer: folders as labels, flags as tags, and re-runs that read only new files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import collect, errors, records

from memtrails.add import add_path
from memtrails.importers.detect import detect_kind, plan
from memtrails.importers.maildir import from_maildir
from memtrails.memory import Memory
from memtrails.records import Seen, SourceState


def _mail(n: int) -> bytes:
    return (
        f"From: Sender {n} <s{n}@example.com>\nSubject: message {n}\n"
        f"Message-ID: <{n}@example.com>\nDate: Tue, 1 Apr 2003 09:21:37 -0800\n\nbody {n}\n"
    ).encode()


def _maildir(root: Path) -> Path:
    """A Maildir++ tree: INBOX (cur, new, tmp), .Lists.python, and a plain nested one."""
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True)
    (root / "cur" / "1001.M1P1.host:2,RS").write_bytes(_mail(1))
    (root / "new" / "1002.M1P1.host").write_bytes(_mail(2))
    (root / "tmp" / "1003.M1P1.host").write_bytes(_mail(3))  # still being delivered
    (root / ".Lists.python" / "cur").mkdir(parents=True)
    (root / ".Lists.python" / "cur" / "1004.M1P1.host:2,F").write_bytes(_mail(4))
    (root / "archive" / "2003" / "cur").mkdir(parents=True)
    (root / "archive" / "2003" / "cur" / "1005.M1P1.host:2,").write_bytes(_mail(5))
    (root / "cur" / "1006.M1P1.host:2,S").write_bytes(b"not a message at all")
    return root


async def test_folders_are_labels_and_flags_are_tags(tmp_path: Path) -> None:
    root = _maildir(tmp_path / "Maildir")
    assert detect_kind(root) == "maildir"
    items = await collect(from_maildir(root))
    got = {r.title: (r.meta["folder"], r.meta["tags"]) for r in records(items)}
    assert got == {
        "message 1": ("INBOX", ["replied", "seen"]),
        "message 2": ("INBOX", ["new"]),
        "message 4": ("Lists/python", ["flagged"]),
        "message 5": ("archive/2003", []),
    }
    (bad,) = errors(items)
    assert bad.where == "cur/1006.M1P1.host:2,S" and "no mail headers" in bad.reason
    assert all(r.author and r.id.endswith("@example.com") for r in records(items))


async def test_rerun_reads_only_new_files_and_rereads_changed_flags(tmp_path: Path) -> None:
    root = _maildir(tmp_path / "Maildir")
    first = await collect(from_maildir(root))
    (end,) = [i for i in first if isinstance(i, SourceState)]
    # a mail client reads message 2 (new/ -> cur/, flag S); a new message arrives
    (root / "new" / "1002.M1P1.host").rename(root / "cur" / "1002.M1P1.host:2,S")
    (root / "new" / "1007.M1P1.host").write_bytes(_mail(7))
    second = await collect(from_maildir(root, state=end.state))
    assert sorted(r.title for r in records(second)) == ["message 2", "message 7"]
    assert {s.id for s in second if isinstance(s, Seen)} == {
        "1@example.com",
        "4@example.com",
        "5@example.com",
    }
    assert [r.meta["tags"] for r in records(second) if r.title == "message 2"] == [["seen"]]
    (end2,) = [i for i in second if isinstance(i, SourceState)]
    assert (end2.mode, end2.complete) == ("incremental", True)
    # a deleted message leaves the position, so a prune forgets it
    (root / ".Lists.python" / "cur" / "1004.M1P1.host:2,F").unlink()
    third = await collect(from_maildir(root, state=end2.state))
    assert records(third) == []
    assert "4@example.com" not in {s.id for s in third if isinstance(s, Seen)}


def test_a_folder_of_maildirs_gives_one_import_per_maildir(tmp_path: Path) -> None:
    # as notmuch's test corpus: no cur/ at the top, Maildirs below
    top = tmp_path / "mail"
    _maildir(top / "bar")
    _maildir(top / "foo")
    parts = plan(top)
    assert [(p.kind, Path(p.source).name) for p in parts] == [
        ("maildir", "bar"),
        ("maildir", "foo"),
    ]


async def test_add_maildir_then_rerun_embeds_nothing(tmp_path: Path, embedder: Any) -> None:
    root = _maildir(tmp_path / "Maildir")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await add_path(memory, root)
        assert (first.added, first.skipped) == (4, 1)
        (root / "new" / "1008.M1P1.host").write_bytes(_mail(8))
        second = await add_path(memory, root)
        assert (second.added, second.embedded, second.unchanged) == (1, 1, 4)
        assert [(s.mode, s.read) for s in second.sources] == [("incremental", 6)]
        new = await memory.get("8@example.com")
        assert new is not None and new.meta["tags"] == ["new"] and new.text == "body 8"
