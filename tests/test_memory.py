"""The memory folder: layout, lock, dedup, updates, forgetting, repair, sharing between tasks."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory
from memtrails._exceptions import MemoryClosedError, MemoryLockedError, ModelMismatchError
from memtrails.importers.jsonl import from_jsonl
from memtrails.records import MemoryRecord
from memtrails.testing import HashingEmbedder


def _log_lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


async def test_new_folder_layout(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest([{"id": "a", "text": "the first note"}])
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["format"] == 1
    assert manifest["embedding"]["model_id"] == "all-MiniLM-L6-v2-int8"
    assert manifest["embedding"]["dims"] == 384
    assert (folder / "index").is_dir()
    assert (
        json.loads((folder / "index.json").read_text())["log_offset"]
        == (folder / "records.jsonl").stat().st_size
    )
    (line,) = _log_lines(folder)
    assert line["id"] == "a" and line["text"] == "the first note" and line["source"] == "custom"
    assert len(line["uid"]) == 32 and len(line["fp"]) == 64


@pytest.mark.slow
async def test_second_opener_in_another_process_gets_a_clear_error(
    tmp_path: Path, embedder: Any
) -> None:
    folder = tmp_path / "mem"
    code = (
        "import asyncio, sys\n"
        "from memtrails.memory import Memory\n"
        "from memtrails._exceptions import MemoryLockedError\n"
        "async def main():\n"
        "    try:\n"
        f"        await Memory.open({str(folder)!r})\n"
        "    except MemoryLockedError as e:\n"
        "        print(e)\n"
        "        sys.exit(3)\n"
        "asyncio.run(main())\n"
    )
    async with Memory.open(folder, embedder=embedder):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", code, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        out, err = await proc.communicate()
    assert proc.returncode == 3, err.decode()
    message = out.decode()
    assert str(folder) in message
    assert f"process {os.getpid()}" in message
    # Released on close: opening again works.
    async with Memory.open(folder, embedder=embedder):
        pass


async def test_second_open_in_the_same_process_is_refused(tmp_path: Path, embedder: Any) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder):
        with pytest.raises(MemoryLockedError):
            await Memory.open(tmp_path / "m", embedder=embedder)


@pytest.mark.slow
async def test_rerun_over_unchanged_input_does_no_model_or_index_work(
    tmp_path: Path, embedder: Any, gsm8k_subset: Callable[[int], Path]
) -> None:
    path = gsm8k_subset(30)
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        first = await memory.ingest(from_jsonl(path))
        points = (await memory.status()).points
    assert (first.added, first.unchanged, first.embedded) == (30, 0, 30)
    log_size = (folder / "records.jsonl").stat().st_size

    async def must_not_load() -> Any:
        raise AssertionError("the model was loaded for unchanged input")

    async with Memory.open(folder, embedder=must_not_load) as memory:
        second = await memory.ingest(from_jsonl(path))
        st = await memory.status()
    assert (second.added, second.updated, second.unchanged, second.embedded) == (0, 0, 30, 0)
    assert (folder / "records.jsonl").stat().st_size == log_size
    assert (st.records, st.indexed, st.points) == (30, 30, points)


async def test_changed_record_is_updated_and_old_text_is_gone(
    tmp_path: Path, embedder: Any
) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest(
            [
                {"id": "n1", "text": "The launch moved to Tuesday."},
                {"id": "n2", "text": "Lunch is pizza."},
            ]
        )
        report = await memory.ingest(
            [{"id": "n1", "text": "The launch is cancelled, zebra protocol."}]
        )
        assert (report.added, report.updated) == (0, 1)
        record = await memory.get("n1")
        assert record is not None and record.text == "The launch is cancelled, zebra protocol."
        hits = await memory.search("zebra", k=1)
        assert hits[0].id == "n1"
        st = await memory.status()
        assert (st.records, st.indexed, st.points) == (2, 2, 2)
    # Latest line per uid wins after reopening, too.
    async with Memory.open(folder, embedder=embedder) as memory:
        record = await memory.get("n1")
        assert record is not None and "zebra" in record.text
    assert len(_log_lines(folder)) == 3


async def test_forget_writes_a_tombstone_and_removes_the_record_from_search(
    tmp_path: Path, embedder: Any
) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest(
            [
                {"id": "k1", "text": "Quokka sightings near the river"},
                {"id": "k2", "text": "Budget review"},
            ]
        )
        assert await memory.forget("k1") == 1
        assert await memory.get("k1") is None
        assert all(h.id != "k1" for h in await memory.search("quokka sightings"))
        assert await memory.forget("nope") == 0
    last = _log_lines(folder)[-1]
    assert last["deleted"] is True and last["id"] == "k1"
    async with Memory.open(folder, embedder=embedder) as memory:
        assert await memory.get("k1") is None
        st = await memory.status()
        assert (st.records, st.indexed) == (1, 1)


async def test_get_by_id_source_or_uid(tmp_path: Path, embedder: Any) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(
            [
                MemoryRecord(id="1", text="from a", source="a"),
                MemoryRecord(id="1", text="from b", source="b"),
            ]
        )
        got_a = await memory.get("1", source="a")
        assert got_a is not None and got_a.text == "from a"
        hits = await memory.search("from b", k=2)
        by_uid = await memory.get(next(h.uid for h in hits if h.source == "b"))
        assert by_uid is not None and by_uid.text == "from b"


async def test_torn_last_line_is_repaired_on_open(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest([{"id": "a", "text": "alpha"}])
    size = (folder / "records.jsonl").stat().st_size
    with (folder / "records.jsonl").open("ab") as f:
        f.write(b'{"uid":"0123456789abcdef0123456789abcdef","fp":"12')  # killed mid-write
    async with Memory.open(folder, embedder=embedder) as memory:
        assert (await memory.status()).records == 1
    assert (folder / "records.jsonl").stat().st_size == size


async def test_index_catches_up_from_the_log_on_open(tmp_path: Path, embedder: Any) -> None:
    """Lines the log holds but the index missed (a crash before the flush) are indexed on open."""
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest([{"id": "a", "text": "alpha"}])
    checkpoint = json.loads((folder / "index.json").read_text())
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest(
            [{"id": "b", "text": "the pelican report"}, {"id": "c", "text": "gamma"}]
        )
    # Roll the checkpoint back as if the process died after the log write.
    (folder / "index.json").write_text(json.dumps(checkpoint))
    async with Memory.open(folder, embedder=embedder) as memory:
        st = await memory.status()
        assert (st.records, st.indexed, st.pending_bytes) == (3, 3, 0)
        assert (await memory.search("pelican", k=1))[0].id == "b"


async def test_reindex_rebuilds_from_the_log_alone(tmp_path: Path, embedder: Any) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=embedder) as memory:
        await memory.ingest([{"id": str(i), "text": f"note {i} about walruses"} for i in range(5)])
        await memory.forget("3")
        assert await memory.reindex() == 4
        st = await memory.status()
        assert (st.records, st.indexed, st.points) == (4, 4, 4)


async def test_one_memory_shared_by_concurrent_tasks(tmp_path: Path, embedder: Any) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        reports = await asyncio.gather(
            memory.ingest(
                [{"id": f"a{i}", "text": f"apple note {i}"} for i in range(20)], name="a", batch=4
            ),
            memory.ingest(
                [{"id": f"b{i}", "text": f"banana note {i}"} for i in range(20)], name="b", batch=4
            ),
            memory.search("apple"),
        )
        assert reports[0].added == 20 and reports[1].added == 20
        st = await memory.status()
        assert (st.records, st.indexed) == (40, 40)
        assert st.sources == {"a": 20, "b": 20}


async def test_folder_remembers_its_model(tmp_path: Path, embedder: Any) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest([{"id": "a", "text": "alpha"}])
    with pytest.raises(
        ModelMismatchError, match=r"all-MiniLM-L6-v2-int8.*hashing-words-384.*new memory folder"
    ):
        await Memory.open(tmp_path / "m", embedder=HashingEmbedder())
    # The failed open released the lock.
    async with Memory.open(tmp_path / "m", embedder=embedder):
        pass


async def test_closed_memory_says_so(tmp_path: Path, embedder: Any) -> None:
    memory = await Memory.open(tmp_path / "m", embedder=embedder)
    await memory.aclose()
    await memory.aclose()  # twice is fine
    with pytest.raises(MemoryClosedError, match="open it again"):
        await memory.ingest([])


async def test_search_filters(tmp_path: Path, embedder: Any) -> None:
    records = [
        MemoryRecord(
            id="m1",
            text="Deploy the billing service",
            kind="mail",
            author="Ann",
            at="2024-01-05T10:00:00Z",
        ),
        MemoryRecord(
            id="c1",
            text="Deploy the billing service today",
            kind="chat",
            author="Bob",
            at="2024-03-05T10:00:00Z",
        ),
        MemoryRecord(
            id="c2",
            text="Billing deploy went fine",
            kind="chat",
            author="Ann",
            at="2024-06-05T10:00:00Z",
        ),
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(records)
        assert {h.id for h in await memory.search("deploy billing", kind="chat")} == {"c1", "c2"}
        assert {h.id for h in await memory.search("deploy billing", author="Ann")} == {"m1", "c2"}
        assert {h.id for h in await memory.search("deploy billing", since="2024-02-01")} == {
            "c1",
            "c2",
        }
        assert {h.id for h in await memory.search("deploy billing", until="2024-02-01")} == {"m1"}
        hit = (await memory.search("billing deploy went fine", k=1))[0]
        assert (hit.id, hit.kind, hit.author, hit.at and hit.at.iso()) == (
            "c2",
            "chat",
            "Ann",
            "2024-06-05T10:00:00.000Z",
        )
        assert "Billing deploy went fine" in hit.snippet


async def test_a_qdrant_server_index_behind_the_same_memory(tmp_path: Path, embedder: Any) -> None:
    """The scale-out path: the index is a Qdrant server (here qdrant-client's local mode)."""
    from qdrant_client import AsyncQdrantClient

    from memtrails.folder.index.server import ServerIndex

    client = AsyncQdrantClient(location=":memory:")
    index = await ServerIndex.open(client, dims=384, own_client=True)
    async with Memory.open(tmp_path / "m", embedder=embedder, index=index) as memory:
        await memory.ingest(
            [
                {"id": "s1", "text": "The heron nests by the north pond"},
                {"id": "s2", "text": "Invoice 88231 is overdue"},
            ]
        )
        assert (await memory.search("88231", k=1))[0].id == "s2"
        assert (await memory.search("where do the birds nest?", k=1))[0].id == "s1"
        st = await memory.status()
        assert (st.records, st.indexed, st.index["kind"]) == (2, 2, "qdrant-server")
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["index"]["kind"] == "qdrant-server"


async def test_same_id_twice_in_one_source_keeps_the_first_and_reruns_stay_put(
    tmp_path: Path, embedder: Any
) -> None:
    items = [
        {"id": "m1", "text": "first copy of the message"},
        {"id": "m1", "text": "first copy of the message"},  # an identical copy: unchanged
        {"id": "m1", "text": "a different message that reused the id"},
    ]
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await memory.ingest(items)
        assert (first.added, first.unchanged, first.skipped) == (1, 1, 1)
        assert "same id and other content" in first.errors[0].reason
        again = await memory.ingest(items)
        assert (again.added, again.updated, again.unchanged, again.skipped, again.embedded) == (
            0,
            0,
            2,
            1,
            0,
        )
        record = await memory.get("m1")
        assert record is not None and record.text == "first copy of the message"


@pytest.mark.slow
async def test_an_import_waits_for_a_brief_reader_but_not_for_another_writer(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "a", "text": "alpha"}])

    reader = await Memory.open(folder, embedder=HashingEmbedder(), brief=True)  # a search

    async def finish_reading() -> None:
        await asyncio.sleep(0.5)
        await reader.aclose()

    async with asyncio.TaskGroup() as tasks:
        tasks.create_task(finish_reading())
        async with Memory.open(folder, embedder=HashingEmbedder()) as writer:  # waits
            assert (await writer.ingest([{"id": "b", "text": "beta"}])).added == 1

    async with Memory.open(folder, embedder=HashingEmbedder()):
        with pytest.raises(MemoryLockedError):
            await Memory.open(folder, embedder=HashingEmbedder())


async def test_a_folder_indexed_with_older_keyword_weights_says_to_reindex(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "a", "text": "alpha beta"}])
        assert not [r for r in memory.repairs if "reindex" in r]
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["keywords"]["weight"] = "count"  # what the first release wrote
    (folder / "manifest.json").write_text(json.dumps(manifest))
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert [r for r in memory.repairs if "memtrails reindex" in r]
        assert await memory.reindex() == 1
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert not [r for r in memory.repairs if "reindex" in r]
