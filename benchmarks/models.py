"""Compare the embedding models: mail records/s, peak RSS, and retrieval on an en + 5-language dev set.

Usage: .venv/bin/python benchmarks/models.py [--n 400] [--batch 64] [--threads 2]
           [--models minilm,multilingual-e5-small]

Each model runs in a process of its own (so its peak RSS is its own) and:
1. embeds the first N mail records of the Twisted mailing-list archives in the shared corpora
   (what the pipeline embeds: ``embed_text`` of each normalised record), in batches of
   ``--batch``, after one warm-up batch; records/s, passages/s and CPU time are reported;
2. ranks a dev set by cosine (the dense side of search alone, no keywords):
   - English mail: the subject of each of 150 threads of those archives (first message of
     each distinct subject) as the question, against the 150 bodies (recall@1 and MRR);
   - cross-language: ``tests/data/multilingual/crosslingual.jsonl``, 12 topics written in
     English, Korean, Thai, Chinese, Russian and Arabic; a question in one language against
     the 12 records of another (L->en, en->L and L->L per language).
The multilingual model is built into ``$MEMTRAILS_CACHE`` (default ``~/.cache/memtrails``)
first if needed, in a process of its own; the build is counted neither in load time nor RSS. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from contextlib import aclosing
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import CORPORA, ROOT, machine, run_measured  # not a package: sys.path above

LANGS = ("ko", "th", "zh", "ru", "ar")
MAIL = ["twisted-python-2003-April.mbox", "twisted-python-2004-February.mbox",
        "twisted-web-2005-December.mbox"]  # fmt: skip


async def mail_records(n: int) -> list[Any]:
    """Return the first n mail records of the archives that have a body."""
    from memtrails.importers.mbox import from_mbox
    from memtrails.records import MemoryRecord

    records: list[MemoryRecord] = []
    for name in MAIL:
        async with aclosing(from_mbox(CORPORA / "mbox" / name)) as items:
            async for item in items:
                if isinstance(item, MemoryRecord) and item.text.strip():
                    records.append(item)
                    if len(records) == n:
                        return records
    return records


def subject_pairs(records: list[Any], n: int) -> list[tuple[str, str]]:
    """Return (subject, body) of the first message of each of n distinct threads."""
    seen: set[str] = set()
    pairs = []
    for r in records:
        subject = re.sub(r"^((re|fwd?|aw)\s*:\s*|\[[^]]*\]\s*)+", "", r.title or "", flags=re.I)
        key = subject.strip().lower()
        if len(key) >= 12 and key not in seen:
            seen.add(key)
            pairs.append((subject.strip(), r.text))
            if len(pairs) == n:
                break
    return pairs


def ranks(queries: np.ndarray[Any, Any], records: np.ndarray[Any, Any]) -> list[int]:
    """Return, per query i, the 1-based rank of record i by cosine."""
    scores = queries @ records.T
    own = scores[np.arange(len(queries)), np.arange(len(queries))]
    return [int((row > own[i]).sum()) + 1 for i, row in enumerate(scores)]


async def child(model: str, n: int, batch: int, threads: int) -> dict[str, Any]:
    from memtrails.embedding import embedder_by_name
    from memtrails.items import embed_text

    mail = await mail_records(max(n, 1500))
    texts = [embed_text(r) for r in mail[:n]]
    threads_ = subject_pairs(mail, 150)
    t0 = time.perf_counter()
    embedder = await embedder_by_name(model, threads=threads)
    load_s = time.perf_counter() - t0
    try:
        await embedder.embed(texts[:batch])  # warm-up: first runs allocate
        passages = 0
        t0, c0 = time.perf_counter(), time.process_time()
        for b in range(0, len(texts), batch):
            passages += sum(len(p) for p in await embedder.embed(texts[b : b + batch]))
        seconds = time.perf_counter() - t0
        cpu = time.process_time() - c0

        async def passages_of(items: list[str]) -> np.ndarray[Any, Any]:
            return np.stack([p[0].vector for p in await embedder.embed(items)])

        async def queries_of(items: list[str]) -> np.ndarray[Any, Any]:
            return np.stack([await embedder.embed_query(q) for q in items])

        en_ranks = ranks(
            await queries_of([s for s, _ in threads_]),
            await passages_of([b for _, b in threads_]),
        )
        dev_file = ROOT / "tests" / "data" / "multilingual" / "crosslingual.jsonl"
        dev = [json.loads(line) for line in dev_file.read_text().splitlines()]
        recs = {
            lang: await passages_of([r[lang]["record"] for r in dev]) for lang in ("en", *LANGS)
        }
        qs = {lang: await queries_of([r[lang]["query"] for r in dev]) for lang in ("en", *LANGS)}
        cross: dict[str, dict[str, int]] = {}
        for lang in ("en", *LANGS):
            cross[lang] = {
                "to_en": sum(r == 1 for r in ranks(qs[lang], recs["en"])),
                "from_en": sum(r == 1 for r in ranks(qs["en"], recs[lang])),
                "same": sum(r == 1 for r in ranks(qs[lang], recs[lang])),
            }
    finally:
        await embedder.aclose()
    across = sum(c["to_en"] + c["from_en"] for lang, c in cross.items() if lang != "en")
    return {
        "model": embedder.model_id,
        "threads": threads,
        "records": len(texts),
        "passages": passages,
        "seconds": round(seconds, 2),
        "records_per_s": round(len(texts) / seconds, 1),
        "passages_per_s": round(passages / seconds, 1),
        "records_per_cpu_s": round(len(texts) / cpu, 1),
        "load_s": round(load_s, 2),
        "en_threads": len(en_ranks),
        "en_recall_at_1": round(sum(r == 1 for r in en_ranks) / len(en_ranks), 3),
        "en_mrr": round(float(np.mean([1 / r for r in en_ranks])), 3),
        "cross_top1": across,
        "cross_searches": 2 * len(LANGS) * len(dev),
        "by_language": cross,
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400, help="mail records to embed")
    parser.add_argument("--batch", type=int, default=64, help="records per embed() call")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime threads")
    parser.add_argument("--models", default="minilm,multilingual-e5-small")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.child, args.n, args.batch, args.threads))))
        return
    models = args.models.split(",")
    if "multilingual-e5-small" in models:
        # Built in a child: a child's peak RSS starts from its parent's at fork time.
        build = "import asyncio; from memtrails.embedding import build_multilingual_model as b; asyncio.run(b())"
        subprocess.run([sys.executable, "-c", build], check=True)
    results = []
    for model in models:
        m = run_measured(
            [sys.executable, __file__, "--child", model, "--n", str(args.n),
             "--batch", str(args.batch), "--threads", str(args.threads)]
        )  # fmt: skip
        results.append({**m.result, "peak_rss_mib": round(m.peak_rss_mib, 1)})
    print(f"{'model':24} {'rec/s':>7} {'pass/s':>7} {'rec/cpu-s':>9} {'load s':>6} "
          f"{'RSS MiB':>8} {'en R@1':>6} {'en MRR':>6} {'x-lang top1':>12}")  # fmt: skip
    for r in results:
        print(
            f"{r['model']:24} {r['records_per_s']:>7} {r['passages_per_s']:>7} "
            f"{r['records_per_cpu_s']:>9} {r['load_s']:>6} {r['peak_rss_mib']:>8} "
            f"{r['en_recall_at_1']:>6} {r['en_mrr']:>6} "
            f"{r['cross_top1']:>4}/{r['cross_searches']:<7}"
        )
        for lang, c in r["by_language"].items():
            print(f"    {lang}: ->en {c['to_en']}/12  en-> {c['from_en']}/12  same {c['same']}/12")
    print(json.dumps({"benchmark": "models", "machine": machine(), "results": results}))


if __name__ == "__main__":
    main()
