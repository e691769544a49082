"""`memtrails status --json` as a user runs it: the whole process, from one or more checkouts.

Usage (from the repository root):

    .venv/bin/python benchmarks/status_time.py --home FOLDER [--runs 9] [--text]
        [--checkout before=/path/to/other/checkout] [--checkout after=.]

Each run is a process of its own (interpreter start, imports, the command, exit), timed
from outside: wall seconds and CPU seconds (user + system, from the child's rusage). The
checkouts take turns run after run, so that the machine's load falls on all alike. Three
ways of starting, also in turns:

- ``cached``: bytecode cached (a ``PYTHONPYCACHEPREFIX`` warmed by a first, untimed run);
- ``own uncached``: Python's own ``__pycache__`` folders, none written: the standard
  library's and the installed packages' bytecode (compiled when they were installed) is
  read, a checkout's own modules without bytecode are compiled at each start (machines that
  set ``PYTHONDONTWRITEBYTECODE`` run every command so);
- ``uncached``: no bytecode cached anywhere (a new, empty ``PYTHONPYCACHEPREFIX`` each run,
  and none written): the standard library, click and memtrails compiled from source, the
  worst a first run after an install without compiled files can be.

Prints p50 and max of each, the load average before and after, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def one_run(
    python: str, checkout: Path, home: Path, prefix: Path | None, text: bool, *, write: bool
) -> tuple[float, float]:
    """Run the command once (``write``: bytecode written to ``prefix``, None: Python's own
    ``__pycache__`` folders); return (wall s, CPU s)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    env.pop("PYTHONPYCACHEPREFIX", None)
    if prefix is not None:
        env["PYTHONPYCACHEPREFIX"] = str(prefix)
    # Set or not, whatever the caller's environment says (some machines set it for all).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    argv = [python, "-m", "memtrails", "status", "--home", str(home)]
    argv += [] if text else ["--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=checkout, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{checkout}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="the memory folder")
    parser.add_argument("--runs", type=int, default=9, help="runs of each (9)")
    parser.add_argument(
        "--checkout",
        action="append",
        default=None,
        help="NAME=PATH of a checkout to run (repeatable; default: this one as 'this')",
    )
    parser.add_argument("--text", action="store_true", help="the text output, not --json")
    parser.add_argument("--python", default=sys.executable, help="interpreter (this one)")
    args = parser.parse_args()
    checkouts = [
        (name, Path(path).resolve())
        for name, _, path in (c.partition("=") for c in (args.checkout or ["this=."]))
    ]
    load_before = os.getloadavg()
    times: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="status-time-") as scratch:
        warm = {name: Path(scratch) / f"warm-{name}" for name, _ in checkouts}
        for name, checkout in checkouts:  # fills the cached prefix; not timed
            one_run(args.python, checkout, args.home, warm[name], args.text, write=True)
        for i in range(args.runs):
            for name, checkout in checkouts:
                times.setdefault(f"{name} cached", []).append(
                    one_run(args.python, checkout, args.home, warm[name], args.text, write=True)
                )
                times.setdefault(f"{name} own uncached", []).append(
                    one_run(args.python, checkout, args.home, None, args.text, write=False)
                )
                cold = Path(scratch) / f"cold-{name}-{i}"
                times.setdefault(f"{name} uncached", []).append(
                    one_run(args.python, checkout, args.home, cold, args.text, write=False)
                )
    load_after = os.getloadavg()
    out: dict[str, Any] = {"home": str(args.home), "runs": args.runs}
    print(f"memtrails status{'' if args.text else ' --json'} --home {args.home}, {args.runs} runs")
    print(f"load average before {load_before}, after {load_after}")
    print(f"{'':24} {'wall p50':>9} {'wall max':>9} {'CPU p50':>8} {'CPU max':>8}")
    for key, found in times.items():
        walls, cpus = [w for w, _ in found], [c for _, c in found]
        row = {
            "wall_p50": round(statistics.median(walls), 3),
            "wall_max": round(max(walls), 3),
            "cpu_p50": round(statistics.median(cpus), 3),
            "cpu_max": round(max(cpus), 3),
            "walls": [round(w, 3) for w in walls],
        }
        out[key] = row
        print(
            f"{key:24} {row['wall_p50']:9.3f} {row['wall_max']:9.3f} "
            f"{row['cpu_p50']:8.3f} {row['cpu_max']:8.3f}"
        )
    out["load_before"], out["load_after"] = load_before, load_after
    print(json.dumps(out))


if __name__ == "__main__":
    main()
