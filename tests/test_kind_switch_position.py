"""A source read with another ``--kind`` before: its saved position is named as that kind's."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, records

from memtrails.importers.files import from_files
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.maildir import from_maildir
from memtrails.importers.slack import from_slack_export
from memtrails.records import SourceState

_MAILDIR = {"messages": {"cur/1:2,S": [10, 1, "x"]}}
_FILES = {"files": {"cur/1:2,S": [10, 1, "x"]}}
_SLACK = {"metadata": {"users.json": None}, "channels": {}}


def _folder(root: Path) -> Path:
    """A folder any of these kinds reads: a Maildir, a Slack export, notes, JSON Lines."""
    for box in ("cur", "new", "tmp"):
        (root / box).mkdir(parents=True)
    (root / "cur" / "1:2,S").write_text("From: a@b.test\nSubject: hi\nMessage-ID: <1@b>\n\nbody\n")
    (root / "users.json").write_text("[]")
    (root / "general").mkdir()
    (root / "general" / "2024-01-01.json").write_text(
        json.dumps([{"type": "message", "ts": "1704067200.000100", "text": "hello"}])
    )
    (root / "notes.jsonl").write_text('{"id": "a", "text": "note"}\n')
    return root


@pytest.mark.parametrize(
    ("read", "saved", "why"),
    [
        (from_files, _MAILDIR, "last read as --kind maildir, whose saved position --kind files"),
        (from_maildir, _FILES, "last read as --kind files or transcripts, whose saved position"),
        (from_slack_export, _MAILDIR, "last read as --kind maildir, whose saved position --kind"),
        (from_jsonl, _SLACK, "last read as --kind slack, whose saved position --kind mbox or"),
    ],
)
async def test_another_kinds_position_is_named_so_and_the_source_read_in_full(
    tmp_path: Path, read: Callable[..., Any], saved: dict[str, Any], why: str
) -> None:
    # Not "the saved position is not one this version reads": no older version saved it.
    root = _folder(tmp_path / "box")
    path = root / "notes.jsonl" if read is from_jsonl else root
    items = await collect(read(path, state=saved))
    end = [i for i in items if isinstance(i, SourceState)][-1]
    assert records(items)
    assert end.mode == "full" and end.why is not None and end.why.startswith(why), end.why
    assert end.why.endswith(" cannot use")
