"""What a notes folder's entries are, and which of them may be read: never through a link,
never anything but a regular file, never a memory folder."""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .._shared import byte_exact

__all__ = [
    "MEMORY_FOLDER",
    "Listing",
    "NotRegularFile",
    "file_id",
    "is_memory_folder",
    "list_folder",
    "os_reason",
    "read_regular",
    "too_large",
]

_LINK = "a symbolic link, left out: links are not followed, so nothing outside the folder is read"
MEMORY_FOLDER = (
    "a memtrails memory folder, left out: a memory is never imported as notes "
    "(its log, index and manifest are memtrails' own files)"
)
_MANIFEST_BYTES = 1 << 20  # a memtrails manifest is a few hundred bytes
_SHOWN_TARGET = 200
# O_NONBLOCK: a FIFO put in a file's place between the check and the open must not block
# the walk (opening a FIFO for reading waits for a writer); O_NOFOLLOW: nor a link.
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A path expected to be a regular file is something else (a FIFO, a device, a link)."""


def _special(mode: int) -> str:
    """Say what a non-regular, non-folder entry is, and why it is left out."""
    if stat.S_ISFIFO(mode):
        what = "a named pipe (FIFO)"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        what = "a device"
    else:
        what = "not a regular file"
    return f"{what}, left out: only regular files are read"


def _link_reason(path: str) -> str:
    try:
        target = os.readlink(path)
    except OSError:
        return _LINK
    if len(target) > _SHOWN_TARGET:
        target = target[:_SHOWN_TARGET] + "..."
    return f"{_LINK} (it points to {target})"


@dataclass(slots=True)
class Listing:
    """A folder's entries, sorted by name: what may be walked or read, and what is left out.

    Hidden names (``.git``, ``.env``) are in none of the lists: they are never notes. Only
    ``.gitignore`` is named, in ``has_gitignore`` (it is read through :func:`read_regular`).
    """

    dirs: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # (name, why): links, FIFOs, sockets, devices; decided before any .gitignore rule
    special: list[tuple[str, str]] = field(default_factory=list)
    has_gitignore: bool = False


def list_folder(folder: Path) -> Listing:
    """List a folder without following links or opening anything.

    Raises:
        OSError: the folder cannot be listed (permission denied, gone, not a folder).
    """
    listing = Listing()
    with os.scandir(folder) as it:
        entries = sorted(it, key=lambda e: e.name)
    for entry in entries:
        if entry.name.startswith("."):
            listing.has_gitignore |= entry.name == ".gitignore"
            continue
        try:
            if entry.is_symlink():
                listing.special.append((entry.name, _link_reason(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                listing.dirs.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                listing.files.append(entry.name)
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
                listing.special.append((entry.name, _special(mode)))
        except OSError as exc:  # gone since the listing, or its type cannot be read
            listing.special.append((entry.name, f"cannot read ({os_reason(exc, entry.path)})"))
    return listing


def read_regular(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """Read at most ``limit`` bytes of a regular file, and return them with its ``fstat``.

    The file is opened without blocking and without following a link, then checked to be a
    regular file before a byte is read: a FIFO, a device or a link put there since the
    folder was listed is refused, never waited on.

    Raises:
        NotRegularFile: the path is not a regular file.
        OSError: it cannot be opened or read.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        if os.path.islink(path):
            raise NotRegularFile(_LINK) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(_special(st.st_mode))
        chunks: list[bytes] = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st
    finally:
        os.close(fd)


def too_large(size: int | None, limit: int) -> str:
    """Why a file is not read (in a folder, or given alone): its size in bytes (None: it
    grew past the limit while read), the limit (``Limits.max_file_bytes``), and how to
    raise it; both numbers written alike, with thousands separators."""
    given = f"over {limit:,} bytes" if size is None else f"{size:,} bytes"
    return (
        f"larger than Limits.max_file_bytes ({given}; the limit is {limit:,}: "
        "raise it with `memtrails add --max-file-bytes`)"
    )


def is_memory_folder(folder: Path) -> bool:
    """Tell whether a folder is a memtrails memory folder (it holds memtrails' manifest.json).

    The folder an import is writing always holds one (it is written when the folder is
    opened), so a ``--home`` inside the folder being imported is never read as notes.
    """
    try:
        data, _ = read_regular(folder / "manifest.json", _MANIFEST_BYTES)
        manifest = json.loads(data)
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and "format" in manifest and "embedding" in manifest


def file_id(rel: str) -> str:
    """Return the id of the file at ``rel`` (a relative path, ``/``-separated, as listed):
    itself where it is valid UTF-8, else its :func:`byte_exact` form, so that two names that
    differ only in a bad byte keep two ids (conformance/README, "File ids")."""
    return byte_exact(rel)


def _limit(name: str, default: int) -> int:
    try:
        return os.pathconf("/", name)
    except (OSError, ValueError):
        return default


def os_reason(exc: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """Say why ``path`` could not be read, without the path (the error names it already):
    the system's message, and for a path or a name longer than the system allows, its
    length and the limit (``PATH_MAX``, ``NAME_MAX``)."""
    if exc.errno == errno.ENAMETOOLONG and path is not None:
        raw = os.fsencode(path)
        longest = max((len(part) for part in raw.split(b"/")), default=0)
        name_max = _limit("PC_NAME_MAX", 255)
        if longest > name_max:
            return (
                f"a name in its path is {longest:,} bytes, over the file system's limit "
                f"of {name_max:,}"
            )
        path_max = _limit("PC_PATH_MAX", 4096)
        return f"its path is {len(raw):,} bytes, over the system's limit of {path_max:,}"
    return exc.strerror or str(exc) or type(exc).__name__
