"""Looking into an export folder's folders: which are folders, which hold channel folders."""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["DAY_NAMED", "OUTSIDE", "holds_days", "is_dir", "not_an_export"]

# A day file under another name (a second download's "2024-01-02 (1).json", a tool's
# "2024-01-03_part2.json"): read as one.
DAY_NAMED = re.compile(r"^\d{4}-\d{2}-\d{2}[^/\\]*\.json$", re.IGNORECASE)
# A day file beside the name files (or a workspace's, in teams/<ws>/): no channel's.
OUTSIDE = (
    "a day file outside any channel's folder: whose messages it holds is not known, not read "
    "(move it into its channel's folder)"
)


def holds_days(folder: Path) -> bool:
    """Whether a folder holds folders of day files: channel folders of its own."""
    try:
        with os.scandir(folder) as entries:
            inner = [e.name for e in entries if is_dir(e)]
        for name in inner:
            with os.scandir(folder / name) as entries:
                if any(DAY_NAMED.match(e.name) for e in entries):
                    return True
    except OSError:
        return False
    return False


def is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return not entry.name.startswith(".") and entry.is_dir()
    except OSError:
        return False


def not_an_export(outside: list[str]) -> str:
    """Say why a folder or zip is no Slack export; ``outside``: the day files at its top."""
    why = (
        "not a Slack export: no users.json, no channels.json and no channel folders of "
        "YYYY-MM-DD.json day files"
    )
    if outside:  # a channel's folder, given alone
        why += (
            f" ({outside[0]} is a day file: of one channel's folder? import the export's "
            "folder, which holds it)"
        )
    return why
