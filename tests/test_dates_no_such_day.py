"""A day its month does not have ("2024-02-30") is no date for a record, where
``Date.parse`` (and so ``dates.parse_date``, the port) rolls it over into the next month:
a time no export meant is never stored; the line or the row is an error naming it."""

from __future__ import annotations

import calendar
import json
import random
from pathlib import Path

import pytest

from memtrails import At, MemoryRecord, from_jsonl
from memtrails.dates import parse_date
from memtrails.records import RecordError

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _no_days(n: int) -> list[tuple[int, int, int]]:
    rng = random.Random(63)
    found: list[tuple[int, int, int]] = []
    while len(found) < n:
        year, month = rng.randint(1900, 2100), rng.randint(1, 12)
        last = calendar.monthrange(year, month)[1]
        if last < 31:
            found.append((year, month, rng.randint(last + 1, 31)))
    return found


def test_a_day_a_month_does_not_have_is_no_date_in_any_form() -> None:
    for y, m, d in _no_days(300):
        forms = [
            f"{y}-{m:02d}-{d:02d}",
            f"{y}-{m:02d}-{d:02d}T10:00:00Z",
            f"{y}-{m:02d}-{d:02d}T10:00:00+02:00",
            f"{y}-{m:02d}-{d:02d} 10:00:00",
            f"{y}/{m:02d}/{d:02d}",
            f"{m:02d}/{d:02d}/{y} 10:00",
            f"{MONTHS[m - 1]} {d}, {y}",
            f"{d} {MONTHS[m - 1]} {y} 10:00:00 GMT",
            f"{y}{m:02d}{d:02d}T101010Z",
            f"{y}-{m:02d}-{d:02d}T10:00:00,5Z",
        ]
        assert parse_date(forms[0]) is not None  # Date.parse rolls it over: the port too
        for text in forms:
            with pytest.raises(ValueError, match="not a date"):
                At.of(text)
        with pytest.raises(ValueError, match="`at`: not a date"):
            MemoryRecord(id="1", text="x", at=forms[0])


def test_the_last_day_of_each_month_is_still_read() -> None:
    for year in (1900, 2000, 2023, 2024):
        for month in range(1, 13):
            last = calendar.monthrange(year, month)[1]
            assert (
                At.of(f"{year}-{month:02d}-{last:02d}")
                .iso()
                .startswith(f"{year}-{month:02d}-{last:02d}")
            )
            assert (
                At.of(f"{MONTHS[month - 1]} {last}, {year} 10:00 GMT")
                .iso()
                .startswith(f"{year}-{month:02d}-{last:02d}")
            )


async def test_a_json_lines_line_with_such_a_day_is_its_error(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    rows = [
        {"id": "a", "text": "x", "date": "2024-02-30"},
        {"id": "b", "text": "x", "date": "30.02.2024"},
        {"id": "c", "text": "x", "created_at": "2023-02-29 10:00 CEST"},
        {"id": "e", "text": "x", "date": "30. Februar 2024"},  # German: Date.parse reads Feb
        {"id": "d", "text": "x", "date": "2024-02-29"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    items = [item async for item in from_jsonl(path)]
    errors = {e.where: e.reason for e in items if isinstance(e, RecordError)}
    records = [i for i in items if isinstance(i, MemoryRecord)]
    assert sorted(errors) == ["line 1", "line 2", "line 3", "line 4"]
    assert errors["line 1"] == "field 'date': not a date: '2024-02-30'"
    assert [(r.id, str(r.at)) for r in records] == [("d", "2024-02-29T00:00:00.000Z")]
