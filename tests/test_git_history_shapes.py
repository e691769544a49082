"""Histories of unusual shapes, one repository built once: submodule bumps, octopus merges,
empty commits, dates at the ends of the range, author time zones, CRLF and bidi controls in
messages. Each commit is one record, saying what a reader of ``git log`` would see."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from gitrepos import BASE, Repo, git, raw_commit
from helpers import collect, errors, records

from memtrails.importers.git import _log, _raw, from_git
from memtrails.records import MemoryRecord

SUB_OLD = "1" * 40
SUB_NEW = "2" * 40


def _people(when: int, zone: bytes) -> bytes:
    return b"author Ann <ann@example.org> %d %s\ncommitter Bo <bo@example.org> %d +0000\n" % (
        when,
        zone,
        when,
    )


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    repo = Repo(tmp_path_factory.mktemp("shapes") / "r")
    shas: dict[str, str] = {"first": repo.commit("first", {"a.txt": "a\n"})}
    # A submodule is a gitlink (mode 160000) in the tree: added, then bumped.
    # A submodule is a gitlink (mode 160000) in the tree: added, then bumped (committed
    # from the index alone: `git add -A` would drop a gitlink with no folder).
    for i, (name, sha) in enumerate((("sub_added", SUB_OLD), ("sub_bumped", SUB_NEW)), 1):
        git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/lib")
        if name == "sub_bumped":
            (repo.path / "a.txt").write_text("a\nb\n")
            git(repo.path, "update-index", "a.txt")
        git(repo.path, "commit", "-q", "-m", name, i=10 + i)
        shas[name] = git(repo.path, "rev-parse", "HEAD")
    git(repo.path, "update-index", "--force-remove", "vendor/lib")
    git(repo.path, "update-index", "--add", "--cacheinfo", f"160000,{SUB_NEW},third_party/lib")
    git(repo.path, "commit", "-q", "-m", "move the submodule", i=16)
    shas["sub_moved"] = git(repo.path, "rev-parse", "HEAD")
    git(repo.path, "rm", "-q", "--cached", "third_party/lib", i=17)
    git(repo.path, "commit", "-q", "-m", "drop the submodule", i=18)
    shas["sub_removed"] = git(repo.path, "rev-parse", "HEAD")
    git(repo.path, "commit", "-q", "--allow-empty", "-m", "nothing changed", i=20)
    shas["empty"] = git(repo.path, "rev-parse", "HEAD")
    for i, branch in enumerate(("x", "y", "z")):
        git(repo.path, "checkout", "-q", "-b", branch, shas["empty"])
        (repo.path / f"{branch}.txt").write_text(branch)
        git(repo.path, "add", f"{branch}.txt")
        git(repo.path, "commit", "-q", "-m", f"on {branch}", i=30 + i)
    git(repo.path, "checkout", "-q", "main")
    git(repo.path, "merge", "-q", "--no-ff", "--no-edit", "-m", "octopus", "x", "y", "z", i=50)
    shas["octopus"] = git(repo.path, "rev-parse", "HEAD")
    shas["kolkata"] = raw_commit(repo, _people(BASE, b"+0530"), b"tea time\n")
    shas["pacific"] = raw_commit(repo, _people(BASE, b"-0800"), b"late night\n")
    shas["no_zone"] = raw_commit(repo, _people(BASE, b"+9999"), b"a zone no clock has\n")
    shas["epoch"] = raw_commit(repo, _people(0, b"+0000"), b"at the epoch\n")
    shas["y2100"] = raw_commit(repo, _people(4_102_444_800, b"+0100"), b"in 2100\n")
    shas["crlf"] = raw_commit(repo, _people(BASE, b"+0000"), b"windows subject\r\n\r\nbody\r\n")
    shas["huge_name"] = raw_commit(
        repo,
        b"author "
        + b"Ann " * 500_000
        + b"<ann@example.org> %d +0000\n" % BASE
        + b"committer Bo <bo@example.org> %d +0000\n" % BASE,
        b"a crafted author of 2 MB\n",
    )
    shas["bidi"] = raw_commit(
        repo, _people(BASE, b"+0000"), "access check \u202e }if (admin) {\u2066\n".encode()
    )
    return {"repo": repo, "shas": shas}


@pytest.fixture(scope="module")
def imported(history: dict[str, Any]) -> tuple[dict[str, MemoryRecord], list[Any]]:
    # Read once for the module (an async fixture would need a module-scoped loop).
    items = asyncio.run(collect(from_git(history["repo"].path, all_branches=True)))
    return {r.id: r for r in records(items)}, errors(items)


def test_every_shape_is_one_record_and_no_error(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    recs, errs = imported
    assert errs == []
    assert set(history["shas"].values()) <= set(recs)
    assert len(recs) == len(history["repo"].rev_list("--all"))


def test_a_submodule_bump_names_the_commits_it_moved_between(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    """--numstat counts a bump as one line added and one removed; what changed is the
    commit the submodule points at."""
    recs, _ = imported
    bumped = recs[history["shas"]["sub_bumped"]]
    (lib,) = [f for f in bumped.meta["files"] if f["path"] == "vendor/lib"]
    assert lib["submodule"] == {"from": SUB_OLD, "to": SUB_NEW}
    assert lib["insertions"] is None and lib["deletions"] is None
    assert f"vendor/lib (submodule {SUB_OLD[:12]}..{SUB_NEW[:12]})" in bumped.text
    plain = [f for f in bumped.meta["files"] if f["path"] == "a.txt"]
    assert plain == [{"path": "a.txt", "insertions": 1, "deletions": 0}]
    added = recs[history["shas"]["sub_added"]]
    assert added.meta["files"][0]["submodule"] == {"from": None, "to": SUB_OLD}
    assert f"vendor/lib (submodule added at {SUB_OLD[:12]})" in added.text
    # Moved at the same commit: a rename, its path all that changed.
    moved = recs[history["shas"]["sub_moved"]]
    assert moved.meta["files"][0]["from"] == "vendor/lib"
    assert moved.text.endswith(f"Files changed:\nthird_party/lib (submodule at {SUB_NEW[:12]})")
    removed = recs[history["shas"]["sub_removed"]]
    assert removed.meta["files"][0]["submodule"] == {"from": SUB_NEW, "to": None}
    assert f"third_party/lib (submodule removed, was at {SUB_NEW[:12]})" in removed.text


def test_the_author_s_own_clock_is_kept_beside_the_utc_time(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    recs, _ = imported
    shas = history["shas"]
    kolkata, pacific = recs[shas["kolkata"]], recs[shas["pacific"]]
    assert kolkata.at == pacific.at  # the same instant
    assert str(kolkata.at) == "2023-11-14T22:13:20.000Z"
    assert kolkata.meta["authored_local"] == "2023-11-15T03:43:20+05:30"
    assert pacific.meta["authored_local"] == "2023-11-14T14:13:20-08:00"
    assert recs[shas["first"]].meta["authored_local"] == "2023-11-14T22:14:20+00:00"
    assert recs[shas["empty"]].meta["authored_local"] == "2023-11-14T22:33:20+00:00"
    assert recs[shas["y2100"]].meta["authored_local"] == "2100-01-01T01:00:00+01:00"
    # An offset no clock shows is no local time; the UTC time still stands.
    assert "authored_local" not in recs[shas["no_zone"]].meta
    assert str(recs[shas["no_zone"]].at) == "2023-11-14T22:13:20.000Z"


def test_dates_at_the_ends_of_the_range_are_kept(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    recs, _ = imported
    assert str(recs[history["shas"]["epoch"]].at) == "1970-01-01T00:00:00.000Z"
    assert str(recs[history["shas"]["y2100"]].at) == "2100-01-01T00:00:00.000Z"


def test_merges_empty_commits_and_crlf_messages(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    recs, _ = imported
    shas = history["shas"]
    octopus = recs[shas["octopus"]]
    assert octopus.meta["merge"] is True and len(octopus.meta["parents"]) == 4
    # Against its first parent, the merge brought in the three branches' files.
    assert {f["path"] for f in octopus.meta["files"]} == {"x.txt", "y.txt", "z.txt"}
    empty = recs[shas["empty"]]
    assert empty.text == "nothing changed" and empty.meta["files"] == []
    crlf = recs[shas["crlf"]]
    assert crlf.title == "windows subject" and "\r" not in crlf.text


def test_bidi_controls_are_kept_as_written(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    """Kept: the text in its logical order is what the commit says (what a compiler or an
    agent reads), and the controls are the evidence of a Trojan-source commit; the terminal
    and the web page escape or neutralise them where they are shown."""
    from memtrails.cli._terminal import for_terminal

    rec = imported[0][history["shas"]["bidi"]]
    assert "\u202e" in rec.text and "\u2066" in rec.text
    assert "\\u202e" in for_terminal(rec.text, lines=True)
    assert "\u202e" not in for_terminal(rec.text, lines=True)


@pytest.mark.parametrize("nul", [False, True], ids=["as-logged", "read-from-object"])
async def test_a_huge_message_is_read_up_to_a_budget_never_inside_a_character(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nul: bool
) -> None:
    """Past the budget the message is read past, not held (an 80 MB one peaked at 500 MB);
    the cut falls between characters, so the message stays UTF-8 (a cut character made
    the whole field read as a legacy charset). A NUL makes the walk take the message from
    the commit object: that read is held to the budget too."""
    monkeypatch.setattr(_log, "MAX_FIELD_BYTES", 1001)
    monkeypatch.setattr(_raw, "MAX_FIELD_BYTES", 1001)
    monkeypatch.setattr(_raw, "_HEAD_ROOM", 0)
    repo = Repo(tmp_path / "r")
    repo.commit("first")
    body = "héllo wörld ✓ " * 400  # 1- 2- and 3-byte characters, 7,600 bytes
    # git log prints a message up to its first NUL: the rest is read from the object.
    head = "subject\n\nab\0" if nul else "subject\n\nab "
    sha = raw_commit(repo, _people(BASE, b"+0000"), (head + body).encode())
    items = await collect(from_git(repo.path))
    assert errors(items) == []
    text = {r.id: r for r in records(items)}[sha].text
    assert 700 < len(text.encode()) <= 1001
    assert ("subject\n\nab " + body).startswith(text.rstrip())


def test_an_author_name_of_megabytes_is_cut_and_the_commit_kept(
    history: dict[str, Any], imported: tuple[dict[str, MemoryRecord], list[Any]]
) -> None:
    """A name past Limits.max_field_bytes (1 MB) got the whole record refused."""
    author = imported[0][history["shas"]["huge_name"]].author
    assert author is not None and author.startswith("Ann Ann ")
    assert author.endswith("\u2026 <ann@example.org>") and len(author) == 1000 + 18
