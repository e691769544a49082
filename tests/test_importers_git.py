"""Tests for the Git importer, on repositories built here with the git CLI and on this one."""

from __future__ import annotations

import json
import subprocess
from contextlib import aclosing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from gitrepos import BASE, Repo, env, git, linear, repo_source, shallow_clone
from helpers import collect, errors, records

from memtrails._exceptions import SourceError
from memtrails.cli import main
from memtrails.importers.git import MAX_FILES_IN_META, MAX_FILES_IN_TEXT, from_git, git_source
from memtrails.importers.git import _history as git_history
from memtrails.records import At, MemoryRecord, SourceState

ROOT = Path(__file__).resolve().parents[1]


def bulk(path: Path, n: int) -> Path:
    """A repository of ``n`` commits made in one `git fast-import` run (fast)."""
    Repo(path)
    stream: list[str] = []
    for k in range(n):
        message = f"bulk change {k}\n\n" + "A longer body so the log outgrows the pipe.\n" * 3
        content = f"line {k}\n"
        stream += [
            "commit refs/heads/main",
            f"mark :{k + 1}",
            f"author Ada Lovelace <ada@example.org> {BASE + k} +0000",
            f"committer Ada Lovelace <ada@example.org> {BASE + k} +0000",
            f"data {len(message.encode())}",
            message,
            *([f"from :{k}"] if k else []),
            f"M 100644 inline file{k % 10}.txt",
            f"data {len(content.encode())}",
            content,
        ]
    subprocess.run(
        ["git", "-C", str(path), "fast-import", "--quiet"],
        input="\n".join(stream),
        text=True,
        env=env(),
        check=True,
        capture_output=True,
    )
    return path


def loose_object(repo: Path, sha: str) -> Path:
    return repo / ".git" / "objects" / sha[:2] / sha[2:]


async def test_fields_of_a_small_history(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    first = repo.commit(
        "Add notes\n\nThe first notes, with a body.",
        {
            "notes/a.md": "# A\n",
            "data.bin": b"\0\1\2\3",
            "old.txt": "one\ntwo\nthree\n" * 20,
        },
    )
    repo.commit("An empty commit", {})
    git(repo.path, "mv", "old.txt", "new.txt")
    second = repo.commit("Rename old.txt and add a line", {})
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    recs = records(items)
    assert [r.id for r in recs] == repo.rev_list("HEAD")  # newest first, as git lists them
    newest, empty, oldest = recs
    assert oldest.id == first and newest.id == second
    assert oldest.kind == "commit"
    assert oldest.title == "Add notes"
    assert oldest.author == "Ada Lovelace <ada@example.org>"
    assert oldest.at == At((BASE + 60) * 1000)
    assert oldest.source == "git:" + str(repo.path.resolve())
    assert oldest.thread is None
    assert oldest.text.startswith("Add notes\n\nThe first notes, with a body.\n\nFiles changed:\n")
    assert "notes/a.md" in oldest.text
    assert oldest.meta["sha"] == first
    assert oldest.meta["parents"] == []
    assert oldest.meta["merge"] is False
    assert oldest.meta["committer"] == "Charles Babbage <cb@example.org>"
    assert oldest.meta["committed_at"] == At((BASE + 60) * 1000).iso()
    assert oldest.meta["files"] == [
        {"path": "data.bin", "insertions": None, "deletions": None, "binary": True},
        {"path": "notes/a.md", "insertions": 1, "deletions": 0},
        {"path": "old.txt", "insertions": 60, "deletions": 0},
    ]
    assert empty.meta["files"] == [] and empty.text == "An empty commit"
    assert newest.meta["files"] == [
        {"path": "new.txt", "insertions": 0, "deletions": 0, "from": "old.txt"}
    ]


async def test_merges_and_all_branches(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 2)
    git(repo.path, "checkout", "-q", "-b", "side")
    side = repo.commit("side work", {"side.txt": "s\n"})
    git(repo.path, "checkout", "-q", "main")
    repo.commit("main work", {"main.txt": "m\n"})
    repo.clock += 1
    git(repo.path, "merge", "-q", "--no-ff", "side", "-m", "Merge side", i=repo.clock)
    git(repo.path, "checkout", "-q", "-b", "unmerged")
    loose = repo.commit("unmerged work", {"u.txt": "u\n"})
    git(repo.path, "checkout", "-q", "main")
    (repo.path / "main.txt").write_text("dirty\n", encoding="utf-8")
    git(repo.path, "stash", "-q", i=99)  # a stash is a ref, but not history to import

    recs = records(await collect(from_git(repo.path)))
    assert [r.id for r in recs] == repo.rev_list("main")
    merge = recs[0]
    assert merge.title == "Merge side"
    assert merge.meta["merge"] is True and len(merge.meta["parents"]) == 2
    # A merge lists what it changed against its first parent.
    assert merge.meta["files"] == [{"path": "side.txt", "insertions": 1, "deletions": 0}]
    assert side in {r.id for r in recs} and loose not in {r.id for r in recs}

    everything = records(await collect(from_git(repo.path, all_branches=True)))
    ids = [r.id for r in everything]
    assert sorted(ids) == sorted(repo.rev_list("--branches"))
    assert loose in ids and len(ids) == len(set(ids))

    only_side = records(await collect(from_git(repo.path, branch="side")))
    assert [r.id for r in only_side] == repo.rev_list("side")


async def test_since_commit_reads_only_new_commits(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 5)
    first_run = records(await collect(from_git(repo.path)))
    assert len(first_run) == 5
    newest_seen = first_run[0].id
    added = [repo.commit("new one", {"n.txt": "1\n"}), repo.commit("new two", {"n.txt": "2\n"})]
    second_run = records(await collect(from_git(repo.path, since_commit=newest_seen)))
    assert [r.id for r in second_run] == added[::-1]
    third_run = records(await collect(from_git(repo.path, since_commit=added[-1])))
    assert third_run == []
    # Abbreviated shas and refs work too.
    assert len(records(await collect(from_git(repo.path, since_commit=newest_seen[:10])))) == 2


async def test_bounded_file_lists(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    n = MAX_FILES_IN_META + 50
    repo.commit("many files", {f"d/file{k:04}.txt": f"{k}\n" for k in range(n)})
    (rec,) = records(await collect(from_git(repo.path)))
    assert len(rec.meta["files"]) == MAX_FILES_IN_META
    assert rec.meta["files_truncated"] == 50
    listing = rec.text.split("Files changed:\n", 1)[1].splitlines()
    assert len(listing) == MAX_FILES_IN_TEXT + 1
    assert listing[-1] == f"... and {n - MAX_FILES_IN_TEXT} more"


async def test_non_ascii_and_legacy_encoded_messages(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("Ünïcode 日本語 ✓", {"ü.txt": "x\n", "tab\there.txt": "y\n"})
    (repo.path / "msg").write_bytes("Caf\u00e9 latin-1\n".encode("latin-1"))
    git(
        repo.path,
        "-c",
        "i18n.commitEncoding=ISO-8859-1",
        "commit",
        "-q",
        "--allow-empty",
        "-F",
        "msg",
        i=50,
    )
    latin, utf8 = records(await collect(from_git(repo.path)))
    assert latin.title == "Café latin-1"
    assert utf8.title == "Ünïcode 日本語 ✓"
    assert {f["path"] for f in utf8.meta["files"]} == {"ü.txt", "tab\there.txt"}


async def test_shallow_clone_gives_an_error_at_the_cut(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 8)
    clone = shallow_clone(repo, tmp_path / "shallow", 3)
    items = await collect(from_git(clone))
    recs, errs = records(items), errors(items)
    assert [r.id for r in recs] == repo.rev_list("HEAD")[:3]
    assert recs[-1].meta["shallow"] is True and "shallow" not in recs[0].meta
    # Its parent is not here, so what it changed is not known (git lists its whole tree).
    assert "files" not in recs[-1].meta and "shallow clone" in recs[-1].meta["files_error"]
    # The error stands for the history before the cut, not for the commit stored.
    assert len(errs) == 1
    assert errs[0].where == f"before {recs[-1].id}" and "shallow clone" in errs[0].reason
    assert items[-2] is errs[0]
    # The commits before the cut are not here: a prune must not take them for gone.
    assert isinstance(items[-1], SourceState) and not items[-1].complete


async def test_missing_blob_keeps_the_commit_saying_why_its_files_are_unknown(
    tmp_path: Path,
) -> None:
    repo = linear(tmp_path / "r", 6)
    shas = repo.rev_list("HEAD")
    broken = shas[2]
    blob = git(repo.path, "rev-parse", f"{broken}:f{(6 - 3) % 3}.txt")
    loose_object(repo.path, blob).unlink()
    items = await collect(from_git(repo.path))
    recs, errs = records(items), errors(items)
    # Every commit is still there, once: a broken diff is said in the record, not fatal
    # and not a record skipped as well.
    assert [r.id for r in recs] == shas
    assert errs == []
    unknown = {r.id for r in recs if "files_error" in r.meta}
    assert broken in unknown
    for r in recs:
        assert ("files" in r.meta) == (r.id not in unknown)
        if r.id in unknown:
            assert "could not be read" in r.meta["files_error"]


async def test_missing_commit_object_ends_the_walk_with_an_error(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 6)
    shas = repo.rev_list("HEAD")
    loose_object(repo.path, shas[3]).unlink()
    items = await collect(from_git(repo.path))
    recs, errs = records(items), errors(items)
    # The three newest are readable; the third's parent is the missing one, so its diff is
    # not, and the walk cannot go past it.
    assert [r.id for r in recs] == shas[:3]
    assert "files" not in recs[2].meta and "could not be read" in recs[2].meta["files_error"]
    assert [e.where for e in errs] == [f"after {shas[2]}"]
    assert "cannot be read further" in errs[-1].reason
    assert items[-2] is errs[-1]
    # The walk was cut: no prune, and no position past commits never read.
    assert items[-1] == SourceState(repo_source(repo), {"heads": {}}, "full", False)


async def test_empty_repository_yields_only_its_position(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    assert await collect(from_git(tmp_path / "r")) == [
        SourceState(repo_source(repo), {"heads": {}}, "full", True)
    ]


async def test_cannot_open(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such folder"):
        await collect(from_git(tmp_path / "missing"))
    (tmp_path / "plain").mkdir()
    with pytest.raises(SourceError, match="not a git repository"):
        await collect(from_git(tmp_path / "plain"))
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(SourceError, match="not a git repository"):
        await collect(from_git(tmp_path / "a-file"))
    with pytest.raises(SourceError, match="not a git repository"):
        git_source(tmp_path / "plain")
    repo = linear(tmp_path / "r", 1)
    with pytest.raises(SourceError, match="`branch` 'nope'"):
        await collect(from_git(repo.path, branch="nope"))
    with pytest.raises(SourceError, match="`since_commit`"):
        await collect(from_git(repo.path, since_commit="0" * 40))


def git_children() -> set[int]:
    """This process's child `git` processes (Linux /proc)."""
    found: set[int] = set()
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() == "git":
                    found.add(int(pid))
            except OSError:
                pass
    return found


async def test_stopping_early_ends_git(tmp_path: Path) -> None:
    if not Path("/proc/self/task").is_dir():
        pytest.skip("needs /proc")
    repo = bulk(tmp_path / "r", 3000)
    before = git_children()
    async with aclosing(from_git(repo, source="mine")) as it:
        async for first in it:
            assert isinstance(first, MemoryRecord) and first.source == "mine"
            assert git_children() - before  # git log is still streaming, paused by the pipe
            break
    assert git_children() - before == set()


async def test_a_longer_history_streams_across_reads(tmp_path: Path) -> None:
    # ~600 KB of log output: tokens split across many pipe reads must parse the same.
    repo = bulk(tmp_path / "r", 3000)
    recs = records(await collect(from_git(repo)))
    assert [r.id for r in recs] == git(repo, "rev-list", "HEAD").split()
    assert recs[0].title == "bulk change 2999" and recs[-1].title == "bulk change 0"
    assert all(r.meta["files"][0]["path"].startswith("file") for r in recs)


async def test_bare_mirror(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 4)
    bare = tmp_path / "bare.git"
    subprocess.run(
        ["git", "clone", "-q", "--mirror", str(repo.path), str(bare)],
        env=env(),
        check=True,
        capture_output=True,
    )
    recs = records(await collect(from_git(bare)))
    assert [r.id for r in recs] == repo.rev_list("HEAD")


async def test_bare_repository_without_a_config_file(tmp_path: Path) -> None:
    # git reads a bare repository from HEAD, objects/ and refs/ alone; so must the importer.
    repo = linear(tmp_path / "r", 3)
    bare = tmp_path / "bare.git"
    subprocess.run(
        ["git", "clone", "-q", "--bare", str(repo.path), str(bare)],
        env=env(),
        check=True,
        capture_output=True,
    )
    (bare / "config").unlink()
    items = await collect(from_git(bare))
    assert errors(items) == []
    assert [r.id for r in records(items)] == repo.rev_list("HEAD")
    assert {r.source for r in records(items)} == {"git:" + str(bare.resolve())}
    assert git_source(bare) == "git:" + str(bare.resolve())


async def test_one_source_however_the_repository_is_named(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 3)
    (repo.path / "docs").mkdir()
    (tmp_path / "link").symlink_to(repo.path)
    names = [repo.path, repo.path / ".git", repo.path / "docs", tmp_path / "link" / ".git"]
    assert {git_source(name) for name in names} == {repo_source(repo)}
    first = await collect(from_git(repo.path))
    for name in names[1:]:
        items = await collect(from_git(name))
        assert items == first, name
    # The position saved under one name serves a re-run under another.
    again = await collect(from_git(repo.path / ".git", state=position(first).state))
    assert records(again) == []
    assert position(again).mode == "incremental"


async def test_a_linked_work_tree_is_read_from_its_own_head(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 2)
    git(repo.path, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = Repo.__new__(Repo)
    side.path, side.clock = tmp_path / "side", 10
    tip = side.commit("only on side", {"s.txt": "s\n"})
    items = await collect(from_git(tmp_path / "side"))
    assert [r.id for r in records(items)] == [tip, *repo.rev_list("main")]
    # One repository, one source: the main work tree's (tests/test_git_worktrees.py).
    assert {r.source for r in records(items)} == {repo_source(repo)}
    assert [r.id for r in records(await collect(from_git(repo.path)))] == repo.rev_list("main")


async def test_this_projects_own_repository() -> None:
    # Pin the tip: other people may commit while this test runs.
    tip = git(ROOT, "rev-parse", "HEAD")
    count = int(git(ROOT, "rev-list", "--count", tip))
    items = await collect(from_git(ROOT, branch=tip))
    assert errors(items) == []
    recs = records(items)
    assert len(recs) == count
    assert recs[0].id == tip
    # A checkout that is a linked work tree is named as its main work tree (the folder
    # around the common git dir), so the same repository is one source by any path.
    common = Path(git(ROOT, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    top = common.parent if common.name == ".git" else ROOT
    assert all(r.source == "git:" + str(top) for r in recs)


# -- re-runs with the last run's state ------------------------------------------------------


def position(items: list[Any]) -> SourceState:
    assert isinstance(items[-1], SourceState)
    assert not any(isinstance(i, SourceState) for i in items[:-1])
    return items[-1]


def count_logs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Record the arguments of every `git log` the importer starts."""
    started: list[list[str]] = []
    real = git_history.Log

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, git_exe: str, git_dir: str, args: list[str], *rest: Any) -> None:
            started.append(args)
            super().__init__(git_exe, git_dir, args, *rest)

    monkeypatch.setattr(git_history, "Log", Counted)
    return started


async def test_state_reads_only_the_new_commits(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 5)
    first = await collect(from_git(repo.path))
    state = position(first)
    head = repo.rev_list("HEAD")[0]
    assert state == SourceState(repo_source(repo), {"heads": {"HEAD": head}}, "full", True)
    added = [repo.commit(f"new {k}", {"n.txt": f"{k}\n"}) for k in range(3)]
    second = await collect(from_git(repo.path, state=state.state))
    assert [r.id for r in records(second)] == added[::-1]
    # the 5 commits of the first run were left out, and are counted unchanged
    assert position(second) == SourceState(
        repo_source(repo), {"heads": {"HEAD": added[-1]}}, "incremental", False, skipped=5
    )


async def test_unchanged_rerun_starts_no_git_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = linear(tmp_path / "r", 4)
    state = position(await collect(from_git(repo.path))).state
    started = count_logs(monkeypatch)
    again = await collect(from_git(repo.path, state=state))
    assert started == []
    assert again == [SourceState(repo_source(repo), state, "incremental", False, skipped=4)]


async def test_merged_branch_commits_are_new_too(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 3)
    state = position(await collect(from_git(repo.path, branch="main"))).state
    assert list(state["heads"]) == ["main"]
    git(repo.path, "checkout", "-q", "-b", "feature")
    feature = [repo.commit(f"feature {k}", {f"{k}.txt": f"{k}\n"}) for k in "ab"]
    git(repo.path, "checkout", "-q", "main")
    repo.clock += 1
    git(repo.path, "merge", "-q", "--no-ff", "feature", "-m", "Merge feature", i=repo.clock)
    merge = repo.rev_list("HEAD")[0]
    items = await collect(from_git(repo.path, branch="main", state=state))
    assert sorted(r.id for r in records(items)) == sorted([merge, *feature])
    assert position(items).mode == "incremental"


async def test_amended_head_means_a_full_walk(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 4)
    state = position(await collect(from_git(repo.path))).state
    old = state["heads"]["HEAD"]
    repo.clock += 1
    git(repo.path, "commit", "-q", "--amend", "-m", "change 3, reworded", i=repo.clock)
    items = await collect(from_git(repo.path, state=state))
    assert [r.id for r in records(items)] == repo.rev_list("HEAD")  # all 4, the new one first
    done = position(items)
    assert (done.mode, done.complete) == ("full", True)
    assert done.why is not None
    assert done.why.startswith(f"HEAD: {old[:12]} is no longer in its history")
    assert done.state == {"heads": {"HEAD": repo.rev_list("HEAD")[0]}}


async def test_fallbacks_name_their_reason(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 2)
    gone = "0123456789abcdef" * 2 + "01234567"
    cases = {
        "the saved position is not one this version reads": [
            {},
            {"heads": []},
            {"heads": {"HEAD": "not-a-sha"}},
            {"heads": {"HEAD": 7}},
        ],
        "no position saved for main": [{"heads": {"HEAD": repo.rev_list("HEAD")[0]}}],
        f"main: commit {gone[:12]} of the last run is no longer in the repository": [
            {"heads": {"main": gone}}
        ],
    }
    for why, states in cases.items():
        for state in states:
            items = await collect(from_git(repo.path, branch="main", state=state))
            assert len(records(items)) == 2
            assert (position(items).mode, position(items).why) == ("full", why), state


async def test_all_branches_state_per_ref(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = linear(tmp_path / "r", 2)
    git(repo.path, "tag", "-a", "v1", "-m", "release 1")
    git(repo.path, "checkout", "-q", "-b", "side")
    repo.commit("side work", {"side.txt": "s\n"})
    git(repo.path, "checkout", "-q", "main")
    first = position(await collect(from_git(repo.path, all_branches=True)))
    tip = repo.rev_list("main")[0]
    assert first.state == {
        "heads": {
            "HEAD": tip,
            "refs/heads/main": tip,
            "refs/heads/side": repo.rev_list("side")[0],
            "refs/tags/v1": tip,  # an annotated tag, peeled to its commit
        }
    }
    assert first.complete
    git(repo.path, "checkout", "-q", "side")
    on_side = repo.commit("more side work", {"side.txt": "t\n"})
    git(repo.path, "checkout", "-q", "-b", "fresh")
    on_fresh = repo.commit("a new branch", {"f.txt": "f\n"})
    items = await collect(from_git(repo.path, all_branches=True, state=first.state))
    assert [r.id for r in records(items)] == [on_fresh, on_side]
    second = position(items)
    assert second.mode == "incremental" and second.state["heads"]["refs/heads/fresh"] == on_fresh
    # A deleted branch: nothing new, nothing read.
    git(repo.path, "checkout", "-q", "main")
    git(repo.path, "branch", "-q", "-D", "fresh")
    started = count_logs(monkeypatch)
    third = await collect(from_git(repo.path, all_branches=True, state=second.state))
    assert records(third) == [] and started == []
    assert "refs/heads/fresh" not in position(third).state["heads"]
    # A force-pushed branch: full walk.
    git(repo.path, "branch", "-q", "-f", "side", "main")
    fourth = position(
        await collect(from_git(repo.path, all_branches=True, state=position(third).state))
    )
    assert fourth.mode == "full" and fourth.why is not None and "refs/heads/side" in fourth.why


async def test_a_broken_incremental_walk_keeps_the_old_position(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 3)
    state = position(await collect(from_git(repo.path))).state
    added = [repo.commit(f"new {k}", {"n.txt": f"{k}\n"}) for k in range(3)]
    loose_object(repo.path, added[1]).unlink()
    items = await collect(from_git(repo.path, state=state))
    assert [r.id for r in records(items)] == [added[2]]
    assert "cannot be read further" in errors(items)[-1].reason
    done = position(items)
    assert (done.state, done.mode, done.complete) == (state, "full", False)
    # The missing commit lies between the saved head and the new one.
    assert done.why is not None
    assert done.why.startswith(f"HEAD: cannot compare {state['heads']['HEAD'][:12]}")


async def test_this_projects_own_repository_incrementally() -> None:
    tip = git(ROOT, "rev-parse", "HEAD")
    older = git(ROOT, "rev-parse", f"{tip}~5")
    new = git(ROOT, "rev-list", tip, f"^{older}").split()
    assert len(new) >= 5
    items = await collect(from_git(ROOT, branch=tip, state={"heads": {tip: older}}))
    assert [r.id for r in records(items)] == new
    end = position(items)
    assert (end.mode, end.state) == ("incremental", {"heads": {tip: tip}})
    assert end.skipped == int(git(ROOT, "rev-list", "--count", older))
    again = await collect(from_git(ROOT, branch=tip, state=end.state))
    assert again == [replace(end, skipped=int(git(ROOT, "rev-list", "--count", tip)))]


# -- memtrails add --git ------------------------------------------------------------------


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_add_git_not_a_repository_creates_no_memory_folder(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    home = tmp_path / "home"
    code, _, err = cli("add", "--git", str(tmp_path / "plain"), "--home", str(home))
    assert code == 1
    assert err.strip() == f"Error: git:{(tmp_path / 'plain').resolve()}: not a git repository"
    assert not home.exists()


def test_add_git_by_its_git_folder_is_the_same_source(tmp_path: Path) -> None:
    repo = linear(tmp_path / "r", 3)
    home = str(tmp_path / "home")
    code, out, err = cli("add", "--git", str(repo.path), "--home", home, "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == 3
    code, out, err = cli("add", "--git", str(repo.path / ".git"), "--home", home, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["added"], report["unchanged"], report["embedded"]) == (0, 3, 0)
    assert [(s["source"], s["mode"]) for s in report["sources"]] == [
        (repo_source(repo), "incremental")
    ]


@pytest.mark.parametrize("stamp", ["not-a-time", "179618714696187146", "99999999999999"])
def test_a_commit_time_no_date_can_hold_is_no_time(stamp: str) -> None:
    """A damaged commit's time (not a number, or past what a date holds) costs the import
    nothing: the commit is read, with no time (not a false one, the epoch), saying why."""
    from memtrails.importers.git._log import commit_record, parse_header

    fields = ["a" * 40, "", "Ann", "ann@example.org", stamp, "Ann", "ann@example.org"]
    commit = parse_header([*fields, stamp, "Fix the flaky poller\n"])
    record = commit_record(commit, "git:x", False, True)
    assert record.at is None and "committed_at" not in record.meta
    assert "author date" in record.meta["date_error"]
    assert "flaky poller" in record.text


def test_a_log_entry_with_no_object_name_is_not_a_commit(tmp_path: Path) -> None:
    """What git never prints (a header whose object name is empty or not hex, from a damaged
    pipe or another program) is left out, and the commits around it are read."""
    import stat as stat_module

    from memtrails.importers.git._log import MARK, Log

    def entry(sha: str, subject: str) -> str:
        fields = [sha, "", "Ann", "ann@example.org", "1700000000"]
        fields += ["Ann", "ann@example.org", "1700000000", subject + "\n"]
        return MARK + "\x00".join(fields) + "\x00" + "\n1\t0\tREADME.md\x00"

    text = entry("a" * 40, "First") + entry("", "Damaged") + entry("zz" * 20, "Not hex")
    text += entry("b" * 40, "Last")
    (tmp_path / "log.bin").write_text(text)
    fake = tmp_path / "git"
    fake.write_text(f"#!/bin/sh\nexec cat '{tmp_path / 'log.bin'}'\n")
    fake.chmod(fake.stat().st_mode | stat_module.S_IXUSR)
    log = Log(str(fake), str(tmp_path), [])
    try:
        commits = list(log.commits())
    finally:
        log.close()
    assert [c.message.strip() for c in commits] == ["First", "Last"]
    assert [c.file_count for c in commits] == [1, 1]


async def test_a_file_of_a_work_tree_names_its_repository(tmp_path: Path) -> None:
    """Given a file in the repository (``repo/README.md``, for ``git log README.md``), the
    error says it is a file and names the repository's folder to give instead."""
    repo = linear(tmp_path / "r", 1)
    (repo.path / "docs").mkdir()
    (repo.path / "docs" / "README.md").write_text("x\n")
    for file in (repo.path / "f0.txt", repo.path / "docs" / "README.md"):
        with pytest.raises(SourceError) as caught:
            await collect(from_git(file))
        assert "a file" in str(caught.value) and str(repo.path.resolve()) in str(caught.value)
    lone = tmp_path / "lone.txt"
    lone.write_text("x\n")
    with pytest.raises(SourceError, match="not a git repository"):
        await collect(from_git(lone))
