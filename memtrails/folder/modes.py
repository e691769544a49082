"""Owner-only modes for a memory folder: 0700 folders, 0600 files, whatever the umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["DIR_MODE", "FILE_MODE", "tighten", "tighten_on_open"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def tighten_on_open(folder: Path) -> list[str]:
    """Tighten a folder being opened: everything in it if the folder itself was wider.

    A folder of mode 0700 lets no one else reach anything inside it, whatever the modes
    there; what memtrails writes itself is created owner-only, and the index's files are
    tightened when the index is closed. So an owner-only folder costs one ``scandir`` of its
    top level, where walking a folder of a million records meant an ``lstat`` for each of
    its ~13,000 index files.

    Returns:
        ``"<relative path> (was 0755)"`` for each entry whose mode was wider.
    """
    try:
        st = os.lstat(folder)
    except FileNotFoundError:
        return []
    if st.st_uid == os.geteuid() and not stat.S_IMODE(st.st_mode) & 0o077:
        return tighten(folder, deep=False)
    return tighten(folder)


def tighten(folder: Path, *, deep: bool = True) -> list[str]:
    """Take group and other permissions off ``folder`` and everything in it (blocking).

    The index library creates its files with the process umask; this brings them back to
    owner-only. Symbolic links are neither followed nor changed.

    Args:
        folder: the folder.
        deep: also everything below its top level.

    Returns:
        ``"<relative path> (was 0755)"`` for each entry whose mode was wider.
    """
    widened: list[str] = []
    uid = os.geteuid()
    top = os.fspath(folder)
    try:
        st = os.lstat(top)
    except FileNotFoundError:
        return widened
    _tighten_one(top, ".", st, uid, widened)
    # A folder of a million records holds thousands of index files, walked on every open
    # and close: scandir's entries and plain strings, one lstat each and nothing more.
    pending = [(top, "")]
    while pending:
        path, rel = pending.pop()
        try:
            entries = list(os.scandir(path))
        except (FileNotFoundError, NotADirectoryError):
            continue  # removed by the index while we walked
        for entry in entries:
            name = f"{rel}{entry.name}"
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            _tighten_one(entry.path, name, st, uid, widened)
            if deep and stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
                pending.append((entry.path, f"{name}/"))
    return widened


def _tighten_one(path: str, name: str, st: os.stat_result, uid: int, widened: list[str]) -> None:
    if stat.S_ISLNK(st.st_mode) or st.st_uid != uid:
        return
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o077:
        try:
            os.chmod(path, mode & 0o700)
        except FileNotFoundError:
            return
        widened.append(f"{name} (was {mode:04o})")
