"""The one write path on its own: log before index, the flush timer, tombstones, replay."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from memtrails.folder.index._base import IndexBackend
from memtrails.folder.index.deferred import DeferredIndex
from memtrails.folder.log import RecordLog
from memtrails.folder.manifest import read_checkpoint
from memtrails.folder.points import points_for
from memtrails.folder.replay import log_batches
from memtrails.folder.table import Table
from memtrails.folder.writer import Writer
from memtrails.items import Staged, embed_text
from memtrails.keys import fingerprint, record_uid
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder, MemoryIndex


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _staged(embedder: HashingEmbedder, *texts: str, update: bool = False) -> list[Staged]:
    out = []
    for i, text in enumerate(texts):
        record = MemoryRecord(id=f"n{i}", text=text, source="notes")
        out.append(
            Staged(
                record, uid=record_uid("notes", record.id), fp=fingerprint(record), update=update
            )
        )
    vectors = await embedder.embed([embed_text(s.record) for s in out])
    for staged, passages in zip(out, vectors, strict=True):
        staged.passages = passages
    return out


async def _open(folder: Path, clock: Clock) -> tuple[Writer, RecordLog, Table, MemoryIndex]:
    folder.mkdir(exist_ok=True)
    log = RecordLog(folder / "records.jsonl")
    table = Table()
    table.load(log)
    index = MemoryIndex()  # the write path, not Qdrant, is under test
    return (
        Writer(folder, log, table, index, read_checkpoint(folder), clock=clock),
        log,
        table,
        index,
    )


async def test_writes_reach_the_log_at_once_and_the_checkpoint_on_the_timer(tmp_path: Path) -> None:
    clock = Clock()
    embedder = HashingEmbedder()
    writer, log, table, index = await _open(tmp_path, clock)
    await writer.write(await _staged(embedder, "alpha beta", "gamma delta"))
    lines = (tmp_path / "records.jsonl").read_bytes().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["n0", "n1"]  # durable now
    assert len(table) == 2 and await index.count_records() == 2
    assert writer.checkpoint == 0 and read_checkpoint(tmp_path) == 0  # not flushed yet

    clock.now = 1.0  # under the 2 s flush interval: still no flush
    await writer.write(await _staged(embedder, "epsilon"))
    assert read_checkpoint(tmp_path) == 0
    clock.now = 2.5  # past it: the next write flushes and advances over everything
    await writer.write(await _staged(embedder, "zeta eta theta", update=True))
    assert read_checkpoint(tmp_path) == writer.checkpoint == log.size
    await writer.aclose()
    await index.aclose()
    log.close()


async def test_forget_tombstones_and_deletes_points(tmp_path: Path) -> None:
    clock = Clock()
    writer, log, table, index = await _open(tmp_path, clock)
    staged = await _staged(HashingEmbedder(), "one", "two")
    await writer.write(staged)
    assert await writer.forget([staged[0].uid, "0" * 32]) == 1  # an unknown uid is ignored
    last = json.loads((tmp_path / "records.jsonl").read_bytes().splitlines()[-1])
    assert last == {"uid": staged[0].uid, "deleted": True, "source": "notes", "id": "n0"}
    assert staged[0].uid not in table and await index.count_records() == 1
    await writer.flush()
    assert read_checkpoint(tmp_path) == log.size
    await writer.aclose()
    await index.aclose()
    log.close()


async def test_replay_indexes_what_reached_the_log_but_not_the_index(tmp_path: Path) -> None:
    """A crash after the log write: the lines past the checkpoint are indexed again."""
    clock = Clock()
    embedder = HashingEmbedder()
    writer, log, table, index = await _open(tmp_path, clock)
    staged = await _staged(embedder, "kept", "changed later", "forgotten later")
    await writer.write(staged)
    await writer.write([(await _staged(embedder, "kept", "changed now", update=True))[1]])
    await writer.forget([staged[2].uid])
    await writer.reset()  # the index lost everything; the checkpoint is back at 0
    assert await index.count_points() == 0 and writer.checkpoint == 0

    indexed = 0
    async for batch in log_batches(log, table, 0, log.size, size=2):
        vectors = await embedder.embed([embed_text(s.record) for s in batch])
        for item, passages in zip(batch, vectors, strict=True):
            item.passages = passages
        indexed += await writer.replay(batch)
    await writer.flush()
    # Only the current versions are indexed: n0, and n1 as changed; n2 stays forgotten.
    assert indexed == 2 and await index.count_records() == 2
    assert writer.checkpoint == log.size == read_checkpoint(tmp_path)
    await writer.aclose()
    await index.aclose()
    log.close()


async def test_an_index_repaired_on_its_first_use_is_emptied_under_the_writers_lock(
    tmp_path: Path,
) -> None:
    """The first use of an index loaded late may find it out of step and empty it: never in
    the middle of a write, and a write that is itself the first use does not wait on itself."""
    clock = Clock()
    embedder = HashingEmbedder()
    writer, log, table, stale = await _open(tmp_path, clock)
    await writer.write(await _staged(embedder, "one", "two"))
    inner = MemoryIndex()
    await inner.upsert([p for s in await _staged(embedder, "old") for p in points_for([s])])

    async def load() -> IndexBackend:
        return inner

    async def out_of_step(index: IndexBackend, checkpoint: int) -> str | None:
        return "out of step"

    deferred = DeferredIndex(load, {"kind": "memory"})
    late = Writer(tmp_path, log, table, deferred, 0, clock=clock)
    found: list[str | None] = []

    async def first_use(index: IndexBackend) -> None:
        found.append(await late.verify_index(index, out_of_step))

    deferred.first_use = first_use
    async with late._lock:  # a write in progress holds the lock
        counting = asyncio.ensure_future(deferred.count_points())
        await asyncio.sleep(0.05)
        assert not counting.done() and await inner.count_points() == 1  # not emptied yet
    assert await counting == 0 and found == ["out of step"] and late.checkpoint == 0

    # A write that is the first use: loaded (and checked) before the writer's lock is taken.
    deferred2 = DeferredIndex(load, {"kind": "memory"})
    again = Writer(tmp_path, log, table, deferred2, 0, clock=clock)

    async def check2(index: IndexBackend) -> None:
        found.append(await again.verify_index(index, out_of_step))

    deferred2.first_use = check2
    await asyncio.wait_for(again.write(await _staged(embedder, "three")), 5)
    assert found == ["out of step", "out of step"] and await inner.count_records() == 1
    for w in (writer, late, again):
        await w.aclose()
    await stale.aclose()
    log.close()


# -- the write path is closed: what writes, and where it may be called ---------------------------

WRITER_MODULES = {"folder/writer.py"}
LOG_WRITES = {"append", "repair"}  # on a RecordLog
TABLE_WRITES = {"claim", "restore", "set", "remove", "commit", "sync", "load", "open", "rebuild"}
INDEX_WRITES = {"upsert", "delete_uids", "set_owner"}  # plus an awaited clear(), optimize()
SQL_CALLS = {"execute", "executemany", "executescript"}
# The backends implement and delegate the index's writes; table.py and log.py run their own
# (the SQL and file calls inside the methods above, table.py's through its connection's
# module); manifest.py writes the files it defines.
OWN = {
    "log": {"folder/log.py"},
    "table": {"folder/table.py"},
    "sql": {"folder/table.py", "folder/_connection.py"},
}


def _manifest_writes() -> set[str]:
    from memtrails.folder import manifest

    return {name for name in manifest.__all__ if name.startswith("write_")} - {"write_json_atomic"}


def _writes(source: str) -> list[tuple[str, str, str | None]]:
    """Return ``(kind, name, enclosing function)`` of each write of a folder's parts in
    ``source``: a call, or a function handed to ``to_thread``."""
    import ast

    tree = ast.parse(source)
    manifest_writes = _manifest_writes()
    awaited = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Await)}
    enclosing: dict[int, str] = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(fn):
                enclosing.setdefault(id(inner), fn.name) if inner is not fn else None
    # Innermost function wins: walk again, deepest last.
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(fn):
                if inner is not fn:
                    enclosing[id(inner)] = fn.name

    def kind_of(func: ast.expr, call: ast.Call | None) -> tuple[str, str] | None:
        if isinstance(func, ast.Name):
            name, receiver = func.id, ""
        elif isinstance(func, ast.Attribute):
            name, receiver = func.attr, ast.unparse(func.value).lower()
        else:
            return None
        if name in manifest_writes or name == "write_json_atomic":
            return ("manifest" if name != "write_json_atomic" else "json"), name
        if receiver.endswith("log") and name in LOG_WRITES:
            return "log", name
        if receiver.endswith("table") and (name in TABLE_WRITES or name.startswith("_")):
            return "table", name
        if name in SQL_CALLS and (receiver.endswith("_db") or "table" in receiver):
            return "sql", name
        if name in INDEX_WRITES:
            return "index", name
        is_awaited = call is not None and id(call) in awaited
        if name == "clear" and is_awaited:  # a dict's or a set's clear() is not awaited
            return "index", name
        if name == "optimize" and ("index" in receiver or "backend" in receiver):
            return "index", name
        return None

    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        hit = kind_of(node.func, node)
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if hit is None and name == "to_thread" and node.args:
            hit = kind_of(node.args[0], None)
        if hit is not None:
            found.append((hit[0], hit[1], enclosing.get(id(node))))
    return found


def _sql_writes_outside_write_methods(source: str) -> list[str]:
    """Return the functions of table.py that run a writing SQL statement but are neither a
    writing method nor private."""
    import ast

    bad = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, ast.FunctionDef) or fn.name in TABLE_WRITES or fn.name[0] == "_":
            continue
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in SQL_CALLS
            ):
                first = node.args[0] if node.args else None
                if isinstance(first, ast.JoinedStr) and first.values:  # an f-string: its start
                    first = first.values[0]
                text = first.value if isinstance(first, ast.Constant) else None
                reads = isinstance(text, str) and text.lstrip().upper().startswith(
                    ("SELECT", "PRAGMA TABLE_INFO")
                )
                if node.func.attr != "execute" or not reads:
                    bad.append(fn.name)
    return bad


def test_the_write_scanner_sees_each_kind_of_write() -> None:
    """The scanner below is what guards the write path: it must see each way of writing."""
    sample = """
async def f(folder, index, backend, log, table):
    await index.clear()
    backend.upsert([])
    await asyncio.to_thread(folder.log.append, [b"x"])
    log.repair()
    folder.table.claim("u", "f", "s")
    table._begin()
    folder.table._db.execute("DELETE FROM records")
    await asyncio.to_thread(write_manifest_file, folder.path, {})
    write_checkpoint(folder.path, 0)
    self.claimed.clear()
    folder.table.get("u")
    log.read_line(0)
"""
    kinds = sorted((kind, name) for kind, name, _ in _writes(sample))
    assert kinds == [
        ("index", "clear"),
        ("index", "upsert"),
        ("log", "append"),
        ("log", "repair"),
        ("manifest", "write_checkpoint"),
        ("manifest", "write_manifest_file"),
        ("sql", "execute"),
        ("table", "_begin"),
        ("table", "claim"),
    ]
    assert _sql_writes_outside_write_methods(
        "class T:\n    def get(self):\n        self._db.execute('UPDATE records SET raw = 1')\n"
        "    def known(self):\n        self._db.execute('SELECT raw FROM records')\n"
    ) == ["get"]


def test_only_the_writer_writes_the_log_the_table_the_index_and_the_manifest() -> None:
    """The one write path, held by the code itself: every change to the log, the table (its
    SQL included), the index (its clearing and owner mark included) and the manifest or the
    index checkpoint is made in the writer's module; elsewhere none is."""
    import memtrails

    package = Path(memtrails.__file__).parent
    callers: dict[str, set[tuple[str, str]]] = {}
    for path in package.rglob("*.py"):
        where = str(path.relative_to(package))
        for kind, name, _fn in _writes(path.read_text(encoding="utf-8")):
            if where in WRITER_MODULES or where in OWN.get(kind, set()):
                allowed = True
            elif kind == "index":
                allowed = where.startswith("folder/index/")
            elif kind == "manifest":
                allowed = where == "folder/manifest.py"
            elif kind == "json":  # manifest.json and index.json: the writer's; sources.json
                # and moved.json (where sources are read from) are their modules' own
                allowed = where in {"folder/manifest.py", "folder/positions.py", "folder/moves.py"}
            else:
                allowed = False
            if not allowed or where in WRITER_MODULES:
                callers.setdefault(where, set()).add((kind, name))
    writer = callers.pop("folder/writer.py")
    assert callers == {}
    assert writer >= {
        ("log", "append"),
        ("log", "repair"),
        ("table", "claim"),
        ("table", "restore"),
        ("table", "set"),
        ("table", "remove"),
        ("table", "commit"),
        ("table", "open"),
        ("index", "upsert"),
        ("index", "delete_uids"),
        ("index", "clear"),
        ("index", "set_owner"),
        ("manifest", "write_checkpoint"),
        ("manifest", "write_manifest"),
        ("manifest", "write_manifest_file"),
    }
    table_source = (package / "folder" / "table.py").read_text(encoding="utf-8")
    assert _sql_writes_outside_write_methods(table_source) == []
