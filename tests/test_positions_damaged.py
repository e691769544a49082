"""A damaged entry of sources.json costs that source a full read, never the import."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.add import add_path
from memtrails.cli import main
from memtrails.testing import HashingEmbedder


async def _add_past_a_damaged_position(home: Path, rows: Path, entry: Any) -> None:
    rows.write_text(
        "".join(json.dumps({"id": str(n), "text": f"note {n}"}) + "\n" for n in range(5))
    )
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        first = await add_path(memory, rows)
    source = first.sources[0].source
    saved = json.loads((home / "sources.json").read_text())
    saved[source] = entry
    (home / "sources.json").write_text(json.dumps(saved))
    with rows.open("a") as f:
        f.write(json.dumps({"id": "5", "text": "note 5"}) + "\n")
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        again = await add_path(memory, rows)
        assert (again.added, again.errors) == (1, [])
        assert await memory.get("5", source=source) is not None


@pytest.mark.parametrize(
    "entry",
    [
        {"mode": "full", "saved": 1.0},  # no state
        {"state": 5, "mode": "append"},
        {"state": "offset 120", "mode": "append"},
        {"state": None},
        "junk",
        ["state", {}],
        {"state": {"offset": 10}, "saved": "yesterday", "mode": 7, "complete": "no"},
    ],
)
def test_a_damaged_saved_position_reads_its_source_again(tmp_path: Path, entry: Any) -> None:
    home = tmp_path / "m"
    asyncio.run(_add_past_a_damaged_position(home, tmp_path / "notes.jsonl", entry))
    runner = CliRunner()  # the commands that show the positions show the folder too
    for command in (["status"], ["sources"]):
        shown = runner.invoke(main, [*command, "--home", str(home)])
        assert shown.exit_code == 0, shown.output
