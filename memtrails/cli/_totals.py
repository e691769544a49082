"""How many records an import will read, counted cheaply beforehand, for the progress bar.

An mbox's messages (lines starting ``From ``; lines end at CR where the file's end in CR
alone) and a JSON Lines file's lines are counted in 1 MiB chunks from where the last run
stopped (about a second per GB); a Git history by
``git rev-list --count``; a folder of ``.eml``, a Maildir and a notes folder by their files
(each yields one item a run, read or not: an unchanged file is seen, not read); a Slack
export by a JSON parse of each day file the run will read (a few percent of an import's
time with no model, well under 0.1% with the packaged one), plus the records of those it
will skip, which the import counts unchanged without reading them. Compressed files and pipes are not counted: their
bar estimates from the bytes read, or counts.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from ..importers.detect import Part
from ..importers.mbox_lines import cr_only
from ..limits import Limits

__all__ = ["commit_total", "part_count", "part_total", "record_total"]

_CHUNK = 1 << 20
_MAX_SCAN = 8 << 30  # bytes: past this, a count costs more than it is worth
_COMPRESSED = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ")
_HEAD = 64 * 1024  # the first bytes that tell an mbox's line ends, as its importer reads them
_MAX_FILES = 500_000  # past this many files a notes folder is not counted


def part_total(
    part: Part, state: dict[str, Any] | None, limits: Limits | None = None
) -> int | None:
    """Return how many items one planned import will yield, where that is cheap to know
    (``limits``: the import's, which decide what a Slack export's count reads)."""
    counted = part_count(part, state, limits)
    return None if counted is None else counted[0]


def part_count(
    part: Part, state: dict[str, Any] | None, limits: Limits | None = None
) -> tuple[int, int] | None:
    """Return :func:`part_total` and how many of those items the import counts only at its
    end, unread (the records of a Slack export's skipped day files), or None."""
    if part.kind == "slack" and isinstance(part.target, Path):
        from ..importers.slack import message_count

        try:
            # A day file over the import's --max-file-bytes is one error there, not its
            # messages.
            return message_count(part.target, state, limits=limits)
        except (OSError, SourceError):  # the import itself says what is wrong with it
            return None
    total = _total(part, state)
    return None if total is None else (total, 0)


def _total(part: Part, state: dict[str, Any] | None) -> int | None:
    target = part.target
    if not isinstance(target, Path) or part.kind not in ("eml", "maildir", "files"):
        return record_total(part.kind, target, state)
    from ..importers.eml import eml_count
    from ..importers.maildir import message_count

    found: int | None
    try:
        if part.kind == "eml":
            found = len(part.names) if part.names is not None else eml_count(target)
        elif part.kind == "maildir":
            found = message_count(target)
        else:
            found = _files(target, part.claimed)
    except (OSError, SourceError):  # the import itself says what is wrong with it
        return None
    return None if found is None else found + len(part.skipped)


def _files(root: Path, claimed: frozenset[str]) -> int | None:
    """Count the files a notes walk reads, less those another part of the folder claims."""
    from ..importers.files._ignore import kept_tree

    if root.is_file():
        return 1
    found = 0
    for _, rel, _dirs, files in kept_tree(root):
        prefix = f"{rel}/" if rel else ""
        found += sum(not _claimed(prefix + name, claimed) for name in files)
        if found > _MAX_FILES:
            return None
    return found


def _claimed(rel: str, claimed: frozenset[str]) -> bool:
    return rel in claimed or any(c.endswith("/") and rel.startswith(c) for c in claimed)


def record_total(kind: str, target: object, state: dict[str, Any] | None) -> int | None:
    """Return how many records ``kind`` will read from the file ``target``, or None."""
    if kind not in ("mbox", "jsonl") or not isinstance(target, str | os.PathLike):
        return None
    path = Path(target)
    try:
        if not path.is_file() or path.stat().st_size > _MAX_SCAN:
            return None
        start = int(state.get("offset", 0)) if state else 0
        with path.open("rb") as f:
            head = f.read(_HEAD)
            if head.startswith(_COMPRESSED):
                return None
            # An mbox whose lines end in CR alone is split at CR (the importer's rule).
            end = b"\r" if kind == "mbox" and cr_only(head) else b"\n"
            f.seek(start)
            return _count(f, end + b"From " if kind == "mbox" else end, kind, end)
    except (OSError, ValueError, TypeError):
        return None


def _count(f: Any, mark: bytes, kind: str, end: bytes = b"\n") -> int:
    found = 0
    # Where reading starts is a line's start: a message there (the last one read, which an
    # mbox re-reads) or a JSON Lines line counts as if a line end came before it.
    tail = end
    last = b""
    while chunk := f.read(_CHUNK):
        block = tail + chunk
        found += block.count(mark)
        tail = block[-(len(mark) - 1) :] if len(mark) > 1 else b""
        last = chunk
    if kind == "jsonl" and last and not last.endswith(b"\n"):
        found += 1  # a last line without its newline
    if kind == "jsonl":
        found -= 1  # the virtual newline before the first line is not a line
    return max(found, 0)


def commit_total(repo: Path, all_branches: bool) -> int | None:
    """Return the commits of ``repo``'s history (``git rev-list --count``), or None."""
    revs = ["--all"] if all_branches else ["HEAD"]
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "rev-list", "--count", *revs],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return int(out) if done.returncode == 0 and out.isdigit() else None
