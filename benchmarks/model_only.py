"""Measure the embedding model alone: texts/s and word pieces/s, the pipeline's physical limit.

Usage: .venv/bin/python benchmarks/model_only.py [--n 1000] [--batch 64] [--threads N]

Embeds N texts (GSM8K test questions, then their worked answers, from the shared corpora)
with the packaged all-MiniLM-L6-v2 int8 model through ``OnnxEmbedder.embed`` in batches of
``--batch`` texts, one batch after the other. Prints a short report, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
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


def count_pieces(texts: list[str]) -> int:
    """Return the word pieces the model sees: windows of <= 254 pieces plus [CLS]/[SEP] each."""
    tok = Tokenizer.from_file(
        str(ROOT / "memtrails" / "embedding" / "data" / DEFAULT_TOKENIZER_FILE)
    )
    tok.no_padding()
    tok.no_truncation()
    total = 0
    for enc in tok.encode_batch(texts, add_special_tokens=False):
        n = len(enc.ids)
        windows = 1 if n <= 254 else 1 + -(-(n - 254) // (254 - 32))
        total += n + 2 * windows
    return total


async def run(n: int, batch: int, threads: int | None, corpora: Path) -> dict[str, object]:
    texts = load_texts(corpora, n)
    pieces = count_pieces(texts)
    t0 = time.perf_counter()
    embedder = await OnnxEmbedder.packaged(threads=threads)
    load_s = time.perf_counter() - t0
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
        "benchmark": "model_only",
        "model": embedder.model_id,
        "texts": n,
        "batch": batch,
        "threads": embedder.threads,
        "cpus": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "load_s": round(load_s, 3),
        "passages": passages,
        "word_pieces": pieces,
        "avg_pieces_per_text": round(pieces / n, 1),
        "seconds": round(elapsed, 3),
        "texts_per_s": round(n / elapsed, 1),
        "pieces_per_s": round(pieces / elapsed, 1),
        # CPU time of all threads: on a busy machine, texts per CPU-second times the cores
        # estimates what a quiet machine would do.
        "cpu_s": round(cpu, 3),
        "texts_per_cpu_s": round(n / cpu, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="texts to embed (default 1000)")
    parser.add_argument("--batch", type=int, default=64, help="texts per embed() call")
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    args = parser.parse_args()
    r = asyncio.run(run(args.n, args.batch, args.threads, args.corpora))
    print(
        f"{r['model']}: {r['texts']} texts ({r['avg_pieces_per_text']} word pieces each on "
        f"average, {r['passages']} passages) in {r['seconds']} s on {r['threads']} threads "
        f"(load average {r['load_avg_1m']})"
    )
    print(
        f"  {r['texts_per_s']} texts/s, {r['pieces_per_s']} word pieces/s; "
        f"{r['texts_per_cpu_s']} texts per CPU-second; model load {r['load_s']} s"
    )
    print(json.dumps(r))


if __name__ == "__main__":
    main()
