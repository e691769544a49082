"""A cron re-run over a database table where a few rows changed: a full read against a watermark.

Usage (from the repository root):

    .venv/bin/python benchmarks/watermark_rerun.py [--rows 100000] [--changed 100] [--runs 3]

A SQLite table of ``--rows`` tickets (GSM8K texts, ``_common.records``) with an
``updated_at`` column is imported once (hashing embedder: the first import is not what is
measured), then ``--changed`` rows get new text and a new timestamp, and the same job runs
two ways, each ``--runs`` times on a fresh copy of the folder: reading the whole table (what
a custom iterable did before watermarks) and ``cursor="updated_at"`` (the watermark). The
figures: rows the job read from the database, records embedded, seconds. Prints a table,
then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import HashingEmbedder, machine, median, records

from memtrails import Memory

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def make_table(path: Path, rows: int) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE tickets (id TEXT PRIMARY KEY, title TEXT, text TEXT, updated_at TEXT)")
    db.executemany(
        "INSERT INTO tickets VALUES (?, ?, ?, ?)",
        (
            (r["id"], r["title"], r["text"], (T0 + timedelta(seconds=i)).isoformat())
            for i, r in enumerate(records(rows))
        ),
    )
    db.execute("CREATE INDEX tickets_updated ON tickets (updated_at)")
    db.commit()
    db.close()


def change(path: Path, rows: int, changed: int) -> None:
    db = sqlite3.connect(path)
    stamp = T0 + timedelta(days=400)
    step = max(1, rows // changed)
    db.executemany(
        "UPDATE tickets SET text = text || ' (edited)', updated_at = ? WHERE id = ?",
        [((stamp + timedelta(seconds=n)).isoformat(), f"r{n * step}") for n in range(changed)],
    )
    db.commit()
    db.close()


class Job:
    """The cron job: read the table (in full, or from a watermark), counting rows read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.read = 0

    def fetch(self, since: str | None) -> Any:
        db = sqlite3.connect(self.path, check_same_thread=False)
        rows = db.execute(
            "SELECT id, title, text, updated_at FROM tickets WHERE updated_at >= ? ORDER BY updated_at",
            (since or "",),
        )
        for id, title, text, updated_at in rows:
            self.read += 1
            yield {"id": id, "title": title, "text": text, "updated_at": updated_at}

    def full(self) -> Any:
        for row in self.fetch(None):
            del row["updated_at"]
            yield row


async def run(folder: Path, job: Job, watermark: bool) -> dict[str, Any]:
    started = time.perf_counter()
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        if watermark:
            report = await memory.ingest(job.fetch, name="tickets", cursor="updated_at")
        else:
            report = await memory.ingest(job.full(), name="tickets")
    return {
        "seconds": round(time.perf_counter() - started, 3),
        "rows_read": job.read,
        "embedded": report.embedded,
        "updated": report.updated,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--changed", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtrails-watermark-") as tmp:
        work = Path(tmp)
        table = work / "app.db"
        make_table(table, args.rows)
        base = work / "base"
        started = time.perf_counter()
        async with Memory.open(base, embedder=HashingEmbedder()) as memory:
            first = await memory.ingest(
                Job(table).fetch, name="tickets", cursor="updated_at", batch=256
            )
        first_s = time.perf_counter() - started
        change(table, args.rows, args.changed)
        results: dict[str, list[dict[str, Any]]] = {"full": [], "watermark": []}
        for _ in range(args.runs):
            for mode in ("full", "watermark"):
                folder = work / mode
                shutil.rmtree(folder, ignore_errors=True)
                shutil.copytree(base, folder)
                results[mode].append(await run(folder, Job(table), mode == "watermark"))
    summary = {
        mode: {
            "seconds": median([r["seconds"] for r in runs]),
            "rows_read": runs[0]["rows_read"],
            "embedded": runs[0]["embedded"],
            "updated": runs[0]["updated"],
        }
        for mode, runs in results.items()
    }
    print(
        f"table of {args.rows} rows, {args.changed} changed; first import {first.added} in {first_s:.1f} s"
    )
    print(f"{'job':>10} {'rows read':>10} {'embedded':>9} {'seconds':>8}")
    for mode, s in summary.items():
        print(f"{mode:>10} {s['rows_read']:>10} {s['embedded']:>9} {s['seconds']:>8.2f}")
    print(
        json.dumps(
            {
                "benchmark": "watermark_rerun",
                "rows": args.rows,
                "changed": args.changed,
                "runs": args.runs,
                "machine": machine(),
                "results": summary,
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
