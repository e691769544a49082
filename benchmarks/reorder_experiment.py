"""Word-by-word reordering (late interaction) of the first 10 results, measured on the dev set.

Usage (from the repository root):

    .venv/bin/python benchmarks/reorder_experiment.py --folder DIR [--model MODEL]
        [--weights 0.5,1,2,4]

The first run imports the dev corpora as ``retrieval.py`` does (the same records, the same
queries) into ``DIR/memory`` and, while the import's model runs, accumulates per word-piece id
the sum and count of its contextual vectors (the model's last hidden state for every passage
it embeds): the "word-piece cache" (``DIR/pieces.npz``). It then runs every dev query through
``Memory.search`` (k=10 plus the ignored ones) and keeps each query's ranked hits with their
texts (``DIR/hits.pkl``). Later runs reuse both.

Then, for the first 10 results of each query, every variant scores a record by MaxSim (for
each of the query's word pieces, its best cosine among the record's pieces, averaged) and adds
``w x 0.1 x`` that score's z-score over the 10 to the fused score:

- ``context``: both sides from model runs (the record's text re-embedded: 10 passage runs);
- ``cache``: the query's own token vectors against the record's pieces looked up in the cache;
- ``cache2``: both sides looked up in the cache (the query's pieces too);
- ``static``: the model's input embeddings (its word-embedding table) on both sides;
- ``exact``: the share of the query's pieces the record holds (no vectors).

Prints hit@1/5/10 and MRR@10 per category and overall for each (variant, w), the query-time
cost of each variant's work (milliseconds a query, median and p95), then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval  # the benchmarks folder is not a package: sys.path above
from _common import machine
from _devset import build_queries, conversation_queries, conversations, multilingual_queries

TOP = 10
# The record's characters the passage side reads (the scratch run of before read 1,500).
PASSAGE_CHARS = 1500
# Word-piece ids at most (e5: 250,002; its compact tokenizer reports no vocabulary size).
VOCAB = 250_112
GROUPS = ["conv", "xlang", "non-conv", "all"]


class PieceSums:
    """Per word-piece id: the sum of its contextual vectors and how many were summed."""

    def __init__(self, vocab: int, dims: int) -> None:
        self.sums = np.zeros((vocab, dims), dtype=np.float32)
        self.counts = np.zeros(vocab, dtype=np.int64)

    def add(self, ids: list[int], tokens: np.ndarray) -> None:
        index = np.asarray(ids, dtype=np.int64)
        np.add.at(self.sums, index, tokens)
        np.add.at(self.counts, index, 1)


def _capture(sums: list[PieceSums]) -> None:
    """Make every passage run of an OnnxEmbedder also add its token vectors to ``sums[0]``."""
    from memtrails.embedding.onnx import OnnxEmbedder

    original = OnnxEmbedder._run_batch

    def run_batch(self: Any, batch: Any, keep_tokens: bool, lead: Any = None) -> Any:
        if lead is None or lead != self._passage_ids or keep_tokens:
            return original(self, batch, keep_tokens, lead)
        out = original(self, batch, True, lead)
        if not sums:
            sums.append(PieceSums(VOCAB, self.dims))
        for window, passage in zip(batch, out, strict=True):
            if passage.tokens is not None and window.ids:
                sums[0].add(window.ids, passage.tokens)
        return out

    OnnxEmbedder._run_batch = run_batch  # type: ignore[method-assign]


async def build(folder: Path, model: str | None) -> None:
    """Import the dev set with the cache accumulating; search every query; save both."""
    from memtrails import Memory
    from memtrails.items import embed_text
    from memtrails.records import MemoryRecord

    sums: list[PieceSums] = []
    _capture(sums)
    notes = folder / "notes"
    if not notes.is_dir():
        retrieval.notes_folder(retrieval.CORPORA, notes)
    records = []
    async with Memory.open(folder / "memory", model=model) as memory:
        t0 = time.perf_counter()
        for name, make in retrieval._sources(notes):
            await memory.ingest(make(), name=name)
            records += [r async for r in retrieval._records(make)]
        convs = conversations()
        for conv in convs:
            for speaker_in_text in (False, True):
                await memory.ingest(
                    retrieval._turns(conv, speaker_in_text),
                    name=(retrieval.SPEAKER_PREFIX if speaker_in_text else "") + conv.source,
                )
        await memory.ingest(retrieval._multilingual(), name=retrieval.MULTILINGUAL_SOURCE)
        import_s = time.perf_counter() - t0
        notes_source = next(r.source for r in records if r.id == "INVENTORY.md")
        queries = build_queries(retrieval.CORPORA, records, notes_source, quotes=150, dated=60)
        queries += conversation_queries(convs) + multilingual_queries()
        extra = max((len(q.ignore) for q in queries), default=0)
        opened = memory._open_folder()
        rows = []
        for q in queries:
            if not q.answers:
                continue
            kwargs: dict[str, Any] = {"source": q.source} if q.source else {}
            if q.now:
                kwargs["now"] = q.now
            hits = await memory.search(q.text, k=TOP + extra, **kwargs)
            kept = []
            for h in hits:
                if (h.source, h.id) in q.ignore:
                    continue
                row = opened.table.get(h.uid)
                assert row is not None
                record = MemoryRecord.from_json(opened.log.read_line(row.offset))
                kept.append((h.source, h.id, h.score, embed_text(record)))
            rows.append(
                {
                    "category": q.category,
                    "kind": q.kind,
                    "text": q.text,
                    "answers": sorted(q.answers),
                    "hits": kept,
                }
            )
    cache = sums[0]
    seen = np.flatnonzero(cache.counts)
    np.savez(
        folder / "pieces.npz",
        ids=seen,
        sums=cache.sums[seen],
        counts=cache.counts[seen],
        vocab=cache.sums.shape[0],
    )
    with open(folder / "hits.pkl", "wb") as f:
        pickle.dump({"rows": rows, "import_s": import_s}, f)
    print(f"built: {len(rows)} answered queries, {len(seen)} word pieces seen, {import_s:.0f} s")


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=-1, keepdims=True), 1e-12)


def maxsim(query: np.ndarray, passage: np.ndarray) -> float:
    """Mean over the query's rows of the best cosine among the passage's rows (unit rows)."""
    if len(query) == 0 or len(passage) == 0:
        return 0.0
    return float((query @ passage.T).max(axis=1).mean())


def rank_of(answers: set[tuple[str, str]], order: list[tuple[str, str]]) -> int | None:
    for i, key in enumerate(order[:TOP], 1):
        if key in answers:
            return i
    return None


def summary(rows: list[dict[str, Any]], ranks: list[int | None]) -> dict[str, Any]:
    out = {}
    for group in GROUPS:
        picked = [
            r
            for row, r in zip(rows, ranks, strict=True)
            if group == "all"
            or row["category"] == group
            or (group == "non-conv" and row["category"] not in ("conv", "xlang"))
        ]
        n = len(picked)
        out[group] = {
            "n": n,
            "hit@1": round(sum(1 for r in picked if r == 1) / n, 3),
            "hit@5": round(sum(1 for r in picked if r and r <= 5) / n, 3),
            "hit@10": round(sum(1 for r in picked if r and r <= 10) / n, 3),
            "mrr": round(sum(1 / r for r in picked if r) / n, 3),
        }
    return out


def _static_table(model: Any) -> np.ndarray:
    """Return the model's word-embedding table, read from its ONNX graph's initialisers."""
    import onnx
    from onnx import numpy_helper

    from memtrails.embedding.multilingual import model_folder

    path = model.describe().get("path") or model_folder() / "model.onnx"
    graph = onnx.load(str(path)).graph
    for init in graph.initializer:
        if len(init.dims) == 2 and init.dims[0] > 30_000 and init.dims[1] == model.dims:
            table = np.zeros((VOCAB, model.dims), dtype=np.float32)
            found = np.asarray(numpy_helper.to_array(init), dtype=np.float32)
            table[: len(found)] = found
            return table
    raise SystemExit("no word-embedding table found in the model graph")


async def score(folder: Path, model_name: str | None, weights: list[float]) -> dict[str, Any]:
    from memtrails import Memory

    with open(folder / "hits.pkl", "rb") as f:
        rows = pickle.load(f)["rows"]
    npz = np.load(folder / "pieces.npz")
    vocab = int(npz["vocab"])
    means = np.zeros((vocab, npz["sums"].shape[1]), dtype=np.float32)
    means[npz["ids"]] = npz["sums"] / npz["counts"][:, None]
    cache = _unit(means).astype(np.float16)  # as it would be stored
    async with Memory.open(folder / "memory", model=model_name) as memory:
        model = await memory._open_folder().model.get()
        try:
            static = _unit(_static_table(model)).astype(np.float16)
        except Exception as exc:  # a variant left out, said so
            print(f"static variant left out: {exc}")
            static = None
        tok = model._tokenizer
        cost: dict[str, list[float]] = {
            v: [] for v in ("context", "cache", "cache2", "static", "exact", "query")
        }
        scores: dict[str, list[list[float]]] = {v: [] for v in cost if v != "query"}
        for row in rows:
            texts = [h[3][:PASSAGE_CHARS] for h in row["hits"][:TOP]]
            t = time.perf_counter()
            [qwin] = model._windows([row["text"]], first_only=True)
            [qrun] = model._run_batch([qwin], True, model._query_ids)
            cost["query"].append(time.perf_counter() - t)
            qvec = _unit(qrun.tokens)
            qids = np.asarray(qwin.ids, dtype=np.int64)
            # context: the records' texts run through the model again (10 passage runs).
            t = time.perf_counter()
            runs = await model.embed_tokens(texts)
            ctx = [
                maxsim(qvec, _unit(np.concatenate([p.tokens for p in passages])))
                for passages in runs
            ]
            cost["context"].append(time.perf_counter() - t)
            scores["context"].append(ctx)
            # The pieces of each record, tokenised again (what the cache variants pay).
            t0 = time.perf_counter()
            encs = tok.encode_batch(texts, add_special_tokens=False)
            pids = [np.unique(np.asarray(e.ids, dtype=np.int64)) for e in encs]
            tokenise = time.perf_counter() - t0
            t = time.perf_counter()
            qc = qvec.astype(np.float16)
            s = [maxsim(qc, cache[p]) for p in pids]
            cost["cache"].append(tokenise + time.perf_counter() - t)
            scores["cache"].append(s)
            t = time.perf_counter()
            q2 = cache[qids]
            s = [maxsim(q2, cache[p]) for p in pids]
            cost["cache2"].append(tokenise + time.perf_counter() - t)
            scores["cache2"].append(s)
            if static is not None:
                t = time.perf_counter()
                qs = static[qids]
                s = [maxsim(qs, static[p]) for p in pids]
                cost["static"].append(tokenise + time.perf_counter() - t)
                scores["static"].append(s)
            t = time.perf_counter()
            s = [float(np.isin(qids, p).mean()) if len(qids) else 0.0 for p in pids]
            cost["exact"].append(tokenise + time.perf_counter() - t)
            scores["exact"].append(s)
    results: dict[str, Any] = {}
    keys = [[(h[0], h[1]) for h in row["hits"]] for row in rows]
    answers = [{tuple(a) for a in row["answers"]} for row in rows]
    base = [rank_of(a, k) for a, k in zip(answers, keys, strict=True)]
    results["none"] = summary(rows, base)
    for variant, per_query in scores.items():
        if not per_query:
            continue
        for w in weights:
            ranks = []
            for row, key, ans, s in zip(rows, keys, answers, per_query, strict=True):
                top = row["hits"][:TOP]
                arr = np.asarray(s, dtype=np.float64)
                z = (arr - arr.mean()) / arr.std() if len(arr) > 1 and arr.std() > 0 else 0 * arr
                new = [h[2] + w * 0.1 * float(zi) for h, zi in zip(top, z, strict=True)]
                order = sorted(range(len(top)), key=lambda i: -new[i])
                ranks.append(rank_of(ans, [key[i] for i in order] + key[TOP:]))
            results[f"{variant} w={w:g}"] = summary(rows, ranks)
    ms = {
        v: {
            "median": round(statistics.median(c) * 1000, 2),
            "p95": round(sorted(c)[int(0.95 * (len(c) - 1))] * 1000, 2),
        }
        for v, c in cost.items()
        if c
    }
    return {
        "benchmark": "reorder_experiment",
        "queries": len(rows),
        "pieces_seen": len(npz["ids"]),
        "quality": results,
        "cost_ms": ms,
        "machine": machine(),
    }


def report(result: dict[str, Any]) -> None:
    print(f"reorder experiment: {result['queries']} answered queries")
    print(f"{'variant':<16}" + "".join(f" {g:>27}" for g in GROUPS))
    for name, q in result["quality"].items():
        cells = "".join(
            f" {q[g]['hit@1']:.3f}/{q[g]['hit@5']:.3f}/{q[g]['hit@10']:.3f}/{q[g]['mrr']:.3f}"
            for g in GROUPS
        )
        print(f"{name:<16}{cells}")
    print("n: " + ", ".join(f"{g} {result['quality']['none'][g]['n']}" for g in GROUPS))
    for v, c in result["cost_ms"].items():
        print(f"cost {v:<8} median {c['median']:>7} ms  p95 {c['p95']:>7} ms")
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True)
    parser.add_argument("--model")
    parser.add_argument("--weights", default="0.5,1,2,4")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "hits.pkl").exists():
        asyncio.run(build(folder, args.model))
    weights = [float(w) for w in args.weights.split(",")]
    report(asyncio.run(score(folder, args.model, weights)))


if __name__ == "__main__":
    main()
