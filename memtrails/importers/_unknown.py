"""Say what a file of no kind holds instead (from its first, decompressed, bytes), and why a
path given is not there.

Detection names a kind or fails; the failure is only useful when it says what was found
and what to do: give ``--kind``, or unpack a format memtrails does not read first.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .files._text import decode

__all__ = ["PACKED_SUFFIXES", "missing_reason", "unknown_content"]

#: Endings of compressed files and archives that a notes walk would call binary: a folder
#: says what each holds instead, and what to do (unpack it).
PACKED_SUFFIXES = frozenset(
    {".zst", ".zstd", ".lz4", ".lz", ".lzo", ".z", ".tgz", ".tbz", ".tbz2", ".txz", ".7z", ".rar"}
    | {".zip", ".tar"}
)

# Compressed formats memtrails does not unpack (gzip, bzip2 and xz it does), by their
# first bytes, with the command that unpacks one to standard output.
_PACKED = (
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd -dc"),
    (b"\x04\x22\x4d\x18", "lz4", "lz4 -dc"),
    (b"LZIP", "lzip", "lzip -dc"),
    (b"\x89LZO\x00\r\n\x1a\n", "lzop", "lzop -dc"),
    (b"\x1f\x9d", "compress (.Z)", "gzip -dc"),
)
# Archives hold many files: unpacked, they are a folder that ``add`` reads file by file.
_ARCHIVES = (
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
    (b"Rar!\x1a\x07", "rar"),
)
_READ = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def _binary(head: bytes) -> bool:
    """Tell binary data from text as a notes folder does (a few random bytes, a key, are
    binary though no control byte is in them); a head cut inside a character is text."""
    sample = head[:4096]
    if b"\x00" not in sample:
        control = len(sample) - len(sample.translate(None, _CONTROL))
        if control * 10 > len(sample):
            return True
    return decode(sample) is None and decode(sample[: len(sample) - 3]) is None


def unknown_content(head: bytes, compression: str | None, name: str) -> tuple[str, bool]:
    """Return what bytes of no kind hold, as a clause, and whether ``--kind`` may read them.

    Args:
        head: the first bytes of the content (decompressed when ``compression`` is given).
        compression: the format memtrails unpacked (``gzip``, ``bzip2``, ``xz``), or None.
        name: the file's name, for the command that unpacks it.
    """
    packed = f"{compression}-compressed " if compression else ""
    if not head:
        return (
            f"it is {compression}-compressed and holds nothing" if compression else "it is empty"
        ), False
    for magic, fmt, command in _PACKED:
        if head.startswith(magic):
            inside = f" inside {compression}" if compression else ""
            return (
                f"it is {fmt}-compressed{inside}, which memtrails does not unpack (gzip, "
                f"bzip2 and xz it does): unpack it first, e.g. "
                f"`{command} {name} | memtrails add - --name NAME`"
            ), False
    for magic, fmt in _READ:
        if compression and head.startswith(magic):
            return (
                f"it is compressed twice ({fmt} inside {compression}): unpack the outer "
                "layer and add what it gives"
            ), False
    for magic, fmt in _ARCHIVES:
        if head.startswith(magic):
            return f"it is a {packed}{fmt} archive of files: unpack it and add the folder", False
    if len(head) > 262 and head[257:262] == b"ustar":
        return f"it is a {packed}tar archive of files: unpack it and add the folder", False
    if _binary(head):
        return f"it holds {packed}binary data", True
    return (
        f"it holds {packed}text that starts as neither JSON Lines (`{{` first), an mbox (a "
        "`From ` line first) nor a mail message (a header block first)"
    ), True


def missing_reason(path: Path) -> str:
    """Say why a path that does not exist is not there: missing, or a link that leads nowhere."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops (it leads back to itself): nothing to read"
        if exc.errno not in (errno.ENOENT, errno.ENOTDIR) and exc.strerror:
            return f"cannot read: {exc.strerror}"
    if path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symbolic link to {target}, which does not exist"
    return "no such file or folder"
