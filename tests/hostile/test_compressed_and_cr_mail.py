"""Mail in forms that once read wrong: one message compressed (``x.eml.gz``), a disk that
fails part-way through an mbox, messages and mboxes whose lines end in CR alone."""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import lzma
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import collect, errors, failing_disk, records

from memtrails.cli import main
from memtrails.cli._totals import record_total
from memtrails.importers import registry
from memtrails.importers.detect import detect_kind, plan
from memtrails.importers.eml import eml_count, from_eml
from memtrails.importers.mail import message
from memtrails.importers.mail.sniff import looks_like_message
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState

pytestmark = pytest.mark.timeout(120)

MESSAGE = (
    b"From: Ann <ann@example.com>\nTo: bob@example.com\nSubject: the plan\n"
    b"Message-ID: <plan@example.com>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\n"
    b"We meet on Tuesday.\n"
)
PACKERS: dict[str, Callable[[bytes], bytes]] = {
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
}


def _cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


# -- one message, compressed ---------------------------------------------------------------


@pytest.mark.parametrize("suffix", list(PACKERS))
async def test_a_compressed_eml_is_read_as_its_message(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"x.eml{suffix}"
    path.write_bytes(PACKERS[suffix](MESSAGE))
    assert detect_kind(path) == "eml"
    assert [p.kind for p in plan(path)] == ["eml"]
    items = await collect(from_eml(path))
    assert errors(items) == []
    (record,) = records(items)
    assert (record.id, record.title) == ("plan@example.com", "the plan")


async def test_a_cut_short_eml_gz_is_one_named_error(tmp_path: Path) -> None:
    path = tmp_path / "x.eml.gz"
    packed = gzip.compress(MESSAGE + b"more words " * 2000)
    path.write_bytes(packed[: len(packed) // 2])
    items = await collect(from_eml(path))
    (error,) = errors(items)
    assert error.where == "x.eml.gz"
    assert "cut short" in error.reason
    assert isinstance(items[-1], SourceState) and not items[-1].complete


async def test_a_compressed_eml_over_the_size_limit_is_read_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The limit is on the message, not on its compressed bytes: a small .eml.gz may unpack
    to far more than a message may hold; its first bytes are read, and the record says so."""
    monkeypatch.setattr(message, "MAX_MESSAGE_BYTES", 1000)
    path = tmp_path / "x.eml.gz"
    path.write_bytes(gzip.compress(MESSAGE + b"a" * 5000))
    assert path.stat().st_size < 1000
    (record,) = records(await collect(from_eml(path)))
    assert record.title == "the plan" and record.text.startswith("We meet on Tuesday.")
    assert "TooLargeDefect" in record.meta["defects"] and len(record.text) < 1000


def test_add_reads_a_compressed_eml(tmp_path: Path) -> None:
    path = tmp_path / "x.eml.gz"
    path.write_bytes(gzip.compress(MESSAGE))
    args = ["add", str(path), "--home", str(tmp_path / "m"), "--model", "minilm", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["added"], report["errors"]) == (1, [])


async def test_compressed_messages_in_a_folder_are_read_as_mail(tmp_path: Path) -> None:
    """A folder of saved mail, some of it compressed: every message is mail, as each one given
    alone is, not a file skipped as of no kind."""
    (tmp_path / "a.eml").write_bytes(MESSAGE.replace(b"plan@", b"a@"))
    (tmp_path / "b.eml.gz").write_bytes(gzip.compress(MESSAGE.replace(b"plan@", b"b@")))
    (tmp_path / "c.eml.xz").write_bytes(lzma.compress(MESSAGE.replace(b"plan@", b"c@")))
    (part,) = plan(tmp_path)
    assert (part.kind, part.names, part.skipped) == (
        "eml",
        ("a.eml", "b.eml.gz", "c.eml.xz"),
        [],
    )
    assert eml_count(tmp_path) == 3
    for given in (part.names, None):  # as planned, and the whole folder's walk
        items = await collect(from_eml(tmp_path, names=given))
        assert errors(items) == []
        assert sorted(r.id for r in records(items)) == [
            "a@example.com",
            "b@example.com",
            "c@example.com",
        ]


# -- a disk that fails part-way through an mbox ---------------------------------------------


def _mbox(n: int) -> bytes:
    return b"".join(
        b"From a@b Tue Apr  1 12:21:37 2003\nFrom: a@b\nSubject: s%d\nMessage-ID: <m%d@x>\n\n"
        b"body %d\n\n" % (i, i, i)
        for i in range(n)
    )


async def test_a_disk_error_in_an_mbox_says_what_becomes_of_the_messages(tmp_path: Path) -> None:
    path = tmp_path / "archive.mbox"
    path.write_bytes(_mbox(10))
    stream = failing_disk(path, 7 * 4 + 3)  # 7 lines a message: into the fifth
    items = await collect(from_mbox(stream))
    assert len(records(items)) == 4
    (error,) = errors(items)
    assert error.where == f"message 5 at byte {len(_mbox(4))}"  # the message it cut
    assert error.reason == (
        f"cannot read further: the file cannot be read ({os.strerror(errno.EIO)}); "
        "the messages before are kept, the next run goes on from this message"
    )


# -- lines that end in CR alone ---------------------------------------------------------------


def test_a_cr_only_message_is_mail_whatever_its_name(tmp_path: Path) -> None:
    assert looks_like_message(_cr(MESSAGE))
    assert looks_like_message(_cr(b"\n\n" + MESSAGE))  # blank lines before its headers
    mh = tmp_path / "1234"
    mh.write_bytes(_cr(MESSAGE))
    assert detect_kind(mh) == "eml"
    (tmp_path / "notes.md").write_text("# notes\n")
    assert [(p.kind, p.names) for p in plan(tmp_path) if p.kind == "eml"] == [("eml", ("1234",))]


@pytest.mark.slow
def test_a_cr_only_message_on_standard_input_is_mail(tmp_path: Path) -> None:
    """``memtrails add - < 1234``: standard input redirected from a file, no name to go by."""
    path = tmp_path / "1234"
    path.write_bytes(_cr(MESSAGE))
    cmd = [sys.executable, "-m", "memtrails.cli", "add", "-", "--name", "mh", "--json"]
    cmd += ["--home", str(tmp_path / "m"), "--model", "minilm", "--threads", "1"]
    with path.open("rb") as stdin:
        done = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()
    report = json.loads(done.stdout)
    assert (report["added"], report["errors"]) == (1, [])


@pytest.mark.parametrize(
    "separator",
    [b"From -", b"From 1844347792267117879@xxx", b"From ", b"From a@b Tue Apr  1 12:21:37 2003"],
    ids=["mozilla", "address only", "bare", "dated"],
)
def test_a_cr_only_mbox_is_recognised_by_its_first_separator(separator: bytes) -> None:
    head = _cr(separator + b"\n" + MESSAGE + b"\n" + separator + b"\n" + MESSAGE)
    assert registry.importer("mbox").sniff is not None
    assert registry.importer("mbox").sniff(head)
    assert not registry.importer("mbox").sniff(_cr(b"From the start we knew.\nIt was so.\n"))


def test_a_cr_only_mbox_without_an_ending_is_planned_as_mbox(tmp_path: Path) -> None:
    path = tmp_path / "Inbox"
    path.write_bytes(_cr(b"From -\n" + MESSAGE + b"\nFrom -\n" + MESSAGE))
    assert detect_kind(path) == "mbox"


def test_the_progress_total_of_a_cr_only_mbox_counts_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "archive.mbox"
    path.write_bytes(_cr(_mbox(5)))
    assert record_total("mbox", path, None) == 5
    one = len(_mbox(1))
    assert record_total("mbox", path, {"offset": one * 3}) == 2
