"""What a watch finds again at each look: skipped files, a kept set that overlaps, a
repository gone at a restart, a file replaced by a pipe."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from gitrepos import linear
from helpers import until

from memtrails import Memory
from memtrails.service.jobs import Jobs
from memtrails.service.watch import Watch, Watched, WatchedPath, save_watched

pytestmark = pytest.mark.slow


def _imported_after(job: Any, when: float) -> Callable[[], bool]:
    return lambda: float(job.detail.get("last_import") or 0) > when


@pytest.fixture(params=[False, True], ids=["events", "polling"])
def poll(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def test_a_skipped_file_counts_once_until_it_changes(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    # Each change in the folder imported it again, and the binary file and the link were
    # counted as skipped again each time: 2, 4, 6, 8 ... for two files; unchanged likewise.
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text("# Garden\n\nPlant the tulips in October.\n")
    (notes / "scan.bin").write_bytes(bytes(range(256)) * 8)
    (notes / "hosts").symlink_to("/etc/hosts")
    watch = Watch(WatchedPath(str(notes), poll=poll), debounce=0.2, poll_every=0.2)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(watch)
        await until(_imported_after(job, 0))
        skipped = job.report.skipped
        assert skipped == 2, job.report.errors  # the binary file and the link
        for n in range(3):
            since = time.time()
            (notes / f"day-{n}.md").write_text(f"# Day {n}\n\nNothing happened on day {n}.\n")
            await until(_imported_after(job, since))
            await until(partial(memory.get, f"day-{n}.md"))
            assert job.report.skipped == skipped, [str(e) for e in job.report.errors]
        notes_now = len(list(notes.glob("*.md")))
        assert job.report.unchanged == notes_now - 1  # the latest look's, not a sum
        since = time.time()
        (notes / "scan.bin").write_bytes(bytes(range(255, -1, -1)) * 8)  # changed: again
        await until(lambda: job.report.skipped == skipped + 1)
        assert "scan.bin" in str(job.report.errors[-1])


async def test_a_kept_set_that_overlaps_follows_the_first_of_each_pair(
    tmp_path: Path, embedder: Any
) -> None:
    # A set kept by an older version (a folder and a folder in it, two paths of one
    # repository) stored each file twice; and the second watch of the repository failed
    # the service's start (another job imported its source).
    notes = tmp_path / "notes"
    (notes / "trips").mkdir(parents=True)
    (notes / "trips" / "orkney.md").write_text("# Orkney\n\nThe ferry leaves Scrabster at 7.\n")
    repo = linear(tmp_path / "repo", 2)
    (repo.path / "docs").mkdir()
    home = tmp_path / "m"
    kept = [
        WatchedPath(str(notes)),
        WatchedPath(str(notes / "trips")),
        WatchedPath(str(repo.path), git=True),
        WatchedPath(str(repo.path / "docs"), git=True),
    ]
    async with Memory.open(home, embedder=embedder) as memory, Jobs(memory) as jobs:
        save_watched(home, kept)
        watched = Watched(home, jobs, debounce=0.2)
        watched.start_all()
        await until(lambda: all(j.detail.get("last_import") for j in jobs.all()))
        rows = {row["path"]: row for row in watched.to_json()}
        assert len(jobs.all()) == 2
        for inner, why in ((notes / "trips", f"inside {notes}"), (repo.path / "docs", "repos")):
            assert rows[str(inner)]["state"] == "not followed"
            assert why in rows[str(inner)]["last_error"]
        status = await memory.status()
        assert str(notes / "trips") not in status.sources
        ferry = [r.source async for r in memory.records() if "Scrabster" in r.text]
        assert ferry == [str(notes)]
        assert watched.remove(str(notes / "trips")) and len(watched.to_json()) == 3


async def test_a_repository_gone_at_a_restart_is_waited_for(tmp_path: Path, embedder: Any) -> None:
    # Its source was named by asking git, which raised for a missing repository: the
    # service failed to start while one watched repository was away.
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory, Jobs(memory) as jobs:
        save_watched(home, [WatchedPath(str(tmp_path / "repo"), git=True)])
        watched = Watched(home, jobs, debounce=0.2)
        watched.start_all()
        (job,) = jobs.all()
        await until(lambda: "waiting" in str(job.detail.get("last_error")))
        (tmp_path / "repo").mkdir()  # a clone begins: a folder, no repository yet
        await until(lambda: "no Git repository" in str(job.detail.get("last_error")))
        shutil.rmtree(tmp_path / "repo")
        linear(tmp_path / "repo", 2)
        await until(lambda: job.report.added == 2)
        assert job.state == "running"


async def test_a_watched_file_replaced_by_a_pipe_never_blocks_the_watch(
    tmp_path: Path, embedder: Any
) -> None:
    # The change that replaced the file was imported before the watch looked at what was
    # there: the import opened the FIFO and waited for a writer, and the service's stop
    # waited with it.
    log = tmp_path / "chat.jsonl"
    log.write_text(json.dumps({"id": "a", "text": "The office moves to Leith."}) + "\n")
    try:
        watch = Watch(WatchedPath(str(log), poll=False), debounce=0.2, poll_every=0.2)
        async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
            job = jobs.start_live(watch)
            await until(_imported_after(job, 0))
            log.unlink()
            os.mkfifo(log)
            await until(lambda: "a pipe or a device" in str(job.detail.get("last_error")))
            log.unlink()
            log.write_text(json.dumps({"id": "b", "text": "The report is due Friday."}) + "\n")
            await until(partial(memory.get, "b"), 30)
    finally:  # a reader left waiting on the pipe gets its end of file
        with contextlib.suppress(OSError):
            os.close(os.open(log, os.O_WRONLY | os.O_NONBLOCK))
