"""An explicit ``meta`` a caller passes on a custom source (a dict built from a row, a
``MemoryRecord(meta=...)``) holds the values a driver hands over: they are read as a row's
extra columns are (``record_values.meta_value``), at any depth, and what cannot be read is
an error naming the entry, the import going on."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from memtrails import Memory, MemoryRecord
from memtrails.testing import HashingEmbedder

ROW: dict[str, Any] = {
    "price": Decimal("12.50"),
    "exact": Decimal("12345678901234567890.123456789"),
    "seen": datetime(2024, 5, 3, 10, 32, tzinfo=UTC),
    "due": date(2024, 5, 3),
    "opens": time(9, 30),
    "took": timedelta(hours=1, minutes=30),
    "ref": uuid.UUID(int=5),
    "owner": uuid.UUID(int=6).bytes,  # BINARY(16)
    "label": b"blue",
    "count": np.int64(3),
    "flag": np.bool_(True),
    "sizes": np.array([1, 2, 3]),
    "nested": {"total": Decimal(7), "when": [date(2024, 1, 1)]},
}
WANT = {
    "price": 12.5,
    "exact": "12345678901234567890.123456789",
    "seen": "2024-05-03T10:32:00+00:00",
    "due": "2024-05-03",
    "opens": "09:30:00",
    "took": "1:30:00",
    "ref": str(uuid.UUID(int=5)),
    "owner": str(uuid.UUID(int=6)),
    "label": "blue",
    "count": 3,
    "flag": True,
    "sizes": [1, 2, 3],
    "nested": {"total": 7, "when": ["2024-01-01"]},
}


async def test_explicit_meta_is_read_as_a_rows_columns_are(tmp_path: Path) -> None:
    items = [
        {"id": "1", "text": "a dict's meta", "meta": dict(ROW)},
        MemoryRecord(id="2", text="a record's meta", meta=dict(ROW)),
        {"id": "3", "text": "columns", **ROW},
        {"id": "4", "text": "binary", "meta": {"image": bytes(range(64))}},
        {"id": "5", "text": "the last"},
    ]
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(items, name="rows")
        got = {rid: await memory.get(rid, source="rows") for rid in "12345"}
    assert report.added == 4
    assert [(e.where, e.reason[:40]) for e in report.errors] == [
        ("record '4'", "`meta.image` holds 64 bytes of binary da")
    ]
    for rid in "123":
        record = got[rid]
        assert record is not None and {k: record.meta[k] for k in WANT} == WANT, rid
