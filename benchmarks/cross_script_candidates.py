"""Experiment: offer a search the best passages in none of the query's scripts, on the dev set.

Usage (from the repository root):

    .venv/bin/python benchmarks/cross_script_candidates.py --folder DIR [--extra 10]
        [--bar -0.04] [--wide 600]

From English, most foreign-language dev notes never reach the dense side's first 40
candidates: in a folder of English mail, dozens of English passages sit closer to an English
question than the Korean note that answers it (benchmarks/README.md, issue 32). This runs
``retrieval.py``'s dev set (``--folder`` as there: built on the first run, reused after)
twice through ``Memory.search``. The first run is as memtrails searches today. In the
second, each search also asks the index for its best ``--wide`` passages by meaning. It takes
up to ``--extra`` of them that are written in none of the query's scripts (their passage's
main scripts, read from the log) and whose cosine is at least the best candidate's plus
``--bar``. It adds them to the dense candidates, after the first 40, so they do not move
that side's scale, and marks them as cross-script, so the language pull and the words rule
apply (ranking.py). The script only measures; nothing here is in memtrails. It prints both
runs' figures by category and the queries whose answer moved, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import retrieval  # the benchmarks folder is not a package: sys.path above

from memtrails.folder import search as searching
from memtrails.folder.index._base import SparseVector
from memtrails.folder.scripts import main_scripts, share_a_script
from memtrails.items import embed_text
from memtrails.records import MemoryRecord


def offering(extra: int, bar: float, wide: int) -> Any:
    """Return a ``folder.search.search`` that adds the best foreign-script passages."""
    plain = searching.search

    async def search(
        index: Any, table: Any, log: Any, embedder: Any, query: str, k: int, **kw: Any
    ) -> Any:
        scripts = main_scripts(query, least=1)
        asked = index.candidates
        marked = searching.cross_script
        foreign: set[str] = set()
        first = True

        async def candidates(dense: Any, sparse: Any, limit: int, where: Any) -> Any:
            nonlocal first
            by_meaning, by_words = await asked(dense, sparse, limit, where)
            if not (first and scripts and by_meaning):
                return by_meaning, by_words
            first = False
            many, _ = await asked(dense, SparseVector([], []), wide, where)
            have = {h.uid for h in by_meaning}
            added = []
            for hit in many:
                if hit.score < by_meaning[0].score + bar or len(added) >= extra:
                    break
                row = table.get(hit.uid)
                if hit.uid in have or row is None:
                    continue
                text = embed_text(MemoryRecord.from_json(log.read_line(row.offset)))
                span = text[int(hit.payload.get("start", 0)) : int(hit.payload.get("end", 0))]
                theirs = main_scripts(span or text)
                if theirs and not share_a_script(theirs, scripts):
                    added.append(hit)
                    have.add(hit.uid)
            foreign.update(h.uid for h in added)
            return [*by_meaning, *added], by_words

        def cross_script(uids: Any, table_: Any, log_: Any, query_scripts: Any) -> set[str]:
            return set(marked(uids, table_, log_, query_scripts)) | foreign

        index.candidates = candidates
        searching.cross_script = cross_script
        try:
            return await plain(index, table, log, embedder, query, k, **kw)
        finally:
            index.candidates = asked
            searching.cross_script = marked

    return search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", required=True, help="the dev folder, as retrieval.py's")
    parser.add_argument("--extra", type=int, default=10, help="foreign passages added (10)")
    parser.add_argument("--bar", type=float, default=-0.04, help="cosine vs the best (-0.04)")
    parser.add_argument("--wide", type=int, default=600, help="passages looked through (600)")
    args = parser.parse_args()
    dev = argparse.Namespace(
        folder=args.folder,
        k=10,
        quotes=150,
        dated=60,
        model=None,
        rows=True,
        speaker_in_text=False,
        jsonl=False,
    )
    plain = searching.search
    before = asyncio.run(retrieval.run(dev))
    searching.search = offering(args.extra, args.bar, args.wide)
    try:
        after = asyncio.run(retrieval.run(dev))
    finally:
        searching.search = plain
    print(f"{'category':<14} {'n':>4}  before hit@1/5/10 MRR      after hit@1/5/10 MRR")
    for cat, b in before["quality"].items():
        a = after["quality"][cat]
        fig = lambda q: "/".join(f"{q[m]:.3f}" for m in ("hit@1", "hit@5", "hit@10", "mrr"))  # noqa: E731
        print(f"{cat:<14} {b['n']:>4}  {fig(b)}  {fig(a)}")
    moved = [
        (x["category"], x["rank"], y["rank"], x["query"][:80])
        for x, y in zip(before["rows"], after["rows"], strict=True)
        if x["rank"] != y["rank"]
    ]
    for cat, was, now, query in moved:
        print(f"  {cat:<8} {was} -> {now}  {query}")
    print(
        json.dumps(
            {
                "benchmark": "cross_script_candidates",
                "extra": args.extra,
                "bar": args.bar,
                "wide": args.wide,
                "before": before["quality"],
                "after": after["quality"],
                "moved": moved,
                "search_ms_median": [before["search_ms_median"], after["search_ms_median"]],
            }
        )
    )


if __name__ == "__main__":
    main()
