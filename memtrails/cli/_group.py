"""The ``memtrails`` command group."""

from __future__ import annotations

import click

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memtrails")
def main() -> None:
    """Stream mail, chat, Git history, notes and JSON Lines into a searchable memory folder."""
