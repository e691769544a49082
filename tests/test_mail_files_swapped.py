"""A mail file listed as a regular file and replaced by a named pipe (or a socket, a
device) before it is opened: a mail client's rename, or a hostile tree. The readers open
without blocking and look at what they opened: the file is one error naming it and why,
and the rest of the import goes on. Before, opening the FIFO waited for a writer forever
(the import hung)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtrails._exceptions import SourceError
from memtrails.importers import _fifo, eml, maildir
from memtrails.importers._input import NotRegularFile, open_input, read_file
from memtrails.records import MemoryRecord, RecordError, SourceState

FIFO = "a named pipe (FIFO), left out: only regular files are read"


def _mail(n: int) -> bytes:
    return f"From: a@example.com\nSubject: mail {n}\nMessage-ID: <{n}@x>\n\nwords {n}\n".encode()


def _fifo_in_place(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.timeout(60)  # before the fix, the open waited for a writer forever
def test_a_maildir_file_swapped_for_a_fifo_after_listing_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for sub in ("cur", "new", "tmp"):
        (tmp_path / sub).mkdir()
    for n in range(3):
        (tmp_path / "cur" / f"{n}.M1.host:2,S").write_bytes(_mail(n))
    listed = maildir._messages

    def messages(root: Path, source: str) -> maildir._Listing:
        listing = listed(root, source)
        _fifo_in_place(root / "cur" / "1.M1.host:2,S")  # after the listing, before reading
        return listing

    monkeypatch.setattr(maildir, "_messages", messages)
    items = list(maildir._read(tmp_path, "box", None, 500))
    assert sorted(i.title for i in items if isinstance(i, MemoryRecord)) == ["mail 0", "mail 2"]
    said = [(e.where, e.reason) for e in items if isinstance(e, RecordError)]
    assert said == [("cur/1.M1.host:2,S", FIFO)]
    end = items[-1]
    assert isinstance(end, SourceState)


@pytest.mark.timeout(60)
def test_an_eml_file_swapped_for_a_fifo_after_listing_is_an_error(tmp_path: Path) -> None:
    for n in range(3):
        (tmp_path / f"{n}.eml").write_bytes(_mail(n))
    listed, unlisted, special = eml._list(tmp_path, "saved")
    _fifo_in_place(tmp_path / "1.eml")
    items = list(eml._read_eml("saved", listed, None, unlisted, special=special))
    assert sorted(i.title for i in items if isinstance(i, MemoryRecord)) == ["mail 0", "mail 2"]
    said = [(e.where, e.reason) for e in items if isinstance(e, RecordError)]
    assert said == [("1.eml", FIFO)]


@pytest.mark.timeout(60)
def test_read_file_refuses_what_is_no_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "m.eml"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile) as caught:
        read_file(fifo, 1000)
    assert caught.value.filename == str(fifo)
    with pytest.raises(NotRegularFile):
        read_file(Path("/dev/null"), 1000)  # a device: not read either
    with pytest.raises(IsADirectoryError):
        read_file(tmp_path, 1000)


@pytest.mark.timeout(60)
def test_an_input_that_turns_into_a_fifo_after_it_was_looked_at_is_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An mbox planned as a file that is a FIFO by the time it is opened (past the look
    that sends a pipe to the opener that never waits on one): refused as a pipe nothing
    writes to, not waited on forever."""
    monkeypatch.setattr(_fifo, "WAIT_S", 0.05)
    path = tmp_path / "list.mbox"
    os.mkfifo(path)
    monkeypatch.setattr("memtrails.importers._input.is_fifo", lambda _: False)
    with pytest.raises(SourceError, match="nothing writes to"):
        open_input(path, "list")


@pytest.mark.timeout(60)
def test_a_compressed_mbox_swapped_for_a_fifo_after_opening_is_not_waited_on(
    tmp_path: Path,
) -> None:
    """The compressed mbox is stamped (its bytes hashed) by its name after it was opened:
    a FIFO put there meanwhile is refused, not waited on forever."""
    import gzip

    from memtrails.importers.mbox import _read_mbox

    path = tmp_path / "list.mbox.gz"
    path.write_bytes(gzip.compress(b"From a@b Mon Jan  1 00:00:00 2024\nSubject: s\n\nwords\n"))
    with open_input(path, "list") as stream:
        _fifo_in_place(path)
        with pytest.raises(NotRegularFile):
            list(_read_mbox(stream, "list", None, 256))


@pytest.mark.timeout(60)
def test_a_single_eml_that_turns_into_a_fifo_is_refused_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "one.eml"
    os.mkfifo(path)
    monkeypatch.setattr(Path, "is_file", lambda self: True)  # a file when it was looked at
    with pytest.raises(SourceError, match="cannot read"):
        eml._list(path, "one")
