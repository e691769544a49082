"""The members of a Slack export, read from a folder or straight out of its .zip file."""

from __future__ import annotations

import json
import os
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..._exceptions import SourceError
from .._shared import entry_may_be_file, may_be_file, too_long_number
from ._scan import DAY_NAMED, holds_days, is_dir, not_an_export
from ._zip_names import member_name, unsafe

__all__ = [
    "DAY_FILE",
    "DEFAULT_MAX_MEMBER_BYTES",
    "DEFAULT_MAX_RATIO",
    "METADATA_FILES",
    "NOT_A_DAY",
    "READ_ERRORS",
    "WORKSPACES",
    "Export",
    "MemberRefused",
    "not_json",
    "workspaces",
]

# A member is read whole (it is one JSON document), so its size bounds the memory an import
# takes; Slack's day files are kilobytes, a big workspace's users.json tens of megabytes.
DEFAULT_MAX_MEMBER_BYTES = 128 * 1024 * 1024
# Slack's JSON deflates 3-40 times (hundreds of identical bot posts about 220 times); a
# zip bomb about 1,000 times per layer. Members under _RATIO_GRACE are never refused for it,
# but the whole archive may inflate no more than max_ratio times its size (plus the grace).
DEFAULT_MAX_RATIO = 250
_RATIO_GRACE = 1024 * 1024
_ZIP_MAGIC = b"PK\x03\x04"
_CHUNK = 1 << 20  # bytes read at a time from a member read in pieces
_DESKTOP_FILES = frozenset({"thumbs.db", "desktop.ini"})

DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
# A day file under another name is read as one (DAY_NAMED). Any other JSON file in a
# channel's folder is named as not read (never dropped silently), but Slack's list of a
# channel's canvases.
_NOT_DAYS = frozenset({"canvases_in_conversation.json"})
NOT_A_DAY = "not a day file (named YYYY-MM-DD.json): not read"
METADATA_FILES = ("channels.json", "groups.json", "mpims.json", "dms.json")
# An Enterprise Grid org's export may hold each workspace as an export of its own, in
# teams/<workspace>/ (users.json, channels.json, channel folders): mattermost/mmetl's
# services/slack_grid/discover.go reads them so. Their channels go by "teams/<ws>/<name>".
WORKSPACES = "teams"
# A folder elsewhere that holds channel folders (a workspace's export put beside the org's,
# a folder of exports): its messages are not read, and said so, never dropped unsaid.
_NESTED = (
    "holds channel folders of its own (a workspace's export?): import it as an export of "
    f"its own, or move it into {WORKSPACES}/"
)
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


def not_json(exc: ValueError | RecursionError) -> str:
    """Say why a member's bytes are not read as JSON.

    ``json.loads`` raises a bare ``ValueError`` for an integer of more digits than Python
    converts, in words that tell the user to change the interpreter's limit: said plainly.
    """
    if isinstance(exc, RecursionError):  # Python's words name its interpreter, not the file
        return "is nested too deeply to read (arrays or objects inside each other); not read"
    if isinstance(exc, json.JSONDecodeError | UnicodeDecodeError):
        return f"is not valid JSON ({exc})"
    return f"{too_long_number()}; not read"


class MemberRefused(Exception):
    """A member is over a limit (inflated size, compression ratio) and is not read."""


def workspaces(export: Export) -> list[str]:
    """Return the prefixes of the export's workspaces: "" (its top), then each teams/<ws>/."""
    nested = {c.rsplit("/", 1)[0] for c in export.channels if c.count("/") == 2}
    return ["", *(f"{w}/" for w in sorted(nested))]


class Export:
    """The members of an export, read from a folder or a zip archive."""

    def __init__(self, path: Path, source: str, max_member_bytes: int, max_ratio: float) -> None:
        self.source = source
        self.max_member_bytes = max_member_bytes
        self.max_ratio = max_ratio
        self._inflated = 0  # bytes inflated out of the zip so far
        self._budget = 0.0  # the most the zip may inflate to in all
        self.unsafe: list[str] = []  # zip members whose names lead outside the export
        # Folders (and entries) of an export folder that could not be listed: (name, why).
        self.unlisted: list[tuple[str, str]] = []
        # JSON files in channel folders that are no day files: named, not read.
        self.not_days: list[str] = []
        # Day files outside any channel folder (beside channels.json): named, not read.
        self.outside: list[str] = []
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        # The zip's members by name (as read: see member_name), each name with every member
        # of it; several share a name where a zip tool appended a file again. zipfile's own
        # lookup finds only the last, so those are read by their directory entries.
        self._members: dict[str, list[zipfile.ZipInfo]] = {}
        # A folder's channel folders by their names in NFC, where its disk holds them in
        # another form (NFD, as macOS writes accents): its channels go by the NFC ones.
        self._on_disk: dict[str, str] = {}
        self._twins: dict[str, list[zipfile.ZipInfo]] = {}
        self._folders: dict[str, Path] = {}  # each folder's path, made once
        if path.is_dir():
            self._root: Path | None = path
            try:
                self._channels = self._scan_folder(path)
            except OSError as exc:
                raise SourceError(source, f"cannot read the folder ({exc})") from exc
        elif path.is_file():
            self._root = None
            self._zip = self._open_zip(path, source)
            self._budget = max_ratio * path.stat().st_size + _RATIO_GRACE
            try:
                self._channels = self._scan_zip(self._zip)
            except BaseException:
                self._zip.close()
                raise
        elif path.exists():
            raise SourceError(source, "not a folder or a .zip file")
        else:
            raise SourceError(source, "no such file or folder")
        has_metadata = any(
            self.has(name) for name in ("users.json", "org_users.json", *METADATA_FILES)
        )
        if not self._channels and not has_metadata:
            self.close()
            raise SourceError(source, not_an_export(self.outside))

    @classmethod
    def open(
        cls, path: Path, source: str | None, max_member_bytes: int, max_ratio: float
    ) -> Export:
        path = path.expanduser()
        name = source if source is not None else str(path.resolve())
        return cls(path, name, max_member_bytes, max_ratio)

    @staticmethod
    def _open_zip(path: Path, source: str) -> zipfile.ZipFile:
        try:
            return zipfile.ZipFile(path)
        except OSError as exc:
            raise SourceError(source, f"cannot read the file ({exc})") from exc
        except (zipfile.BadZipFile, ValueError, EOFError) as exc:
            try:
                with path.open("rb") as f:
                    is_zip = f.read(len(_ZIP_MAGIC)) == _ZIP_MAGIC
            except OSError:
                is_zip = False
            if not is_zip:
                raise SourceError(source, f"not a folder or a readable .zip file ({exc})") from exc
            # The zip's directory of members is at its end: a download cut short loses it.
            raise SourceError(
                source,
                f"damaged or incomplete .zip file: its list of members cannot be read ({exc}); "
                "download the export again, or unzip what can be recovered and import the folder",
            ) from exc

    def _scan_folder(self, root: Path) -> dict[str, list[str]]:
        """List the channel folders and their day files; what cannot be listed goes to
        ``unlisted``, a day file that cannot be looked at is listed (reading it says why)."""
        channels: dict[str, list[str]] = {}
        folders: list[str] = []
        with os.scandir(root) as entries:
            for e in entries:
                if e.name.startswith("."):
                    continue
                try:
                    if e.is_dir():
                        folders.append(e.name)
                    elif DAY_NAMED.match(e.name):
                        self.outside.append(e.name)
                except OSError as exc:
                    if not e.name.endswith(".json"):  # a name file: reading it says why
                        self.unlisted.append((e.name, f"cannot read ({exc.strerror or exc})"))
        if WORKSPACES in folders:
            try:
                with os.scandir(root / WORKSPACES) as entries:
                    nested = [f"{WORKSPACES}/{e.name}" for e in entries if is_dir(e)]
            except OSError as exc:
                why = exc.strerror or exc
                self.unlisted.append((WORKSPACES, f"cannot list the folder ({why})"))
                nested = []
            for workspace in nested:
                try:
                    with os.scandir(root / workspace) as entries:
                        for e in entries:
                            if is_dir(e):
                                folders.append(f"{workspace}/{e.name}")
                            elif DAY_NAMED.match(e.name):
                                self.outside.append(f"{workspace}/{e.name}")
                except OSError as exc:
                    why = exc.strerror or exc
                    self.unlisted.append((workspace, f"cannot list the workspace folder ({why})"))
        for name in sorted(folders):
            if name.startswith(".") or "/." in name:
                continue
            disk, name = name, unicodedata.normalize("NFC", name)
            if name != disk and name not in folders:
                self._on_disk[name] = disk
            else:
                name = disk  # both forms there: each its own channel, as named
            try:
                days, others = self._day_files(root / disk)
            except OSError as exc:
                why = exc.strerror or exc
                self.unlisted.append((name, f"cannot list the channel folder ({why})"))
                continue
            if not days and name != WORKSPACES and "/" not in name and holds_days(root / disk):
                self.unlisted.append((name, _NESTED))  # its name files are no day files
                continue
            self.not_days += [f"{name}/{other}" for other in others]
            if days:
                channels[name] = days
        return channels

    @staticmethod
    def _day_files(folder: Path) -> tuple[list[str], list[str]]:
        """Return a channel folder's day files, and its other JSON files."""
        days: list[str] = []
        others: list[str] = []
        with os.scandir(folder) as entries:
            for e in entries:
                # A symlink loop, no permission: kept, so that its error is named.
                if not entry_may_be_file(e) or e.name.startswith("."):
                    continue
                if DAY_NAMED.match(e.name):
                    days.append(e.name)
                elif e.name.lower().endswith(".json") and e.name.lower() not in _NOT_DAYS:
                    others.append(e.name)
        return sorted(days), sorted(others)

    def _scan_zip(self, archive: zipfile.ZipFile) -> dict[str, list[str]]:
        names: list[str] = []
        seen: dict[str, list[zipfile.ZipInfo]] = {}
        for info in archive.infolist():
            name = member_name(info)
            if info.is_dir() or name.startswith("__MACOSX/"):  # Finder's extras
                continue
            if unsafe(name):
                self.unsafe.append(info.filename)  # named as the zip writes it
                continue
            if name not in seen:
                names.append(name)
            seen.setdefault(name, []).append(info)
        self._members = seen
        self._twins = {name: infos for name, infos in seen.items() if len(infos) > 1}
        # Exports zipped from their parent folder put everything under one top-level folder
        # (unless that folder is a channel: its members are day files).
        # Files a desktop leaves beside it (.DS_Store, Thumbs.db) do not count.
        kept = [n for n in names if not (n.startswith(".") or n.lower() in _DESKTOP_FILES)]
        tops = {name.split("/", 1)[0] for name in kept}
        if len(tops) == 1 and all("/" in name for name in kept):
            top = tops.pop()
            if top != WORKSPACES and not any(
                DAY_FILE.match(name[len(top) + 1 :]) for name in names
            ):
                self._prefix = top + "/"
        channels: dict[str, list[str]] = {}
        holders: set[str] = set()  # folders holding channel folders, outside teams/
        for name in names:
            if not name.startswith(self._prefix):
                continue
            parts = name[len(self._prefix) :].split("/")
            nested = len(parts) == 4 and parts[0] == WORKSPACES
            if nested:
                parts = [f"{WORKSPACES}/{parts[1]}/{parts[2]}", parts[3]]
            elif len(parts) == 3 and parts[0] != WORKSPACES and DAY_NAMED.match(parts[2]):
                holders.add(parts[0])
            if DAY_NAMED.match(parts[-1]) and (
                len(parts) == 1 or (len(parts) == 3 and parts[0] == WORKSPACES)
            ):
                self.outside.append("/".join(parts))
            if len(parts) != 2 or parts[0].startswith(".") or "/." in parts[0]:
                continue
            if DAY_NAMED.match(parts[1]):
                channels.setdefault(parts[0], []).append(parts[1])
            elif (
                parts[1].lower().endswith(".json")
                and parts[1].lower() not in _NOT_DAYS
                and not parts[1].startswith(".")
            ):
                self.not_days.append("/".join(parts))
        holders = {h for h in holders if h not in channels and not h.startswith(".")}
        self.unlisted += [(holder, _NESTED) for holder in sorted(holders)]
        self.not_days = [n for n in self.not_days if n.split("/", 1)[0] not in holders]
        return {name: sorted(channels[name]) for name in sorted(channels)}

    @property
    def channels(self) -> dict[str, list[str]]:
        return self._channels

    def _path(self, member: str) -> Path:
        """Return where a member of an export folder is on its disk."""
        assert self._root is not None
        folder, _, name = member.rpartition("/")
        path = self._folders.get(folder)
        if path is None:
            path = self._folders[folder] = self._root / self._on_disk.get(folder, folder)
        return path / name

    def has(self, member: str) -> bool:
        if self._zip is not None:
            return self._prefix + member in self._members
        return may_be_file(self._path(member))  # one that cannot be looked at: reading says why

    def copies(self, member: str) -> list[tuple[str, str | zipfile.ZipInfo]]:
        """Return each member of this name, to :meth:`read`, with the name its errors give.

        One, but in a zip that holds several of that name (a zip tool appends a file again
        rather than replacing it): each of them, in the archive's order, so that none is lost
        and none is read twice.
        """
        twins = self._twins.get(self._prefix + member)
        if not twins:
            return [(member, member)]
        n = len(twins)
        return [(f"{member} (copy {k} of {n} in the zip)", info) for k, info in enumerate(twins, 1)]

    def stamp(self, member: str) -> str:
        """Return what changes when a member's content does, without reading it.

        In a zip, its size and CRC-32 (from the archive's directory; of each member of
        that name); in a folder, its size and mtime.
        """
        if self._zip is not None:
            infos = self._members[self._prefix + member]
            return "|".join(f"{info.file_size}:{info.CRC:08x}" for info in infos)
        try:
            st = self._path(member).stat()
        except OSError as exc:  # it cannot be read either: reading it says why
            return f"unreadable:{exc.errno}"
        return f"{st.st_size}:{st.st_mtime_ns}"

    def size(self, member: str | zipfile.ZipInfo) -> int | None:
        """Return a member's size as its zip directory or the file system says (None when
        that cannot be looked at: reading it says why)."""
        if isinstance(member, zipfile.ZipInfo):
            return member.file_size
        if self._zip is not None:
            return self._members[self._prefix + member][-1].file_size
        try:
            return self._path(member).stat().st_size
        except OSError:
            return None

    def chunks(self, member: str | zipfile.ZipInfo, *, again: bool = False) -> Iterator[bytes]:
        """Yield a member's bytes a piece at a time, with the checks :meth:`read` makes.

        ``again``: the member was read before this run, its inflated bytes already counted
        against the archive's ``max_ratio`` budget; not counted twice.
        """
        limit = self.max_member_bytes
        got = 0
        with self._open(member, again) as f:
            while piece := f.read(_CHUNK):
                got += len(piece)
                if got > limit:  # bigger than its directory entry or stat said
                    raise MemberRefused(
                        f"more than {limit} bytes, the limit (Limits.max_file_bytes): not read"
                    )
                yield piece

    def _open(self, member: str | zipfile.ZipInfo, again: bool) -> IO[bytes]:
        if self._zip is None:
            assert self._root is not None and isinstance(member, str)
            f = self._path(member).open("rb")
            try:
                self._check(os.fstat(f.fileno()).st_size)
            except BaseException:
                f.close()
                raise
            return f
        info = self._info(member)
        if not again:
            self._refuse(info)
            self._inflated += info.file_size
        return self._zip.open(info)

    def refuse(self, member: str | zipfile.ZipInfo, size: int | None = None) -> None:
        """Raise MemberRefused if reading a member would be refused, reading nothing and
        counting nothing against the archive's budget (a look before :meth:`read`);
        ``size``: the one :meth:`size` gave, where known."""
        if self._zip is None:
            size = self.size(member) if size is None else size
            if size is not None:
                self._check(size)
            return
        info = self._info(member)
        self._refuse(info)

    def _info(self, member: str | zipfile.ZipInfo) -> zipfile.ZipInfo:
        """Return a zip member's entry (the last of its name, unless given one)."""
        if isinstance(member, zipfile.ZipInfo):
            return member
        return self._members[self._prefix + member][-1]

    def charge(self, member: str | zipfile.ZipInfo, got: int) -> None:
        """Count a member's bytes, read already with ``again``, as :meth:`read` counts them.

        Raises:
            MemberRefused: as :meth:`read` does, for those bytes.
        """
        self._check(got)
        if self._zip is not None:
            info = self._info(member)
            self._refuse(info)
            self._inflated += got

    def _refuse(self, info: zipfile.ZipInfo) -> None:
        """Raise MemberRefused if a zip member is over a limit; nothing of it inflated."""
        self._check(info.file_size)
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > _RATIO_GRACE and ratio > self.max_ratio:
            raise MemberRefused(
                f"inflates {ratio:.0f} times ({info.compress_size} bytes to "
                f"{info.file_size}), over the limit of {self.max_ratio:g} (max_ratio): "
                "not read (a zip bomb looks like this)"
            )
        if self._inflated + info.file_size > self._budget:
            raise MemberRefused(
                f"{info.file_size} bytes more would take the archive past "
                f"{self.max_ratio:g} times its size inflated (max_ratio): not read "
                "(a zip bomb of many small members looks like this)"
            )

    def read(self, member: str | zipfile.ZipInfo) -> bytes:
        """Return a member's bytes (one of several of a name: by what :meth:`copies` gave).

        Raises:
            MemberRefused: it is larger than ``max_member_bytes`` inflated, or (in a zip)
                inflates more than ``max_ratio`` times, or would take the whole archive
                past ``max_ratio`` times its size; nothing of it is inflated.
        """
        limit = self.max_member_bytes
        if self._zip is not None:
            info = self._info(member)
            self._refuse(info)
            with self._zip.open(info) as f:
                # Never more than the directory says: inflating stops there (and the CRC
                # check then fails) however much the member would really inflate to.
                data = f.read(info.file_size + 1)
            self._inflated += len(data)
        else:
            assert self._root is not None and isinstance(member, str)
            with self._path(member).open("rb") as f:
                size = os.fstat(f.fileno()).st_size
                self._check(size)
                # As much as stat says (read(n) takes n bytes of memory at once), then
                # whatever it has grown by, up to the limit.
                data = f.read(size + 1)
                if len(data) > size:
                    data += f.read(limit + 1 - len(data))
        if len(data) > limit:  # bigger than its directory entry or stat said
            raise MemberRefused(
                f"more than {limit} bytes, the limit (Limits.max_file_bytes): not read"
            )
        return data

    def _check(self, size: int) -> None:
        if size > self.max_member_bytes:
            raise MemberRefused(
                f"{size} bytes, over the limit of {self.max_member_bytes} "
                "(Limits.max_file_bytes): not read"
            )

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
