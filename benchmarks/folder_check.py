"""What checking a folder costs: the cheap check every open runs, and ``memtrails check``.

Usage: python benchmarks/folder_check.py [RECORDS]   (default 20000; hashing embedder)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from memtrails import Memory
from memtrails.folder.check import check_folder, verify_on_open
from memtrails.testing import HashingEmbedder


async def main(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "mem"
        rows = ({"id": str(i), "text": f"record {i} on topic {i % 97} and more"} for i in range(n))
        async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
            await memory.ingest(rows, batch=256)
        async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
            f = memory._folder
            start = time.perf_counter()
            repairs = await verify_on_open(f.path, f.log, f.table, f.index, f.positions, f.writer)
            cheap = time.perf_counter() - start
            start = time.perf_counter()
            report = await check_folder(f.path, f.log, f.table, f.index, f.positions)
            full = time.perf_counter() - start
    print(f"records: {n}")
    print(f"check on open:   {cheap * 1000:.1f} ms (repairs: {len(repairs)})")
    print(f"memtrails check: {full:.2f} s (ok: {report.ok}, indexed: {report.indexed})")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000))
