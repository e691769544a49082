"""Search latency p50/p95 of Memory.search at 10k and 100k records on the embedded index.

Usage (from the repository root):

    .venv/bin/python benchmarks/search_latency.py [--sizes 10000,100000] [--queries 100]
        [--embedder hashing|model] [--optimize] [--keep DIR] [--graph fused|packaged]
        [--embedding-runs 3] [--reorder] [--distinct] [--foreign 0.3]

Each size builds a memory folder of N records (GSM8K questions with their answers) and then
times ``Memory.search(query, k=10)`` (dense + keyword candidates fused by score, then the hits
read back from the log), unfiltered and filtered by author. By default the folder is built
with the cheap hashing embedder (``_common.HashingEmbedder``): the points have vectors of the
right size and the real keyword vectors memtrails computes from the text, so the search
latency is the index's and the log's, while the query's own embedding is nearly free. The
real model's query embedding time is measured separately, over the same queries, and added
for an end-to-end estimate; and each query is also timed end to end, the real model embedding it
right before the search (the p95 of those sums, not the sum of two p95s; also apart for the
questions of at most 32 word pieces and the longer ones), with the process's
CPU time per query (user + system, every thread: steadier than wall time on a loaded machine).
``--keep DIR`` builds the folders under DIR once and reuses them. ``--foreign SHARE`` writes
that share of the records in Cyrillic letters (each Latin letter of its text mapped to one):
an English query's extra request for the passages in other scripts (folder/foreign.py) then
has them to scan, as in a folder partly in another language. ``--embedder model`` builds with the real model instead (slow:
about 60-100 records/s) and times the search end to end. The index is exact (no HNSW) as a
folder is after an import, unless ``--optimize`` builds HNSW first (minutes at 100k).
Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from _common import (  # the benchmarks folder is not a package: sys.path above
    CORPORA,
    HashingEmbedder,
    machine,
    percentile_ms,
    records,
    write_jsonl,
)


def queries(n: int) -> list[str]:
    """Return n queries: MT-Bench prompts (unrelated to the records) and GSM8K-like questions."""
    prompts = [
        json.loads(line)["turns"][0]
        for line in (CORPORA / "jsonl" / "fastchat-mt_bench-question.jsonl")
        .read_text()
        .splitlines()
        if line.strip()
    ]
    asks = [
        "how much does she make at the farmers market",
        "bolts of blue fiber for a robe",
        "what is the total cost of the tickets",
        "how many apples are left",
        "average speed of the train in miles per hour",
        "how long does it take to fill the pool",
        "profit after selling the house",
        "how many eggs per day",
    ]
    pool = [q for pair in zip(prompts, asks * 10, strict=False) for q in pair] + prompts
    return [pool[i % len(pool)] for i in range(n)]


def distinct_queries(n: int) -> list[str]:
    """Return n queries, none twice: MT-Bench prompts (first turns, then second turns) and the
    asking sentence of GSM8K questions (the records' own questions), three prompts to two asks
    as in ``queries``. Caches that keep what a query asked gain nothing from this set.

    Raises:
        ValueError: n is more than the distinct prompts allow at that mix (268).
    """
    bench = [
        json.loads(line)["turns"]
        for line in (CORPORA / "jsonl" / "fastchat-mt_bench-question.jsonl")
        .read_text()
        .splitlines()
        if line.strip()
    ]
    prompts = list(dict.fromkeys([t[0] for t in bench] + [t[1] for t in bench if len(t) > 1]))
    lines = (CORPORA / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()
    # A question's last sentence: "How many of the animals are chickens?"
    asks = list(
        dict.fromkeys(
            re.split(r"(?<=[.!?])\s+", json.loads(line)["question"].strip())[-1]
            for line in lines
            if line.strip()
        )
    )
    out: list[str] = []
    for i in range(0, len(prompts), 3):
        out += prompts[i : i + 3] + asks[2 * i // 3 : 2 * i // 3 + 2]
    if n > len(out):
        raise ValueError(f"at most {len(out)} distinct queries, not {n}")
    return out[:n]


def folder_model_blank(model: Any) -> Any:
    """The blank query's vector, made on first use and kept, as ``FolderModel.blank`` does."""
    kept: list[Any] = []

    async def blank() -> Any:
        if not kept:
            kept.append(await model.embed_query(" "))
        return kept[0]

    return blank


_CYRILLIC = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "абцдефгхийклмнопярстуввхызАБЦДЕФГХИЙКЛМНОПЯРСТУВВХЫЗ",
)


def _in_cyrillic(rows: Any, share: float) -> Any:
    """Yield rows, every ``1/share``-th of them (about) with its text in Cyrillic letters."""
    for i, row in enumerate(rows):
        if share and int((i + 1) * share) > int(i * share):
            row = {**row, "text": row["text"].translate(_CYRILLIC)}
        yield row


async def measure(
    n: int,
    qs: list[str],
    embedder_kind: str,
    optimize: bool,
    threads: int | None,
    query_model: Any,
    keep: Path | None = None,
    optimize_graph: bool = True,
    reorder: bool = False,
    foreign: float = 0.0,
) -> dict[str, Any]:
    from memtrails import Memory, from_jsonl
    from memtrails.embedding import default_embedder

    work = (
        keep / (f"{embedder_kind}-{n}" + (f"-foreign{foreign}" if foreign else ""))
        if keep
        else Path(tempfile.mkdtemp(prefix="memtrails-search-"))
    )
    try:
        embedder: Any = (
            HashingEmbedder()
            if embedder_kind == "hashing"
            else await default_embedder(threads=threads, optimize=optimize_graph)
        )
        build_s = None
        if not (work / "memory").exists():
            work.mkdir(parents=True, exist_ok=True)
            path = work / "records.jsonl"
            write_jsonl(path, _in_cyrillic(records(n), foreign))
            build_batch = 1024 if embedder_kind == "hashing" else 64  # the build is not measured
            async with Memory.open(work / "memory", embedder=embedder) as memory:
                t0 = time.perf_counter()
                await memory.ingest(
                    from_jsonl(path, source="bench"), batch=build_batch, name="bench"
                )
                build_s = round(time.perf_counter() - t0, 1)
        optimize_s = None
        # Reopen, as a reader would: the searches run on a folder opened from disk.
        async with Memory.open(work / "memory", embedder=embedder) as memory:
            if optimize:
                t0 = time.perf_counter()
                await memory.optimize()
                optimize_s = round(time.perf_counter() - t0, 1)
            points = (await memory.status()).points
            await memory.search(qs[0], k=10)  # warm-up: first reads of the shard's files
            if reorder:
                from memtrails.folder.search import search

                folder = memory._open_folder()
                pieces, load_s = _full_cache(work / "memory", query_model)
                from memtrails.folder.idf import IdfCache

                # As Memory.search calls it, with an IDF cache (folder/idf.py) of its own: it
                # holds the words of the queries timed before it, not the words the loop's
                # own Memory.search just asked (that fills the folder's cache). The short asks
                # come back ten times each (`queries`), and from their second time on their
                # words are all in it; at 200 queries, 40 of the 80 MT-Bench prompts come
                # twice, the rest once.
                cached = {
                    "pieces": pieces,
                    "idf_cache": IdfCache(),
                    "index_state": lambda: folder.writer.index_version,
                    "blank": folder_model_blank(query_model),
                }
                await search(
                    folder.index, folder.table, folder.log, query_model, qs[0], 10, **cached
                )
            plain: list[float] = []
            filtered: list[float] = []
            e2e: list[float] = []
            cpu: list[float] = []
            search_cpu: list[float] = []
            hits = 0
            for q in qs:
                c0, t0 = time.process_time(), time.perf_counter()
                found = await memory.search(q, k=10)
                plain.append(time.perf_counter() - t0)
                search_cpu.append(time.process_time() - c0)
                hits += len(found)
                t0 = time.perf_counter()
                await memory.search(q, k=10, author="user7@example.org")
                filtered.append(time.perf_counter() - t0)
                if query_model is not None and reorder:
                    c0, t0 = time.process_time(), time.perf_counter()
                    await search(
                        folder.index, folder.table, folder.log, query_model, q, 10, **cached
                    )
                    e2e.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                elif query_model is not None:
                    c0, t0 = time.process_time(), time.perf_counter()
                    await query_model.embed_query(q)
                    await memory.search(q, k=10)
                    e2e.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
        await embedder.aclose()
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    result: dict[str, Any] = {
        "records": n,
        "points": points,
        "embedder": embedder_kind,
        "hnsw": optimize,
        "build_s": build_s,
        "optimize_s": optimize_s,
        "queries": len(qs),
        "avg_hits": round(hits / len(qs), 1),
        "search_p50_ms": percentile_ms(plain, 50),
        "search_p95_ms": percentile_ms(plain, 95),
        "search_cpu_ms_mean": round(statistics.fmean(search_cpu) * 1000, 2),
        "filtered_p50_ms": percentile_ms(filtered, 50),
        "filtered_p95_ms": percentile_ms(filtered, 95),
    }
    if reorder:
        result["reorder_cache_load_s"] = load_s
    if e2e:
        # The model embeds the query, then the search runs on the hashing-built folder.
        result["end_to_end_p50_ms"] = percentile_ms(e2e, 50)
        result["end_to_end_p95_ms"] = percentile_ms(e2e, 95)
        result["end_to_end_cpu_ms_mean"] = round(statistics.fmean(cpu) * 1000, 2)
        result["end_to_end_cpu_ms_p95"] = percentile_ms(cpu, 95)
        # Apart for short questions and for long ones (past 32 word pieces, as the model's
        # own figures): the tail is the long ones'.
        from model_only import pieces_per_text

        sizes = pieces_per_text(qs)
        for name, keep in (("short", lambda n: n <= 32), ("long", lambda n: n > 32)):
            mine = [t for t, n in zip(e2e, sizes, strict=True) if keep(n)]
            if mine:
                result[f"end_to_end_{name}_p50_ms"] = percentile_ms(mine, 50)
                result[f"end_to_end_{name}_p95_ms"] = percentile_ms(mine, 95)
    return result


async def query_embedding(qs: list[str], model: Any, runs: int = 1) -> dict[str, Any]:
    """Time the real model's embed_query over the queries (warmed first), ``runs`` times.

    Queries differ in length (MT-Bench prompts run to 256 word pieces, the short asks to 10),
    and a query's cost grows with its word pieces: the figures are also given for short
    queries (at most 32 word pieces with [CLS]/[SEP]) and long ones apart, with the CPU time
    per query, so a tail from long queries is told apart from a tail from waiting.
    """
    from model_only import pieces_per_text

    lengths = [min(n, 256) for n in pieces_per_text(qs)]
    await model.embed_query(qs[0])
    times, cpu, sizes, per_run = [], [], [], []
    for _ in range(runs):
        run_times = []
        for q, n in zip(qs, lengths, strict=True):
            c0, t0 = time.process_time(), time.perf_counter()
            await model.embed_query(q)
            run_times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            sizes.append(n)
        times += run_times
        per_run.append([percentile_ms(run_times, 50), percentile_ms(run_times, 95)])
    short = [t for t, n in zip(times, sizes, strict=True) if n <= 32]
    long = [t for t, n in zip(times, sizes, strict=True) if n > 32]
    return {
        "p50_ms": percentile_ms(times, 50),
        "p95_ms": percentile_ms(times, 95),
        "p99_ms": percentile_ms(times, 99),
        "cpu_p50_ms": percentile_ms(cpu, 50),
        "cpu_p95_ms": percentile_ms(cpu, 95),
        "runs_p50_p95_ms": per_run,
        "pieces_p50_p95": [float(np.percentile(lengths, 50)), float(np.percentile(lengths, 95))],
        "short_queries": len(short) // runs,
        "short_p50_ms": percentile_ms(short, 50),
        "short_p95_ms": percentile_ms(short, 95),
        "long_queries": len(long) // runs,
        "long_p50_ms": percentile_ms(long, 50),
        "long_p95_ms": percentile_ms(long, 95),
    }


def _full_cache(folder: Path, model: Any) -> tuple[Any, float]:
    """Give the folder a word-piece cache of the largest size (every one of the model's
    250,002 pieces, random unit vectors: the lookups cost what a real one's would) and
    return it loaded, with the seconds its first read took."""
    from memtrails.folder.reorder import CACHE_FILE, PieceCache

    described = model.describe()
    name = f"{described.get('model_id')}:{described.get('sha256')}"
    rng = np.random.default_rng(0)
    n = 250_002
    means = rng.standard_normal((n, model.dims), dtype=np.float32).astype(np.float16)
    np.savez(
        folder / CACHE_FILE,
        model=np.array(name),
        ids=np.arange(n, dtype=np.int32),
        counts=np.ones(n, dtype=np.int32),
        means=means,
    )
    t0 = time.perf_counter()
    pieces = PieceCache(folder, name)
    assert pieces.pieces == n
    return pieces, round(time.perf_counter() - t0, 2)


async def run(args: argparse.Namespace) -> None:
    from memtrails.embedding import default_embedder

    qs = distinct_queries(args.queries) if args.distinct else queries(args.queries)
    optimize = args.graph == "fused"
    embedder = await default_embedder(threads=args.threads, optimize=optimize)
    model = await query_embedding(qs, embedder, args.embedding_runs)
    model["graph"] = "fused" if embedder.optimized else "packaged"
    print(
        f"query embedding with the real model ({model['graph']} graph, {len(qs)} queries x "
        f"{args.embedding_runs}; word pieces p50 {model['pieces_p50_p95'][0]:.0f}, p95 "
        f"{model['pieces_p50_p95'][1]:.0f}): p50 {model['p50_ms']} ms, p95 {model['p95_ms']} ms, "
        f"p99 {model['p99_ms']} ms (per run p50/p95: {model['runs_p50_p95_ms']}); CPU per query "
        f"p50 {model['cpu_p50_ms']} ms, p95 {model['cpu_p95_ms']} ms; {model['short_queries']} "
        f"short queries (<= 32 pieces) p50 {model['short_p50_ms']} ms, p95 "
        f"{model['short_p95_ms']} ms; {model['long_queries']} long p50 {model['long_p50_ms']} "
        f"ms, p95 {model['long_p95_ms']} ms",
        flush=True,
    )
    rows = []
    for n in (int(s) for s in args.sizes.split(",") if s.strip()):
        r = await measure(
            n,
            qs,
            args.embedder,
            args.optimize,
            args.threads,
            embedder if args.embedder == "hashing" else None,
            Path(args.keep) if args.keep else None,
            optimize,
            args.reorder,
            args.foreign,
        )
        if "end_to_end_p50_ms" in r:
            r["with_model_p50_ms"] = round(r["search_p50_ms"] + model["p50_ms"], 2)
            r["with_model_p95_ms"] = round(r["search_p95_ms"] + model["p95_ms"], 2)
        rows.append(r)
        print(
            f"{n} records ({r['points']} points, {'HNSW' if r['hnsw'] else 'exact'}, built with "
            f"{r['embedder']} in {r['build_s']} s): search p50 {r['search_p50_ms']} ms, p95 "
            f"{r['search_p95_ms']} ms (CPU mean {r['search_cpu_ms_mean']} ms); filtered by author p50 {r['filtered_p50_ms']} ms, p95 "
            f"{r['filtered_p95_ms']} ms"
            + (
                f"; plus the model's query embedding: p50 {r['with_model_p50_ms']} ms, "
                f"p95 {r['with_model_p95_ms']} ms"
                if "with_model_p50_ms" in r
                else ""
            )
            + (
                f"; end to end (model + search, one query after the other): p50 "
                f"{r['end_to_end_p50_ms']} ms, p95 {r['end_to_end_p95_ms']} ms, CPU per query "
                f"mean {r['end_to_end_cpu_ms_mean']} ms, p95 {r['end_to_end_cpu_ms_p95']} ms"
                if "end_to_end_p50_ms" in r
                else ""
            )
            + (
                f" (short queries p50 {r['end_to_end_short_p50_ms']} ms, p95 "
                f"{r['end_to_end_short_p95_ms']} ms; long p50 {r['end_to_end_long_p50_ms']} "
                f"ms, p95 {r['end_to_end_long_p95_ms']} ms)"
                if "end_to_end_long_p95_ms" in r and "end_to_end_short_p95_ms" in r
                else ""
            ),
            flush=True,
        )
    await embedder.aclose()
    if args.embedder == "hashing":
        print(
            "(folders built with the hashing embedder: the latency is the index's and the log's; "
            "the model's query embedding is measured apart and added)"
        )
    print(
        json.dumps(
            {
                "benchmark": "search_latency",
                "machine": machine(),
                "query_embedding": model,
                "results": rows,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="record counts (comma-separated)")
    parser.add_argument("--queries", type=int, default=100, help="queries timed per size (100)")
    parser.add_argument(
        "--embedder",
        choices=("hashing", "model"),
        default="hashing",
        help="embedder the folders are built with (default hashing; see above)",
    )
    parser.add_argument("--optimize", action="store_true", help="build HNSW before searching")
    parser.add_argument(
        "--reorder",
        action="store_true",
        help="end to end with the word-by-word reordering: the model's query run keeps its "
        "token vectors and the first 10 results are reordered from a full-size word-piece "
        "cache written into the folder (hashing embedder only)",
    )
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="queries that never repeat (MT-Bench's two turns, GSM8K's asks): the default set "
        "asks 8 short questions ten times each and some prompts twice",
    )
    parser.add_argument(
        "--foreign",
        type=float,
        default=0.0,
        help="share of the records written in Cyrillic letters (0: none)",
    )
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument("--keep", help="build the folders under this directory once and reuse them")
    parser.add_argument(
        "--graph",
        choices=("fused", "packaged"),
        default="fused",
        help="the default model's graph: fused (memtrails' default) or the package's",
    )
    parser.add_argument(
        "--embedding-runs",
        type=int,
        default=3,
        help="passes over the queries timing the query embedding alone (3)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
