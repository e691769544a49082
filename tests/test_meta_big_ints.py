"""An integer past 2**53 in a record's ``meta`` (a snowflake id, a 64-bit counter) read from a
JSON Lines line, a row or a dict is kept as its digits. As a number it was written and
fingerprinted as ``JSON.stringify`` writes it, the nearest double: two different integers
gave one fingerprint, so an edit of one was taken for no change, and the folder held the
rounded number."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memtrails.importers.jsonl import from_jsonl
from memtrails.keys import fingerprint
from memtrails.pipeline.normalise import normalise_item
from memtrails.portable import js_stringify
from memtrails.records import MemoryRecord

BIG = 2**53 + 1  # 9007199254740993: JSON.stringify writes 9007199254740992


async def _line(tmp_path: Path, name: str, obj: dict[str, Any]) -> MemoryRecord:
    path = tmp_path / f"{name}.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    got = [
        item async for item in from_jsonl(path, source="export") if isinstance(item, MemoryRecord)
    ]
    assert len(got) == 1, got
    return got[0]


async def test_a_big_integer_in_a_json_lines_line_changes_the_fingerprint(tmp_path: Path) -> None:
    before = await _line(tmp_path, "a", {"id": "r", "text": "t", "views": BIG - 1})
    after = await _line(tmp_path, "b", {"id": "r", "text": "t", "views": BIG})
    assert fingerprint(before) != fingerprint(after)  # an edit, not "unchanged"
    assert after.meta["views"] == str(BIG)
    assert str(BIG) in js_stringify(after.to_json())  # the folder keeps the digits


async def test_big_integers_at_any_depth_keep_their_digits(tmp_path: Path) -> None:
    record = await _line(
        tmp_path,
        "deep",
        {"id": "r", "text": "t", "ids": [1, -(2**63)], "guild": {"snowflake": 1790000000000000001}},
    )
    assert record.meta == {
        "ids": [1, str(-(2**63))],
        "guild": {"snowflake": "1790000000000000001"},
    }


@pytest.mark.parametrize(
    "value",
    [BIG, Decimal(BIG), np.int64(BIG), np.uint64(2**64 - 1)],
    ids=["int", "decimal", "numpy-int64", "numpy-uint64"],
)
def test_a_big_integer_in_a_rows_column_keeps_its_digits(value: Any) -> None:
    row = normalise_item({"id": "r", "text": "t", "n": value}, source="s", position=1)
    assert isinstance(row, MemoryRecord)
    assert row.meta["n"] == str(int(value))


def test_a_big_integer_in_a_dicts_meta_changes_the_fingerprint() -> None:
    def read(n: int) -> MemoryRecord:
        item = {"id": "r", "text": "t", "meta": {"counts": [n], "pair": (1, n)}}
        row = normalise_item(item, source="s", position=1)
        assert isinstance(row, MemoryRecord)
        return row

    assert fingerprint(read(BIG)) != fingerprint(read(BIG - 1))
    assert read(BIG).meta == {"counts": [str(BIG)], "pair": [1, str(BIG)]}


async def test_integers_javascript_holds_stay_numbers(tmp_path: Path) -> None:
    safe = 2**53 - 1
    record = await _line(
        tmp_path, "safe", {"id": "r", "text": "t", "n": safe, "neg": -safe, "f": 1e300, "b": True}
    )
    assert record.meta == {"n": safe, "neg": -safe, "f": 1e300, "b": True}
    row = normalise_item({"id": "r", "text": "t", "n": safe, "ok": True}, source="s", position=1)
    assert isinstance(row, MemoryRecord) and row.meta == {"n": safe, "ok": True}
