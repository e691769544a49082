"""One repository, one source: submodules and linked work trees, whichever path names them."""

from __future__ import annotations

from pathlib import Path

from gitrepos import Repo, git, linear, repo_source
from helpers import collect, errors, records

from memtrails.importers.git import from_git, git_source
from memtrails.records import SourceState


def position(items: list[object]) -> SourceState:
    state = items[-1]
    assert isinstance(state, SourceState)
    return state


def with_submodule(tmp_path: Path) -> tuple[Repo, Path]:
    lib = linear(tmp_path / "lib", 3)
    sup = Repo(tmp_path / "super")
    sup.commit("first")
    git(
        sup.path, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib.path), "sub"
    )
    git(sup.path, "commit", "-q", "-m", "add the submodule", i=5)
    return lib, sup.path / "sub"


async def test_a_submodule_is_one_source_by_any_of_its_paths(tmp_path: Path) -> None:
    lib, sub = with_submodule(tmp_path)
    assert (sub / ".git").is_file()  # "gitdir: ../.git/modules/sub"
    names = [sub, sub / ".git", tmp_path / "super" / ".git" / "modules" / "sub"]
    assert {git_source(name) for name in names} == {"git:" + str(sub.resolve())}
    first = await collect(from_git(sub))
    assert [r.id for r in records(first)] == lib.rev_list("HEAD")
    for name in names[1:]:
        assert await collect(from_git(name)) == first, name
        again = await collect(from_git(name, state=position(first).state))
        assert records(again) == [] and position(again).mode == "incremental", name


def with_worktree(tmp_path: Path) -> tuple[Repo, Path, str]:
    repo = linear(tmp_path / "r", 3)
    side = tmp_path / "side"
    git(repo.path, "worktree", "add", "-q", "-b", "side", str(side))
    work = Repo.__new__(Repo)
    work.path, work.clock = side, 10
    tip = work.commit("only on side", {"s.txt": "s\n"})
    return repo, side, tip


async def test_a_linked_work_tree_and_its_main_one_are_one_source(tmp_path: Path) -> None:
    repo, side, tip = with_worktree(tmp_path)
    source = repo_source(repo)
    names = [side, side / ".git", repo.path / ".git" / "worktrees" / "side"]
    assert {git_source(name) for name in [repo.path, *names]} == {source}
    main = await collect(from_git(repo.path))
    assert [r.id for r in records(main)] == repo.rev_list("main")
    # Through the work tree, with the position the main one saved: only its own commit.
    seen = await collect(from_git(side, state=position(main).state))
    assert [r.id for r in records(seen)] == [tip]
    assert {r.source for r in records(seen)} == {source}
    state = position(seen)
    assert state.state["heads"] == {"HEAD": repo.rev_list("main")[0], "worktrees/side/HEAD": tip}
    # Each HEAD's commits are known: no prune may forget the other's.
    assert not state.complete
    for name in [repo.path, *names]:
        again = await collect(from_git(name, state=state.state))
        assert records(again) == [] and errors(again) == [], name
        assert position(again).state["heads"] == state.state["heads"]
        assert not position(again).complete
    # By itself (no position), the work tree's git dir reads what its path reads.
    alone = await collect(from_git(side))
    assert [r.id for r in records(alone)] == [tip, *repo.rev_list("main")]
    assert await collect(from_git(names[2])) == alone


async def test_a_removed_work_tree_leaves_the_position(tmp_path: Path) -> None:
    repo, side, _ = with_worktree(tmp_path)
    main = await collect(from_git(repo.path))
    seen = await collect(from_git(side, state=position(main).state))
    git(repo.path, "worktree", "remove", "--force", str(side))
    after = await collect(from_git(repo.path, state=position(seen).state))
    assert records(after) == []
    assert position(after).state["heads"] == {"HEAD": repo.rev_list("main")[0]}
