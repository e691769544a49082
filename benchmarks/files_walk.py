"""Notes-folder walk: a first import and an unchanged re-run over a big generated tree.

Usage (from the repository root):

    .venv/bin/python benchmarks/files_walk.py [--files 40000] [--runs 3] [--tree DIR]

Builds (once, in ``--tree`` or a temporary folder) a tree of ``--files`` small files in
nested folders, with a root ``.gitignore`` of 16 rules (globs, ``**``, anchored paths,
folder-only rules, negations) and a 3-rule ``.gitignore`` in every tenth folder, so about a
quarter of the files are ignored. Then walks it with ``from_files``: a first run (every kept
file read and hashed) and an unchanged re-run with the first run's state (a ``stat`` per
file, nothing read), where the ``.gitignore`` matching is most of the work. Each figure is
the median of ``--runs`` runs: wall time and the process's CPU time (all threads), and
entries per second. No model and no memory folder: the importer alone. Prints a table,
then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine  # the benchmarks folder is not a package: sys.path above

from memtrails.importers.files import from_files
from memtrails.records import MemoryRecord, RecordError, Seen, SourceState

ROOT_RULES = """\
# build output and caches
*.log
*.tmp
build/
/dist
**/cache/**
node_modules/
*.py[cod]
!keep.log
docs/**/draft-*.md
logs/
/top-only.txt
**/generated
*~
.DS_Store
secret-?.txt
"""
SUB_RULES = "*.bak\n!important.bak\nscratch/\n"
OLD_NS = 1_600_000_000_000_000_000  # an old mtime, so a re-run trusts every stat


def build_tree(root: Path, files: int) -> None:
    """Write ``files`` small files under ``root`` (deterministic names and contents)."""
    names = [
        "note.md",
        "todo.txt",
        "app.log",
        "keep.log",
        "x.tmp",
        "mod.py",
        "mod.pyc",
        "data.bak",
        "important.bak",
        "draft-1.md",
        "readme.rst",
        "secret-1.txt",
        "top-only.txt",
        "backup~",
        "plan.org",
        "config.toml",
    ]
    folders = [
        "docs",
        "src",
        "build",
        "cache",
        "node_modules",
        "scratch",
        "logs",
        "notes",
        "generated",
        "lib",
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / ".gitignore").write_text(ROOT_RULES)
    written = 0
    index = 0
    while written < files:
        a, b, c = index % 10, (index // 10) % 10, index // 100
        folder = root / f"{folders[a]}-{c}" / folders[b] / f"d{index % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        if index % 10 == 0:
            (folder / ".gitignore").write_text(SUB_RULES)
        for name in names:
            path = (
                folder / f"{index}-{name}"
                if name not in ("keep.log", "important.bak")
                else folder / name
            )
            path.write_text(f"# file {written}\n\nsome text {index} {name}\n")
            os.utime(path, ns=(OLD_NS, OLD_NS))
            written += 1
            if written >= files:
                break
        index += 1


async def walk(root: Path, state: dict[str, Any] | None) -> tuple[dict[str, int], dict[str, Any]]:
    counts = {"records": 0, "seen": 0, "errors": 0}
    last: dict[str, Any] = {}
    async for item in from_files(root, state=state):
        if isinstance(item, MemoryRecord):
            counts["records"] += 1
        elif isinstance(item, Seen):
            counts["seen"] += 1
        elif isinstance(item, RecordError):
            counts["errors"] += 1
        elif isinstance(item, SourceState):
            last = dict(item.state)
    return counts, last


def timed(
    root: Path, state: dict[str, Any] | None
) -> tuple[float, float, dict[str, int], dict[str, Any]]:
    wall, cpu = time.perf_counter(), time.process_time()
    counts, last = asyncio.run(walk(root, state))
    return time.perf_counter() - wall, time.process_time() - cpu, counts, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--files", type=int, default=40_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=None, help="reuse or build the tree here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.tree or Path(tmp) / "tree"
        if not (root / ".gitignore").is_file():
            build_tree(root, args.files)
        entries = sum(len(f) + len(d) for _, d, f in os.walk(root))
        results: dict[str, Any] = {"machine": machine(), "files_on_disk": entries}
        state: dict[str, Any] | None = None
        print(f"tree: {root} ({entries} entries)")
        print(f"{'run':<10} {'wall s':>8} {'cpu s':>8} {'entries/s':>10}  items")
        for name in ("first", "re-run"):
            walls, cpus = [], []
            counts: dict[str, int] = {}
            for _ in range(args.runs):
                wall, cpu, counts, last = timed(root, state if name == "re-run" else None)
                walls.append(wall)
                cpus.append(cpu)
                if name == "first":
                    state = last
            wall, cpu = statistics.median(walls), statistics.median(cpus)
            print(f"{name:<10} {wall:>8.2f} {cpu:>8.2f} {entries / wall:>10.0f}  {counts}")
            results[name] = {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), **counts}
        print(json.dumps(results))


if __name__ == "__main__":
    main()
