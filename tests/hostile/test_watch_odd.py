"""Watched paths and imports given odd things: the memory folder itself, a FIFO, a device, a
file that becomes a folder, a long import, a path named thousands of times."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from memtrails import Memory
from memtrails.service.imports import ImportRequest, plan_import
from memtrails.service.jobs import Job, Jobs
from memtrails.service.watch import Watch, Watched, WatchedPath
from memtrails.service.watch_routes import watch_routes
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.slow

_WAIT = 30.0  # the longest any condition below is waited for: a bound, never a measure


async def _until(check: Callable[[], bool | Awaitable[bool]], what: str) -> None:
    """Wait until ``check`` holds (fail, never hang, past :data:`_WAIT` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + _WAIT
    while True:
        held = check()
        if not isinstance(held, bool):
            held = await held
        if held:
            return
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not within {_WAIT} s")
        await asyncio.sleep(0.05)


def _lines(ids: Sequence[str], about: str = "otters") -> str:
    return "".join(json.dumps({"id": i, "text": f"note {i} about {about}"}) + "\n" for i in ids)


async def _has(memory: Memory, id: str) -> bool:
    return any(hit.id == id for hit in await memory.search(f"note {id}", k=20))


def _release(fifo: Path) -> None:
    """Give a reader blocked on ``fifo`` (the old code's) a writer, so the test never hangs."""
    with contextlib.suppress(OSError):  # no reader waits on it
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    yield path
    _release(path)


async def test_the_memory_folder_and_its_files_are_never_watched(tmp_path: Path) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory, Jobs(memory) as jobs:
        await memory.ingest([{"id": "a", "text": "one record, so the log exists"}])
        log = home / "records.jsonl"
        watched = Watched(home, jobs, debounce=0.1)
        for path in (home, log):
            with pytest.raises(ValueError, match="memory folder"):
                watched.add(WatchedPath(str(path)))
        assert watched.paths == {}
        app = Starlette(routes=watch_routes(watched))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as client:
            answer = await client.post("/v1/watch", json={"path": str(log)})
        assert answer.status_code == 400 and "memory folder" in answer.text
        # One kept in an older watched set (or given to `serve --watch`) fails its job, said
        # why, instead of importing the log into itself after every write it makes.
        size = log.stat().st_size
        job = jobs.start_live(Watch(WatchedPath(str(log)), debounce=0.1, poll_every=0.1, home=home))
        await _until(lambda: job.state != "running", "the watch of the log ended")
        assert job.state == "failed" and "memory folder" in str(job.error)
        assert log.stat().st_size == size


async def test_a_pipe_or_a_device_is_refused_and_one_kept_never_blocks_the_stop(
    tmp_path: Path, fifo: Path
) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        async with Jobs(memory) as jobs:
            watched = Watched(home, jobs, debounce=0.1)
            for path in (fifo, Path("/dev/null"), Path("/dev/zero")):
                with pytest.raises(ValueError, match="pipe or a device"):
                    watched.add(WatchedPath(str(path)))
            # A FIFO kept in the watched set: it is said in the job, never opened (opening it
            # waits for a writer, and the service's stop waited with it).
            job = jobs.start_live(Watch(WatchedPath(str(fifo)), poll_every=0.1, home=home))

            def said() -> bool:
                return "pipe or a device" in str(job.detail.get("last_error"))

            try:
                await _until(said, "the watch says the FIFO is a pipe")
            finally:
                _release(fifo)
            assert job.error is None
        assert job.state == "cancelled"


@pytest.mark.parametrize("poll", [False, True], ids=["events", "polling"])
async def test_a_watched_file_that_becomes_a_folder_is_followed_inside_it(
    tmp_path: Path, poll: bool
) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text(_lines(["f1"]))
    async with (
        Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory,
        Jobs(memory) as jobs,
    ):
        watch = Watch(WatchedPath(str(log), poll=poll), debounce=0.1, poll_every=0.1)
        job = jobs.start_live(watch)
        await _until(lambda: _has(memory, "f1"), "f1 found")
        log.unlink()
        log.mkdir()
        (log / "inside.jsonl").write_text(_lines(["d1"]))
        await _until(lambda: _has(memory, "d1"), "d1, the folder's first file, found")
        with (log / "inside.jsonl").open("a") as f:
            f.write(_lines(["d2"]))
        (log / "another.jsonl").write_text(_lines(["d3"]))
        await _until(lambda: _has(memory, "d2"), "d2, appended in the folder, found")
        await _until(lambda: _has(memory, "d3"), "d3, a new file in the folder, found")
        assert job.state == "running"


def _inotify_watches() -> int:
    """Return the OS watches this process holds (Linux: counted in /proc/self/fdinfo)."""
    count = 0
    for fd in os.listdir("/proc/self/fdinfo"):
        try:
            count += Path(f"/proc/self/fdinfo/{fd}").read_text().count("inotify wd")
        except OSError:
            continue
    return count


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts inotify watches")
async def test_a_watched_file_is_followed_without_watching_the_tree_beside_it(
    tmp_path: Path,
) -> None:
    for n in range(40):
        (tmp_path / "projects" / f"p{n}" / "src").mkdir(parents=True)
    log = tmp_path / "chat.jsonl"
    log.write_text(_lines(["w1"]))
    async with (
        Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory,
        Jobs(memory) as jobs,
    ):
        before = _inotify_watches()
        job = jobs.start_live(Watch(WatchedPath(str(log), poll=False), debounce=0.1))
        await _until(lambda: job.detail.get("last_import") is not None, "the first import")
        # One watch on the file's folder; not one per folder under it (81 of them here).
        assert _inotify_watches() - before <= 2
        with log.open("a") as f:
            f.write(_lines(["w2"]))
        await _until(lambda: _has(memory, "w2"), "w2, appended, found")


class _Gated(HashingEmbedder):
    """Embeds the first call at once, then waits for ``gate`` (an import held mid-way)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> Any:
        if self.calls >= 1:
            await self.gate.wait()
        return await super().embed(texts)


def _added(job: Job, count: int) -> Callable[[], bool]:
    return lambda: job.report.added == count


async def test_a_watch_shows_the_records_of_a_long_import_as_they_land(tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    log.write_text(_lines([f"b{n}" for n in range(300)]))
    embedder = _Gated()
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        watched = Watched(tmp_path / "m", jobs, debounce=0.1)
        job = watched.add(WatchedPath(str(log)))
        try:
            # The import is held after its first batch: the list shows what landed.
            await _until(lambda: bool(job.detail.get("importing")), "records shown as they land")
            # the job's report stays the total of the imports that finished
            assert job.detail.get("last_import") is None and job.report.added == 0
            assert watched.to_json()[0]["added"] == job.detail["importing"] > 0
        finally:
            embedder.gate.set()
        await _until(_added(job, 300), "the whole file imported")
        for n in range(5):  # five more imports, one a change
            with log.open("a") as f:
                f.write(_lines([f"c{n}"]))
            await _until(_added(job, 301 + n), f"import {n}, of c{n}")
        # One line per source read, not one per import: a watch lives for months.
        assert [read.source for read in job.report.sources] == [str(log)]
        assert job.report.added == 305 and job.detail["importing"] is None


def _job_of(jobs: Jobs, runner: Callable[[Job], Awaitable[Any]], what: str) -> Job:
    return jobs.start("import", what, (what,), runner)


async def test_an_import_of_the_memory_folder_or_its_log_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "m"
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest([{"id": "a", "text": "one record, so the log exists"}])
        for path in (home / "records.jsonl", home / "index", home / "." / "records.jsonl"):
            with pytest.raises(ValueError, match="memory folder"):
                await plan_import(memory, ImportRequest(paths=[str(path)]))


async def test_a_path_named_many_times_is_read_once_and_named_once(tmp_path: Path) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text(_lines(["n1", "n2"]))
    same = [str(log), str(tmp_path / "." / "chat.jsonl"), *[str(log)] * 3000]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        async with Jobs(memory) as jobs:
            what, sources, runner = await plan_import(memory, ImportRequest(paths=same))
            assert what == str(log) and sources == (str(log),)
            job = _job_of(jobs, runner, what)
            await asyncio.wait_for(jobs.wait(job), _WAIT)
        assert job.state == "done", job.error
        assert job.report.added == 2 and len(job.report.sources) == 1
