"""`memtrails move OLD NEW`: a moved archive goes on as the same source, ids unchanged."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from memtrails.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _mail(i: int) -> str:
    return (
        f"From u{i}@example.com Mon Apr  1 10:00:00 2024\nFrom: U {i} <u{i}@example.com>\n"
        f"Subject: boiler note {i}\nMessage-ID: <m{i}@example.com>\n"
        f"Date: Mon, 1 Apr 2024 10:00:00 +0000\n\nThe boiler was serviced, visit {i}.\n\n"
    )


def _hits(home: str, *args: str) -> list[dict[str, str]]:
    code, out, err = run("search", "boiler serviced", "--home", home, "--k", "50", "--json", *args)
    assert code == 0, err
    hits: list[dict[str, str]] = json.loads(out)
    return hits


def test_a_moved_mbox_continues_its_source_with_the_same_ids(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    old = tmp_path / "mail" / "list.mbox"
    old.parent.mkdir()
    old.write_text("".join(_mail(i) for i in range(4)), encoding="utf-8")
    code, out, _ = run("add", str(old), "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 4
    before = {h["id"]: h["uid"] for h in _hits(home)}

    new = tmp_path / "archive" / "2024-list.mbox"
    new.parent.mkdir()
    old.rename(new)
    code, out, err = run("move", str(old), str(new), "--home", home)
    assert code == 0, err
    assert "4 records keep their ids" in out

    code, out, _ = run("add", str(new), "--home", home, "--json")
    report = json.loads(out)
    assert code == 0 and report["added"] == 0
    assert [s["mode"] for s in report["sources"]] == ["incremental"]  # from its saved position
    hits = _hits(home)
    assert [h["id"] for h in hits].count("m0@example.com") == 1 and len(hits) == 4
    assert {h["id"]: h["uid"] for h in hits} == before  # ids and uids unchanged

    # It goes on growing where it is now: only the new mail is read and added.
    with new.open("a", encoding="utf-8") as f:
        f.write(_mail(4))
    code, out, _ = run("add", str(new), "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 1
    assert len(_hits(home)) == 5

    code, out, _ = run("sources", "--home", home, "--json")
    [listed] = json.loads(out)["sources"]
    assert listed["path"] == str(new.resolve()) and listed["records"] == 5
    assert listed["source"] == str(old.resolve())  # the name its records keep
    code, out, _ = run("sources", "--home", home)
    assert str(new.resolve()) in out and f"moved from {old.resolve()}" in out
    # The new path names the source wherever one is named.
    assert len(_hits(home, "--source", str(new))) == 5
    # A --prune of the path it left does not forget what moved.
    code, _, err = run("add", str(old), "--prune", "--home", home)
    assert code == 0 and "its source moved" in err
    assert len(_hits(home)) == 5


def test_a_moved_folder_carries_its_sources_and_a_copy_is_refused(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    mail = tmp_path / "mail"
    mail.mkdir()
    (mail / "a.mbox").write_text(_mail(1), encoding="utf-8")
    (mail / "b.mbox").write_text(_mail(2), encoding="utf-8")
    code, out, _ = run("add", str(mail), "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 2
    moved = tmp_path / "old-mail"
    mail.rename(moved)
    code, out, err = run("move", str(mail), str(moved), "--home", home)
    assert code == 0 and "2 records keep their ids" in out, err
    code, out, _ = run("add", str(moved), "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 0
    assert len(_hits(home)) == 2

    # A path already imported as a source of its own is not silently merged into another.
    copy = tmp_path / "copy.mbox"
    shutil.copy(moved / "a.mbox", copy)
    assert run("add", str(copy), "--home", home)[0] == 0
    code, _, err = run("move", str(moved / "b.mbox"), str(copy), "--home", home)
    assert code == 1 and "is already a source of its own" in err
    code, _, err = run("move", str(tmp_path / "nothing.mbox"), str(copy), "--home", home)
    assert code == 1 and "no source matches" in err


def test_a_moved_repository_continues_its_git_source(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    repo = tmp_path / "repo"
    git = ["git", "-C", str(repo), "-c", "user.name=A", "-c", "user.email=a@x"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for i in range(3):
        subprocess.run(
            [*git, "commit", "-q", "--allow-empty", "-m", f"boiler serviced {i}"], check=True
        )
    code, out, _ = run("add", "--git", str(repo), "--home", home, "--json")
    assert code == 0 and json.loads(out)["added"] == 3
    moved = tmp_path / "projects" / "repo"
    moved.parent.mkdir()
    repo.rename(moved)
    code, out, err = run("move", str(repo), str(moved), "--home", home)
    assert code == 0 and f"git:{repo.resolve()} -> git:{moved.resolve()}" in out, err
    git[2] = str(moved)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "boiler serviced 3"], check=True)
    code, out, _ = run("add", "--git", str(moved), "--home", home, "--json")
    report = json.loads(out)
    assert code == 0 and report["added"] == 1  # only the new commit
    assert [s["mode"] for s in report["sources"]] == ["incremental"]
    assert len(_hits(home)) == 4
