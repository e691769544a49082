"""MMR diversity over search candidates, measured on the retrieval dev set before building it.

Usage (from the repository root, on a dev folder ``retrieval.py --folder`` built):

    .venv/bin/python benchmarks/diversity.py --folder /tmp/rdev

Runs each dev-set query with an answer the way ``Memory.search`` does (dense and keyword
candidates, fused by ``rank_records``) but asks the Edge shard for the candidates' dense
vectors too (``with_vector``), then re-orders the fused records by maximal marginal relevance:
``lambda * score / best score - (1 - lambda) * max cosine to a record already chosen``, either
over every pair or only over near-duplicates (cosine >= a cut). Reports hit@1/5/10 and the
redundancy (how many of the top 10 are near-duplicates, cosine >= 0.95, of a hit above them)
for: every query (verbatim copies skipped, as ``retrieval.py`` ranks), the queries whose quoted
text two or more other records hold ("copies": mailing-list replies quoting each other; ranked
with the copies counted, as a user sees them) and the rest. Prints a table, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval  # the benchmarks folder is not a package: sys.path above
from _devset import build_queries

SETTINGS = [
    (1.0, None),
    (0.9, None),
    (0.9, 0.95),
    (0.8, None),
    (0.8, 0.95),
    (0.7, 0.95),
    (0.5, None),
    (0.5, 0.9),
    (0.5, 0.95),
]
POOL = 40


def _unit(rows: list[Any]) -> Any:
    v = np.array(rows, dtype=np.float32)
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


def mmr(ranked: list[Any], vectors: dict[Any, Any], lam: float, cut: float | None) -> list[Any]:
    """Return ``ranked``'s first POOL records re-ordered by MMR (the rest after them)."""
    pool = ranked[:POOL]
    if not pool:
        return []
    top = pool[0].score or 1.0
    sims = (v := _unit([vectors[(r.uid, r.hit.payload.get("passage", 0))] for r in pool])) @ v.T
    chosen, left = [0], list(range(1, len(pool)))
    while left:

        def value(i: int) -> float:
            sim = float(max(sims[i, j] for j in chosen))
            penalty = sim if cut is None or sim >= cut else 0.0
            return lam * pool[i].score / top - (1 - lam) * penalty

        best = max(left, key=value)
        chosen.append(best)
        left.remove(best)
    return [pool[i] for i in chosen] + ranked[POOL:]


async def run(folder: Path) -> dict[str, Any]:
    """Run the dev set's answered queries under each MMR setting; return the figures."""
    import qdrant_edge as qe

    from memtrails import Memory
    from memtrails.folder.index._base import DENSE, WORDS, Hit, SearchFilter
    from memtrails.folder.index.edge import _CANDIDATE_FIELDS, edge_filter
    from memtrails.folder.ranking import date_window, rank_records
    from memtrails.keys import record_uid
    from memtrails.words import keyword_vector

    records: list[Any] = []
    rows: list[dict[str, Any]] = []
    async with Memory.open(folder / "memory") as memory:
        for _name, make in retrieval._sources(folder / "notes"):
            records += [r async for r in retrieval._records(make)]
        notes_source = next(r.source for r in records if r.id == "INVENTORY.md")
        queries = build_queries(retrieval.CORPORA, records, notes_source)
        key = {record_uid(r.source, r.id): (r.source, r.id) for r in records}
        opened = memory._open_folder()
        model = await opened.model.get()
        for q in queries:
            if not q.answers:
                continue
            dense = await model.embed_query(q.text)
            terms = keyword_vector(q.text)
            flt = edge_filter(SearchFilter(source=q.source))

            def request(query: Any, flt: Any = flt) -> Any:
                return qe.QueryRequest(
                    POOL * 2,
                    query=query,
                    filter=flt,
                    with_payload=_CANDIDATE_FIELDS,
                    with_vector=[DENSE],
                )

            batch = qe.QueryBatchRequest(
                [
                    request(qe.Query.Nearest(dense.tolist(), using=DENSE)),
                    request(
                        qe.Query.Nearest(
                            qe.SparseVector(list(terms), list(terms.values())), using=WORDS
                        )
                    ),
                ]
            )
            found = await opened.index._call("search", lambda s, b=batch: s.query_batch(b))
            vectors: dict[Any, Any] = {}
            sides: list[list[Hit]] = []
            for side in found:
                hits = []
                for sp in side:
                    payload = sp.payload or {}
                    vector = sp.vector[DENSE] if isinstance(sp.vector, dict) else sp.vector
                    vectors[(payload.get("uid"), payload.get("passage", 0))] = vector
                    hits.append(Hit(str(payload.get("uid")), float(sp.score), payload))
                sides.append(hits)
            ranked = rank_records(sides[0], sides[1], window=date_window(q.text), live=opened.table)
            row: dict[str, Any] = {"copies": len(q.ignore), "by": {}}
            for lam, cut in SETTINGS:
                order = mmr(ranked, vectors, lam, cut)
                keys = [key.get(r.uid) for r in order]

                def rank(skip: bool, keys: list[Any] = keys, q: Any = q) -> int | None:
                    n = 0
                    for k in keys:
                        if skip and k in q.ignore:
                            continue
                        n += 1
                        if n > 10:
                            return None
                        if k in q.answers:
                            return n
                    return None

                top = _unit([vectors[(r.uid, r.hit.payload.get("passage", 0))] for r in order[:10]])
                sims = top @ top.T
                redundant = sum(1 for i in range(1, len(top)) if sims[i, :i].max() >= 0.95)
                row["by"][f"{lam}/{cut}"] = (rank(True), rank(False), redundant)
            rows.append(row)

    def summary(group: list[dict[str, Any]], skip: bool) -> dict[str, Any]:
        out = {}
        for setting in group[0]["by"]:
            ranks = [r["by"][setting][0 if skip else 1] for r in group]
            n = len(group)
            out[setting] = {
                "hit@1": round(sum(1 for x in ranks if x == 1) / n, 3),
                "hit@5": round(sum(1 for x in ranks if x and x <= 5) / n, 3),
                "hit@10": round(sum(1 for x in ranks if x) / n, 3),
                "redundant@10": round(sum(r["by"][setting][2] for r in group) / n, 2),
            }
        return out

    copies = [r for r in rows if r["copies"] >= 2]
    rest = [r for r in rows if r["copies"] < 2]
    return {
        "benchmark": "diversity",
        "queries": {"all": len(rows), "copies": len(copies), "rest": len(rest)},
        "all": summary(rows, True),
        "rest": summary(rest, True),
        "copies": summary(copies, False),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True, help="a dev folder retrieval.py built")
    result = asyncio.run(run(Path(parser.parse_args().folder)))
    print(f"queries: {result['queries']}  (lambda/cut: hit@1 hit@5 hit@10 redundant@10)")
    for group in ("all", "rest", "copies"):
        print(group)
        for setting, f in result[group].items():
            print(
                f"  {setting:>9}: {f['hit@1']:.3f} {f['hit@5']:.3f} {f['hit@10']:.3f}"
                f"  {f['redundant@10']:.2f}"
            )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
