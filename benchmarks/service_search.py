"""Search latency through `memtrails serve`, idle and while an import with the real model runs.

Usage (from the repository root):

    .venv/bin/python benchmarks/service_search.py [--records 10000] [--import-records 1000]
        [--queries 60] [--keep DIR]

Builds a folder of ``--records`` records (GSM8K questions with answers) with the hashing
embedder, its manifest naming the real model (the bulk's vectors only have to be of the
right size for the index's exact search to cost what it costs; the real model would take
minutes per 10k records here), starts ``memtrails serve`` on it (the real model, loaded by
the service), and times ``POST /v1/search`` (k=10, the real model embedding each query,
one client, back to back):

1. idle: ``--queries`` searches on the idle service;
2. busy: while the service imports ``--import-records`` new records with the real model
   (``POST /v1/imports``), searches back to back until the import ends.

A refusal is any answer other than 200 (or no answer). Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx
from _common import machine, percentile_ms, records, write_jsonl  # sys.path above
from search_latency import queries

from memtrails import Memory, from_jsonl
from memtrails.service import find_service
from memtrails.testing import HashingEmbedder

MEMTRAILS = str(Path(sys.executable).parent / "memtrails")


class _Posing(HashingEmbedder):
    """The hashing embedder, describing itself as the real model (for the bulk only)."""

    def __init__(self, real: dict[str, Any]) -> None:
        super().__init__(int(real["dims"]))
        self._real = real

    def describe(self) -> dict[str, Any]:
        return dict(self._real)


async def build(folder: Path, n: int, work: Path) -> float:
    from memtrails.embedding import default_embedder

    real = await default_embedder(threads=2)
    described = real.describe()
    await real.aclose()
    source = work / "bulk.jsonl"
    write_jsonl(source, records(n))
    started = time.perf_counter()
    async with Memory.open(folder, embedder=_Posing(described)) as memory:
        report = await memory.ingest(from_jsonl(source), batch=256)
    assert report.added == n, report.to_json()
    return time.perf_counter() - started


def search_once(http: httpx.Client, query: str) -> tuple[float, bool]:
    started = time.perf_counter()
    try:
        answer = http.post("/v1/search", json={"query": query, "k": 10})
        ok = answer.status_code == 200 and "results" in answer.json()
    except httpx.HTTPError:
        ok = False
    return time.perf_counter() - started, ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--import-records", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="service-search-"))
    folder = (args.keep or work) / f"memory-{args.records}"
    built = None
    if not (folder / "manifest.json").is_file():
        built = asyncio.run(build(folder, args.records, work))
    fresh = work / "import.jsonl"
    # Records the bulk does not hold: another seed and id prefix.
    rows = [dict(r, id=f"new{i}") for i, r in enumerate(records(args.import_records, seed=99))]
    write_jsonl(fresh, rows)
    log = (work / "serve.log").open("wb")
    proc = subprocess.Popen(
        [MEMTRAILS, "serve", "--home", str(folder), "--port", "0", "--threads", "2"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        while (info := find_service(folder)) is None:
            if proc.poll() is not None:
                raise SystemExit((work / "serve.log").read_text())
            time.sleep(0.2)
        headers = {"Authorization": f"Bearer {info.token}"}
        with httpx.Client(base_url=info.url, headers=headers, timeout=120) as http:
            while True:
                try:
                    http.get("/v1/health")
                    break
                except httpx.ConnectError:
                    time.sleep(0.2)
            asks = queries(args.queries)
            search_once(http, "warm up the model")
            idle = [search_once(http, q) for q in asks]
            job = http.post("/v1/imports", json={"paths": [str(fresh)]}).json()
            busy: list[tuple[float, bool]] = []
            started = time.perf_counter()
            state = "running"
            while state == "running":
                busy.append(search_once(http, asks[len(busy) % len(asks)]))
                state = http.get(f"/v1/imports/{job['id']}").json()["state"]
            import_seconds = time.perf_counter() - started
            final = http.get(f"/v1/imports/{job['id']}").json()
            status = http.get("/v1/status").json()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(120)
        log.close()
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    result: dict[str, Any] = {
        "records": args.records,
        "bulk_build_seconds": None if built is None else round(built, 1),
        "import_records": args.import_records,
        "import_added": final["report"]["added"],
        "import_state": final["state"],
        "import_seconds": round(import_seconds, 1),
        "records_after": status["records"],
        "machine": machine(),
        "load_after": os.getloadavg()[0],
    }
    for name, runs in (("idle", idle), ("during_import", busy)):
        times = [t for t, _ in runs]
        result[name] = {
            "searches": len(runs),
            "refused": sum(not ok for _, ok in runs),
            "p50_ms": percentile_ms(times, 50),
            "p95_ms": percentile_ms(times, 95),
            "max_ms": percentile_ms(times, 100),
        }
    print(f"{args.records} records (hashing bulk), import of {args.import_records} (real model)")
    print(f"{'':<16}{'searches':>9}{'refused':>9}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
    for name in ("idle", "during_import"):
        r = result[name]
        print(
            f"{name:<16}{r['searches']:>9}{r['refused']:>9}{r['p50_ms']:>9}{r['p95_ms']:>9}"
            f"{r['max_ms']:>9}"
        )
    print(
        f"import: {result['import_added']} added in {result['import_seconds']} s "
        f"({result['import_state']}), load average after {result['load_after']:.1f}"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
