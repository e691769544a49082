"""A named pipe, a socket or a device inside a Maildir's cur/ or new/, or named *.eml in a
folder of .eml files, is never opened (a FIFO would block the import) and is reported as
skipped with its reason, as the notes walk reports such entries; before, it was left out
without a word ("0 items")."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.eml import eml_count, from_eml
from memtrails.importers.maildir import from_maildir, message_count

MAIL = b"From: a@example.com\nSubject: kept\nMessage-ID: <1@example.com>\n\nkept words\n"


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    # AF_UNIX paths are short (108 bytes): bound where the path is short, then moved in
    short = Path(tempfile.mkdtemp(prefix="s"))
    where = short / "s"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(where))
        yield where
    finally:
        sock.close()
        where.unlink(missing_ok=True)
        short.rmdir()


@pytest.mark.timeout(60)  # a FIFO opened for reading waits for a writer forever
async def test_maildir_special_entries_are_skipped_unopened(
    tmp_path: Path, unix_socket: Path
) -> None:
    for box in ("cur", "new", "tmp"):
        (tmp_path / box).mkdir()
    (tmp_path / "cur" / "1.M1.host:2,S").write_bytes(MAIL)
    os.mkfifo(tmp_path / "cur" / "2.M2.host:2,S")
    os.mkfifo(tmp_path / "new" / "3.M3.host")
    os.rename(unix_socket, tmp_path / "new" / "4.M4.host")
    os.symlink("/dev/zero", tmp_path / "cur" / "5.M5.host:2,")  # read, it never ends
    (tmp_path / ".Lists").mkdir()
    (tmp_path / ".Lists" / "cur").mkdir()
    os.mkfifo(tmp_path / ".Lists" / "cur" / "6.M6.host:2,")
    items = await collect(from_maildir(tmp_path))
    assert [r.title for r in records(items)] == ["kept"]
    said = {e.where: e.reason for e in errors(items)}
    assert said == {
        "cur/2.M2.host:2,S": "a named pipe (FIFO), left out: only regular files are read",
        "new/3.M3.host": "a named pipe (FIFO), left out: only regular files are read",
        "new/4.M4.host": "a socket, left out: only regular files are read",
        "cur/5.M5.host:2,": "a device, left out: only regular files are read",
        ".Lists/cur/6.M6.host:2,": "a named pipe (FIFO), left out: only regular files are read",
    }
    assert message_count(tmp_path) == len(items) - 1  # the bar's count: each a line, but the end
    assert items[-1].complete  # nothing a message: a prune still forgets deleted mail


@pytest.mark.timeout(60)
async def test_eml_folder_special_entries_are_skipped_unopened(tmp_path: Path) -> None:
    (tmp_path / "a.eml").write_bytes(MAIL)
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / "b.eml")
    os.symlink("/dev/zero", tmp_path / "c.EML.gz")
    os.mkfifo(tmp_path / "notes.txt")  # no mail by its name: not this reader's to say
    items = await collect(from_eml(tmp_path))
    assert [r.title for r in records(items)] == ["kept"]
    said = {e.where: e.reason for e in errors(items)}
    assert said == {
        "sub/b.eml": "a named pipe (FIFO), left out: only regular files are read",
        "c.EML.gz": "a device, left out: only regular files are read",
    }
    assert eml_count(tmp_path) == 3


@pytest.mark.timeout(120)
def test_memtrails_add_says_a_maildir_fifo_was_skipped(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memtrails.cli import main

    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.M1.host:2,S").write_bytes(MAIL)
    os.mkfifo(box / "new" / "2.M2.host")
    result = CliRunner().invoke(
        main, ["add", str(box), "--home", str(tmp_path / "home")], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "added 1," in result.output and "skipped 1," in result.output
    assert (
        f"skipped: {box} (new/2.M2.host): a named pipe (FIFO), left out: "
        "only regular files are read"
    ) in result.output
