"""A shallow clone whose commits are in legacy charsets (an ``encoding`` header), have no
author email, or end lines with CR alone: each is a record with its text, the cut one error."""

from __future__ import annotations

from pathlib import Path

from gitrepos import BASE, Repo, raw_commit, shallow_clone
from helpers import collect, errors, records

from memtrails.importers.git import from_git


async def test_a_shallow_clone_of_legacy_and_odd_commits(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("before the cut")
    stamp = b"%d +0000\n" % BASE
    latin = raw_commit(
        repo,
        b"author J\xfcrgen <j@example.org> "
        + stamp
        + b"committer J <j@example.org> "
        + stamp
        + b"encoding ISO-8859-1\n",
        b"Gr\xfc\xdfe aus K\xf6ln\n\n\xc4nderung f\xfcr die Stra\xdfe\n",
    )
    sjis = raw_commit(
        repo,
        b"author "
        + "山田".encode("shift_jis")
        + b" <y@example.jp> "
        + stamp
        + b"committer Y <y@example.jp> "
        + stamp
        + b"encoding Shift_JIS\n",
        "設定の読み込みを修正\n".encode("shift_jis"),
    )
    no_email = raw_commit(
        repo, b"author Grace Hopper " + stamp + b"committer cvs2svn " + stamp, b"converted\r"
    )
    clone = shallow_clone(repo, tmp_path / "shallow", 3)  # the cut: at the Latin-1 commit
    items = await collect(from_git(clone))
    recs = {r.id: r for r in records(items)}
    assert set(recs) == {latin, sjis, no_email}
    assert recs[latin].title == "Grüße aus Köln"
    assert "Änderung für die Straße" in recs[latin].text
    assert recs[latin].author == "Jürgen <j@example.org>"
    assert recs[sjis].title == "設定の読み込みを修正" and recs[sjis].author == "山田 <y@example.jp>"
    assert recs[no_email].author == "Grace Hopper" and recs[no_email].title == "converted"
    (cut,) = errors(items)
    assert "shallow clone" in cut.reason and latin in cut.where
