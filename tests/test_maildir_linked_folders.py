"""A Maildir++ folder (or a nested Maildir) that is a symbolic link to a folder elsewhere
(an archive moved to another disk and linked back, as Dovecot reads it): its mail is
read. Before, the walk did not follow the link and the folder was left out without a
word. A link that leads back into the tree (a loop) is read once."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import collect, errors, records

from memtrails.importers.maildir import from_maildir, message_count


def _box(root: Path, *mails: tuple[str, str]) -> None:
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True)
    for name, subject in mails:
        mail = f"From: a@example.com\nSubject: {subject}\nMessage-ID: <{subject}@x>\n\nw\n"
        (root / "cur" / name).write_text(mail)


async def test_a_linked_maildir_plus_folder_is_read(tmp_path: Path) -> None:
    home = tmp_path / "Maildir"
    _box(home, ("1.M1.h:2,S", "inbox"))
    elsewhere = tmp_path / "disk2" / ".Archive.2019"
    _box(elsewhere, ("2.M2.h:2,S", "archived"))
    os.symlink(elsewhere, home / ".Archive.2019")
    os.symlink(home, home / ".Loop")  # back to the root: read once, no endless walk
    items = await collect(from_maildir(home))
    got = {r.title: r.meta["folder"] for r in records(items)}
    assert got == {"inbox": "INBOX", "archived": "Archive/2019"}
    assert errors(items) == []
    assert message_count(home) == 2
