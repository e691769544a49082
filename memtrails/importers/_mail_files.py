"""Which entries of a mail folder (a Maildir's ``cur/`` and ``new/``, a folder of .eml files)
are left out unopened: a named pipe, a socket or a device is no message file, and opening a
pipe for reading waits for a writer forever. Said as the notes walk says it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ._input import NotRegularFile
from .files._entries import _special

__all__ = ["in_box_folder", "left_out", "not_regular"]


_SHOWN_TARGET = 200


def left_out(path: Path | os.DirEntry[str]) -> str | None:
    """Return why a listed entry is left out unopened (a FIFO, a socket, a device, followed
    if a link; a link to nothing), or None: a regular file, a folder, or something that
    cannot be looked at (reading it says why) or that is gone."""
    try:
        mode = path.stat().st_mode  # a link is followed: a link to a FIFO is no message either
    except FileNotFoundError:
        return _dangling(os.fspath(path))
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return _special(mode)


def _dangling(path: str) -> str | None:
    """Say a link to nothing (its target gone, or never copied with it); None if ``path``
    is no link (it is gone itself)."""
    try:
        target = os.readlink(path)
    except (OSError, ValueError):
        return None
    if len(target) > _SHOWN_TARGET:
        target = target[:_SHOWN_TARGET] + "..."
    return f"a link to nothing (it points to {target}, which is not there), left out"


def in_box_folder(path: Path | os.DirEntry[str], box: str) -> str:
    """Say a folder found inside a Maildir's ``cur/`` or ``new/`` (``box``), not read."""
    try:
        with os.scandir(path) as entries:
            held = f" ({sum(1 for _ in entries)} entries in it)"
    except OSError:
        held = ""
    return (
        f"a folder inside {box}/, left out: a Maildir's cur/ and new/ hold message files "
        f"only (a Maildir++ folder is a .Name folder beside them), so nothing in it was "
        f"read{held}"
    )


def not_regular(exc: OSError) -> str | None:
    """Return why a listed message file is not read when opening it found no regular file
    (a FIFO put in its place since the listing: never waited on), as :func:`left_out` says
    it, or None for any other error."""
    return _special(exc.mode) if isinstance(exc, NotRegularFile) else None
