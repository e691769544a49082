"""A Claude Code message full of the tags Claude Code adds, left open: read as written, in
linear time (a pasted transcript holds many; one of 4 MB read in quadratic time for hours)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import collect, records

from memtrails.importers.transcripts import from_agent_transcripts

SID = "9d1e7c52-3b0a-4f7e-8c11-2a6b5d4e3f21"


def line(uuid: str, text: str) -> str:
    return json.dumps({
        "type": "user", "uuid": uuid, "sessionId": SID, "timestamp": "2025-11-03T09:00:00Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    })  # fmt: skip


@pytest.mark.timeout(60)  # the quadratic reading took hours; this one a second at most
async def test_many_open_tags_read_as_written_and_fast(tmp_path: Path) -> None:
    open_tags = "<system-reminder>note " * 200_000
    open_names = "<command-name>/x " + "<command-args>a " * 200_000
    no_end = "<ide_selection " * 200_000
    closed = "keep " + "<system-reminder>drop</system-reminder>" * 100_000 + " this"
    path = tmp_path / f"{SID}.jsonl"
    path.write_text(
        "\n".join(line(f"u{n}", t) for n, t in enumerate([open_tags, open_names, no_end, closed]))
        + "\n",
        encoding="utf-8",
    )
    texts = [r.text for r in records(await collect(from_agent_transcripts(path)))]
    assert texts[:3] == [open_tags.strip(), open_names.strip(), no_end.strip()]
    assert texts[3] == "keep  this"
