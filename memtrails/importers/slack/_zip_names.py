"""The names of a Slack export's zip members: as written, and whether they are safe."""

from __future__ import annotations

import contextlib
import re
import unicodedata
import zipfile

__all__ = ["member_name", "unsafe"]


def unsafe(name: str) -> bool:
    """Whether a member name leads outside the export: absolute, a drive, or ``..``."""
    posix = name.replace("\\", "/")
    return (
        posix.startswith("/")
        or re.match(r"[A-Za-z]:", posix) is not None
        or (".." in posix.split("/"))
    )


def member_name(info: zipfile.ZipInfo) -> str:
    """Return a zip member's name as it was written.

    A zip that does not flag its names as UTF-8 is read as code page 437 (the zip standard's
    default), but Info-ZIP's ``zip`` on Linux and macOS writes UTF-8 there unflagged: a
    channel named in Japanese would read as mojibake, its records with other ids than the
    unzipped folder's. A name whose bytes are valid UTF-8 is read so; one of true code page
    437 bytes (never valid UTF-8 past ASCII, in practice) stays as it is.
    """
    # Windows PowerShell's Compress-Archive (5.1) and .NET before 4.6.1 separate folders
    # with backslashes, which no Slack channel or file name holds: read as the zip standard's
    # "/", or every day file would sit in no channel folder and be left out unsaid.
    name = info.filename.replace("\\", "/")
    # "./general/2024-01-01.json" (a tool that zips "." by name) is general's day file: a
    # folder named "." would be taken for a hidden one, its messages left out unsaid.
    name = "/".join(part for part in name.split("/") if part != ".")
    if not (info.flag_bits & 0x800 or name.isascii()):
        with contextlib.suppress(UnicodeError):
            name = name.encode("cp437").decode("utf-8")
    # A zip made on macOS writes accents decomposed (NFD): "café" as the same channel, ids
    # and all, as the NFC a zip made elsewhere, or Slack's own, writes.
    return unicodedata.normalize("NFC", name)
