"""Owner-only modes for a memory folder: 0700 folders, 0600 files, whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["DIR_MODE", "FILE_MODE", "tighten"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def tighten(folder: Path) -> list[str]:
    """Take group and other permissions off ``folder`` and everything in it (blocking).

    The index library creates its files with the process umask; this brings them back to
    owner-only. Symbolic links are neither followed nor changed.

    Returns:
        ``"<relative path> (was 0755)"`` for each entry whose mode was wider.
    """
    widened: list[str] = []
    _tighten_one(folder, folder, widened)
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            _tighten_one(folder, Path(root) / name, widened)
    return widened


def _tighten_one(top: Path, path: Path, widened: list[str]) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return  # removed by the index while we walked
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid():
        return
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        os.chmod(path, mode & 0o700)
        widened.append(f"{path.relative_to(top).as_posix() or '.'} (was {mode:04o})")
