"""records.jsonl on its own: appends, offsets, torn lines, the fast scan, damaged lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtrails._exceptions import FolderFormatError
from memtrails.folder.log import LogEntry, RecordLog, record_line, tombstone_line
from memtrails.keys import fingerprint, record_uid
from memtrails.records import MemoryRecord


def _line(id: str, text: str, source: str = "notes") -> tuple[str, bytes]:
    record = MemoryRecord(id=id, text=text, source=source)
    uid = record_uid(source, id)
    return uid, record_line(uid, fingerprint(record), record.to_json())


def test_append_returns_offsets_that_read_back(tmp_path: Path) -> None:
    log = RecordLog(tmp_path / "records.jsonl")
    lines = [_line("a", "first"), _line("b", 'second, with ünïcode and "quotes"')]
    end, offsets = log.append([line for _, line in lines])
    assert end == log.size == (tmp_path / "records.jsonl").stat().st_size
    assert [log.read_line(o)["id"] for o in offsets] == ["a", "b"]
    assert log.read_line(offsets[1])["text"] == 'second, with ünïcode and "quotes"'
    log.close()


def test_scan_reads_the_prefix_without_a_full_parse_and_agrees_with_json(tmp_path: Path) -> None:
    log = RecordLog(tmp_path / "records.jsonl")
    uid_a, line_a = _line("a", "x" * 100_000, source='a "quoted" source')
    uid_b, line_b = _line("b", "y")
    log.append([line_a, line_b, tombstone_line(uid_a, 'a "quoted" source', "a")])
    entries = list(log.scan())
    assert [(e.uid, e.fp is None, e.source) for e in entries] == [
        (uid_a, False, 'a "quoted" source'),
        (uid_b, False, "notes"),
        (uid_a, True, 'a "quoted" source'),
    ]
    parsed = [json.loads(line) for line in (tmp_path / "records.jsonl").read_bytes().splitlines()]
    assert [e.fp for e in entries[:2]] == [parsed[0]["fp"], parsed[1]["fp"]]
    assert entries[1] == LogEntry(len(line_a), uid_b, parsed[1]["fp"], "notes")
    log.close()


def test_repair_cuts_a_torn_last_line_only(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    _, whole = _line("a", "kept")
    _, torn = _line("b", "lost in a crash")
    path.write_bytes(whole + torn[: len(torn) // 2])
    log = RecordLog(path)
    assert log.repair() == len(torn) // 2
    assert path.read_bytes() == whole
    assert log.repair() == 0
    assert [e.uid for e in log.scan()] == [record_uid("notes", "a")]
    log.close()


def test_a_damaged_line_is_an_error_naming_the_file_and_byte(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    _, good = _line("a", "fine")
    path.write_bytes(good + b'{"uid": not json}\n')
    log = RecordLog(path)
    with pytest.raises(FolderFormatError, match=rf"records.jsonl: line at byte {len(good)}"):
        list(log.scan())
    log.close()


def test_lines_yields_offsets_next_offsets_and_objects(tmp_path: Path) -> None:
    log = RecordLog(tmp_path / "records.jsonl")
    end, offsets = log.append([_line(str(i), f"text {i}")[1] for i in range(5)])
    got = list(log.lines(offsets[1], offsets[4]))
    assert [obj["id"] for _, _, obj in got] == ["1", "2", "3"]
    assert [nxt for _, nxt, _ in got] == [offsets[2], offsets[3], offsets[4]]
    assert list(log.lines(end)) == []
    log.close()
