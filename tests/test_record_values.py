"""What a database driver, a dataframe or a script hands over as a row's fields is read as
the value a user means: a Decimal or numpy epoch as the same number, a UUID id as its string,
bytes of text as UTF-8 text; a value that cannot be used is an error naming its row and
column, and the import goes on."""

from __future__ import annotations

import ipaddress
import sqlite3
import uuid
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import pg_dsn

from memtrails import At, Memory, MemoryRecord, from_cursor
from memtrails.pipeline.normalise import normalise_item
from memtrails.records import RecordError
from memtrails.testing import HashingEmbedder

DAY = At.of("2024-05-03T10:32:00Z")
SECONDS = DAY.ms // 1000


async def _import(folder: Path, rows: Any, name: str = "rows") -> tuple[Any, dict[str, Any]]:
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(rows, name=name)
        records = {}
        for rid in ("1", "2", "3", "4", "5", "6", "7", "8", str(uuid.UUID(int=7))):
            got = await memory.get(rid, source=name)
            if got is not None:
                records[rid] = got
    return report, records


@pytest.mark.parametrize(
    "at",
    [
        Decimal(SECONDS),
        Decimal(DAY.ms),
        Decimal(f"{SECONDS}.000"),
        np.int64(SECONDS),
        np.int32(SECONDS),
        np.int64(DAY.ms),
        np.uint64(DAY.ms),
        np.float64(SECONDS),
        datetime(2024, 5, 3, 10, 32, tzinfo=UTC),
        datetime(2024, 5, 3, 12, 32, tzinfo=timezone(timedelta(hours=2))),
        b"2024-05-03T10:32:00Z",
        memoryview(b"2024-05-03T10:32:00Z"),
    ],
    ids=lambda v: type(v).__name__,
)
async def test_a_drivers_time_is_the_time_it_stands_for(tmp_path: Path, at: Any) -> None:
    report, records = await _import(tmp_path, [{"id": "1", "text": "a row", "at": at}])
    assert report.errors == [] and report.added == 1
    assert records["1"].at == DAY


async def test_a_decimal_with_a_fraction_and_a_date_column(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "text": "a", "at": Decimal(f"{SECONDS}.25")},
        {"id": "2", "text": "b", "at": date(2024, 5, 3)},
        {"id": "3", "text": "c", "at": Decimal("0")},  # an unset NUMERIC: no date, not 1970
        {"id": "4", "text": "d", "at": Decimal("NaN")},
        {"id": "5", "text": "e", "at": np.datetime64("NaT")},
        {"id": "6", "text": "f", "at": np.datetime64("2024-05-03T10:32:00.5", "ns")},
        {"id": "7", "text": "g", "at": np.datetime64("2024-05-03", "D")},
    ]
    report, records = await _import(tmp_path, rows)
    assert report.errors == [] and report.added == 7
    assert records["1"].at == At(DAY.ms + 250)
    # A pandas datetime column's values: naive, as a naive datetime is (local time).
    assert records["6"].at == At.of(datetime(2024, 5, 3, 10, 32, 0, 500_000))
    assert records["7"].at == At.of("2024-05-03")
    assert records["2"].at == At.of("2024-05-03")
    assert [records[k].at for k in ("3", "4", "5")] == [None, None, None]


async def test_ids_and_text_columns_of_other_types(tmp_path: Path) -> None:
    rows = [
        {"id": uuid.UUID(int=7), "text": "a UUID id"},
        {"id": np.int64(1), "text": b"caf\xc3\xa9", "title": memoryview(b"T\xc3\xaftle")},
        {"id": Decimal(2), "text": bytearray(b"half \xff read"), "author": b"Ann"},
        {"id": b"3", "text": "bytes id", "thread": uuid.UUID(int=1)},
        {"id": 4, "text": "int thread", "thread": np.int64(99)},
    ]
    report, records = await _import(tmp_path, rows)
    assert report.errors == [] and report.added == 5
    assert records[str(uuid.UUID(int=7))].text == "a UUID id"
    assert (records["1"].text, records["1"].title) == ("café", "Tïtle")
    assert (records["2"].text, records["2"].author) == ("half \ufffd read", "Ann")
    assert records["3"].thread == str(uuid.UUID(int=1))
    assert records["4"].thread == "99"


async def test_extra_columns_of_driver_types_go_into_meta(tmp_path: Path) -> None:
    rows = [
        {
            "id": "1",
            "text": "priced",
            "price": Decimal("12.50"),
            "exact": Decimal("12345678901234567890.123456789"),
            "count": np.int64(3),
            "ratio": np.float64(0.5),
            "ref": uuid.UUID(int=5),
            "label": b"blue",
            "due": date(2024, 5, 3),
            "seen": datetime(2024, 5, 3, 10, 32, tzinfo=UTC),
            "took": timedelta(hours=1, minutes=30),  # MySQL's TIME
            "ip": ipaddress.ip_address("192.0.2.1"),  # PostgreSQL's inet
            "net": ipaddress.ip_network("2001:db8::/32"),
            "sizes": [Decimal("1.5"), np.int64(2), uuid.UUID(int=5)],  # an array column
        }
    ]
    report, records = await _import(tmp_path, rows)
    assert report.errors == [] and report.added == 1
    meta = records["1"].meta
    assert meta["price"] == 12.5 and meta["exact"] == "12345678901234567890.123456789"
    assert (meta["count"], meta["ratio"]) == (3, 0.5)
    assert meta["ref"] == str(uuid.UUID(int=5)) and meta["label"] == "blue"
    assert (meta["due"], meta["seen"]) == ("2024-05-03", "2024-05-03T10:32:00+00:00")
    assert (meta["ip"], meta["net"]) == ("192.0.2.1", "2001:db8::/32")
    assert meta["took"] == "1:30:00" and meta["sizes"] == [1.5, 2, str(uuid.UUID(int=5))]


async def test_unusable_values_are_errors_naming_row_and_column(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "text": "fine", "at": Decimal(SECONDS)},
        {"id": "2", "text": "x", "at": Decimal("1e400")},
        {"id": "3", "text": bytes(range(256))},  # an image's bytes
        {"id": b"\x89PNG\r\n\x1a\n\x00", "text": "x"},
        {"id": "5", "text": "x", "at": [SECONDS]},
        {"id": "6", "text": "x", "title": b"\x00\x01\x02\x03"},
        {"id": 7.5, "text": "x"},
        {"id": "8", "text": "last", "at": np.int64(SECONDS)},
    ]
    report, records = await _import(tmp_path, rows)
    assert sorted(records) == ["1", "8"]
    reasons = {e.where: e.reason for e in report.errors}
    assert sorted(reasons) == ["item 2", "item 3", "item 4", "item 5", "item 6", "item 7"]
    assert reasons["item 2"].startswith("`at`: 1E+400 is not a time")
    assert reasons["item 3"].startswith("`text` holds 256 bytes of binary data")
    assert reasons["item 4"].startswith("`id` is 9 bytes that are not UTF-8 text")
    assert reasons["item 5"].startswith("`at`: cannot read a timestamp from list")
    assert reasons["item 6"].startswith("`title` holds 4 bytes of binary data")
    assert reasons["item 7"].startswith("`id` is 7.5, a number with a fraction")


async def test_a_real_sqlite_cursor_with_blob_columns(tmp_path: Path) -> None:
    """sqlite3 hands a BLOB column over as bytes; a NUMERIC column as int or float."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (id BLOB, body BLOB, at NUMERIC, price NUMERIC)")
    conn.executemany(
        "INSERT INTO notes VALUES (?, ?, ?, ?)",
        [
            (b"1", "Ünïcode body".encode(), SECONDS, 9.5),
            (b"2", b"\x00\x01\x02binary\x00", DAY.ms, 1),
            (b"3", b"ok", "2024-05-03T10:32:00Z", None),
        ],
    )
    cursor = conn.execute("SELECT id, body AS text, at, price FROM notes ORDER BY rowid")
    report, records = await _import(tmp_path, cursor)
    assert sorted(records) == ["1", "3"]
    assert records["1"].text == "Ünïcode body" and records["1"].at == DAY
    assert records["1"].meta["price"] == 9.5 and records["3"].at == DAY
    assert [(e.where, e.reason.split(" bytes")[0]) for e in report.errors] == [
        ("item 2", "`text` holds 10")
    ]


async def test_a_decimal_cursor_column_is_a_watermark(tmp_path: Path) -> None:
    """A NUMERIC cursor column (psycopg's Decimal) is saved exactly and resumed from."""
    table = [
        {"id": "1", "text": "a", "version": Decimal("1.10")},
        {"id": "2", "text": "b", "version": Decimal("2.25")},
    ]
    asked: list[Any] = []

    def fetch(since: Any) -> list[dict[str, Any]]:
        asked.append(since)
        return [row for row in table if since is None or row["version"] >= since]

    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        for _ in range(2):
            state = memory.source_state("t")
            rows = from_cursor(fetch, name="t", cursor="version", state=state, lag=0.25)
            report = await memory.ingest(rows, name="t")
            assert report.errors == []
            table.append({"id": "3", "text": "c", "version": Decimal("2.50")})
    assert asked == [None, Decimal("2.00")]
    assert report.added == 1 and report.unchanged == 1


async def test_numpy_and_timestamp_like_cursor_values(tmp_path: Path) -> None:
    class Stamp:  # pandas' Timestamp and NaT answer to_pydatetime(); pandas is not needed
        def __init__(self, when: datetime | None) -> None:
            self.when = when

        def to_pydatetime(self) -> Any:
            return self.when if self.when is not None else float("nan")

    rows = [
        {"id": "1", "text": "a", "n": np.int64(5), "at": Stamp(datetime(2024, 5, 3, tzinfo=UTC))},
        {"id": "2", "text": "b", "n": np.int64(6), "at": Stamp(None)},
    ]
    async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_cursor(lambda _: rows, name="p", cursor="n"), name="p")
        first = await memory.get("1", source="p")
        second = await memory.get("2", source="p")
        assert memory.source_state("p") == {"cursor": "n", "type": "int", "value": 6}
    assert report.errors == [] and report.added == 2
    assert first is not None and first.at == At.of("2024-05-03")
    assert second is not None and second.at is None


def test_a_record_built_in_python_reads_the_same_values() -> None:
    record = MemoryRecord(
        id=uuid.UUID(int=3),  # type: ignore[arg-type]
        text=b"bytes text",  # type: ignore[arg-type]
        at=Decimal(DAY.ms),  # type: ignore[arg-type]
        thread=7,  # type: ignore[arg-type]
    )
    assert (record.id, record.text, record.at, record.thread) == (
        str(uuid.UUID(int=3)),
        "bytes text",
        DAY,
        "7",
    )
    with pytest.raises(ValueError, match=r"^`at`: not a date"):
        MemoryRecord(id="1", text="x", at="no date here")


async def test_a_decimal_cursor_that_is_no_number_is_the_rows_error() -> None:
    rows = [{"id": "1", "text": "a", "v": Decimal("NaN")}, {"id": "2", "text": "b", "v": 2}]
    items = [item async for item in from_cursor(lambda _: rows, name="s", cursor="v")]
    errors = [item for item in items if isinstance(item, RecordError)]
    assert [(e.where, e.reason.split(",")[0]) for e in errors] == [("row 1", "`v` is NaN")]
    assert items[-1].state == {"cursor": "v", "type": "int", "value": 2}


@pytest.mark.postgres
async def test_a_postgres_rows_numeric_uuid_and_bytea_columns(tmp_path: Path) -> None:
    """asyncpg hands NUMERIC over as Decimal, UUID as a UUID, BYTEA as bytes."""
    asyncpg = pytest.importorskip("asyncpg")
    conn = await asyncpg.connect(pg_dsn())
    try:
        await conn.execute("DROP TABLE IF EXISTS memtrails_values")
        await conn.execute(
            "CREATE TABLE memtrails_values (id uuid, body bytea, at numeric, "
            "price numeric(12, 2), version numeric)"
        )
        await conn.executemany(
            "INSERT INTO memtrails_values VALUES ($1, $2, $3, $4, $5)",
            [
                (uuid.UUID(int=7), "Grüße".encode(), Decimal(SECONDS), Decimal("9.90"), 1),
                (uuid.UUID(int=8), b"ms", Decimal(DAY.ms), None, Decimal("2.5")),
            ],
        )

        async def fetch(since: Any) -> list[Any]:
            query = "SELECT id, body AS text, at, price, version FROM memtrails_values"
            rows = await conn.fetch(query + " WHERE version >= $1", since or 0)
            assert all(isinstance(row["at"], Decimal) for row in rows)  # what the driver gives
            return rows

        async with Memory.open(tmp_path, embedder=HashingEmbedder()) as memory:
            rows = from_cursor(fetch, name="pg", cursor="version")
            report = await memory.ingest(rows, name="pg")
            first = await memory.get(str(uuid.UUID(int=7)), source="pg")
            second = await memory.get(str(uuid.UUID(int=8)), source="pg")
            state = memory.source_state("pg")
    finally:
        await conn.execute("DROP TABLE IF EXISTS memtrails_values")
        await conn.close()
    assert report.errors == [] and report.added == 2
    assert first is not None and second is not None
    assert (first.text, first.at, first.meta["price"]) == ("Grüße", DAY, 9.9)
    assert (second.text, second.at) == ("ms", DAY)
    assert state == {"cursor": "version", "type": "decimal", "value": "2.5"}


def test_a_meta_entry_json_cannot_hold_is_named_with_its_own_type() -> None:
    """An explicit ``meta``'s driver values are read as a row's columns are; what is still
    no JSON value (an object of the caller's) is an error naming the entry."""
    meta = {"price": Decimal("1.5"), "when": date(2024, 5, 3), "other": object()}
    item = normalise_item({"id": "a", "text": "x", "meta": meta}, "src", 1)
    assert isinstance(item, RecordError)
    assert item.reason.startswith("meta 'other' holds a object, which JSON cannot hold")
