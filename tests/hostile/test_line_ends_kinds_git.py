"""Hostile line ends, kinds and histories: a classic Mac OS mbox (CR line ends) reads as its
LF twin does, a --kind that finds nothing says so, and a damaged or shallow Git history counts
each commit once."""

from __future__ import annotations

import bz2
import gzip
import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitrepos import git, linear, repo_source, shallow_clone
from helpers import collect, errors, records

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.add import add_git, add_path
from memtrails.cli import main
from memtrails.importers.detect import open_part, plan
from memtrails.importers.git import git_source
from memtrails.importers.mbox import from_mbox
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(120)


# -- an mbox whose lines end in CR alone (Mac OS 9 and before) --------------------------------


def _lf_mbox(n: int = 5) -> bytes:
    return b"".join(
        b"From a@b Tue Apr  1 12:21:%02d 2003\nFrom: a@b\nSubject: s%d\nMessage-ID: <m%d@x>\n\n"
        b"body %d zebra\nsecond line\n\n" % (i, i, i, i)
        for i in range(n)
    )


def _cr(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r")


def _shown(items: list[object]) -> list[tuple[str, str | None, str]]:
    return [(r.id, r.title, r.text) for r in records(items)]


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [(".mbox", bytes), (".mbox.gz", gzip.compress), (".mbox.bz2", bz2.compress)],
)
async def test_a_cr_only_mbox_reads_as_its_lf_twin(
    tmp_path: Path, suffix: str, pack: object
) -> None:
    twin, cr = tmp_path / f"lf{suffix}", tmp_path / f"cr{suffix}"
    twin.write_bytes(pack(_lf_mbox()))  # type: ignore[operator]
    cr.write_bytes(pack(_cr(_lf_mbox())))  # type: ignore[operator]
    expected = _shown(await collect(from_mbox(twin, source="x")))
    items = await collect(from_mbox(cr, source="x"))
    assert errors(items) == []
    assert len(expected) == 5 and _shown(items) == expected
    assert expected[1][2] == "body 1 zebra\nsecond line"


async def test_a_cr_only_mbox_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "mac.mbox"
    path.write_bytes(_cr(_lf_mbox(4)))
    first = await collect(from_mbox(path))
    state = first[-1]
    assert isinstance(state, SourceState) and len(records(first)) == 4
    with path.open("ab") as f:
        f.write(_cr(_lf_mbox(7)[len(_lf_mbox(4)) :]))
    again = await collect(from_mbox(path, state=state.state))
    end = again[-1]
    assert isinstance(end, SourceState) and end.mode == "incremental"
    # the last message of the first run is read again (it might have been growing), then the new
    assert [r.id for r in records(again)] == [f"m{i}@x" for i in range(3, 7)]
    assert errors(again) == []


async def test_a_cr_only_mbox_on_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(_cr(_lf_mbox()))

    writer = threading.Thread(target=write)
    writer.start()
    try:
        (part,) = plan(str(fifo), name="pipe")
        try:
            items = await collect(open_part(part))  # type: ignore[arg-type]
        finally:
            part.target.close()  # type: ignore[union-attr]
    finally:
        writer.join()
    assert [r.id for r in records(items)] == [f"m{i}@x" for i in range(5)]
    assert errors(items) == []


async def test_a_lone_cr_inside_an_lf_mbox_stays_text(tmp_path: Path) -> None:
    """Only a file with no LF at all is read by CR: elsewhere a CR is part of a line."""
    path = tmp_path / "lf.mbox"
    path.write_bytes(_lf_mbox(2).replace(b"body 1 zebra", b"body 1\rzebra"))
    items = await collect(from_mbox(path))
    assert [r.id for r in records(items)] == ["m0@x", "m1@x"]


# -- `add FOLDER --kind K` on a folder that holds nothing of that kind ------------------------


def _notes_and_a_list(root: Path) -> Path:
    """A folder of a note and an mbox: no .eml, no Maildir, no agent session."""
    root.mkdir()
    (root / "a.md").write_text("# a note\n\nabout quokkas\n")
    (root / "list.mbox").write_bytes(_lf_mbox(2))
    return root


@pytest.mark.parametrize("kind", ["eml", "maildir", "transcripts"])
def test_add_with_a_kind_the_folder_does_not_hold_says_so(tmp_path: Path, kind: str) -> None:
    root = _notes_and_a_list(tmp_path / "saved")
    result = CliRunner().invoke(
        main, ["add", str(root), "--kind", kind, "--home", str(tmp_path / "m")]
    )
    assert result.exit_code == 1, result.output
    said = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(said) == 1, result.output
    assert str(root) in said[0] and f"--kind {kind}" in said[0]
    assert "1 mbox" in said[0] and "notes" in said[0]  # what it did find
    assert "leave out --kind" in said[0]  # and what to do


async def test_a_kind_the_folder_does_not_hold_is_an_error_of_the_api_too(
    tmp_path: Path,
) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        with pytest.raises(SourceError, match="--kind eml found nothing") as caught:
            await add_path(memory, root, kind="eml")
        assert "nothing memtrails reads" in str(caught.value)
        # An empty Maildir is a Maildir: nothing to read, nothing wrong.
        (tmp_path / "box" / "cur").mkdir(parents=True)
        report = await add_path(memory, tmp_path / "box", kind="maildir")
        assert (report.added, report.skipped) == (0, 0)
        # The kind found below the folder: read as before.
        (root / "sub").mkdir()
        (root / "sub" / "one.eml").write_bytes(_lf_mbox(1).split(b"\n", 1)[1])
        assert (await add_path(memory, root, kind="eml")).added == 1


# -- a commit whose changed files cannot be told is one record, not a record and a skip --------


async def test_a_commit_with_a_corrupt_blob_is_stored_once_not_also_skipped(
    tmp_path: Path,
) -> None:
    repo = linear(tmp_path / "r", 4)
    shas = repo.rev_list("HEAD")
    blob = git(repo.path, "rev-parse", f"{shas[0]}:f0.txt")
    damaged = repo.path / ".git" / "objects" / blob[:2] / blob[2:]
    damaged.chmod(0o644)
    damaged.write_bytes(b"garbage")
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_git(memory, repo.path)
        broken = await memory.get(shas[0], source=repo_source(repo))
        whole = await memory.get(shas[1], source=repo_source(repo))
    assert (report.added, report.skipped, report.errors) == (4, 0, [])
    assert broken is not None and whole is not None
    assert "files" not in broken.meta and "Files changed" not in broken.text
    assert broken.meta["files_error"].startswith(
        "the files this commit changed could not be read; an object is missing ("
    )
    assert "files_error" not in whole.meta and whole.meta["files"]


async def test_a_shallow_clone_counts_its_edge_once_and_the_missing_history_apart(
    tmp_path: Path,
) -> None:
    repo = linear(tmp_path / "r", 6)
    clone = shallow_clone(repo, tmp_path / "shallow", 2)
    edge = repo.rev_list("HEAD")[1]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_git(memory, clone)
        record = await memory.get(edge, source=git_source(clone))
    # Two commits stored; the one skipped is the history the clone does not hold.
    assert (report.added, report.skipped) == (2, 1)
    (error,) = report.errors
    assert error.where == f"before {edge}" and "git fetch --unshallow" in error.reason
    # Its parent is not here: git would list its whole tree as changed.
    assert record is not None and record.meta["shallow"] is True
    assert "files" not in record.meta and "Files changed" not in record.text
    assert "shallow clone" in record.meta["files_error"]
