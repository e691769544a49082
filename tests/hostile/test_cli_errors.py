"""Hostile command lines: every error is one line naming the option, never a traceback or a hang."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails.cli import main

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["search", "x", "--k", str(2**64)], "--k"),
        (["search", "x", "--k", "9" * 40], "--k"),
        (["search", "x", "--threads", "100000"], "--threads"),
        (["reindex", "--threads", "100000"], "--threads"),
        (["mcp", "--threads", "100000"], "--threads"),
    ],
)
def test_out_of_range_numbers_are_one_line(tmp_path: Path, args: list[str], option: str) -> None:
    result = CliRunner().invoke(main, [*args, "--home", str(tmp_path / "m")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and option in errors[0], result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["serch", "x"], "'search'"),
        (["statuss"], "'status'"),
        (["watch", "lst"], "'list'"),
        (["st\x1b[2Jatus"], "'status'"),  # escaped, still close enough to be named
    ],
)
def test_a_typo_d_command_names_the_closest(tmp_path: Path, args: list[str], meant: str) -> None:
    result = CliRunner().invoke(main, [*args, "--home", str(tmp_path / "m")])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"Did you mean {meant}" in errors[0], result.output
    assert "\x1b" not in result.output
    assert not (tmp_path / "m").exists()


def test_an_unknown_command_far_from_any_is_named_alone(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["zzzz"])
    assert result.exit_code == 2 and "Error: No such command 'zzzz'.\n" in result.output
