"""CPU seconds of a first import, a full re-run and an open: comparable on a busy machine.

Usage (from the repository root):

    .venv/bin/python benchmarks/cpu_ingest.py [--records 20000] [--runs 2]

Wall-clock figures on a shared machine swing with its load; the CPU time a process spends
(all its threads, from getrusage) does much less. This measures memtrails' own cost with a
hashing embedder (built in, so that the script runs unchanged against an older checkout:
``PYTHONPATH=/path/to/checkout .venv/bin/python benchmarks/cpu_ingest.py``): the first
import of N JSON Lines records, a full re-run over the same file (everything unchanged), and
opening the folder. Prints one JSON line per run.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine, records, write_jsonl

import memtrails
from memtrails import Memory, from_jsonl
from memtrails.embedding._base import Passage


class _Hashing:
    """One hash of the whole text per vector: constant cost per byte (as testing.HashingEmbedder)."""

    model_id = "cpu-hashing-384"
    dims = 384

    def describe(self) -> dict[str, Any]:
        return {"kind": "hashing", "model_id": self.model_id, "dims": self.dims}

    def _vector(self, text: str) -> Any:
        raw = hashlib.shake_256(text.encode("utf-8", "surrogatepass")).digest(self.dims)
        v = np.frombuffer(raw, dtype=np.int8).astype(np.float32)
        return v / (float(np.linalg.norm(v)) or 1.0)

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        return [[Passage(0, len(t), self._vector(t))] for t in texts]

    async def embed_query(self, text: str) -> Any:
        return self._vector(text)

    async def aclose(self) -> None:
        return None


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _read_whole(memory: Any, from_jsonl: Any, source: Path) -> Any:
    """Import the file in full: ``full=True`` since importers resume by themselves (an older
    checkout refuses the argument, and reads everything anyway)."""
    try:
        return await memory.ingest(from_jsonl(source), full=True)
    except ValueError as exc:
        if "full" not in str(exc):
            raise
        return await memory.ingest(from_jsonl(source))


async def once(n: int) -> dict[str, Any]:
    out: dict[str, Any] = {"code": str(Path(memtrails.__file__).parent.parent)}
    with tempfile.TemporaryDirectory(prefix="memtrails-cpu-") as tmp:
        source = Path(tmp) / "records.jsonl"
        write_jsonl(source, records(n))
        for label in ("first_import", "full_rerun"):
            cpu, wall = _cpu(), time.perf_counter()
            async with Memory.open(Path(tmp) / "m", embedder=_Hashing()) as memory:
                report = await _read_whole(memory, from_jsonl, source)
            out[label] = {
                "cpu_s": round(_cpu() - cpu, 2),
                "wall_s": round(time.perf_counter() - wall, 2),
                "added": report.added,
                "unchanged": report.unchanged,
            }
        cpu, wall = _cpu(), time.perf_counter()
        async with Memory.open(Path(tmp) / "m", embedder=_Hashing()):
            pass
        out["open"] = {
            "cpu_s": round(_cpu() - cpu, 3),
            "wall_s": round(time.perf_counter() - wall, 3),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    for _ in range(args.runs):
        result = asyncio.run(once(args.records))
        print(
            json.dumps(
                {"benchmark": "cpu_ingest", "records": args.records, **result, "machine": machine()}
            )
        )


if __name__ == "__main__":
    main()
