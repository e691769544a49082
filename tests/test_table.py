"""The dedup table on its own: claims, in-flight rows, restore, per-source views, loading."""

from __future__ import annotations

from pathlib import Path

from memtrails.folder.log import RecordLog, record_line, tombstone_line
from memtrails.folder.table import Table


def test_claim_says_new_changed_unchanged_and_hides_in_flight_rows() -> None:
    table = Table()
    assert table.claim("u1", "fp1", "s") == ("new", None)
    assert "u1" not in table and len(table) == 0 and table.get("u1") is None  # in flight
    table.set("u1", "fp1", 0, "s")
    assert "u1" in table and table.get("u1") == ("fp1", 0, "s")
    assert table.claim("u1", "fp1", "s")[0] == "unchanged"
    verdict, previous = table.claim("u1", "fp2", "s")
    assert verdict == "changed" and previous is not None
    assert "u1" not in table  # the new version is on its way
    table.restore("u1", previous)  # the import failed before writing it
    assert table.get("u1") == ("fp1", 0, "s")


def test_per_source_views() -> None:
    table = Table()
    for i, source in enumerate(["a", "a", "b"]):
        table.set(f"u{i}", "fp", i * 10, source)
    table.claim("u9", "fp", "a")  # in flight: counted nowhere
    assert sorted(table.uids_of("a")) == ["u0", "u1"]
    assert table.uids_of("nope") == []
    assert table.per_source() == {"a": 2, "b": 1}
    assert table.sources() == ["a", "b"]
    table.remove("u0")
    assert len(table) == 2


def test_load_applies_versions_and_tombstones_in_log_order(tmp_path: Path) -> None:
    log = RecordLog(tmp_path / "records.jsonl")
    content = {"id": "x", "text": "t", "source": "s"}
    _, offsets = log.append(
        [
            record_line("a" * 32, "1" * 64, content),
            record_line("b" * 32, "2" * 64, content),
            record_line("a" * 32, "3" * 64, content),
            tombstone_line("b" * 32, "s", "x"),
        ]
    )
    table = Table()
    table.load(log)
    assert table.get("a" * 32) == ("3" * 64, offsets[2], "s")
    assert table.get("b" * 32) is None
    assert len(table) == 1
    log.close()
