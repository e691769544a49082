"""Where memtrails' edit run goes: 1% of the records edited, 1% deleted, ``memtrails add --prune``.

Usage (from the repository root):

    .venv/bin/python benchmarks/edit_profile.py [--records 2000] [--runs 5] [--model]

Builds ``--records`` records (``_common.records``, as peers.py), imports them once, then
edits 1% and deletes 1% of them (peers.py's ``edited_rows``) and runs the job a user would
schedule, ``add_path(memory, file, prune=True)`` with the folder's open and close, from a
copy of the first import's folder each time:

1. ``--runs`` times unprofiled, each in a process of its own: wall and CPU seconds
   (getrusage, all threads), medians;
2. once under cProfile with CPU time as its clock, with ``asyncio.to_thread`` run inline so
   that the work of the worker threads shows by name; each function's own CPU time is then
   given to the part of the run its module belongs to (reading, date parsing, normalise,
   scrub, dedup, embedding, keyword vectors, the index's open/writes/flush/close, log and
   writer, checkpoint and positions, open checks, the stages and the event loop; fsync on
   its own). Profiling slows Python code several times over, so the shares matter, not the
   sums.

The hashing embedder stands in for the model unless ``--model`` (then the model's load and
the 20 embeddings are in the figures). Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import HashingEmbedder, machine, median, records, write_jsonl
from peers import edited_rows

# Each function's own CPU time goes to the part its file belongs to (first match); a built-in
# (a C function: sqlite, RE2, json, Qdrant Edge's calls) goes to the part of its caller, except
# fsync, counted on its own.
PARTS: list[tuple[str, tuple[str, ...]]] = [
    ("reading the file (importer, JSON)", ("memtrails/importers/", "json/")),
    ("date parsing", ("memtrails/dates.py",)),
    (
        "normalise",
        (
            "memtrails/pipeline/normalise.py",
            "memtrails/portable.py",
            "memtrails/limits.py",
            "memtrails/records.py",
        ),
    ),
    ("scrub", ("memtrails/secrets/", "memtrails/pipeline/scrub.py")),
    (
        "dedup (uid, fingerprint, table)",
        (
            "memtrails/keys.py",
            "memtrails/pipeline/dedup.py",
            "memtrails/folder/table.py",
            "memtrails/folder/run.py",
            "memtrails/folder/uids.py",
            "hashlib",
        ),
    ),
    ("embedding", ("memtrails/testing.py", "memtrails/embedding/", "memtrails/folder/model.py")),
    ("points (keyword vectors)", ("memtrails/folder/points.py", "memtrails/words.py")),
    ("index (open, writes, flush, close)", ("memtrails/folder/index/",)),
    ("log + writer", ("memtrails/folder/log.py", "memtrails/folder/writer.py")),
    ("checkpoint + positions", ("memtrails/folder/manifest.py", "memtrails/folder/positions.py")),
    ("open + close checks (modes, lock, check)", ("memtrails/folder/",)),
    (
        "stages + event loop",
        ("memtrails/", "aiostream", "asyncio", "concurrent", "threading", "selectors", "queue"),
    ),
]
FSYNC = "fsync"


def _part(filename: str) -> str:
    for label, places in PARTS:
        if any(place in filename for place in places):
            return label
    return "other (interpreter, libraries)"


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _embedder(model: bool) -> Any:
    if model:
        return None  # the folder's own model, loaded on first use
    return HashingEmbedder()


async def _job(folder: Path, data: Path, model: bool) -> Any:
    from memtrails import Memory
    from memtrails.add import add_path

    async with Memory.open(folder, embedder=_embedder(model)) as memory:
        return await add_path(memory, data, prune=True)


def child_run(work: Path, model: bool) -> dict[str, Any]:
    """One edit run from a copy of the first import: wall and CPU seconds."""
    folder = work / "memory"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(work / "memory.first", folder)
    cpu, wall = _cpu(), time.perf_counter()
    report = asyncio.run(_job(folder, work / "records.jsonl", model))
    return {
        "wall_s": time.perf_counter() - wall,
        "cpu_s": _cpu() - cpu,
        "updated": report.updated,
        "removed": report.removed,
        "unchanged": report.unchanged,
        "embedded": report.embedded,
    }


def child_profile(work: Path, model: bool) -> dict[str, Any]:
    """The edit run under cProfile (CPU clock, worker-thread work inline); CPU s per part."""
    import cProfile
    import pstats

    folder = work / "memory"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(work / "memory.first", folder)

    async def inline(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    asyncio.to_thread = inline
    profile = cProfile.Profile(time.process_time)
    profile.enable()
    asyncio.run(_job(folder, work / "records.jsonl", model))
    profile.disable()
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    parts: dict[str, float] = {}
    for (filename, _line, func), (_cc, _nc, tt, _ct, callers) in stats.items():
        if filename != "~":
            parts[_part(filename)] = parts.get(_part(filename), 0.0) + tt
        elif "fsync" in func:
            parts[FSYNC] = parts.get(FSYNC, 0.0) + tt
        else:  # a built-in: its time is its callers' work
            for (caller_file, _l, _f), (_c1, _c2, caller_tt, _c4) in callers.items():
                parts[_part(caller_file)] = parts.get(_part(caller_file), 0.0) + caller_tt
    total = sum(parts.values())
    parts = {k: round(v, 4) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])}
    return {"profiled_cpu_s": round(total, 3), "parts": parts}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5, help="unprofiled runs; medians (5)")
    parser.add_argument("--model", action="store_true", help="the real model, not the hashing one")
    parser.add_argument("--child", choices=["run", "profile"], help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        fn = child_run if args.child == "run" else child_profile
        print(json.dumps(fn(args.work, args.model)))
        return

    work = Path(tempfile.mkdtemp(prefix="memtrails-edit-"))
    try:
        rows = list(records(args.records))
        data = work / "records.jsonl"
        write_jsonl(data, rows)
        asyncio.run(_job(work / "memory.first", data, args.model))
        write_jsonl(data, edited_rows(rows))

        def child(kind: str) -> dict[str, Any]:
            argv = [sys.executable, __file__, "--child", kind, "--work", str(work)]
            argv += ["--model"] if args.model else []
            out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
            return dict(json.loads(out.splitlines()[-1]))

        load = [os.getloadavg()[0]]
        runs = [child("run") for _ in range(args.runs)]
        load.append(os.getloadavg()[0])
        profiled = child("profile")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    wall = median([r["wall_s"] for r in runs])
    cpu = median([r["cpu_s"] for r in runs])
    first = runs[0]
    print(
        f"{args.records} records, {first['updated']} edited, {first['removed']} deleted "
        f"({'model' if args.model else 'hashing embedder'}); load {min(load):.1f}-{max(load):.1f}"
    )
    walls = ", ".join(f"{r['wall_s']:.2f}" for r in runs)
    print(
        f"edit run (open, add --prune, close): wall {wall:.3f} s, CPU {cpu:.3f} s "
        f"(medians of {args.runs}; wall per run {walls})"
    )
    print(
        f"under cProfile: {profiled['profiled_cpu_s']:.3f} CPU s, by part (own time of each part's code):"
    )
    for label, seconds in profiled["parts"].items():
        share = seconds / profiled["profiled_cpu_s"] if profiled["profiled_cpu_s"] else 0.0
        print(f"  {label:38} {seconds:7.3f}  {share:6.1%}")
    print(
        json.dumps(
            {
                "benchmark": "edit_profile",
                "records": args.records,
                "embedder": "model" if args.model else "hashing",
                "machine": machine(),
                "load_avg_during": [round(min(load), 2), round(max(load), 2)],
                "wall_s": round(wall, 3),
                "cpu_s": round(cpu, 3),
                "runs": runs,
                "profile": profiled,
            }
        )
    )


if __name__ == "__main__":
    main()
