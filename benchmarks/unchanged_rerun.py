"""Unchanged re-import: the second run over the same 10k and 100k records against the first.

Usage (from the repository root):

    .venv/bin/python benchmarks/unchanged_rerun.py [--sizes 10000,100000] [--short-from 100000]
        [--runs 3] [--first-runs 1] [--embedder model|hashing] [--batch 64]

For each size, the records (GSM8K questions with their worked answers, ``_common.records``)
are imported into a fresh memory folder (the first import, with the real model by default),
then the same file is imported again ``--runs`` times, each run in a process of its own, as
``memtrails add`` run by cron would be. A run's time covers opening the folder (reading the
log), the import and closing; "ingest/s" counts the import call alone, and each run's
process CPU seconds (user + system, all threads) are given, steadier on a shared machine.
Targets: the re-run at least 50x faster than the first import, at least 20,000 unchanged
records/s (issue 8), and a full re-run of 100k at 50,000/s (issue 18).

Time it takes: the first import embeds every record, about 60-100 records/s with the real
model on 2 cores, so 10k records take a few minutes, and 100k full records about half an
hour. Sizes from ``--short-from`` on (default 100000) use short records (the question
alone, about 50 word pieces instead of about 150) to keep the first import manageable; the
output says so. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # the benchmarks folder is not a package: sys.path above
    import_once,
    machine,
    median,
    records,
    run_measured,
    write_jsonl,
)


def run_child(
    path: Path,
    folder: Path,
    embedder: str,
    batch: int,
    threads: int | None,
    incremental: bool = False,
) -> dict[str, Any]:
    """Import ``path`` into ``folder`` in a process of its own; return its figures with its peak RSS."""
    argv = [
        sys.executable,
        __file__,
        "--child",
        str(path),
        str(folder),
        embedder,
        "--batch",
        str(batch),
    ]
    argv += ["--incremental"] if incremental else []
    argv += ["--threads", str(threads)] if threads else []
    m = run_measured(argv)
    return {**m.result, "peak_rss_mib": round(m.peak_rss_mib, 1), "cpu_s": round(m.cpu_seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="record counts (comma-separated)")
    parser.add_argument(
        "--short-from",
        type=int,
        default=100_000,
        help="sizes from this one on use short records (question only)",
    )
    parser.add_argument("--runs", type=int, default=3, help="unchanged re-runs per size (median)")
    parser.add_argument(
        "--first-runs",
        type=int,
        default=1,
        help="first imports per size (median; each embeds everything)",
    )
    parser.add_argument(
        "--embedder",
        choices=("model", "hashing"),
        default="model",
        help="the real model (default) or the hashing stand-in for the first import",
    )
    parser.add_argument("--batch", type=int, default=64, help="records per batch (64)")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument("--incremental", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--child", nargs=3, metavar=("PATH", "FOLDER", "EMBEDDER"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        path, folder, embedder = args.child
        result = asyncio.run(
            import_once(
                Path(folder),
                Path(path),
                kind="jsonl",
                embedder=embedder,
                threads=args.threads,
                batch=args.batch,
                incremental=args.incremental,
            )
        )
        print(json.dumps(result))
        return

    work = Path(tempfile.mkdtemp(prefix="memtrails-rerun-"))
    results = []
    try:
        for n in (int(s) for s in args.sizes.split(",") if s.strip()):
            short = n >= args.short_from
            path = work / f"records-{n}.jsonl"
            write_jsonl(path, records(n, small=short))
            label = f"{n} {'short' if short else 'full'} records"
            firsts: list[dict[str, Any]] = []
            folder = work / "memory"
            for _ in range(args.first_runs):
                shutil.rmtree(folder, ignore_errors=True)
                firsts.append(run_child(path, folder, args.embedder, args.batch, args.threads))
                f = firsts[-1]
                print(
                    f"{label}: first import {f['seconds']:.1f} s ({f['added']} added, "
                    f"{f['embedded']} embedded, {f['points']} points), peak RSS {f['peak_rss_mib']} MiB",
                    file=sys.stderr,
                    flush=True,
                )
            # Two kinds of re-run: "full" reads, scrubs and fingerprints every record (a file
            # that changed, a cursor); "incremental" hands the importer the position saved by
            # the last run, as `memtrails add` does, so an unchanged file is barely read.
            reruns: dict[str, list[dict[str, Any]]] = {"full": [], "incremental": []}
            for _ in range(args.runs):
                for mode in reruns:
                    reruns[mode].append(
                        run_child(
                            path,
                            folder,
                            args.embedder,
                            args.batch,
                            args.threads,
                            incremental=mode == "incremental",
                        )
                    )
                    r = reruns[mode][-1]
                    print(
                        f"{label}: {mode} re-run {r['seconds']:.2f} s (open {r['open_seconds']:.2f} s, "
                        f"ingest {r['ingest_seconds']:.2f} s; process CPU {r['cpu_s']:.2f} s; "
                        f"{r['unchanged']} unchanged, "
                        f"{r['embedded']} embedded), peak RSS {r['peak_rss_mib']} MiB",
                        file=sys.stderr,
                        flush=True,
                    )
            shutil.rmtree(folder, ignore_errors=True)
            path.unlink()
            first_s = median([f["seconds"] for f in firsts])
            row: dict[str, Any] = {
                "records": n,
                "short_records": short,
                "embedder": args.embedder,
                "first_import_s": round(first_s, 2),
                "first_records_per_s": round(n / first_s, 1),
                "first_peak_rss_mib": median([f["peak_rss_mib"] for f in firsts]),
                "first_process_cpu_s": median([f["cpu_s"] for f in firsts]),
                "runs": args.runs,
                "first_runs": args.first_runs,
            }
            for mode, got in reruns.items():
                rerun_s = median([r["seconds"] for r in got])
                row[mode] = {
                    "rerun_s": round(rerun_s, 3),
                    "open_s": round(median([r["open_seconds"] for r in got]), 3),
                    "ingest_s": round(median([r["ingest_seconds"] for r in got]), 3),
                    "ingest_records_per_s": round(
                        n / median([r["ingest_seconds"] for r in got]), 1
                    ),
                    "process_cpu_s": median([r["cpu_s"] for r in got]),
                    "records_per_s": round(n / rerun_s, 1),
                    "first_over_rerun": round(first_s / rerun_s, 1),
                    "embedded": max(r["embedded"] for r in got),
                    "all_unchanged": all(r["unchanged"] == n for r in got),
                    "peak_rss_mib": median([r["peak_rss_mib"] for r in got]),
                }
            results.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"{'records':>18} {'first s':>9} {'re-run':>12} {'s':>8} {'(open)':>7} {'ratio':>7} "
        f"{'unchanged/s':>12} {'ingest/s':>9} {'CPU s':>6}"
    )
    for row in results:
        label = f"{row['records']} {'short' if row['short_records'] else 'full'}"
        for mode in ("full", "incremental"):
            m = row[mode]
            print(
                f"{label:>18} {row['first_import_s']:9.1f} {mode:>12} {m['rerun_s']:8.2f} "
                f"{m['open_s']:7.2f} {m['first_over_rerun']:6.1f}x {m['records_per_s']:12.0f} "
                f"{m['ingest_records_per_s']:9.0f} {m['process_cpu_s']:6.2f}"
            )
    print(
        "targets: re-run >= 50x faster than the first import; >= 20,000 unchanged records/s"
        f" (embedder for the first import: {args.embedder})"
    )
    print(
        json.dumps(
            {
                "benchmark": "unchanged_rerun",
                "batch": args.batch,
                "machine": machine(),
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
