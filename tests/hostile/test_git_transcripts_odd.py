"""Hostile Git repositories and agent transcripts: a damaged ref among many, more refs than a
command line holds, a shallow clone deepened between runs, hand-written commit objects, and
transcript files with odd line ends or over-long lines."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gitrepos import BASE, Repo, env, git, linear, raw_commit, shallow_clone
from helpers import collect, errors, records

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.add import add_git
from memtrails.importers.git import from_git, git_source
from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.limits import Limits
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(300)


def _state(items: list[object]) -> SourceState:
    end = items[-1]
    assert isinstance(end, SourceState)
    return end


# -- Git: every branch walked, one of them damaged ---------------------------------------------


def _branches(path: Path) -> Repo:
    repo = linear(path, 3)
    for name in ("a", "b"):
        git(repo.path, "checkout", "-q", "-b", name, "main")
        repo.commit(f"on {name}", {f"{name}.txt": name})
    git(repo.path, "checkout", "-q", "main")
    return repo


@pytest.mark.parametrize(
    "damage",
    ["1234567890123456789012345678901234567890\n", "not an object name\n"],
    ids=["missing-object", "garbage"],
)
async def test_a_damaged_ref_does_not_stop_the_other_branches(tmp_path: Path, damage: str) -> None:
    repo = _branches(tmp_path / "r")
    (repo.path / ".git" / "refs" / "heads" / "b").write_text(damage)
    items = await collect(from_git(repo.path, all_branches=True))
    # Before: `git log --all` refused the whole walk: no record, one error for all of it.
    assert sorted(r.title or "" for r in records(items)) == [
        "change 0",
        "change 1",
        "change 2",
        "on a",
    ]
    (error,) = errors(items)
    assert error.where == "refs/heads/b" and "not read" in error.reason
    # The commits only that ref reaches are unknown: a prune must not forget them.
    assert _state(items).complete is False


# -- Git: more refs than one command line holds ------------------------------------------------


def _chain(path: Path, n: int) -> list[str]:
    """A repository of ``n`` commits in one line (one fast-import run), newest first."""
    Repo(path)
    stream: list[str] = []
    for k in range(n):
        stream += [
            "commit refs/heads/main",
            f"mark :{k + 1}",
            f"author A <a@example.org> {BASE + k} +0000",
            f"committer A <a@example.org> {BASE + k} +0000",
            "data 2",
            f"c{k % 10}",
            *([f"from :{k}"] if k else []),
        ]
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"],
        input="\n".join(stream) + "\n",
        text=True,
        env=env(),
        check=True,
        capture_output=True,
    )
    return git(path, "rev-list", "main").split()


async def test_a_saved_position_of_more_refs_than_a_command_line_holds(tmp_path: Path) -> None:
    # 60,000 saved heads: `^<sha>` each is 2.5 MB of arguments, over Linux's 2 MiB.
    shas = _chain(tmp_path / "r", 60_000)
    heads = {f"refs/tags/t{k}": sha for k, sha in enumerate(shas)}
    heads["HEAD"] = heads["refs/heads/main"] = shas[0]
    repo = tmp_path / "r"
    git(repo, "commit", "-q", "--allow-empty", "-m", "one more", i=1)
    # Before: OSError [Errno 7] Argument list too long, on every run from then on.
    items = await collect(from_git(repo, all_branches=True, state={"heads": heads}))
    assert [r.title for r in records(items)] == ["one more"]
    assert errors(items) == []
    end = _state(items)
    assert end.mode == "incremental" and end.skipped == 60_000


# -- Git: a shallow clone deepened between runs ------------------------------------------------


async def test_a_deepened_shallow_clone_reads_the_history_it_now_holds(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 6)
    clone = shallow_clone(repo, tmp_path / "c", 2)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        first = await add_git(memory, clone)
        assert (first.added, first.skipped) == (2, 1)
        # What the error told the user to do:
        git(clone, "fetch", "-q", "--unshallow")
        again = await add_git(memory, clone)
        stored = [await memory.get(sha, source=git_source(clone)) for sha in repo.rev_list("HEAD")]
    # Before: "unchanged 6", nothing read, the 4 older commits never imported without --full.
    assert again.added == 4 and again.errors == []
    assert all(record is not None for record in stored)


# -- Git: hand-written commit objects ----------------------------------------------------------


async def test_a_message_opening_with_blank_lines_is_titled_by_its_first_words(
    tmp_path: Path,
) -> None:
    repo = linear(tmp_path / "r", 1)
    ident = b"author A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n"
    raw_commit(repo, ident, b"\n\n  \nImported from svn r42\n\nBody.\n")
    newest = records(await collect(from_git(repo.path)))[0]
    # Before: no title (the first line is empty); git's own %s says "Imported from svn r42".
    assert newest.title == "Imported from svn r42"


# -- transcripts -------------------------------------------------------------------------------

SESSION = "5b1f2c3d-0a4e-4c8b-9d21-7e6f5a4b3c2d"


def _turn(uuid: str, text: str) -> bytes:
    line = {
        "sessionId": SESSION,
        "type": "user",
        "uuid": uuid,
        "timestamp": "2025-11-03T09:14:02.511Z",
        "cwd": "/home/ann/code/shop",
        "message": {"role": "user", "content": text},
    }
    return json.dumps(line).encode()


async def test_a_transcript_with_lone_cr_line_ends_reads_as_its_lf_twin(tmp_path: Path) -> None:
    lines = [_turn("u1", "first zebra"), _turn("u2", "second"), _turn("u3", "third")]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\r".join(lines) + b"\r")
    items = await collect(from_agent_transcripts(path))
    # Before: no record and no error, the whole file taken for one torn last line.
    assert [r.id for r in records(items)] == [f"{SESSION}:u{k}" for k in (1, 2, 3)]
    assert errors(items) == []
    # A re-run reads nothing again; a turn appended since is read.
    with path.open("ab") as f:
        f.write(_turn("u4", "fourth") + b"\r")
    again = await collect(from_agent_transcripts(path, state=_state(items).state))
    assert [r.id for r in records(again)] == [f"{SESSION}:u4"]


async def test_an_over_long_transcript_line_is_named_and_passed_over(tmp_path: Path) -> None:
    limits = Limits(max_line_bytes=4096)
    path = tmp_path / "s.jsonl"
    with path.open("wb") as f:
        f.write(_turn("u1", "before") + b"\n")
        f.write(_turn("u2", "x" * 100_000) + b"\n")
        f.write(_turn("u3", "after") + b"\n")
    items = await collect(from_agent_transcripts(path, limits=limits))
    # Before: there was no limit; the whole line was read into memory, whatever its length.
    assert [r.id for r in records(items)] == [f"{SESSION}:u1", f"{SESSION}:u3"]
    (error,) = errors(items)
    assert error.where == "s.jsonl: line 2" and "Limits.max_line_bytes" in error.reason
    end = _state(items)
    again = await collect(from_agent_transcripts(path, state=end.state, limits=limits))
    assert records(again) == [] and errors(again) == []


async def test_memtrails_add_hands_its_limits_to_the_transcripts_importer(tmp_path: Path) -> None:
    """The limits given to add reach the importer (its opener gave it none: the default's
    64 MiB held for every caller)."""
    from memtrails.add import add_path

    folder = tmp_path / "projects" / "shop"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_bytes(
        _turn("u1", "before") + b"\n" + _turn("u2", "x" * 100_000) + b"\n"
    )
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, folder / "s.jsonl", limits=Limits(max_line_bytes=4096))
    assert report.added == 1 and len(report.errors) == 1
    assert "Limits.max_line_bytes" in report.errors[0].reason


# -- Git: errors that say what is wrong and what to do -----------------------------------------


async def test_head_on_a_branch_with_no_commits_says_so_and_what_to_do(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 2)
    git(repo.path, "checkout", "-q", "--orphan", "fresh")
    with pytest.raises(SourceError) as caught:
        await collect(from_git(repo.path))
    # Before: "`branch` 'HEAD' is not a commit in this repository", for a branch never named.
    assert "HEAD is on branch 'fresh', which has no commits yet" in str(caught.value)
    assert "--all-branches" in str(caught.value)
    # Every branch is still there to import.
    assert len(records(await collect(from_git(repo.path, all_branches=True)))) == 2


async def test_git_not_on_path_says_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = linear(tmp_path / "r", 1)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    with pytest.raises(SourceError) as caught:
        await collect(from_git(repo.path))
    # Before: "the git command is not installed", though it may be, elsewhere.
    assert "not found on PATH" in str(caught.value) and "install git" in str(caught.value)
