"""Bounded memory: peak RSS while importing 10k, 100k and 1M small records and a 1 GiB mbox.

Usage (from the repository root):

    .venv/bin/python benchmarks/memory_bound.py [--sizes 10000,100000,1000000] [--mbox-mib 1024]
        [--model-sizes 10000] [--batch 64]

Each import runs in a process of its own into a fresh memory folder, and its peak RSS is
that process's own (``wait4``). The model is REPLACED by a cheap deterministic hashing
embedder (``_common.HashingEmbedder``) for the record-count series and the mbox: embedding a
million records with the real model would take hours here, and the model's memory is a
fixed cost that does not grow with the archive; what this measures is the pipeline's own
memory (importer, stages, dedup table, log, index). ``--model-sizes`` imports with the real
model too, to show that fixed cost. Target: peak RSS grows by less than 1.5x from 10k to 1M
records. Besides the ``wait4`` peak, the child samples its anonymous and file-backed RSS
(the index's memory-mapped files, which the kernel can take back) and both peaks are
printed. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # the benchmarks folder is not a package: sys.path above
    generate_mbox,
    import_once,
    machine,
    records,
    run_measured,
    write_jsonl,
)


class RssSampler:
    """Samples ``/proc/self/status`` every 0.2 s: the peaks of anonymous and file-backed RSS.

    ``wait4``'s peak counts both. File-backed pages (the index's memory-mapped segments,
    read or written) are the page cache mapped into the process: the kernel takes them back
    under pressure. Anonymous pages (heaps, in-memory index structures) it can only swap.
    """

    def __init__(self, every: float = 0.2) -> None:
        self.peaks: dict[str, float] = {}
        self._every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self._sample()

    def _sample(self) -> None:
        now: dict[str, float] = {}
        with open("/proc/self/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("RssAnon", "RssFile", "RssShmem"):
                    now[key] = int(value.split()[0]) / 1024
        now["Rss"] = sum(now.values())
        for key, value in now.items():
            self.peaks[key] = max(self.peaks.get(key, 0.0), value)


def measure(
    work: Path, kind: str, path: Path, embedder: str, batch: int, threads: int | None
) -> dict[str, Any]:
    """Import ``path`` into a fresh folder in a child process; return its figures."""
    folder = work / "memory"
    shutil.rmtree(folder, ignore_errors=True)
    argv = [
        sys.executable,
        __file__,
        "--child",
        kind,
        str(path),
        str(folder),
        embedder,
        "--batch",
        str(batch),
    ]
    argv += ["--threads", str(threads)] if threads else []
    m = run_measured(argv)
    disk = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    shutil.rmtree(folder, ignore_errors=True)
    seen = m.result["added"] + m.result["skipped"]
    return {
        **m.result,
        "peak_rss_mib": round(m.peak_rss_mib, 1),
        "cpu_seconds": round(m.cpu_seconds, 1),
        "records_per_s": round(seen / m.result["ingest_seconds"], 1),
        "folder_mib": round(disk / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="small-record counts, hashing embedder (comma-separated)",
    )
    parser.add_argument("--mbox-mib", type=int, default=1024, help="generated mbox size; 0 skips")
    parser.add_argument(
        "--model-sizes",
        default="10000",
        help="record counts imported with the real model ('' skips)",
    )
    parser.add_argument("--batch", type=int, default=64, help="records per batch (64)")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument(
        "--child", nargs=4, metavar=("KIND", "PATH", "FOLDER", "EMBEDDER"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        kind, path, folder, embedder = args.child
        with RssSampler() as sampler:
            result = asyncio.run(
                import_once(
                    Path(folder),
                    Path(path),
                    kind=kind,
                    embedder=embedder,
                    threads=args.threads,
                    batch=args.batch,
                )
            )
        result["peak_anon_mib"] = round(sampler.peaks["RssAnon"], 1)
        result["peak_file_mib"] = round(sampler.peaks["RssFile"], 1)
        print(json.dumps(result))
        return

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    model_sizes = [int(s) for s in args.model_sizes.split(",") if s.strip()]
    work = Path(tempfile.mkdtemp(prefix="memtrails-memory-"))
    rows: list[dict[str, Any]] = []
    print(
        "embedder 'hashing' = the model replaced by a hash, to measure the pipeline's own memory",
        flush=True,
    )
    print(
        f"{'input':>22} {'embedder':>8} {'records':>9} {'seconds':>8} {'CPU s':>8} "
        f"{'rec/s':>8} {'baseline':>9} {'peak RSS':>9} {'anon':>7} {'file':>7} {'folder':>8}"
        "  (MiB)",
        flush=True,
    )

    def show(label: str, r: dict[str, Any]) -> None:
        print(
            f"{label:>22} {r['embedder']:>8} {r['records']:9} {r['ingest_seconds']:8.1f} "
            f"{r['cpu_seconds']:8.1f} {r['records_per_s']:8.0f} {r['baseline_rss_mib']:9.1f} "
            f"{r['peak_rss_mib']:9.1f} {r['peak_anon_mib']:7.1f} {r['peak_file_mib']:7.1f} "
            f"{r['folder_mib']:8.1f}",
            flush=True,
        )

    try:
        jobs = [(n, "hashing") for n in sizes] + [(n, "model") for n in model_sizes]
        for n, embedder in jobs:
            path = work / f"small-{n}.jsonl"
            if not path.exists():
                write_jsonl(path, records(n, small=True))
            r = {
                "input": f"{n} small records",
                "embedder": embedder,
                **measure(work, "jsonl", path, embedder, args.batch, args.threads),
            }
            rows.append(r)
            show(r["input"], r)
        for p in work.glob("small-*.jsonl"):
            p.unlink()
        if args.mbox_mib:
            path = work / f"synthetic-{args.mbox_mib}MiB.mbox"
            t0 = time.perf_counter()
            messages = generate_mbox(path, args.mbox_mib)
            gen_s = time.perf_counter() - t0
            r = {
                "input": f"{args.mbox_mib} MiB mbox",
                "embedder": "hashing",
                "messages": messages,
                "generate_seconds": round(gen_s, 1),
                **measure(work, "mbox", path, "hashing", args.batch, args.threads),
            }
            rows.append(r)
            show(r["input"], r)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    hashed = [r for r in rows if r["embedder"] == "hashing" and "messages" not in r]
    growth = None
    anon_growth = None
    if len(hashed) >= 2:
        first, last = hashed[0], hashed[-1]
        growth = round(last["peak_rss_mib"] / first["peak_rss_mib"], 3)
        anon_growth = round(last["peak_anon_mib"] / first["peak_anon_mib"], 3)
        print(
            f"peak RSS from {first['records']} to {last['records']} records: "
            f"{first['peak_rss_mib']} -> {last['peak_rss_mib']} MiB = {growth}x (target < 1.5x); "
            f"anonymous {first['peak_anon_mib']} -> {last['peak_anon_mib']} MiB = {anon_growth}x"
        )
    print(
        json.dumps(
            {
                "benchmark": "memory_bound",
                "batch": args.batch,
                "machine": machine(),
                "results": rows,
                "peak_growth_first_to_last": growth,
                "anon_growth_first_to_last": anon_growth,
            }
        )
    )


if __name__ == "__main__":
    main()
