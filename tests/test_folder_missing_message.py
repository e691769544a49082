"""A folder that is not there, opened without creating it: a library caller is told what to
do in library terms (``create=True``), someone at the command line or an MCP client in the
command line's (`memtrails add`), each in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails import Memory, NoMemoryFolderError
from memtrails._exceptions import FolderFormatError
from memtrails.cli import main


async def test_a_library_caller_is_told_to_open_with_create(tmp_path: Path) -> None:
    # Before: "create one with `memtrails add`", a command, to a program calling Memory.open
    missing = tmp_path / "nothing here"
    with pytest.raises(FolderFormatError) as caught:
        async with Memory.open(missing, create=False):
            pass  # pragma: no cover
    said = str(caught.value)
    assert said.startswith(f"no memory folder at {missing}")
    assert "create=True" in said and "\n" not in said
    assert isinstance(caught.value, NoMemoryFolderError) and caught.value.path == missing
    assert not missing.exists()


def test_the_command_line_still_says_memtrails_add(tmp_path: Path) -> None:
    missing = tmp_path / "typo"
    result = CliRunner().invoke(main, ["status", "--home", str(missing)])
    assert result.exit_code == 1
    assert (
        result.stderr == f"Error: no memory folder at {missing}; create one with `memtrails add`\n"
    )
    assert "create=True" not in result.stderr
