"""`memtrails add` on one text file that is no archive (notes.md, a script): one note
(read by ``importers.files.lone``). A Git work tree given as a PATH gets a hint that
``--git`` imports its history.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..records import ImportReport, MemoryRecord
from ._terminal import for_terminal

__all__ = ["git_hint", "single_note"]


def git_hint(paths: tuple[Path, ...], git_repos: tuple[Path, ...]) -> None:
    """Say, once per work tree, that ``--git`` reads a repository's history."""
    for path in paths:
        if str(path) != "-" and (path / ".git").exists() and path not in git_repos:
            click.echo(
                f"{for_terminal(path)} is a Git work tree: its files are imported as notes; "
                f"`memtrails add --git {for_terminal(path)}` imports its history (commits) "
                "as well",
                err=True,
            )


async def single_note(
    memory: Any, record: MemoryRecord, name: str | None, **options: Any
) -> ImportReport:
    """Import one note as its own source (``name``, else the file's resolved path)."""
    source = name or record.source
    report: ImportReport = await memory.ingest([record], name=source, **options)
    return report
