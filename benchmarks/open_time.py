"""Opening a memory folder of 10k, 100k and 1M records: `Memory.open` + close and `memtrails status`.

Usage (from the repository root):

    .venv/bin/python benchmarks/open_time.py [--dir /tmp/memtrails-open] [--sizes 10000,100000,1000000]
        [--repeats 5] [--batch 256] [--profile 1000000]

The folders are built once with the hashing embedder (``_common.HashingEmbedder``: the
pipeline's own cost, small records as in ``memory_bound.py``) and kept in ``--dir``, so a
second run measures at once; the build's wall and CPU seconds are printed and kept beside
each folder. Each measurement runs in a process of its own, after ``import memtrails`` (and
qdrant_edge, which every Edge open loads), so that what is timed is the open itself:

- ``open``: ``Memory.open(folder, create=False)`` (the folder's own model, which opening does
  not load: the script checks onnxruntime stayed out) then ``aclose()``, wall and CPU
  seconds (getrusage, all threads) of each;
- ``status``: the ``memtrails status --json`` command as a user runs it, the whole process
  (interpreter start and imports included), wall and CPU seconds; and the same command's
  work in process (open, status, close) without the interpreter start;
- ``--rerun``: the import that built the folder run again as ``memtrails add`` does (open,
  resume from the saved position, nothing new, close), its JSON Lines file written again
  (the same records).

``--profile N`` runs the open of the N-record folder under cProfile (CPU seconds) and prints
where the time goes. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import import_once, machine, median, records, run_measured, write_jsonl

REPO = Path(__file__).resolve().parents[1]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- children ----------------------------------------------------------------------------------


def child_build(folder: Path, n: int, batch: int) -> dict[str, Any]:
    """Import n small records into a new folder (hashing embedder); return the figures."""
    source = folder.parent / f"{folder.name}.jsonl"
    write_jsonl(source, records(n, small=True))
    try:
        cpu = _cpu()
        result = asyncio.run(
            import_once(folder, source, kind="jsonl", embedder="hashing", threads=None, batch=batch)
        )
    finally:
        source.unlink(missing_ok=True)
    return {**result, "cpu_s": round(_cpu() - cpu, 1)}


def child_open(folder: Path) -> dict[str, Any]:
    """Open and close ``folder`` once; return wall and CPU seconds of each."""
    import qdrant_edge  # noqa: F401  (loaded by every Edge open: outside the timing)

    from memtrails import Memory

    async def once() -> dict[str, Any]:
        cpu, wall = _cpu(), time.perf_counter()
        memory = await Memory.open(folder, create=False)
        opened_cpu, opened = _cpu(), time.perf_counter()
        repairs = memory.repairs
        await memory.aclose()
        return {
            "open_s": opened - wall,
            "open_cpu_s": opened_cpu - cpu,
            "close_s": time.perf_counter() - opened,
            "close_cpu_s": _cpu() - opened_cpu,
            "repairs": repairs,
        }

    result = asyncio.run(once())
    result["model_loaded"] = "onnxruntime" in sys.modules
    return result


def child_status(folder: Path) -> dict[str, Any]:
    """What ``memtrails status --json`` does, in process: open, status, close."""
    import qdrant_edge  # noqa: F401

    from memtrails import Memory

    async def once() -> dict[str, Any]:
        cpu, wall = _cpu(), time.perf_counter()
        async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
            st = await memory.status()
        return {
            "status_s": time.perf_counter() - wall,
            "status_cpu_s": _cpu() - cpu,
            "records": st.records,
        }

    return asyncio.run(once())


def child_rerun(folder: Path, source: Path) -> dict[str, Any]:
    """Re-run the import that built ``folder`` as ``memtrails add`` does: open, resume from the
    saved position (nothing new), close."""
    import qdrant_edge  # noqa: F401

    from memtrails import Memory, from_jsonl

    async def once() -> dict[str, Any]:
        cpu, wall = _cpu(), time.perf_counter()
        async with Memory.open(folder, create=False) as memory:
            state = memory.source_state("bench")
            report = await memory.ingest(
                from_jsonl(source, source="bench", state=state), name="bench"
            )
        return {
            "rerun_s": time.perf_counter() - wall,
            "rerun_cpu_s": _cpu() - cpu,
            "unchanged": report.unchanged,
            "added": report.added,
        }

    return asyncio.run(once())


def child_profile(folder: Path, top: int) -> dict[str, Any]:
    """Open and close ``folder`` under cProfile; print the top functions by cumulative time."""
    import cProfile
    import pstats

    import qdrant_edge  # noqa: F401

    from memtrails import Memory

    async def inline(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    # cProfile sees only the thread it runs in: the open's blocking parts (each in a worker
    # thread through asyncio.to_thread) run inline here, so that they show by name.
    asyncio.to_thread = inline

    async def once() -> None:
        memory = await Memory.open(folder, create=False)
        await memory.aclose()

    profile = cProfile.Profile(time.process_time)  # CPU seconds of this process (all threads)
    profile.enable()
    asyncio.run(once())
    profile.disable()
    stats = pstats.Stats(profile, stream=sys.stderr)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return {"profiled": str(folder)}


# -- the parent ----------------------------------------------------------------------------------


def build(folder: Path, n: int, batch: int) -> dict[str, Any]:
    """Build the folder of n records unless it is there; return its build figures."""
    done = folder.parent / f"{folder.name}.built.json"
    if (folder / "manifest.json").is_file() and done.is_file():
        return dict(json.loads(done.read_text()))
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    print(
        f"building {folder} ({n} small records, hashing embedder, batch {batch}) ...",
        file=sys.stderr,
        flush=True,
    )
    load = os.getloadavg()[0]
    m = run_measured(
        [sys.executable, __file__, "--child-build", str(folder), str(n), "--batch", str(batch)]
    )
    figures = {
        "records": m.result["records"],
        "build_wall_s": round(m.seconds, 1),
        "build_cpu_s": round(m.cpu_seconds, 1),
        "peak_rss_mib": round(m.peak_rss_mib, 1),
        "load": [round(load, 1), round(os.getloadavg()[0], 1)],
        "at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    done.write_text(json.dumps(figures))
    return figures


def status_process(folder: Path) -> tuple[float, float]:
    """Run ``memtrails status --json`` as a user would; return its wall and CPU seconds."""
    m = run_measured(
        [str(Path(sys.executable).parent / "memtrails"), "status", "--json", "--home", str(folder)]
    )
    return m.seconds, m.cpu_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path("/tmp/memtrails-open"),
        help="where the folders are built and kept (/tmp/memtrails-open)",
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="record counts")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per size; medians (5)")
    parser.add_argument("--batch", type=int, default=256, help="records per batch when building")
    parser.add_argument("--profile", type=int, default=None, help="profile the open at this size")
    parser.add_argument("--top", type=int, default=25, help="functions shown by --profile")
    parser.add_argument("--child-build", nargs=2, metavar=("FOLDER", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--child-open", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--child-status", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--child-profile", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument(
        "--child-rerun", nargs=2, metavar=("FOLDER", "SOURCE"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="also time an incremental re-run of the import that built each folder "
        "(writes its JSON Lines file again, deterministic)",
    )
    args = parser.parse_args()
    if args.child_build:
        print(
            json.dumps(child_build(Path(args.child_build[0]), int(args.child_build[1]), args.batch))
        )
        return
    if args.child_open:
        print(json.dumps(child_open(Path(args.child_open))))
        return
    if args.child_status:
        print(json.dumps(child_status(Path(args.child_status))))
        return
    if args.child_rerun:
        print(json.dumps(child_rerun(Path(args.child_rerun[0]), Path(args.child_rerun[1]))))
        return
    if args.child_profile:
        print(json.dumps(child_profile(Path(args.child_profile), args.top)))
        return

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.dir.mkdir(parents=True, exist_ok=True)
    built = {n: build(args.dir / str(n), n, args.batch) for n in sizes}
    if args.profile:
        folder = args.dir / str(args.profile)
        built.setdefault(args.profile, build(folder, args.profile, args.batch))
        proc = subprocess.run(
            [sys.executable, __file__, "--child-profile", str(folder), "--top", str(args.top)],
            capture_output=True,
            text=True,
            check=True,
        )
        print(proc.stderr)

    rows: list[dict[str, Any]] = []
    load: list[float] = []
    for n in sizes:
        folder = args.dir / str(n)
        opens: list[dict[str, Any]] = []
        statuses: list[dict[str, Any]] = []
        processes: list[tuple[float, float]] = []
        reruns: list[dict[str, Any]] = []
        source = args.dir / f"{n}.jsonl"
        if args.rerun:
            write_jsonl(source, records(n, small=True))  # the same records the build read
        # One of each in turn, so the machine's load falls on all alike.
        for _ in range(args.repeats):
            load.append(os.getloadavg()[0])
            opens.append(
                run_measured([sys.executable, __file__, "--child-open", str(folder)]).result
            )
            statuses.append(
                run_measured([sys.executable, __file__, "--child-status", str(folder)]).result
            )
            processes.append(status_process(folder))
            if args.rerun:
                reruns.append(
                    run_measured(
                        [sys.executable, __file__, "--child-rerun", str(folder), str(source)]
                    ).result
                )
        source.unlink(missing_ok=True)
        row = {
            "records": n,
            "open_s": round(median([o["open_s"] for o in opens]), 4),
            "open_cpu_s": round(median([o["open_cpu_s"] for o in opens]), 4),
            "close_s": round(median([o["close_s"] for o in opens]), 4),
            "close_cpu_s": round(median([o["close_cpu_s"] for o in opens]), 4),
            "open_close_min_s": round(min(o["open_s"] + o["close_s"] for o in opens), 4),
            "status_in_process_s": round(median([s["status_s"] for s in statuses]), 4),
            "status_in_process_cpu_s": round(median([s["status_cpu_s"] for s in statuses]), 4),
            "status_command_s": round(median([p[0] for p in processes]), 3),
            "status_command_cpu_s": round(median([p[1] for p in processes]), 3),
            "rerun_s": round(median([r["rerun_s"] for r in reruns]), 4) if reruns else None,
            "rerun_cpu_s": round(median([r["rerun_cpu_s"] for r in reruns]), 4) if reruns else None,
            "rerun_added": reruns[0]["added"] if reruns else None,
            "model_loaded": any(o["model_loaded"] for o in opens),
            "repairs": sorted({r for o in opens for r in o["repairs"]}),
            "build": built[n],
        }
        rows.append(row)

    print(
        f"\nload average {min(load):.1f}-{max(load):.1f}; medians of {args.repeats}; seconds "
        "(CPU seconds in brackets)"
    )
    print(
        f"{'records':>9} {'open':>16} {'close':>16} {'status (in process)':>21} "
        f"{'memtrails status':>18} {'built in':>16}"
    )
    for r in rows:
        b = r["build"]
        print(
            f"{r['records']:9} {r['open_s']:7.3f} ({r['open_cpu_s']:.3f}) "
            f"{r['close_s']:7.3f} ({r['close_cpu_s']:.3f}) "
            f"{r['status_in_process_s']:10.3f} ({r['status_in_process_cpu_s']:.3f}) "
            f"{r['status_command_s']:8.2f} ({r['status_command_cpu_s']:.2f}) "
            f"{b['build_wall_s']:8.0f} s ({b['build_cpu_s']:.0f})"
        )
        if r["rerun_s"] is not None:
            print(
                f"          incremental re-run (open, nothing new, close): {r['rerun_s']:.3f} s "
                f"({r['rerun_cpu_s']:.3f} CPU s), {r['rerun_added']} records added"
            )
        if r["model_loaded"] or r["repairs"]:
            print(f"          model loaded: {r['model_loaded']}; repairs: {r['repairs']}")
    print(
        json.dumps(
            {
                "benchmark": "open_time",
                "machine": machine(),
                "load_avg_during": [round(min(load), 2), round(max(load), 2)],
                "repeats": args.repeats,
                "results": rows,
            }
        )
    )


if __name__ == "__main__":
    main()
