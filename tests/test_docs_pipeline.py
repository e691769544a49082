"""docs/pipeline.md's example, a pipeline composed by hand, runs as written and its batches
hold the file's records, normalised and scrubbed, in at most 64s."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from memtrails.items import Staged

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "pipeline.md"


def test_the_composed_pipeline_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = PAGE.read_text(encoding="utf-8").split("```python\n")[1:]
    assert len(blocks) == 1
    lines = [{"id": f"n{n}", "text": f"note {n}"} for n in range(100)]
    lines[3]["text"] = "the deploy key is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (tmp_path / "notes.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    monkeypatch.chdir(tmp_path)
    names: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(blocks[0].split("```", 1)[0], str(PAGE), "exec"), names)

    async def read() -> list[list[Any]]:
        async with names["batches"].stream() as batches:
            return [list(group) async for group in batches]

    groups = asyncio.run(read())
    assert all(len(group) <= 64 for group in groups)
    staged = [item for group in groups for item in group if isinstance(item, Staged)]
    assert [item.record.id for item in staged] == [f"n{n}" for n in range(100)]
    assert "ghp_" not in staged[3].record.text and "[secret:" in staged[3].record.text
