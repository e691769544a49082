"""Paths a request names (a watch, an import): checked before anything opens them."""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

__all__ = ["PathRefused", "fs_type", "looked_up", "named_path", "pseudo_fs", "refused_text"]

# The kernel's own file systems: their files are views of its state, no documents. Some
# never end (/proc/kcore, /dev/zero), some wait for ever when read (/proc/kmsg, a trace
# pipe), and a walk of /proc follows every process's open files.
_PSEUDO = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "debugfs",
        "tracefs",
        "securityfs",
        "cgroup",
        "cgroup2",
        "pstore",
        "bpf",
        "configfs",
        "efivarfs",
        "fusectl",
        "mqueue",
        "hugetlbfs",
        "binfmt_misc",
        "selinuxfs",
        "rpc_pipefs",
        "nsfs",
    }
)
# Mounted there they are the kernel's whatever their type says (/dev is a tmpfs in a
# container); /dev/shm, a mount of its own, is not.
_PSEUDO_ROOTS = ("/proc", "/sys", "/dev")
_OCTAL = re.compile(r"\\([0-7]{3})")


class PathRefused(ValueError):
    """A path a request names that cannot be watched or imported; ``status`` is the HTTP
    answer (400 a path no file can have or one the kernel makes, 403 a path the service
    may not look at, 404 nothing there)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def refused_text(given: str, what: str = "`path`") -> str | None:
    """Return why the string ``given`` can be no path on this machine, or None (``what``:
    how the message names it).

    A NUL byte ends a C string (the OS would see a shorter path, Python refuses it), and a
    lone surrogate (``\\ud800``) is no character, so no file name is made of it.
    """
    if "\x00" in given:
        return (
            f"{what} holds a NUL byte (\\x00) at character {given.index(chr(0)) + 1}: "
            "no file name can hold one"
        )
    try:
        os.fsencode(given)
    except UnicodeEncodeError as exc:
        bad = given[exc.start]
        return (
            f"{what} holds U+{ord(bad):04X} at character {exc.start + 1}, a lone "
            "surrogate, not a character any file name is made of: send the path as UTF-8"
        )
    try:
        given.encode("utf-8")
    except UnicodeEncodeError as exc:
        # \udc80..\udcff: bytes that are not UTF-8, escaped. The path would exist, but every
        # answer naming it (a job, the watched list) could not be written as JSON.
        return (
            f"{what} is not UTF-8 (byte 0x{ord(given[exc.start]) - 0xDC00:02X} at "
            f"character {exc.start + 1}): memtrails names sources by their UTF-8 path; "
            "rename the file or folder"
        )
    return None


def named_path(given: str, field: str = "path") -> Path:
    """Return the absolute path a request names (``~`` expanded; not resolved).

    Raises:
        PathRefused: a NUL byte or a lone surrogate in it, ``~user`` for no user, or a
            relative path (relative to what: the service's working folder is no one's).
    """
    why = refused_text(given, f"`{field}`")
    if why is not None:
        raise PathRefused(why)
    path = Path(given)
    if given.startswith("~"):
        try:
            path = path.expanduser()
        except RuntimeError:
            user = given[1:].split("/", 1)[0]
            raise PathRefused(
                f"`{field}` {given!r}: "
                + (f"no user {user!r} here" if user else "no home")
                + " to expand ~ to on the service's machine; give an absolute path"
            ) from None
    if not path.is_absolute():
        raise PathRefused(
            f"`{field}` {given!r} must be absolute (a path on the service's own machine)"
        )
    return path


def looked_up(path: Path) -> tuple[Path, int]:
    """Return ``path`` resolved (symbolic links, ``..``) and the mode of what is there
    (blocking: a ``stat`` and the mount table).

    Raises:
        PathRefused: nothing there (404), the service may not look (403), a name too long,
            a loop of symbolic links, or a path on a pseudo file system (400).
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise PathRefused(f"{path}: no such file or folder", 404) from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise PathRefused(
                f"{path}: permission denied; the service (user id {os.getuid()}) cannot look there",
                403,
            ) from None
        why = "a loop of symbolic links" if exc.errno == errno.ELOOP else exc.strerror
        raise PathRefused(f"{path}: {why}") from None
    resolved = Path(os.path.realpath(path))
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):  # a pipe or a device: the caller says so
        why = pseudo_fs(resolved, folder=stat.S_ISDIR(mode))
        if why is not None:
            raise PathRefused(why)
    return resolved, mode


def _mounts() -> list[tuple[str, str]] | None:
    """Return each mount point with its file system type (Linux), or None."""
    try:
        lines = Path("/proc/self/mounts").read_text(errors="replace").splitlines()
    except OSError:
        return None
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 3:  # a space in a mount point is written \040
            out.append((_OCTAL.sub(lambda m: chr(int(m[1], 8)), parts[1]), parts[2]))
    return out


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def fs_type(path: Path) -> str | None:
    """Return the file system type of the mount holding ``path`` (Linux), or None."""
    best, kind = "", None
    for point, fs in _mounts() or []:
        if len(point) >= len(best) and _under(str(path), point):
            best, kind = point, fs
    return kind


def pseudo_fs(path: Path, folder: bool = True) -> str | None:
    """Return why ``path`` (resolved) is, or holds, a file system of the kernel, or None.

    ``folder``: ``path`` is a folder, whose walk would enter the mounts below it.
    """
    target = str(path)
    mounts = _mounts()
    if mounts is None:  # no mount table (not Linux): by name
        mounts = [(root, root[1:]) for root in _PSEUDO_ROOTS if os.path.isdir(root)]
    best, kind = "", ""
    for point, fs in mounts:
        if len(point) >= len(best) and _under(target, point):
            best, kind = point, fs
    if kind in _PSEUDO or best in _PSEUDO_ROOTS:
        return (
            f"{target} is on {best} ({kind}), a file system the kernel makes up: its files "
            "are no documents, and some never end or wait for ever when read; watch or "
            "import the files and folders your records are in"
        )
    if folder:
        for point, fs in mounts:
            kernel = fs in _PSEUDO or point in _PSEUDO_ROOTS
            if kernel and point != target and _under(point, target):
                return (
                    f"{target} holds {point} ({fs}), a file system the kernel makes up, "
                    "whose files never end or wait for ever when read; watch or import "
                    "the folders under it that hold your records"
                )
    return None
