"""Read commands leave folders alone; `python -m memtrails`; an empty query is refused."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)
    return result.exit_code, result.stdout, result.stderr


READS = [
    ["search", "foo"],
    ["status"],
    ["check"],
    ["forget", "some-id"],
    ["reindex"],
    ["optimize"],
    ["show", "some-id"],
    ["sources"],
    ["move", ".", "."],
    ["watch", "list"],
]


@pytest.mark.parametrize("args", READS, ids=lambda a: a[0])
def test_a_read_command_never_creates_a_folder(tmp_path: Path, args: list[str]) -> None:
    typo = tmp_path / "typo"
    code, out, err = run(*args, "--home", str(typo))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "no memory folder at" in err and "memtrails add" in err
    assert not typo.exists()


@pytest.mark.parametrize("args", READS, ids=lambda a: a[0])
def test_a_read_command_leaves_an_empty_folder_as_it_was(tmp_path: Path, args: list[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o755)
    empty.chmod(0o755)
    code, _, err = run(*args, "--home", str(empty))
    assert code == 1 and "no memory folder at" in err
    assert stat.S_IMODE(empty.stat().st_mode) == 0o755 and list(empty.iterdir()) == []


def test_the_default_home_is_not_created_by_a_search(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "MEMTRAILS_HOME": ""}
    code, _, err = run("search", "foo", env=env)
    assert code == 1 and "no memory folder" in err
    assert not (tmp_path / ".memtrails").exists()


@pytest.mark.slow
def test_an_empty_query_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Tea\n\nGreen tea at four.\n")
    home = str(tmp_path / "home")
    assert run("add", str(notes), "--home", home)[0] == 0
    for query in ("", "   "):
        code, out, err = run("search", query, "--home", home)
        assert code == 2 and out == "" and "query" in err and "empty" in err


@pytest.mark.slow
def test_python_dash_m_memtrails_runs_the_command() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "memtrails", "--help"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "Usage: memtrails" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "memtrails", "--version"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stdout.startswith("memtrails, version ")
