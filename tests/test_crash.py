"""Crash safety for real: an importing child process is killed with SIGKILL at random moments."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtrails import Memory
from memtrails.importers.jsonl import from_jsonl

CHILD = """
import asyncio, sys
from memtrails.importers.jsonl import from_jsonl
from memtrails import Memory

async def main(folder, path):
    def progress(report):
        print("added", report.added + report.updated, flush=True)
    # MiniLM by name: the parent reopens the folder with the suite's MiniLM fixture.
    async with Memory.open(folder, model="minilm", threads=1) as memory:
        print("open", flush=True)
        await memory.ingest(from_jsonl(path), batch=8, on_progress=progress)
    print("done", flush=True)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def _run_and_kill(folder: Path, path: Path, rng: random.Random, after_batches: int) -> int:
    """Start an import, SIGKILL it at a random moment, return the most it reported added."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CHILD, str(folder), str(path), stdout=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    reported = 0
    batches = 0
    try:
        while batches < after_batches:
            line = (await proc.stdout.readline()).decode()
            if not line or line.startswith("done"):
                break
            if line.startswith("added"):
                reported = int(line.split()[1])
                batches += 1
        # then a random moment inside the next batches: between fsync, upsert, flush, checkpoint
        deadline = asyncio.get_running_loop().time() + rng.uniform(0.0, 1.5)
        while (left := deadline - asyncio.get_running_loop().time()) > 0:
            try:
                line = (await asyncio.wait_for(proc.stdout.readline(), left)).decode()
            except TimeoutError:
                break
            if not line:
                break
            if line.startswith("added"):
                reported = int(line.split()[1])
    finally:
        if proc.returncode is None:
            # The child may have finished on its own a moment ago, reaped by the event
            # loop's watcher before `returncode` shows it: then there is nothing to kill.
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        await proc.wait()
    return reported


def _live_records(folder: Path) -> set[str]:
    live: dict[str, bool] = {}
    log = folder / "records.jsonl"
    if not log.exists():
        return set()
    for raw in log.read_bytes().split(b"\n"):
        if not raw:
            continue
        try:
            obj = json.loads(raw)
        except ValueError:
            continue  # a torn last line: never reported added, cut on open
        live[obj["uid"]] = not obj.get("deleted")
    return {uid for uid, alive in live.items() if alive}


@pytest.mark.slow
async def test_sigkill_at_random_moments_loses_nothing(
    tmp_path: Path, embedder: Any, gsm8k_subset: Callable[[int], Path]
) -> None:
    path = gsm8k_subset(80)
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    folder = tmp_path / "killed"
    reported_total = 0
    for after_batches in (0, 1, 3):
        reported = await _run_and_kill(folder, path, rng, after_batches)
        reported_total = max(reported_total, reported)
        logged = _live_records(folder)
        if not (folder / "manifest.json").exists():
            continue  # killed before the folder was set up
        async with Memory.open(folder, embedder=embedder) as memory:
            st = await memory.status()
            # Every record the log holds is searchable after reopening, none is lost...
            assert st.records == len(logged), f"seed {seed}"
            assert st.indexed == st.records, f"seed {seed}"
            assert st.pending_bytes == 0, f"seed {seed}"
        # ...and nothing reported added by the killed run is missing from the log.
        assert len(logged) >= reported, f"seed {seed}"

    # A re-run finishes the job without redoing what was written.
    async with Memory.open(folder, embedder=embedder) as memory:
        before = (await memory.status()).records
        report = await memory.ingest(from_jsonl(path), batch=8)
        st = await memory.status()
    assert report.unchanged == before and report.added == 80 - before, f"seed {seed}"
    assert (st.records, st.indexed) == (80, 80)

    # Same points as an import that was never interrupted: no duplicates, no strays.
    async with Memory.open(tmp_path / "clean", embedder=embedder) as memory:
        await memory.ingest(from_jsonl(path), batch=8)
        clean = await memory.status()
    assert st.points == clean.points, f"seed {seed}"
