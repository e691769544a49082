"""A `--home` (or $MEMTRAILS_HOME) that can be no memory folder, a file or a folder this
user cannot read, is refused by every command in one line that names it and says what to
do: before, click printed its usage and "Directory '...' is a file." or "is not
readable", and `watch list` said only "...: Permission denied"."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails.cli import main

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    ["search", "tea"],
    ["status"],
    ["check"],
    ["sources"],
    ["show", "some-id"],
    ["forget", "some-id"],
    ["reindex"],
    ["optimize"],
    ["move", ".", "."],
    ["watch", "list"],
    ["add", "."],
    ["mcp"],
    ["serve", "--port", "0"],
]


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_a_file_given_as_the_memory_folder_is_refused_in_one_line(
    tmp_path: Path, args: list[str]
) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("not a folder\n")
    for given in (["--home", str(file)], []):  # the option, and $MEMTRAILS_HOME
        env = {"MEMTRAILS_HOME": str(file)} if not given else None
        code, out, err = run(*args, *given, env=env)
        assert code == 1 and out == "", err
        assert err.count("\n") == 1 and "Traceback" not in err and "Usage:" not in err
        assert f"{file} is a file, not a memory folder" in err and "--home" in err
        assert file.read_text() == "not a folder\n"


def test_a_failure_is_still_one_json_object_with_json(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    code, out, _ = run("search", "tea", "--json", env={"MEMTRAILS_HOME": str(file)})
    assert code == 1 and "is a file, not a memory folder" in json.loads(out)["error"]


def _without_root_s_overrides() -> list[str]:
    """Run as this user, or as root without the capabilities that let root read anything."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("root, and no setpriv to drop the capabilities that read any folder")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.slow
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_a_folder_this_user_cannot_read_is_refused_in_one_line(
    tmp_path: Path, args: list[str]
) -> None:
    folder = tmp_path / "memory"
    folder.mkdir()
    (folder / "manifest.json").write_text("{}")
    folder.chmod(0)
    try:
        done = subprocess.run(
            [*_without_root_s_overrides(), sys.executable, "-m", "memtrails", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMTRAILS_HOME": str(folder), "PYTHONPATH": str(ROOT)},
            cwd=tmp_path,
            timeout=300,
        )
    finally:
        folder.chmod(0o700)
    err = done.stderr
    assert done.returncode == 1 and done.stdout == "", err
    assert err.count("\n") == 1 and "Traceback" not in err and "Usage:" not in err
    assert f"cannot read the memory folder {folder}: permission denied" in err
    assert "--home" in err


@pytest.mark.parametrize("args", [["mcp"], ["search", "tea"]], ids=lambda a: a[0])
def test_a_folder_of_a_newer_format_is_refused_in_one_line(tmp_path: Path, args: list[str]) -> None:
    """`mcp` answered an agent's `initialize` and served a folder it cannot read, exit 0;
    it now refuses at start, as the other commands do."""
    home = tmp_path / "memory"
    home.mkdir()
    (home / "manifest.json").write_text(json.dumps({"format": 99}))
    code, out, err = run(*args, "--home", str(home))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "format 99" in err and "newer memtrails" in err
