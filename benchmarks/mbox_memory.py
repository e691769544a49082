"""Stream generated mbox files of growing size through from_mbox; print speed and peak RSS.

Usage: python benchmarks/mbox_memory.py [--sizes 64,256,1024] [--keep DIR]

Each size is generated (streamed to disk: plain, multipart/alternative and mails with base64
attachments) and then imported in its own subprocess, so the peak RSS reported (ru_maxrss)
belongs to that size alone. Peak RSS should stay flat as the file grows. The last line of
output is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The generator lives in _common.py, shared with memory_bound.py.
from _common import MIB  # the benchmarks folder is not a package: sys.path above
from _common import generate_mbox as generate


def _rss_now_kib() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


async def _stream(path: Path) -> tuple[int, int]:
    from contextlib import aclosing

    from memtrails.importers.mbox import from_mbox
    from memtrails.records import RecordError

    records = errors = 0
    async with aclosing(from_mbox(path)) as items:
        async for item in items:
            if isinstance(item, RecordError):
                errors += 1
            else:
                records += 1
    return records, errors


def child(path: Path) -> None:
    """Import one file and print its figures as JSON (runs in its own process)."""
    import memtrails.importers.mbox  # noqa: F401  (import cost counted in the baseline)

    baseline = _rss_now_kib()
    start = time.perf_counter()
    records, errors = asyncio.run(_stream(path))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    size = path.stat().st_size
    print(
        json.dumps(
            {
                "bytes": size,
                "records": records,
                "errors": errors,
                "seconds": round(seconds, 2),
                "messages_per_s": round((records + errors) / seconds, 1),
                "mib_per_s": round(size / MIB / seconds, 2),
                "baseline_rss_mib": round(baseline / 1024, 1),
                "peak_rss_mib": round(peak / 1024, 1),
                "growth_mib": round((peak - baseline) / 1024, 1),
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,256,1024", help="file sizes in MiB, comma-separated")
    parser.add_argument("--keep", type=Path, help="generate into this folder and keep the files")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    results = []
    with tempfile.TemporaryDirectory(prefix="memtrails-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            path = folder / f"synthetic-{size}MiB.mbox"
            t0 = time.perf_counter()
            generated = generate(path, size)
            gen_s = time.perf_counter() - t0
            proc = subprocess.run(
                [sys.executable, __file__, "--child", str(path)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode != 0:
                sys.exit(f"import of {path} failed:\n{proc.stderr}")
            figures = json.loads(proc.stdout.strip().splitlines()[-1])
            figures.update(size_mib=size, generated=generated, generate_seconds=round(gen_s, 1))
            results.append(figures)
            print(
                f"{size:>6} MiB  {figures['records']:>8} records  {figures['errors']:>3} errors  "
                f"{figures['seconds']:>8.1f} s  {figures['messages_per_s']:>8.1f} msg/s  "
                f"{figures['mib_per_s']:>6.2f} MiB/s  peak RSS {figures['peak_rss_mib']:>7.1f} MiB "
                f"(after imports {figures['baseline_rss_mib']:.1f} MiB, "
                f"growth {figures['growth_mib']:.1f} MiB)",
                flush=True,
            )
            if not args.keep:
                path.unlink()
    print(
        json.dumps(
            {"benchmark": "mbox_memory", "python": sys.version.split()[0], "results": results}
        )
    )


if __name__ == "__main__":
    main()
