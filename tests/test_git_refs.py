"""A damaged ``packed-refs`` file: each damaged line is an error, the other refs are read."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from gitrepos import Repo, git
from helpers import collect, errors, records

from memtrails._exceptions import SourceError
from memtrails.importers.git import from_git
from memtrails.records import SourceState


def branches(tmp_path: Path) -> tuple[Repo, dict[str, str]]:
    """main (two commits), b1 and b2 (one commit each of their own), a tag; refs packed."""
    repo = Repo(tmp_path / "r")
    shas = {"root": repo.commit("root", {"a.txt": "a\n"})}
    git(repo.path, "checkout", "-q", "-b", "b1")
    shas["b1"] = repo.commit("only on b1", {"b1.txt": "1\n"})
    git(repo.path, "checkout", "-q", "-b", "b2", "main")
    shas["b2"] = repo.commit("only on b2", {"b2.txt": "2\n"})
    git(repo.path, "checkout", "-q", "main")
    shas["main"] = repo.commit("second on main", {"a.txt": "b\n"})
    git(repo.path, "tag", "t1", shas["root"])
    git(repo.path, "pack-refs", "--all")
    return repo, shas


def damage(repo: Repo, how: Callable[[list[str]], list[str]]) -> None:
    packed = repo.path / ".git" / "packed-refs"
    lines = packed.read_text().splitlines()
    packed.write_text("\n".join(how(lines)) + "\n")


def line_of(lines: list[str], ref: str) -> int:
    return next(k for k, line in enumerate(lines) if line.endswith(" " + ref))


def truncated(lines: list[str]) -> list[str]:
    k = line_of(lines, "refs/heads/b1")
    return [*lines[:k], lines[k][:20], *lines[k + 1 :]]


def garbage(lines: list[str]) -> list[str]:
    k = line_of(lines, "refs/heads/b1")
    return [*lines[:k], "\x7f\x01 garbage ~~~ not a ref", *lines[k + 1 :]]


def stray_peel(lines: list[str]) -> list[str]:
    k = line_of(lines, "refs/heads/b1")
    sha = lines[k].split()[0]
    return [*lines[:k], "^" + sha, *lines[k + 1 :]]


def unsorted_truncated(lines: list[str]) -> list[str]:
    # No header: git then reads the whole file for any lookup, even of an object name.
    body = [line for line in lines if not line.startswith("#")]
    return [line[:30] if line.endswith(" refs/heads/b1") else line for line in body]


def bad_object_name(lines: list[str]) -> list[str]:
    return [
        ("zz" * 20 + " refs/heads/b1") if line.endswith(" refs/heads/b1") else line
        for line in lines
    ]


def missing_object(lines: list[str]) -> list[str]:
    return [
        ("12" * 20 + " refs/heads/b1") if line.endswith(" refs/heads/b1") else line
        for line in lines
    ]


def leftover_views() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("memtrails-git-refs-*")}


@pytest.mark.parametrize(
    ("how", "where"),
    [
        (truncated, "packed-refs line"),
        (garbage, "packed-refs line"),
        (stray_peel, "packed-refs line"),
        (unsorted_truncated, "packed-refs line"),
        (bad_object_name, "refs/heads/b1"),
        (missing_object, "refs/heads/b1"),
    ],
    ids=["truncated", "garbage", "stray-peel", "unsorted-truncated", "bad-name", "missing"],
)
async def test_all_branches_go_on_past_a_damaged_packed_refs_line(
    tmp_path: Path, how: Callable[[list[str]], list[str]], where: str
) -> None:
    repo, shas = branches(tmp_path)
    damage(repo, how)
    before = leftover_views()
    items = await collect(from_git(repo.path, all_branches=True))
    errs = errors(items)
    assert len(errs) == 1, errs
    assert errs[0].where.startswith(where)
    assert errs[0].source == "git:" + str(repo.path.resolve())  # the repository
    if where == "packed-refs line":
        assert str(repo.path.resolve() / ".git" / "packed-refs") in errs[0].reason
    # Every other ref's history is read; only what b1 alone reaches is not.
    assert {r.id for r in records(items)} == {shas["root"], shas["main"], shas["b2"]}
    state = items[-1]
    assert isinstance(state, SourceState) and not state.complete
    assert "refs/heads/b2" in state.state["heads"] and "refs/heads/b1" not in state.state["heads"]
    assert leftover_views() <= before  # the view git read through is gone


@pytest.mark.parametrize("how", [truncated, garbage, unsorted_truncated])
async def test_head_walk_reads_past_a_damaged_line_of_another_ref(
    tmp_path: Path, how: Callable[[list[str]], list[str]]
) -> None:
    repo, shas = branches(tmp_path)
    damage(repo, how)
    items = await collect(from_git(repo.path))
    assert [r.id for r in records(items)] == [shas["main"], shas["root"]]
    assert errors(items) == []


async def test_head_on_a_damaged_line_is_an_error_not_an_empty_history(tmp_path: Path) -> None:
    """HEAD's branch lost to damage is no empty repository: an import saying "nothing here,
    complete" would let a prune forget every commit of it."""
    repo, _ = branches(tmp_path)
    damage(repo, lambda ls: [ln[:25] if ln.endswith(" refs/heads/main") else ln for ln in ls])
    with pytest.raises(SourceError, match=r"'main'.*packed-refs"):
        await collect(from_git(repo.path))
    with pytest.raises(SourceError, match=r"'b1'.*packed-refs"):
        damage(repo, garbage)
        await collect(from_git(repo.path, branch="b1"))


async def test_a_loose_ref_overrides_its_damaged_packed_line(tmp_path: Path) -> None:
    repo, shas = branches(tmp_path)
    damage(repo, bad_object_name)
    (repo.path / ".git" / "refs" / "heads" / "b1").write_text(shas["b1"] + "\n")
    items = await collect(from_git(repo.path, all_branches=True))
    assert errors(items) == []
    assert shas["b1"] in {r.id for r in records(items)}
