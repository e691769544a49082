"""docs/cli.md's table of commands names every command there is, and each option it shows is
one the command takes: a newcomer reads the table to learn what to type."""

from __future__ import annotations

import re
from pathlib import Path

import click

from memtrails.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli.md"


def _rows() -> list[str]:
    """The command column of the page's table: each `memtrails ...` synopsis in it."""
    text = PAGE.read_text(encoding="utf-8")
    rows = [
        line.split(" | ", 1)[0] for line in text.splitlines() if line.startswith("| `memtrails")
    ]
    return [span for row in rows for span in re.findall(r"`(memtrails [^`]+)`", row)]


def _command(words: list[str]) -> click.Command:
    """The (sub)command the words name; the group's commands load on first use."""
    command: click.Command = main
    for word in words:
        found = (
            command.get_command(click.Context(command), word)
            if isinstance(command, click.Group)
            else None
        )
        if found is None:
            break
        command = found
    return command


def _commands() -> set[str]:
    return set(main.list_commands(click.Context(main)))


def test_the_table_names_every_command() -> None:
    named = {synopsis.split()[1] for synopsis in _rows()}
    assert sorted(_commands() - named) == [], "commands docs/cli.md's table leaves out"
    assert sorted(named - _commands()) == [], "commands in the table that are gone"


def test_every_option_in_the_table_exists() -> None:
    wrong = []
    for synopsis in _rows():
        words = synopsis.split()[1:]
        command = _command(words)
        takes = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        for option in re.findall(r"(?<![\w-])--[a-z][\w-]*", synopsis):
            if option not in takes:
                wrong.append(f"{synopsis}: {option}")
    assert wrong == []


def test_search_help_names_every_kind_the_importers_give() -> None:
    from memtrails.mcp.schemas import KINDS

    search = _command(["search"])
    kind = next(param for param in search.params if "--kind" in param.opts)
    assert isinstance(kind, click.Option) and kind.help is not None
    assert [name for name in KINDS if name not in kind.help] == []
