"""Passages/s of the default model by threads and sessions: how embedding scales with cores.

Usage: .venv/bin/python benchmarks/threads_scaling.py [--n 400] [--rounds 3] [--batch 64]
           [--layouts 1x1,1x2,2x1]

Embeds N GSM8K texts (questions, then worked answers, from the shared corpora) with the
default embedder (the fused all-MiniLM-L6-v2 graph) in batches of ``--batch`` texts. A layout
``SxT`` is S sessions of T intra-op threads each: one session takes the batches one after the
other (its threads share each run), S sessions take every S-th batch at once (one run per
session in flight, as separate worker processes of an import would). Layouts take turns round
after round, so all see the same load; wall and CPU seconds (every thread, user + system) and
the load average are printed with each, and passages per CPU-second, the steadier figure on a
shared machine. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model_only import DEFAULT_CORPORA, load_texts

from memtrails.embedding.loading import default_embedder


def _cpu() -> float:
    return time.process_time()


async def one_round(embedders: list[Any], batches: list[list[str]]) -> tuple[float, float, int]:
    """Embed every batch, embedder i taking batches i, i+S, ...; return wall, CPU, passages."""

    async def lane(embedder: Any, mine: list[list[str]]) -> int:
        done = 0
        for batch in mine:
            done += sum(len(p) for p in await embedder.embed(batch))
        return done

    cpu, wall = _cpu(), time.perf_counter()
    lanes = [lane(e, batches[i :: len(embedders)]) for i, e in enumerate(embedders)]
    passages = sum(await asyncio.gather(*lanes))
    return time.perf_counter() - wall, _cpu() - cpu, passages


async def run(n: int, rounds: int, batch: int, layouts: list[tuple[int, int]]) -> dict[str, Any]:
    texts = load_texts(DEFAULT_CORPORA, n)
    batches = [texts[i : i + batch] for i in range(0, n, batch)]
    loaded = {(s, t): [await default_embedder(threads=t) for _ in range(s)] for s, t in layouts}
    for embedders in loaded.values():  # warm: the first runs allocate
        await one_round(embedders, batches[:1])
    figures: dict[tuple[int, int], list[tuple[float, float, int, float]]] = {k: [] for k in layouts}
    for _ in range(rounds):
        for layout in layouts:
            load = os.getloadavg()[0]
            wall, cpu, passages = await one_round(loaded[layout], batches)
            figures[layout].append((wall, cpu, passages, load))
    for embedders in loaded.values():
        for e in embedders:
            await e.aclose()
    out: dict[str, Any] = {"n": n, "batch": batch, "rounds": rounds, "layouts": {}}
    for (s, t), runs in figures.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        passages = runs[0][2]
        out["layouts"][f"{s}x{t}"] = {
            "sessions": s,
            "threads": t,
            "passages": passages,
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "passages_per_s": round(passages / wall, 1),
            "passages_per_cpu_s": round(passages / cpu, 1),
            "load": [round(r[3], 1) for r in runs],
            "walls": [round(r[0], 2) for r in runs],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400, help="texts per round (400)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; medians (3)")
    parser.add_argument("--batch", type=int, default=64, help="texts per embed call (64)")
    parser.add_argument(
        "--layouts", default="1x1,1x2,2x1", help="SESSIONSxTHREADS, comma-separated"
    )
    args = parser.parse_args()
    layouts = [tuple(int(x) for x in s.split("x")) for s in args.layouts.split(",")]
    result = asyncio.run(run(args.n, args.rounds, args.batch, layouts))  # type: ignore[arg-type]
    print(f"{'layout':>8} {'passages/s':>11} {'wall s':>8} {'CPU s':>7} {'per CPU-s':>10}  load")
    for name, f in result["layouts"].items():
        print(
            f"{name:>8} {f['passages_per_s']:>11} {f['wall_s']:>8} {f['cpu_s']:>7} "
            f"{f['passages_per_cpu_s']:>10}  {f['load']}"
        )
    result["cpus"] = os.cpu_count()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
