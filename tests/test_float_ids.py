"""An id written as a whole float (``12.0``: JSON from pandas or a SQL tool writes an integer
column so when it has a gap) is the id 12, as JavaScript reads it (``String(12.0)`` is
"12"); a fraction, NaN, infinity or a float past 2**53 is an error naming the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memtrails import Memory, from_jsonl
from memtrails.pipeline.normalise import normalise_item
from memtrails.records import MemoryRecord, RecordError
from memtrails.testing import HashingEmbedder


async def _items(path: Path) -> list[Any]:
    return [item async for item in from_jsonl(path)]


async def test_a_whole_float_id_in_json_lines_is_the_integer_id(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    lines = [
        '{"id": 12.0, "text": "twelve", "thread": 7.0}',
        '{"id": 1.2e1, "text": "twelve again"}',  # the same number: a later version
        '{"id": 12.5, "text": "half"}',
        '{"id": NaN, "text": "nan"}',
        '{"id": Infinity, "text": "inf"}',
        '{"id": 1e20, "text": "past 2**53"}',
        '{"id": -0.0, "text": "zero"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    items = await _items(path)
    records = [i for i in items if isinstance(i, MemoryRecord)]
    errors = {e.where: e.reason for e in items if isinstance(e, RecordError)}
    assert [(r.id, r.text) for r in records] == [("12", "twelve again"), ("0", "zero")]
    assert errors["line 1"].startswith("id '12' is given again on line 2")
    assert errors["line 3"].startswith(
        "field 'id' (mapped to id) is 12.5, a number with a fraction"
    )
    assert errors["line 4"].startswith("field 'id' (mapped to id) is nan, which is no id")
    assert errors["line 5"].startswith("field 'id' (mapped to id) is inf, which is no id")
    assert "past 2**53" in errors["line 6"]


async def test_the_same_record_from_12_and_12_0_in_two_imports(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(json.dumps({"id": 12, "text": "the same"}) + "\n")
    second.write_text(json.dumps({"id": 12.0, "text": "the same"}) + "\n")
    async with Memory.open(tmp_path / "folder", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(first, source="rows"))
        report = await memory.ingest(from_jsonl(second, source="rows"))
        assert (report.added, report.unchanged, report.errors) == (0, 1, [])
        got = await memory.get("12", source="rows")
    assert got is not None and got.text == "the same"


@pytest.mark.parametrize("value", [12.0, np.float64(12.0), np.float32(12.0)])
def test_a_rows_whole_float_id_and_thread_are_integers(value: Any) -> None:
    item = normalise_item({"id": value, "text": "x", "thread": value}, "rows", 3)
    assert isinstance(item, MemoryRecord)
    assert (item.id, item.thread) == ("12", "12")
    assert MemoryRecord(id=value, text="x").id == "12"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (12.5, "`id` is 12.5, a number with a fraction"),
        (float("nan"), "`id` is nan, which is no id"),
        (float("-inf"), "`id` is -inf, which is no id"),
        (2.0**60, "past 2**53"),
    ],
)
def test_a_rows_float_that_is_no_id_is_its_error(value: float, says: str) -> None:
    item = normalise_item({"id": value, "text": "x"}, "rows", 3)
    assert isinstance(item, RecordError)
    assert item.where == "item 3" and says in item.reason
