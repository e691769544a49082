"""A Maildir written under Cygwin or MSYS2 on Windows, whose file names cannot hold ``:``:
Cygwin writes it as U+F03A, and the names keep it when the folder is read elsewhere.
Their flags are read as after ``:`` (``x\\uf03a2,S`` is seen), and a flag changed is a
flag changed, not a new message."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, records

from memtrails.importers.maildir import from_maildir
from memtrails.records import Seen, SourceState

COLON = "\uf03a"  # Cygwin's ":" in an NTFS file name


def mail(n: int) -> bytes:
    return (
        f"From: ann@example.org\nSubject: message {n}\nMessage-ID: <{n}@example.org>\n"
        f"Date: Mon, 1 Jan 2024 10:00:00 +0000\n\nbody {n}\n"
    ).encode()


async def test_flags_after_cygwin_s_colon_are_tags(tmp_path: Path) -> None:
    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    (tmp_path / "cur" / f"1001.M1P1.host{COLON}2,RS").write_bytes(mail(1))
    (tmp_path / "cur" / f"1002.M1P1.host{COLON}2,FS").write_bytes(mail(2))
    first = await collect(from_maildir(tmp_path))
    assert {r.title: r.meta["tags"] for r in records(first)} == {
        "message 1": ["replied", "seen"],
        "message 2": ["flagged", "seen"],
    }
    (end,) = [i for i in first if isinstance(i, SourceState)]
    # The mail client marks message 2 read no more: its name's flags change, nothing else.
    old = tmp_path / "cur" / f"1002.M1P1.host{COLON}2,FS"
    old.rename(tmp_path / "cur" / f"1002.M1P1.host{COLON}2,F")
    second = await collect(from_maildir(tmp_path, state=end.state))
    assert [(r.title, r.meta["tags"]) for r in records(second)] == [("message 2", ["flagged"])]
    assert {s.id for s in second if isinstance(s, Seen)} == {"1@example.org"}
