"""The delay from a line appended to a watched file to its record being found by search.

Usage (from the repository root):

    .venv/bin/python benchmarks/watch_latency.py [--lines 20] [--poll] [--bulk 2000]

A watched JSON Lines file (``memtrails.service.watch.Watch``, as ``memtrails serve --watch``
runs it, debounce 1 s) gets one line at a time; each line's delay is the time from its
write to the first search (polled every 50 ms) that returns its record, with the real
model. With ``--bulk N``, a bulk import of N records from another file runs beside it the
whole time (the "during a bulk import" figure). Prints one JSON line: p50, p95, max.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine

from memtrails import Memory, from_jsonl
from memtrails.service.jobs import Jobs
from memtrails.service.watch import Watch, WatchedPath

_TOPICS = ["ferry", "dentist", "invoice", "garden", "backup", "concert", "visa", "boiler"]


async def _found(memory: Memory, query: str, id: str) -> bool:
    return any(hit.id == id for hit in await memory.search(query, k=3))


async def run(lines: int, poll: bool, bulk: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memtrails-watch-") as tmp:
        root = Path(tmp)
        watched = root / "journal.jsonl"
        watched.write_text(json.dumps({"id": "w0", "text": "the journal starts"}) + "\n")
        delays: list[float] = []
        async with Memory.open(root / "m") as memory, Jobs(memory) as jobs:
            job = jobs.start_live(Watch(WatchedPath(str(watched), poll=poll or None)))
            while job.report.added < 1:
                await asyncio.sleep(0.05)
            background = None
            if bulk:
                big = root / "bulk.jsonl"
                with big.open("w") as f:
                    for n in range(bulk):
                        f.write(json.dumps({"id": f"b{n}", "text": f"bulk record {n} " * 8}))
                        f.write("\n")
                background = asyncio.ensure_future(memory.ingest(from_jsonl(big)))
            for n in range(1, lines + 1):
                topic = _TOPICS[n % len(_TOPICS)]
                text = f"note {n}: the {topic} appointment number {n} is confirmed"
                with watched.open("a") as f:
                    f.write(json.dumps({"id": f"w{n}", "text": text}) + "\n")
                written = time.monotonic()
                while not await _found(memory, f"{topic} appointment number {n}", f"w{n}"):
                    await asyncio.sleep(0.05)
                delays.append(time.monotonic() - written)
            bulk_done = background.done() if background is not None else None
            if background is not None:
                await background
    delays.sort()
    return {
        "benchmark": "watch_latency",
        "lines": lines,
        "mode": "polling" if poll else "events",
        "bulk_beside": bulk,
        "bulk_finished_before_the_last_line": bulk_done,
        "p50_s": round(statistics.median(delays), 2),
        "p95_s": round(delays[max(0, round(0.95 * len(delays)) - 1)], 2),
        "max_s": round(delays[-1], 2),
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--lines", type=int, default=20)
    parser.add_argument("--poll", action="store_true")
    parser.add_argument("--bulk", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.lines, args.poll, args.bulk))))


if __name__ == "__main__":
    main()
