"""JSON Lines: a day written with slashes whose first number is 12 or less ("05/08/2023") is
read day first when the same key of the same file holds a day whose first number is past
12 ("25/12/2023") and none whose second is: the file writes the day first (month first the
other way round; a key that shows neither takes the order the file's other keys agree on,
and a day whose order nothing shows is no time). The file is read ahead (as it is for its
ids) so the first line reads as the last; a resumed run keeps what the earlier ones saw.
Each record's time is compared with ``At.of`` of the same day written year first, so that
the tests hold in any ``TZ``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory
from memtrails.importers._jsonl_dates import DayKeys, record_time
from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, SourceState
from memtrails.testing import HashingEmbedder


def _write(path: Path, rows: list[dict[str, Any]], mode: str = "w") -> None:
    with path.open(mode, encoding="utf-8") as f:
        f.writelines(json.dumps(row) + "\n" for row in rows)


async def _times(tmp_path: Path, rows: list[dict[str, Any]]) -> dict[str, str | None]:
    path = tmp_path / "export.jsonl"
    _write(path, rows)
    items = [i async for i in from_jsonl(path) if not isinstance(i, SourceState)]
    assert all(isinstance(i, MemoryRecord) for i in items), items
    return {i.id: i.at.iso() if i.at else None for i in items if isinstance(i, MemoryRecord)}


def _iso(day: str) -> str:
    return At.of(day).iso()


@pytest.mark.parametrize("sep", ["/", "-"])
async def test_a_day_past_12_in_the_field_makes_its_other_days_day_first(
    tmp_path: Path, sep: str
) -> None:
    rows = [
        {"id": "a", "text": "t", "date": f"05{sep}08{sep}2023"},  # before the evidence
        {"id": "b", "text": "t", "date": f"25{sep}12{sep}2023"},
        {"id": "c", "text": "t", "date": f"3{sep}4{sep}2024 10:30"},
    ]
    assert await _times(tmp_path, rows) == {
        "a": _iso("2023/08/05"),
        "b": _iso("2023/12/25"),
        "c": _iso("2024/04/03 10:30"),
    }


async def test_a_day_of_no_known_order_is_no_time_and_a_month_first_one_is_read(
    tmp_path: Path,
) -> None:
    # 5 August or 8 May: a wrong day is worse than none; the record is kept, without a time.
    alone = [{"id": "a", "text": "t", "date": "05/08/2023"}]
    assert await _times(tmp_path, alone) == {"a": None}
    us = [*alone, {"id": "b", "text": "t", "date": "12/25/2023"}]  # month first: says so
    assert (await _times(tmp_path, us))["a"] == _iso("2023/05/08")
    both = [*us, {"id": "c", "text": "t", "date": "25/12/2023"}]  # both: no telling
    assert (await _times(tmp_path, both))["a"] is None


async def test_a_key_of_no_order_takes_the_order_the_file_s_other_keys_agree_on(
    tmp_path: Path,
) -> None:
    rows = [
        {"id": "a", "text": "t", "created_at": "05/08/23 10:00"},
        {"id": "b", "text": "t", "created_at": "01/02/2024", "due": "31/12/2024"},
    ]
    got = await _times(tmp_path, rows)
    assert got == {"a": _iso("2023/08/05 10:00"), "b": _iso("2024/02/01")}


async def test_the_evidence_is_the_keys_own(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "text": "t", "date": "05/08/2023", "due": "25/12/2023"},
        {"id": "b", "text": "t", "created_at": "05/08/2023"},
        {"id": "d", "text": "t", "date": "12/31/2023"},
        {"id": "c", "text": "t", "created_at": "13\\/08\\/2023"},  # escaped, as PHP writes it
    ]
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r).replace("\\\\/", "\\/") + "\n" for r in rows))
    items = [i async for i in from_jsonl(path) if isinstance(i, MemoryRecord)]
    got = {i.id: i.at.iso() if i.at else None for i in items}
    want = {"a": _iso("2023/05/08"), "b": _iso("2023/08/05"), "c": _iso("2023/08/13")}
    assert got == {**want, "d": _iso("2023/12/31")}


async def test_a_resumed_run_reads_new_lines_as_the_first_run_read_the_file(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, [{"id": "a", "text": "first", "date": "25/12/2023"}])
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(path), name="log")
        _write(path, [{"id": "b", "text": "second", "date": "05/08/2023"}], mode="a")
        report = await memory.ingest(from_jsonl(path, state=memory.source_state("log")), name="log")
        assert report.added == 1, report.errors
        assert report.sources[0].mode == "incremental"
        second = await memory.get("b")
    assert second is not None and second.at == At.of("2023/08/05")


def test_a_file_s_day_order_is_given_to_each_line_s_time() -> None:
    # The order is a parameter of the line's reading, not a context around it: a line read
    # with no order given (another file's, a thread's) has no time from such a day.
    row = {"date": "05/08/2023", "when": "05/08/2023", "text": "x"}
    assert record_time(row, None, frozenset({"date"})) == (("date",), At.of("2023/08/05"))
    assert record_time(row, None) == ((), None)
    assert record_time(row, "when", {"date"}) == ((), None)
    us = DayKeys((), {"when"})
    assert record_time(row, "when", us) == (("when",), At.of("2023/05/08"))
    # The day's time of day from "time" (a spreadsheet's two columns) keeps the order too.
    both = {"date": "05/08/2023", "time": "10:32"}
    assert record_time(both, None, {"date"}) == (("date", "time"), At.of("2023/08/05 10:32"))
