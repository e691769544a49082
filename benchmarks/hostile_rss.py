"""Peak RSS and seconds of memtrails on the red team's hostile inputs, each in its own process.

Usage: python benchmarks/hostile_rss.py [--bad-lines 2000000] [--values-mib 60]

Cases (the target is under 600 MB each):
- ``bad_lines``: a JSON Lines file of N lines that are not JSON (2M lines = 4 MB), through
  ``memtrails add --json`` (the report keeps 1,000 errors and counts the rest);
- ``values_line``: one line of ``[{},{},...]`` of the given size through ``from_jsonl``
  (refused before parsing: more than 2,000,000 values);
- ``notes_folder``: a notes folder with a ``.gitignore`` rule ``a*a*...a*b`` (12 stars) and
  long names, a FIFO, symbolic links out of it and its own ``--home`` inside, through
  ``add_path`` (hashing embedder: the walk is measured, not the model).

The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import run_measured  # the benchmarks folder is not a package: sys.path above

_VALUES = """
import asyncio, json, sys
from memtrails.importers.jsonl import from_jsonl
async def main():
    kinds = {}
    async for item in from_jsonl(sys.argv[1]):
        kinds[type(item).__name__] = kinds.get(type(item).__name__, 0) + 1
    print(json.dumps(kinds))
asyncio.run(main())
"""

_NOTES = """
import asyncio, json, sys
from memtrails import Memory
from memtrails.add import add_path
from memtrails.testing import HashingEmbedder
async def main():
    root = sys.argv[1]
    async with Memory.open(root + "/home", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
    print(json.dumps({"added": report.added, "skipped": report.skipped}))
asyncio.run(main())
"""


def _notes_folder(root: Path) -> None:
    root.mkdir()
    (root / ".gitignore").write_text("a*" * 12 + "b\n", encoding="utf-8")
    for n in range(200):
        (root / (f"{n:03d}" + "a" * 200 + ".md")).write_text(f"# note {n}\n", encoding="utf-8")
    os.mkfifo(root / "pipe.txt")
    os.symlink("/etc/passwd", root / "x.eml")
    os.symlink(root.parent, root / "up")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bad-lines", type=int, default=2_000_000)
    parser.add_argument("--values-mib", type=int, default=60)
    args = parser.parse_args()
    out: dict[str, dict[str, float]] = {}
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bad = work / "bad.jsonl"
        bad.write_bytes(b"x\n" * args.bad_lines)
        run = run_measured(
            [python, "-m", "memtrails", "add", "--home", str(work / "h1"), str(bad), "--json"]
        )
        report_bytes = len(json.dumps(run.result))
        out["bad_lines"] = {
            "lines": args.bad_lines,
            "peak_rss_mib": round(run.peak_rss_mib, 1),
            "seconds": round(run.seconds, 1),
            "json_report_bytes": report_bytes,
        }
        bad.unlink()

        values = work / "values.jsonl"
        count = args.values_mib * 1024 * 1024 // 3
        values.write_bytes(b'{"text": "x", "v": [' + b"{}," * count + b"{}]}\n")
        run = run_measured([python, "-c", _VALUES, str(values)])
        out["values_line"] = {
            "mib": args.values_mib,
            "peak_rss_mib": round(run.peak_rss_mib, 1),
            "seconds": round(run.seconds, 1),
        }
        values.unlink()

        _notes_folder(work / "notes")
        run = run_measured([python, "-c", _NOTES, str(work / "notes")])
        out["notes_folder"] = {
            "peak_rss_mib": round(run.peak_rss_mib, 1),
            "seconds": round(run.seconds, 1),
            **run.result,
        }
    for name, figures in out.items():
        print(f"{name:13} " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
