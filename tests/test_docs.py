"""The README's first page: short, its links resolve, and every command it shows parses."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from memtrails.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _commands(text: str) -> list[list[str]]:
    """Every ``memtrails ...`` line of the page's ``sh`` blocks, as argument lists."""
    found = []
    for block in text.split("```sh\n")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            line = line.split("  #", 1)[0].strip().removesuffix("&").strip()  # & runs it behind
            if line.startswith("memtrails "):
                found.append(shlex.split(line)[1:])
    return found


def test_readme_is_one_short_page() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) < 150


@pytest.mark.parametrize("page", [README, *sorted((ROOT / "docs").glob("*.md"))], ids=str)
def test_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_every_readme_command_parses() -> None:
    commands = _commands(README.read_text(encoding="utf-8"))
    assert len(commands) >= 5
    for args in commands:
        if args == ["--version"]:
            continue
        name, rest = args[0], args[1:]
        command = main.get_command(click.Context(main), name)
        assert command is not None, f"README shows an unknown command: memtrails {name}"
        try:
            command.make_context(name, list(rest))
        except click.UsageError as error:  # an option the command does not have
            pytest.fail(f"memtrails {shlex.join(args)}: {error}")
