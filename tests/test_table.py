"""The dedup table on its own: claims, in-flight rows, per-source views, kept on disk, rebuilt."""

from __future__ import annotations

from pathlib import Path

from memtrails.folder.log import RecordLog, record_line, tombstone_line
from memtrails.folder.table import IN_FLIGHT, TABLE_FILE, Table

U1, U2, U3, U9 = ("1" * 32, "2" * 32, "3" * 32, "9" * 32)
FP1, FP2 = ("a" * 64, "b" * 64)
CONTENT = {"id": "x", "text": "t", "source": "s"}


def test_claim_says_new_changed_unchanged_and_hides_in_flight_rows() -> None:
    table = Table()
    assert table.claim(U1, FP1, "s") == ("new", None)
    assert U1 not in table and len(table) == 0 and table.get(U1) is None  # in flight
    table.set(U1, FP1, 0, "s")
    assert U1 in table and table.get(U1) == (FP1, 0, "s")
    assert table.claim(U1, FP1, "s")[0] == "unchanged"
    verdict, previous = table.claim(U1, FP2, "s")
    assert verdict == "changed" and previous is not None
    assert U1 not in table and len(table) == 0  # the new version is on its way
    table.restore(U1, previous)  # the import failed before writing it
    assert table.get(U1) == (FP1, 0, "s") and len(table) == 1


def test_rows_are_read_by_name() -> None:
    table = Table()
    table.set(U1, FP1, 7, "s")
    live = table.get(U1)
    assert live is not None and (live.fp, live.offset, live.source) == (FP1, 7, "s")
    verdict, previous = table.claim(U1, FP2, "s")
    claimed = table.raw(U1)
    assert verdict == "changed" and previous is not None and previous.offset == 7
    assert claimed is not None and (claimed.fp, claimed.offset) == (FP2, IN_FLIGHT)
    assert claimed.source_id == previous.source_id


def test_per_source_views() -> None:
    table = Table()
    for i, (uid, source) in enumerate([(U1, "a"), (U2, "a"), (U3, "b")]):
        table.set(uid, FP1, i * 10, source)
    table.claim(U9, FP1, "a")  # in flight: counted nowhere
    assert sorted(table.uids_of("a")) == [U1, U2]
    assert table.uids_of("nope") == []
    assert table.per_source() == {"a": 2, "b": 1}
    assert table.sources() == ["a", "b"]
    table.remove(U1)
    assert len(table) == 2


def test_live_among_tells_the_live_records_as_get_does() -> None:
    table = Table()
    for i, uid in enumerate((U1, U2, U3)):
        table.set(uid, FP1, i, "s")
    table.remove(U2)  # forgotten
    table.claim(U3, FP2, "s")  # a new version on its way: not live until it is written
    uids = [U1, U2, U3, U9, "not-hex", U1]
    assert table.live_among(uids) == {U1} == {u for u in uids if table.get(u) is not None}
    many = [f"{i:032x}" for i in range(1200)]  # past one query's worth
    for uid in many[::3]:
        table.set(uid, FP1, 0, "s")
    assert table.live_among(many) == set(many[::3])


def _log(folder: Path) -> tuple[RecordLog, list[int]]:
    log = RecordLog(folder / "records.jsonl")
    _, offsets = log.append(
        [
            record_line(U1, FP1, CONTENT),
            record_line(U2, FP1, CONTENT),
            record_line(U1, FP2, CONTENT),
            tombstone_line(U2, "s", "x"),
        ]
    )
    return log, offsets


def test_load_applies_versions_and_tombstones_in_log_order(tmp_path: Path) -> None:
    log, offsets = _log(tmp_path)
    table = Table()
    table.load(log)
    assert table.get(U1) == (FP2, offsets[2], "s")
    assert table.get(U2) is None
    assert len(table) == 1
    log.close()


def test_kept_on_disk_reopening_reads_only_new_lines(tmp_path: Path) -> None:
    log, _ = _log(tmp_path)
    table, rebuilt = Table.open(tmp_path, log)
    assert rebuilt is None and len(table) == 1
    table.close()
    # A clean reopen reads no line; lines appended since are the only ones read.
    reopened, _ = Table.open(tmp_path, log)
    assert reopened.sync(log) == 0
    _, (offset,) = log.append([record_line(U3, FP1, {**CONTENT, "source": "t"})])
    assert reopened.sync(log) == 1 and reopened.get(U3) == (FP1, offset, "t")
    reopened.close()
    log.close()


def test_a_table_from_another_log_is_rebuilt_and_says_why(tmp_path: Path) -> None:
    log, _ = _log(tmp_path)
    table, _ = Table.open(tmp_path, log)
    table.close()
    log.close()
    # The log lost its last lines (restored from an older copy): the table covers more.
    path = tmp_path / "records.jsonl"
    path.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:2]))
    log = RecordLog(path)
    table, rebuilt = Table.open(tmp_path, log)
    assert rebuilt is not None and "covers" in rebuilt
    assert table.get(U2) is not None and table.get(U1) == (FP1, 0, "s")  # as the shorter log says
    table.close()
    # A damaged table file is rebuilt too.
    (tmp_path / TABLE_FILE).write_bytes(b"not a database" * 100)
    table, rebuilt = Table.open(tmp_path, log)
    assert rebuilt is not None and "unreadable" in rebuilt and len(table) == 2
    table.close()
    log.close()


def test_the_row_count_is_kept_across_reopens_and_a_stale_one_is_not_trusted(
    tmp_path: Path,
) -> None:
    log, _ = _log(tmp_path)
    table, _ = Table.open(tmp_path, log)
    table.set(U3, FP1, 0, "t")  # a new row
    table.set(U3, FP2, 0, "t")  # the same row again
    table.remove(U9)  # a row that is not there
    table.commit(log)
    assert len(table) == 2
    table.close()
    reopened, _ = Table.open(tmp_path, log)
    counted = []
    reopened._db.set_trace_callback(counted.append)
    assert len(reopened) == 2
    assert not [q for q in counted if "count(*)" in q]  # the saved count, not a recount
    reopened._db.set_trace_callback(None)
    reopened.remove(U3)
    assert len(reopened) == 1
    reopened.close()  # closes with the removal pending: the count goes with it
    again, _ = Table.open(tmp_path, log)
    assert len(again) == 1
    # A count saved at another log offset than the table's (a version that did not keep
    # it moved the offset) is recounted.
    again._db.execute("UPDATE meta SET value = '99@1' WHERE key = 'rows'")
    again._db.close()
    stale, _ = Table.open(tmp_path, log)
    assert len(stale) == 1
    stale.close()
    log.close()


# A search reads the table in worker threads; a cancelled request's folder closes meanwhile.
_CLOSED_WHILE_READ = """
import sys, threading
from pathlib import Path
from memtrails.folder.table import Table
path = Path(sys.argv[1])
table = Table(path)
for i in range(50_000):
    table.set(f"{i:032x}", f"{i:064x}", i, "notes")
table.close()
said = set()
for _ in range(12):
    table = Table(path)
    started = threading.Event()
    def read() -> None:
        started.set()
        try:
            while True:
                assert table.count_before(10**9) == 50_000
                table.live_among(f"{j:032x}" for j in range(0, 50_000, 97))
        except Exception as exc:
            said.add(str(exc))
    reader = threading.Thread(target=read)
    reader.start()
    started.wait()
    table.close()
    reader.join()
print(sorted(said))
"""


def test_closing_while_another_thread_reads_is_an_error_there_not_a_crash(
    tmp_path: Path,
) -> None:
    """Twelve times over, the table is closed while a thread is between (or inside) reads.
    Each read either ends whole or is told the table is closed; the process lives (before,
    sqlite freed the statement a read was stepping: a segmentation fault most runs)."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", _CLOSED_WHILE_READ, str(tmp_path / TABLE_FILE)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "['Cannot operate on a closed database.']"


def test_offsets_gives_every_row_once_across_its_pages(tmp_path: Path) -> None:
    """``offsets`` reads a page of rows at a time (a million are never held at once): every
    row comes once, the rows at the pages' edges too."""
    from memtrails.folder import table as module

    table = Table(tmp_path / TABLE_FILE)
    rows = {f"{i:032x}": i * 7 for i in range(2 * module._PAGE + 3)}
    for uid, offset in rows.items():
        table.set(uid, FP1, offset, "s")
    assert dict(table.offsets()) == rows
    table.close()
