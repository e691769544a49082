"""The one write path on its own: log before index, the flush timer, tombstones, replay."""

from __future__ import annotations

import json
from pathlib import Path

from memtrails.folder.index.edge import EdgeIndex
from memtrails.folder.log import RecordLog
from memtrails.folder.manifest import read_checkpoint
from memtrails.folder.replay import log_batches
from memtrails.folder.table import Table
from memtrails.folder.writer import Writer
from memtrails.items import Staged, embed_text
from memtrails.keys import fingerprint, record_uid
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder


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
            Staged(record, uid=record_uid("notes", record.id), fp=fingerprint(record), update=update)
        )
    vectors = await embedder.embed([embed_text(s.record) for s in out])
    for staged, passages in zip(out, vectors, strict=True):
        staged.passages = passages
    return out


async def _open(folder: Path, clock: Clock) -> tuple[Writer, RecordLog, Table, EdgeIndex]:
    folder.mkdir(exist_ok=True)
    log = RecordLog(folder / "records.jsonl")
    table = Table()
    table.load(log)
    index = await EdgeIndex.open(folder / "index", dims=384)
    return Writer(folder, log, table, index, read_checkpoint(folder), clock=clock), log, table, index


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


def test_only_the_writer_writes_the_log_the_index_and_the_checkpoint() -> None:
    """The one write path, held by the code itself: no other module calls the writing methods."""
    import ast

    import memtrails

    package = Path(memtrails.__file__).parent
    writing = {"upsert", "delete_uids", "write_checkpoint"}
    callers: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        where = str(path.relative_to(package))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            receiver = ast.unparse(func.value) if isinstance(func, ast.Attribute) else ""
            if name in writing or (name == "append" and receiver.endswith("log")):
                callers.setdefault(where, set()).add(name)
            # a function handed to a thread counts as called there
            if name == "to_thread" and node.args:
                target = node.args[0]
                handed = target.attr if isinstance(target, ast.Attribute) else ""
                handed = target.id if isinstance(target, ast.Name) else handed
                if handed in writing or (handed == "append" and "log" in ast.unparse(target)):
                    callers.setdefault(where, set()).add(handed)
    # The index backends call their own clients; everything else goes through the writer.
    outside = {
        where: names
        for where, names in callers.items()
        if where != "folder/writer.py" and not where.startswith("folder/index/")
    }
    assert callers["folder/writer.py"] >= {"upsert", "delete_uids", "append", "write_checkpoint"}
    assert outside == {}
