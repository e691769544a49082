"""What the web page's timeline costs: records per month by source, from the log lines' heads.

Usage (from the repository root):

    .venv/bin/python benchmarks/web_timeline.py [--dir /tmp/memtrails-timeline] [--n 100000]

Builds (once, kept in ``--dir``) a folder of N dated records with the hashing embedder
(``_common.records``: a title, an author, a date, a question and its worked answer each), then times, wall and
CPU seconds each (CPU: this process, all threads):

- ``first view``: ``MonthCounts.count`` with nothing kept (each live record's line head read:
  its first KiB);
- ``again``: a second view with nothing new (the table's live offsets only);
- ``after +1k``: a view after 1,000 more records (their heads only);
- ``every record``: for comparison, counting the same from ``Memory.records()`` (every line
  read and parsed whole, text included), which the timeline does not do.

Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import HashingEmbedder, machine, records

from memtrails import Memory
from memtrails.service.web.timeline import MonthCounts


def timed(run: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = asyncio.get_event_loop().run_until_complete(run)
    return out, time.perf_counter() - wall, time.process_time() - cpu


async def build(home: Path, n: int) -> None:
    if (home / "records.jsonl").exists():
        return
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(records(n), name="tickets", batch=256)


async def every_record(memory: Memory) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    async for record in memory.records():
        counts[record.source, record.at.iso()[:7] if record.at else ""] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/memtrails-timeline"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    home = args.dir / f"folder-{args.n}"
    home.parent.mkdir(parents=True, exist_ok=True)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    _, build_wall, build_cpu = timed(build(home, args.n))
    memory = loop.run_until_complete(Memory.open(home, embedder=HashingEmbedder()))
    folder = memory._open_folder()
    months = MonthCounts()
    rows: dict[str, tuple[float, float]] = {}
    first, *rows["first view"] = timed(months.count(folder.table, folder.log))
    _, *rows["again"] = timed(months.count(folder.table, folder.log))
    run = time.time_ns()  # new ids each run: the folder is kept between runs
    more = [{"id": f"x{run}-{i}", "text": f"one more {i}", "at": "2026-01-02"} for i in range(1000)]
    loop.run_until_complete(memory.ingest(more, name="more"))
    after, *rows["after +1k"] = timed(months.count(folder.table, folder.log))
    whole, *rows["every record"] = timed(every_record(memory))
    assert whole == after, "the heads and the whole lines disagree"
    loop.run_until_complete(memory.aclose())
    print(f"{sum(first.values()):,} records, {len(first)} (source, month) cells")
    print(f"{'':<14} {'wall s':>8} {'CPU s':>8}")
    for name, (wall, cpu) in rows.items():
        print(f"{name:<14} {wall:>8.3f} {cpu:>8.3f}")
    print(
        json.dumps(
            {
                "records": args.n,
                "log_bytes": os.path.getsize(home / "records.jsonl"),
                "build": {"wall_s": round(build_wall, 1), "cpu_s": round(build_cpu, 1)},
                "views": {
                    k: {"wall_s": round(w, 4), "cpu_s": round(c, 4)} for k, (w, c) in rows.items()
                },
                "machine": machine(),
            }
        )
    )


if __name__ == "__main__":
    main()
