"""Measure what one ``memtrails mcp`` request pays for opening the folder per request.

Usage: .venv/bin/python benchmarks/mcp_request.py [--n 3000] [--home PATH] [--rounds 10]

Without ``--home``, builds a folder of N GSM8K records with the hashing embedder (the open
cost depends on the log and the index, not on the model). With ``--home``, uses that folder
and the model its manifest names (loaded once, as the server does). Then, ``--rounds`` times
each: a reader's open + close (what ``get`` and ``status`` pay besides their answer), a whole
search request (open + search + close), and a search on a folder held open (what a server
holding the lock would pay), plus the two big parts of an open: the log scan that rebuilds
the table, and the Qdrant Edge shard load. Prints medians, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import HashingEmbedder, machine, median, records, write_jsonl
from memtrails import Memory, from_jsonl
from memtrails.folder.index.edge import EdgeIndex
from memtrails.folder.log import RecordLog
from memtrails.folder.table import Table
from memtrails.mcp.access import FolderAccess

QUERIES = ["how many apples are left", "train travels miles per hour", "price after discount"]


async def timed(rounds: int, step: Callable[[int], Awaitable[Any]]) -> float:
    times = []
    for i in range(rounds):
        start = time.perf_counter()
        await step(i)
        times.append(time.perf_counter() - start)
    return round(median(times) * 1000, 1)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--home", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        home: Path = args.home or Path(tmp) / "memory"
        embedder: Any = None
        if args.home is None:
            embedder = HashingEmbedder()
            source = Path(tmp) / "records.jsonl"
            write_jsonl(source, records(args.n))
            async with Memory.open(home, embedder=embedder) as memory:
                await memory.ingest(from_jsonl(source, source="bench"))
        access = FolderAccess(home, threads=2, embedder=embedder)
        model_start = time.perf_counter()
        await access.embedder()
        model_ms = round((time.perf_counter() - model_start) * 1000, 1)

        async def reader(_: int) -> None:
            async with access.open():
                pass

        async def request(i: int) -> None:
            async with access.open(model=True) as memory:
                await memory.search(QUERIES[i % len(QUERIES)], 10)

        async def table(_: int) -> None:
            def scan() -> None:
                log = RecordLog(home / "records.jsonl")
                try:
                    Table().load(log)
                finally:
                    log.close()

            await asyncio.to_thread(scan)

        async def shard(_: int) -> None:
            index = await EdgeIndex.open(home / "index", dims=384)
            await index.aclose()

        figures: dict[str, Any] = {
            "model_load_ms": model_ms,
            "open_close_ms": await timed(args.rounds, reader),
            "search_request_ms": await timed(args.rounds, request),
            "table_scan_ms": await timed(args.rounds, table),
            "shard_load_close_ms": await timed(args.rounds, shard),
        }
        async with access.open(model=True) as memory:
            status = await memory.status()

            async def held(i: int) -> None:
                await memory.search(QUERIES[i % len(QUERIES)], 10)

            figures["search_on_open_folder_ms"] = await timed(args.rounds, held)
        await access.aclose()

    figures.update(
        records=status.records,
        log_mb=round(status.log_bytes / 1e6, 2),
        embedder="hashing" if args.home is None else "model",
        machine=machine(),
    )
    print(f"folder: {status.records} records, log {figures['log_mb']} MB, {figures['embedder']}")
    for key in (
        "open_close_ms",
        "search_request_ms",
        "search_on_open_folder_ms",
        "table_scan_ms",
        "shard_load_close_ms",
        "model_load_ms",
    ):
        print(f"{key:>26}: {figures[key]} ms")
    print(json.dumps(figures))


if __name__ == "__main__":
    asyncio.run(main())
