"""The members of a Slack export, read from a folder or straight out of its .zip file."""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from pathlib import Path

from ..._exceptions import SourceError

__all__ = ["DAY_FILE", "METADATA_FILES", "READ_ERRORS", "Export"]

DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
METADATA_FILES = ("channels.json", "groups.json", "mpims.json", "dms.json")
# What reading one member can raise: bad JSON or UTF-8 (ValueError), a damaged zip member
# (BadZipFile on a CRC mismatch, zlib.error, EOFError), an encrypted or oddly compressed one.
READ_ERRORS = (
    ValueError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    RuntimeError,
    NotImplementedError,
)


class Export:
    """The members of an export, read from a folder or a zip archive."""

    def __init__(self, path: Path, source: str) -> None:
        self.source = source
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        if path.is_dir():
            self._root: Path | None = path
            try:
                self._channels = self._scan_folder(path)
            except OSError as exc:
                raise SourceError(source, f"cannot read the folder ({exc})") from exc
        elif path.is_file():
            self._root = None
            try:
                self._zip = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise SourceError(source, f"not a folder or a readable .zip file ({exc})") from exc
            try:
                self._channels = self._scan_zip(self._zip)
            except BaseException:
                self._zip.close()
                raise
        elif path.exists():
            raise SourceError(source, "not a folder or a .zip file")
        else:
            raise SourceError(source, "no such file or folder")
        has_metadata = any(self.has(name) for name in ("users.json", *METADATA_FILES))
        if not self._channels and not has_metadata:
            self.close()
            raise SourceError(
                source,
                "not a Slack export: no users.json, no channels.json and no channel folders "
                "of YYYY-MM-DD.json day files",
            )

    @classmethod
    def open(cls, path: Path, source: str | None) -> Export:
        path = path.expanduser()
        return cls(path, source if source is not None else str(path.resolve()))

    @staticmethod
    def _scan_folder(root: Path) -> dict[str, list[str]]:
        channels: dict[str, list[str]] = {}
        with os.scandir(root) as entries:
            folders = sorted(e.name for e in entries if e.is_dir() and not e.name.startswith("."))
        for name in folders:
            with os.scandir(root / name) as entries:
                days = sorted(e.name for e in entries if DAY_FILE.match(e.name) and e.is_file())
            if days:
                channels[name] = days
        return channels

    def _scan_zip(self, archive: zipfile.ZipFile) -> dict[str, list[str]]:
        names = [
            info.filename
            for info in archive.infolist()
            if not info.is_dir() and not info.filename.startswith("__MACOSX/")  # Finder's extras
        ]
        # Exports zipped from their parent folder put everything under one top-level folder
        # (unless that folder is a channel: its members are day files).
        tops = {name.split("/", 1)[0] for name in names}
        if len(tops) == 1 and all("/" in name for name in names):
            top = tops.pop()
            if not any(DAY_FILE.match(name[len(top) + 1 :]) for name in names):
                self._prefix = top + "/"
        channels: dict[str, list[str]] = {}
        for name in names:
            if not name.startswith(self._prefix):
                continue
            parts = name[len(self._prefix) :].split("/")
            if len(parts) == 2 and DAY_FILE.match(parts[1]) and not parts[0].startswith("."):
                channels.setdefault(parts[0], []).append(parts[1])
        return {name: sorted(channels[name]) for name in sorted(channels)}

    @property
    def channels(self) -> dict[str, list[str]]:
        return self._channels

    def has(self, member: str) -> bool:
        if self._zip is not None:
            try:
                self._zip.getinfo(self._prefix + member)
            except KeyError:
                return False
            return True
        assert self._root is not None
        return (self._root / member).is_file()

    def stamp(self, member: str) -> str:
        """Return what changes when a member's content does, without reading it.

        In a zip, its size and CRC-32 (from the archive's directory); in a folder, its size
        and mtime.
        """
        if self._zip is not None:
            info = self._zip.getinfo(self._prefix + member)
            return f"{info.file_size}:{info.CRC:08x}"
        assert self._root is not None
        st = (self._root / member).stat()
        return f"{st.st_size}:{st.st_mtime_ns}"

    def read(self, member: str) -> bytes:
        if self._zip is not None:
            return self._zip.read(self._prefix + member)
        assert self._root is not None
        return (self._root / member).read_bytes()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
