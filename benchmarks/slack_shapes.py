"""Seconds and peak RSS of the Slack importer alone on export shapes of real workspaces.

Usage: python benchmarks/slack_shapes.py [CASE ...] [--n 10000] [--mib 100]

Cases, each in its own process (the importer alone: records are counted, not stored):
- ``days``: one channel of N day files of one message each, then a re-run from its state;
- ``channels``: N conversation folders of one day file of one message each (thousands of
  DMs in a big workspace), then a re-run from its state;
- ``big_day``: one day file of about MIB MiB on one line (its messages of 400 characters),
  as a folder and as a zip.

The last line of output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _message(ts: int, text: str) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "text": text, "ts": f"{ts}.000100"}


def build(case: str, root: Path, n: int, mib: int) -> Path:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    (root / "users.json").write_text(json.dumps([{"id": "U1", "name": "a", "real_name": "A"}]))
    base = 1704067200
    if case in ("days", "channels"):
        channels, days = (1, n) if case == "days" else (n, 1)
        for c in range(channels):
            folder = root / f"c{c:06d}"
            folder.mkdir()
            for k in range(days):
                t = base + k * 86400
                day = time.strftime("%Y-%m-%d", time.gmtime(t))
                (folder / f"{day}.json").write_text(json.dumps([_message(t, f"m {c} {k}")]))
        return root
    (root / "general").mkdir()
    count = mib * 1024 * 1024 // 460
    with (root / "general" / "2024-01-01.json").open("w") as f:
        f.write("[")
        f.write(",".join(json.dumps(_message(base + i, "x" * 400)) for i in range(count)))
        f.write("]")
    archive = root.with_suffix(".zip")
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(root.rglob("*.json")):
            z.write(path, path.relative_to(root).as_posix())
    return root


async def _read(path: str, state: Any) -> tuple[int, Any]:
    from memtrails.importers.slack import from_slack_export
    from memtrails.records import MemoryRecord, SourceState

    records, last = 0, None
    async for item in from_slack_export(path, state=state):
        records += isinstance(item, MemoryRecord)
        last = item.state if isinstance(item, SourceState) else last
    return records, last


def child(path: str, state_file: str | None) -> None:
    """Read the export once (from the saved state, if any); print the figures as JSON."""
    state = json.loads(Path(state_file).read_text()) if state_file else None
    start = time.perf_counter()
    records, last = asyncio.run(_read(path, state))
    seconds = time.perf_counter() - start
    Path(path + ".state").write_text(json.dumps(last))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(json.dumps({"records": records, "seconds": round(seconds, 2), "peak_mb": peak}))


def run(path: Path, state: bool) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", str(path)]
    if state:
        argv.append(str(path) + ".state")
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", nargs="*", default=["days", "channels", "big_day"])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1] if len(args.child) > 1 else None)
        return
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases:
            root = build(case, Path(tmp) / case, args.n, args.mib)
            figures[case] = run(root, state=False)
            if case == "big_day":
                figures[case + "_zip"] = run(root.with_suffix(".zip"), state=False)
            else:
                figures[case + "_rerun"] = run(root, state=True)
            for name in [n for n in figures if n.startswith(case)]:
                print(f"{name}: {figures[name]}", flush=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
