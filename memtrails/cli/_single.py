"""`memtrails add` on one text file that is no archive (notes.md, a script): one note.

Detection (``importers.detect``) reads folders of notes, not a lone note; a file it finds
no kind for is imported here when its bytes are text, as the notes importer would read it
inside a folder (encoding, title from its first heading, kind ``note`` for prose and
``file`` for the rest), under the source of its resolved path. A Git work tree given as a
PATH gets a hint that ``--git`` imports its history.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import click

from ..importers.files import DEFAULT_MAX_FILE_BYTES, NOTE_SUFFIXES
from ..importers.files._text import decode, title_of
from ..records import At, ImportReport, MemoryRecord

__all__ = ["git_hint", "note_of", "single_note"]


def git_hint(paths: tuple[Path, ...], git_repos: tuple[Path, ...]) -> None:
    """Say, once per work tree, that ``--git`` reads a repository's history."""
    for path in paths:
        if str(path) != "-" and (path / ".git").exists() and path not in git_repos:
            click.echo(
                f"{path} is a Git work tree: its files are imported as notes; "
                f"`memtrails add --git {path}` imports its history (commits) as well",
                err=True,
            )


def note_of(path: Path) -> MemoryRecord | None:
    """Return the one record a lone text file makes, or None when it is not text (or too big)."""
    try:
        info = path.stat()
        if not path.is_file() or info.st_size > DEFAULT_MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    decoded = decode(data)
    if decoded is None:
        return None
    text, encoding = decoded
    suffix = path.suffix.lower()
    return MemoryRecord(
        id=path.name,
        text=text,
        kind="note" if suffix in NOTE_SUFFIXES else "file",
        title=title_of(text, path.name, suffix),
        at=At(info.st_mtime_ns // 1_000_000),
        source=os.path.abspath(path),
        meta={
            "path": os.path.abspath(path),
            "size": info.st_size,
            "mtime_ns": info.st_mtime_ns,
            "encoding": encoding,
            "sha256": hashlib.sha256(data).hexdigest(),
        },
    )


async def single_note(
    memory: Any, record: MemoryRecord, name: str | None, **options: Any
) -> ImportReport:
    """Import one note as its own source (``name``, else the file's resolved path)."""
    source = name or record.source
    report: ImportReport = await memory.ingest([record], name=source, **options)
    return report
