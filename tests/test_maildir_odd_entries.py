"""Entries of a Maildir's cur/ or new/ that are no message file: a folder (cur/ and new/
hold message files only, by the Maildir spec; Maildir++ folders are dot-folders beside
them), or a link to nothing. Each is one error naming it and saying why it was not read,
so that a user who counts files and mails sees why they differ; before, they were left
out without a word. A folder of .eml files says the same of a link to nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.eml import eml_count, from_eml
from memtrails.importers.maildir import from_maildir, message_count


def _mail(n: int) -> bytes:
    return f"From: a@example.com\nSubject: mail {n}\nMessage-ID: <{n}@x>\n\nwords\n".encode()


@pytest.mark.timeout(120)
async def test_maildir_folders_and_dangling_links_in_cur_and_new_are_said(
    tmp_path: Path,
) -> None:
    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    (tmp_path / "cur" / "1.M1.host:2,S").write_bytes(_mail(1))
    (tmp_path / "cur" / "2019").mkdir()  # an archive unpacked in the wrong place
    for n in (2, 3):
        (tmp_path / "cur" / "2019" / f"{n}.M1.host:2,S").write_bytes(_mail(n))
    (tmp_path / "new" / "empty").mkdir()
    os.symlink(tmp_path / "elsewhere" / "4.M4.host", tmp_path / "new" / "4.M4.host")
    (tmp_path / ".Lists" / "cur").mkdir(parents=True)  # Maildir++: a folder of its own
    (tmp_path / ".Lists" / "cur" / "5.M5.host:2,").write_bytes(_mail(5))
    items = await collect(from_maildir(tmp_path))
    assert sorted(r.title for r in records(items)) == ["mail 1", "mail 5"]
    said = {e.where: e.reason for e in errors(items)}
    assert set(said) == {"cur/2019", "new/empty", "new/4.M4.host"}
    assert "folder" in said["cur/2019"] and "2 entries" in said["cur/2019"]
    assert "cur/ and new/ hold message files only" in said["cur/2019"]
    assert "0 entries" in said["new/empty"]
    assert "link to nothing" in said["new/4.M4.host"]
    assert str(tmp_path / "elsewhere" / "4.M4.host") in said["new/4.M4.host"]
    assert message_count(tmp_path) == len(items) - 1  # the bar's count: each a line, but the end
    assert items[-1].complete  # nothing that is a message was missed: a prune still works


@pytest.mark.timeout(120)
async def test_eml_folder_dangling_link_is_said(tmp_path: Path) -> None:
    (tmp_path / "a.eml").write_bytes(_mail(1))
    os.symlink(tmp_path / "gone.eml", tmp_path / "b.eml")
    items = await collect(from_eml(tmp_path))
    assert [r.title for r in records(items)] == ["mail 1"]
    ((error),) = errors(items)
    assert error.where == "b.eml" and "link to nothing" in error.reason
    assert eml_count(tmp_path) == 2
