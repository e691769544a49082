"""Hostile JSON Lines: lines that would cost far more memory parsed than they weigh."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.jsonl import MAX_LINE_VALUES, from_jsonl

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("value", [b"{}", b"[]", b'"ab"', b"1.5"])
async def test_a_line_of_millions_of_values_is_refused_unparsed(
    tmp_path: Path, value: bytes
) -> None:
    """Parsed, ``[{},{},...]`` costs ~24 times its bytes: refused before it is parsed."""
    path = tmp_path / "many.jsonl"
    many = b",".join([value] * (MAX_LINE_VALUES + 10))
    path.write_bytes(b'{"text": "x", "v": [' + many + b']}\n{"id": "after", "text": "ok"}\n')
    tracemalloc.start()
    try:
        items = await collect(from_jsonl(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [r.id for r in records(items)] == ["after"]
    assert "more JSON values than one record may" in errors(items)[0].reason
    assert peak < 4 * path.stat().st_size + 32_000_000, peak  # the line and a copy, not objects


async def test_commas_inside_strings_are_text_not_values(tmp_path: Path) -> None:
    path = tmp_path / "commas.jsonl"
    text = 'a, \\"b,\\" ' * (MAX_LINE_VALUES // 2)
    path.write_text('{"id": "prose", "text": "' + text + '"}\n', encoding="utf-8")
    items = await collect(from_jsonl(path))
    assert [r.id for r in records(items)] == ["prose"], errors(items)[:1]
