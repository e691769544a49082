"""Measure the embedding model alone: texts/s and word pieces/s, the pipeline's physical limit.

Usage: .venv/bin/python benchmarks/model_only.py [--n 1000] [--batch 64] [--threads N]
           [--graph fused|packaged|both] [--rounds 3] [--records]

Embeds N texts (GSM8K test questions, then their worked answers, from the shared corpora;
with ``--records``, the N records ``peers.py`` imports, as memtrails embeds them)
with the packaged all-MiniLM-L6-v2 int8 model through ``OnnxEmbedder.embed`` in batches of
``--batch`` texts, one batch after the other. ``--graph`` picks the graph that runs: the fused
graph memtrails builds from the package (the default embedder), the package's own graph, or
both, taking turns round after round so both see the same load. Wall and CPU seconds (every
thread, user + system) are given: on a shared machine, texts per CPU-second are the steadier
figure. Prints a short report, then one JSON line.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tokenizers import Tokenizer

from memtrails.embedding.onnx import DEFAULT_TOKENIZER_FILE, OnnxEmbedder

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))


def load_texts(corpora: Path, n: int) -> list[str]:
    """Return n texts: every question first, then every answer, repeated if n asks for more."""
    rows = [
        json.loads(line)
        for line in (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()
    ]
    pool = [r["question"] for r in rows] + [r["answer"] for r in rows]
    return [pool[i % len(pool)] for i in range(n)]


def record_texts(n: int) -> list[str]:
    """Return what memtrails embeds for peers.py's n records (question and worked answer,
    title and text: ``peers.embed_string``), so the model alone does that run's work."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from _common import records
    from peers import embed_string

    return [embed_string(r) for r in records(n)]


def pieces_per_text(texts: list[str]) -> list[int]:
    """Return the word pieces the model sees per text: windows of <= 254 pieces plus
    [CLS]/[SEP] each (the query path takes the first window only: min(n, 256))."""
    tok = Tokenizer.from_file(
        str(ROOT / "memtrails" / "embedding" / "data" / DEFAULT_TOKENIZER_FILE)
    )
    tok.no_padding()
    tok.no_truncation()
    out = []
    for enc in tok.encode_batch(texts, add_special_tokens=False):
        n = len(enc.ids)
        windows = 1 if n <= 254 else 1 + -(-(n - 254) // (254 - 32))
        out.append(n + 2 * windows)
    return out


def count_pieces(texts: list[str]) -> int:
    """Return the word pieces the model sees for all the texts."""
    return sum(pieces_per_text(texts))


async def run_graph(
    texts: list[str], batch: int, threads: int | None, graph: str
) -> dict[str, float]:
    """Load the model with one graph, warm it, embed the texts; seconds, CPU seconds, passages."""
    t0 = time.perf_counter()
    embedder = await OnnxEmbedder.packaged(threads=threads, optimize=graph == "fused")
    load_s = time.perf_counter() - t0
    if embedder.optimized != (graph == "fused"):
        raise SystemExit(f"the {graph} graph could not be loaded")
    try:
        await embedder.embed(texts[:batch])  # warm-up: first runs allocate
        passages = 0
        t0, c0 = time.perf_counter(), time.process_time()
        for b in range(0, len(texts), batch):
            out = await embedder.embed(texts[b : b + batch])
            passages += sum(len(p) for p in out)
        elapsed = time.perf_counter() - t0
        cpu = time.process_time() - c0
    finally:
        await embedder.aclose()
    return {
        "load_s": load_s,
        "seconds": elapsed,
        "cpu_s": cpu,
        "passages": passages,
        "threads": float(embedder.threads or 0),
    }


async def run(
    n: int,
    batch: int,
    threads: int | None,
    corpora: Path,
    graphs: list[str],
    rounds: int,
    as_records: bool = False,
) -> dict[str, object]:
    texts = record_texts(n) if as_records else load_texts(corpora, n)
    pieces = count_pieces(texts)
    runs: dict[str, list[dict[str, float]]] = {g: [] for g in graphs}
    loads = []
    for _ in range(rounds):
        for g in graphs:
            loads.append(os.getloadavg()[0])
            runs[g].append(await run_graph(texts, batch, threads, g))
    per_graph = {}
    for g, rs in runs.items():
        wall = statistics.median(r["seconds"] for r in rs)
        cpu = statistics.median(r["cpu_s"] for r in rs)
        per_graph[g] = {
            "seconds": round(wall, 3),
            "texts_per_s": round(n / wall, 1),
            "pieces_per_s": round(pieces / wall, 1),
            # CPU time of all threads: on a busy machine, texts per CPU-second times the
            # cores estimates what a quiet machine would do.
            "cpu_s": round(cpu, 3),
            "texts_per_cpu_s": round(n / cpu, 1),
            "pieces_per_cpu_s": round(pieces / cpu, 1),
            "load_s": round(statistics.median(r["load_s"] for r in rs), 3),
            "runs_seconds": [round(r["seconds"], 2) for r in rs],
            "runs_cpu_s": [round(r["cpu_s"], 2) for r in rs],
            "passages": int(rs[0]["passages"]),
            "threads": int(rs[0]["threads"]),
        }
    return {
        "benchmark": "model_only",
        "model": "all-MiniLM-L6-v2-int8",
        "texts": n,
        "batch": batch,
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "load_avg_1m": [round(min(loads), 2), round(max(loads), 2)],
        "word_pieces": pieces,
        "avg_pieces_per_text": round(pieces / n, 1),
        "graphs": per_graph,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="texts to embed (default 1000)")
    parser.add_argument("--batch", type=int, default=64, help="texts per embed() call")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument("--graph", choices=("fused", "packaged", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=1, help="runs per graph (median)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument(
        "--records",
        action="store_true",
        help="embed peers.py's records (question and answer, ~160 word pieces) instead of "
        "the questions, then the answers",
    )
    args = parser.parse_args()
    graphs = ["fused", "packaged"] if args.graph == "both" else [args.graph]
    r = asyncio.run(
        run(args.n, args.batch, args.threads, args.corpora, graphs, args.rounds, args.records)
    )
    print(
        f"{r['model']}: {r['texts']} texts ({r['avg_pieces_per_text']} word pieces each on "
        f"average), batches of {r['batch']}, median of {r['rounds']} (load average "
        f"{r['load_avg_1m'][0]}-{r['load_avg_1m'][1]})"
    )
    for g, x in r["graphs"].items():  # type: ignore[attr-defined]
        print(
            f"  {g:8s} graph: {x['seconds']} s on {x['threads']} threads = {x['texts_per_s']} "
            f"texts/s, {x['pieces_per_s']} word pieces/s; CPU {x['cpu_s']} s = "
            f"{x['texts_per_cpu_s']} texts and {x['pieces_per_cpu_s']} pieces per CPU-second; "
            f"load {x['load_s']} s"
        )
    if len(r["graphs"]) == 2:  # type: ignore[arg-type]
        f, p = r["graphs"]["fused"], r["graphs"]["packaged"]  # type: ignore[index]
        print(
            f"  fused / packaged: CPU {f['cpu_s'] / p['cpu_s']:.3f}, wall {f['seconds'] / p['seconds']:.3f}"
        )
    print(json.dumps(r))


if __name__ == "__main__":
    main()
