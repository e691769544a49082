"""What `memtrails add` makes of a path: pipes, standard input, compressed files, mixed folders."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, first_messages, records

from memtrails._exceptions import SourceError
from memtrails.add import add_path
from memtrails.importers._input import open_input
from memtrails.importers._shared import default_source
from memtrails.importers.detect import detect_kind, open_part, plan
from memtrails.memory import Memory
from memtrails.testing import HashingEmbedder

ROOT = Path(__file__).resolve().parents[1]


def _message(n: int) -> bytes:
    return (
        f"From s{n}@example.com Tue Apr  1 12:21:37 2003\nFrom: Sender {n} <s{n}@example.com>\n"
        f"Subject: message {n}\nMessage-ID: <{n}@example.com>\n\nbody {n}\n\n"
    ).encode()


def _feed(data: bytes) -> tuple[int, threading.Thread]:
    """Return a pipe's read end, with a thread writing ``data`` into it (as ``zcat`` would)."""
    read_fd, write_fd = os.pipe()

    def write() -> None:
        with os.fdopen(write_fd, "wb") as w:
            for at in range(0, len(data), 4096):  # small writes: a reader sees partial data
                w.write(data[at : at + 4096])
                w.flush()

    thread = threading.Thread(target=write)
    thread.start()
    return read_fd, thread


async def test_kind_detection_on_a_pipe_takes_nothing_from_the_importer() -> None:
    # 45 messages through <(zcat ...): detection used to eat the start (41 of 45 arrived)
    data = b"".join(_message(n) for n in range(45))
    read_fd, thread = _feed(gzip.compress(data))
    try:
        (part,) = plan(f"/dev/fd/{read_fd}")
        assert part.kind == "mbox"
        assert part.source == f"/dev/fd/{read_fd}"  # not /proc/<pid>/fd/pipe:[...]
        items = await collect(open_part(part))
    finally:
        thread.join()
        os.close(read_fd)
    assert [r.title for r in records(items)] == [f"message {n}" for n in range(45)]


def test_default_source_of_a_pipe_is_the_path_given() -> None:
    read_fd, write_fd = os.pipe()
    try:
        assert default_source(f"/dev/fd/{read_fd}") == f"/dev/fd/{read_fd}"
        assert default_source("-") == "stdin"
    finally:
        os.close(read_fd)
        os.close(write_fd)


async def test_compressed_json_lines_reads_like_the_plain_file(
    gsm8k_subset: Any, tmp_path: Path
) -> None:
    from memtrails.importers.jsonl import from_jsonl

    plain = gsm8k_subset(40)
    packed = tmp_path / "gsm8k.jsonl.xz"
    packed.write_bytes(lzma.compress(plain.read_bytes()))
    assert detect_kind(packed) == "jsonl"
    a = records(await collect(from_jsonl(plain)))
    b = records(await collect(from_jsonl(packed)))
    assert len(a) == 40 and [r.text for r in a] == [r.text for r in b]
    assert b[0].id == "gsm8k.jsonl:1"  # named without the compression ending


def test_progress_counts_compressed_bytes_up_to_the_file_size(tmp_path: Path) -> None:
    path = tmp_path / "a.mbox.gz"
    path.write_bytes(gzip.compress(b"".join(_message(n) for n in range(2000))))
    with open_input(path) as stream:
        assert stream.size == path.stat().st_size and stream.compression == "gzip"
        assert stream.head(5) == b"From "
        stream.file.read(1000)
        assert 0 < stream.position() < stream.size
        while stream.file.read(1 << 16):
            pass
        assert stream.position() == stream.size


def test_kind_overrides_detection(tmp_path: Path) -> None:
    path = tmp_path / "archive.txt"
    path.write_bytes(b"Archived mail, not an mbox yet.\n" + _message(1))  # not recognised
    with pytest.raises(SourceError, match="--kind"):
        plan(path)
    (part,) = plan(path, kind="mbox")
    assert part.kind == "mbox"


@pytest.mark.parametrize(
    "lead", [b"\n", b"\n\n", b"\r\n", b"\xef\xbb\xbf\n", b"\xef\xbb\xbf\r\n\r\n", b"  \n"]
)
def test_an_mbox_with_blank_lines_before_its_first_separator_is_an_mbox(
    tmp_path: Path, lead: bytes
) -> None:
    path = tmp_path / "archive"
    path.write_bytes(lead + _message(1) + _message(2))
    (part,) = plan(path)
    assert part.kind == "mbox"


async def test_mixed_folder_imports_each_file_by_its_kind(corpora: Path, tmp_path: Path) -> None:
    folder = tmp_path / "inbox-and-notes"
    folder.mkdir()
    for name in ("msg_01.eml", "msg_02.eml"):
        (folder / name).write_bytes((corpora / "eml" / "cpython" / name).read_bytes())
    (folder / "README.md").write_text("# Notes\n\nWhat this folder holds.\n")
    (folder / "2003-April.txt.gz").write_bytes(gzip.compress(_message(7) + _message(8)))
    (folder / "photos.tar.gz").write_bytes(gzip.compress(b"\x00" * 100))
    parts = plan(folder)
    assert [(p.kind, Path(p.label).name) for p in parts] == [
        ("files", "inbox-and-notes"),
        ("eml", "inbox-and-notes (.eml)"),
        ("mbox", "2003-April.txt.gz"),
    ]
    notes = await collect(open_part(parts[0]))
    assert [r.id for r in records(notes)] == ["README.md"]  # no mail as raw "file" records
    (skip,) = errors(notes)
    assert skip.where == "photos.tar.gz" and "neither mail nor JSON Lines" in skip.reason
    mail = records(await collect(open_part(parts[1])))
    assert {r.kind for r in mail} == {"mail"} and len(mail) == 2


@pytest.mark.slow
async def test_folder_of_list_archives_imports_in_one_command_and_reruns_read_nothing(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    # Mailman's monthly .txt.gz archives (real pipermail months, compressed here): the first
    # 20 messages of a real month, not all 91 (186 kB, nearly all of the test's time embedding)
    folder = tmp_path / "twisted-web"
    folder.mkdir()
    real = corpora / "mbox" / "twisted-web-2005-December.mbox"
    (folder / "2005-December.txt.gz").write_bytes(gzip.compress(first_messages(real, 20)))
    (folder / "2006-December.txt.gz").write_bytes(gzip.compress(_message(1) + _message(2)))
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await add_path(memory, folder)
        assert (first.added, first.skipped) == (22, 0)
        second = await add_path(memory, folder)
        assert (second.added, second.unchanged, second.embedded) == (0, 22, 0)
        assert [(s.mode, s.read) for s in second.sources] == [("incremental", 0)] * 2
        assert (await memory.status()).records == 22


async def test_a_mixed_folder_leaves_out_what_its_gitignore_ignores(
    corpora: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "project"
    (folder / "build" / "archive").mkdir(parents=True)
    (folder / "mail").mkdir()
    (folder / ".gitignore").write_text("build/\n*.private.eml\nexports/*.jsonl\n")
    eml = (corpora / "eml" / "cpython" / "msg_01.eml").read_bytes()
    (folder / "mail" / "kept.eml").write_bytes(eml)
    (folder / "mail" / "boss.private.eml").write_bytes(eml)
    (folder / "build" / "archive" / "old.mbox").write_bytes(_message(1))
    (folder / "exports").mkdir()
    (folder / "exports" / "dump.jsonl").write_text('{"text": "ignored"}\n')
    (folder / "exports" / ".gitignore").write_text("!keep.jsonl\n")
    (folder / "exports" / "keep.jsonl").write_text('{"text": "kept"}\n')
    (folder / "notes.md").write_text("# kept\n")
    parts = plan(folder)
    assert [(p.kind, Path(p.label).name) for p in parts] == [
        ("files", "project"),
        ("eml", "project (.eml)"),
        ("jsonl", "keep.jsonl"),
    ]
    mail = records(await collect(open_part(parts[1])))
    assert [r.title for r in mail] == ["This is a test message"]
    notes = records(await collect(open_part(parts[0])))
    assert [r.id for r in notes] == ["notes.md"]


@pytest.mark.slow
def test_cli_reads_standard_input_under_a_stable_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    data = gzip.compress(b"".join(_message(n) for n in range(3)))
    cmd = [sys.executable, "-m", "memtrails.cli", "add", "-", "--name", "list", "--json"]
    cmd += ["--home", str(home), "--threads", "1"]
    outs = []
    for _ in range(2):
        done = subprocess.run(cmd, input=data, capture_output=True, cwd=ROOT, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        outs.append(json.loads(done.stdout))
    assert (outs[0]["added"], outs[1]["added"], outs[1]["unchanged"]) == (3, 0, 3)
    assert outs[1]["sources"][0]["source"] == "list"
    # a pipe without a name cannot be pruned: its records are not told apart from another's
    bare = [sys.executable, "-m", "memtrails.cli", "add", "-", "--prune", "--home", str(home)]
    done = subprocess.run(bare, input=data, capture_output=True, cwd=ROOT, timeout=300)
    assert done.returncode == 1 and b"--name" in done.stderr


@pytest.mark.slow
def test_cli_reads_standard_input_redirected_from_a_file(tmp_path: Path) -> None:
    """``memtrails add - < archive``: stdin is a regular file with no name to reopen."""
    home = tmp_path / "home"
    archive = tmp_path / "list.mbox"
    archive.write_bytes(b"".join(_message(n) for n in range(3)))
    cmd = [sys.executable, "-m", "memtrails.cli", "add", "-", "--name", "list", "--json"]
    cmd += ["--home", str(home), "--threads", "1"]
    outs = []
    for _ in range(2):
        with archive.open("rb") as stdin:
            done = subprocess.run(cmd, stdin=stdin, capture_output=True, cwd=ROOT, timeout=300)
        assert done.returncode == 0, done.stderr.decode()
        outs.append(json.loads(done.stdout))
    assert (outs[0]["added"], outs[1]["added"], outs[1]["unchanged"]) == (3, 0, 3)


async def test_messages_saved_without_an_ending_are_mail_not_notes(tmp_path: Path) -> None:
    # as notmuch's corpus: "01:2," files, some in subfolders without cur/ or new/
    folder = tmp_path / "corpus"
    (folder / "bar").mkdir(parents=True)
    for rel, n in (("01:2,", 1), ("02:2,", 2), ("bar/17:2,", 17)):
        (folder / rel).write_bytes(
            f"From: S{n} <s{n}@example.com>\nTo: t@example.com\nSubject: note {n}\n"
            f"Message-ID: <{n}@example.com>\n\nbody {n}\n".encode()
        )
    (folder / "TODO").write_text("Subject: not mail, only one header-like line\n\nbuy milk\n")
    parts = plan(folder)
    assert [p.kind for p in parts] == ["files", "eml"]
    notes = records(await collect(open_part(parts[0])))
    assert [r.id for r in notes] == ["TODO"]
    mail = records(await collect(open_part(parts[1])))
    assert sorted(r.title for r in mail) == ["note 1", "note 17", "note 2"]
    assert all(r.author and r.kind == "mail" for r in mail)


@pytest.mark.slow
def test_a_damaged_zip_is_named_as_damaged_not_as_an_unknown_kind(tmp_path: Path) -> None:
    import zipfile

    whole = tmp_path / "export.zip"
    with zipfile.ZipFile(whole, "w") as z:
        z.writestr("users.json", "[]")
        z.writestr("general/2024-01-01.json", "[]")
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole.read_bytes()[:40])
    assert detect_kind(cut) == "slack"
    done = subprocess.run(
        [sys.executable, "-m", "memtrails.cli", "add", str(cut), "--home", str(tmp_path / "m")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert "damaged or incomplete .zip" in done.stderr and "not a kind" not in done.stderr


async def test_saved_messages_are_mail_whatever_their_name() -> None:
    folder = Path(__file__).parent / "data" / "mail" / "saved"
    parts = plan(folder)
    (mail,) = [p for p in parts if p.kind == "eml"]
    assert sorted(mail.names or ()) == ["1234", "few-headers", "meeting.msg", "reply.txt"]
    (notes,) = [p for p in parts if p.kind == "files"]
    assert "notes.txt" not in notes.claimed
    recs = records(await collect(open_part(mail)))
    assert {r.title for r in recs} == {
        "Saved as a .msg",
        "Saved as a .txt",
        "First line blank",
        "Only two headers",
    }
    assert all(r.text in ("Café at noon?", "Short note kept as mail.") for r in recs)
    for name in ("meeting.msg", "1234"):  # one saved file given alone
        assert detect_kind(folder / name) == "eml"


async def test_files_whose_names_differ_in_a_bad_byte_are_two_sources(tmp_path: Path) -> None:
    # os lists a name's bytes that are not UTF-8 as lone surrogates, which every key turns
    # into U+FFFD: the two files were one source, and each run's lines replaced the other's.
    folder = os.fsencode(tmp_path)
    names = [folder + b"/notes\xff.jsonl", folder + b"/notes\xfe.jsonl"]
    for name, word in zip(names, ("pelican", "flamingo"), strict=True):
        with open(name, "wb") as f:
            f.write(json.dumps({"text": f"a note on the {word}"}).encode() + b"\n")
    sources = [default_source(os.fsdecode(n)) for n in names]
    assert sources[0] != sources[1] and all(s.isprintable() for s in sources)
    assert sources[0].endswith("//" + names[0].hex())
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await add_path(memory, os.fsdecode(names[0]))
        second = await add_path(memory, os.fsdecode(names[1]))
        assert (first.added, second.added, second.updated) == (1, 1, 0)
        for word, source in zip(("pelican", "flamingo"), sources, strict=True):
            (hit,) = await memory.search(f"the {word}", k=1)
            assert word in hit.snippet and hit.source == source


@pytest.mark.parametrize("kind", ["mbox", "eml", "maildir"])
async def test_a_mail_is_read_to_the_limits_the_add_was_given(tmp_path: Path, kind: str) -> None:
    from memtrails import Limits, Memory
    from memtrails.add import add_path
    from memtrails.testing import HashingEmbedder

    mail = (
        b"From: a@example.com\nSubject: crane\nMessage-ID: <crane@example.com>\n\n"
        b"The harbour crane report. " + b"word " * 40_000 + b"\n"
    )
    if kind == "mbox":
        path = tmp_path / "list.mbox"
        path.write_bytes(b"From a@example.com Tue Apr  1 12:21:37 2003\n" + mail)
    elif kind == "eml":
        path = tmp_path / "crane.eml"
        path.write_bytes(mail)
    else:
        path = tmp_path / "Maildir"
        for sub in ("cur", "new", "tmp"):
            (path / sub).mkdir(parents=True)
        (path / "cur" / "1.M1.host:2,S").write_bytes(mail)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, path, limits=Limits(max_text_units=1_000))
        (record,) = [r async for r in memory.records()]
    assert report.added == 1 and record.text.startswith("The harbour crane report.")
    # cut before it was parsed, to what a record of 1,000 units can hold, not 8 MB
    assert record.meta.get("bytes_cut", 0) > 150_000
