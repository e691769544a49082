"""Recognise what a path holds (mbox, mail folder, Slack export, JSON Lines, notes) and open it."""

from __future__ import annotations

import zipfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..limits import Limits
from ..records import Item

__all__ = ["detect_kind", "open_path"]

_JSONL = {".jsonl", ".ndjson", ".jsonlines"}
_MAIL = {".eml"}
_MBOX = {".mbox", ".mbx"}


def _looks_like_mbox(path: Path) -> bool:
    with path.open("rb") as f:
        head = f.read(5 + 3)
    return head.removeprefix(b"\xef\xbb\xbf").startswith(b"From ")


def _is_slack_folder(path: Path) -> bool:
    return (path / "users.json").is_file() or (path / "channels.json").is_file()


def _is_slack_zip(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return any(Path(n).name in ("users.json", "channels.json") for n in z.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def detect_kind(path: Path) -> str:
    """Return ``"jsonl"``, ``"mbox"``, ``"eml"``, ``"slack"`` or ``"files"`` for a path.

    Raises:
        SourceError: the path is missing or of no kind memtrails reads.
    """
    if not path.exists():
        raise SourceError(str(path), "no such file or folder")
    if path.is_dir():
        if _is_slack_folder(path):
            return "slack"
        if any(path.glob("*.eml")) and not any(path.glob("*.md")):
            return "eml"
        return "files"
    suffix = path.suffix.lower()
    if suffix in _JSONL:
        return "jsonl"
    if suffix in _MAIL:
        return "eml"
    if suffix == ".zip" and _is_slack_zip(path):
        return "slack"
    try:
        if suffix in _MBOX or _looks_like_mbox(path):
            return "mbox"
    except OSError as exc:
        raise SourceError(str(path), f"cannot read: {exc.strerror or exc}") from exc
    raise SourceError(
        str(path),
        "not a kind memtrails reads: expected .jsonl, an mbox file, .eml, a Slack export "
        "(folder or .zip), or a folder of notes",
    )


def open_path(
    path: Path,
    kind: str | None = None,
    *,
    state: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
) -> AsyncIterator[Item]:
    """Return the importer for ``path`` (its kind detected unless given).

    ``state`` is the position the importer reported at the end of the last run; importers
    that can resume use it to read only what is new. ``limits`` bounds what the JSON Lines
    reader holds (``max_line_bytes``, ``max_depth``).
    """
    kind = kind or detect_kind(path)
    if kind == "jsonl":
        from .jsonl import from_jsonl

        return from_jsonl(path, state=state, limits=limits)
    if kind == "mbox":
        from .mbox import from_mbox

        return from_mbox(path, state=state)
    if kind == "eml":
        from .eml import from_eml

        return from_eml(path)  # a folder of .eml is read in full: dedup keeps it cheap
    if kind == "slack":
        from .slack import from_slack_export

        return from_slack_export(path, state=state)
    if kind == "files":
        from .files import from_files

        return from_files(path, state=state)
    raise ValueError(f"unknown source kind {kind!r}")
