"""Measure what one very long record costs to embed, with and without the window bound.

Usage: .venv/bin/python benchmarks/long_record.py [--kb 606] [--rounds 1] [--unbounded]

The record is the first ``--kb`` KB of a real list month (twisted-python-2003-April.mbox from
the shared corpora) read as one text, as ``--kind mbox`` once merged a localised pipermail
month into one record (issue 28). The default embedder embeds it as the pipeline does
(``OnnxEmbedder.embed``), then its passages' keyword vectors are computed as the index's
points are (``passage_keywords`` over each passage's span). With ``--unbounded`` the same
record is also embedded with no bound on its windows (the behaviour before
``MAX_WINDOWS``), in the same process, the two taking turns round after round. Wall and CPU
seconds (every thread, user + system) and the load average are given; a late word of the text
is looked up in the stored keyword vectors, to show it stays searchable. Prints a short report,
then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import CORPORA, machine

import memtrails.embedding.onnx as onnx_module
from memtrails.embedding import MAX_WINDOWS, default_embedder
from memtrails.embedding._tokens import cut_windows
from memtrails.words import _term_id, passage_keywords, words

MONTH = CORPORA / "mbox" / "twisted-python-2003-April.mbox"


def long_text(kb: int) -> str:
    """Return the first ``kb`` KB of the list month as text (whole lines)."""
    raw = MONTH.read_bytes()[: kb * 1024]
    return raw.decode("utf-8", "replace").rsplit("\n", 1)[0]


async def one_round(text: str, *, bounded: bool) -> dict[str, Any]:
    """Embed ``text`` once and weigh its passages' keywords; return the figures."""
    embedder = await default_embedder()
    if not bounded:
        onnx_module.cut_windows = functools.partial(cut_windows, max_windows=sys.maxsize)  # type: ignore[attr-defined]
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        [passages] = await embedder.embed([text])
        embed_wall, embed_cpu = time.perf_counter() - wall, time.process_time() - cpu
        wall, cpu = time.perf_counter(), time.process_time()
        vectors = [passage_keywords(text[p.start : p.end]) for p in passages]
        kw_wall, kw_cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        onnx_module.cut_windows = cut_windows  # type: ignore[attr-defined]
        await embedder.aclose()
    # A word said only in the last 2,000 characters: found there or nowhere.
    counts = Counter(words(text))
    late = next(w for w in reversed(words(text[-2000:])) if counts[w] == 1 and len(w) > 3)
    late_term = _term_id(late)
    holding = [n for n, v in enumerate(vectors) if late_term in v]
    return {
        "bounded": bounded,
        "windows": len(passages),
        "embed_wall_s": round(embed_wall, 2),
        "embed_cpu_s": round(embed_cpu, 2),
        "keywords_wall_s": round(kw_wall, 2),
        "keywords_cpu_s": round(kw_cpu, 2),
        "last_passage_chars": passages[-1].end - passages[-1].start,
        "late_word": late,
        "late_word_weight": round(vectors[holding[-1]][late_term], 3) if holding else None,
        "late_word_in_passage": holding[-1] if holding else None,
        "load_after": round(os.getloadavg()[0], 2),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=606)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--unbounded", action="store_true", help="also embed without the bound")
    args = parser.parse_args()
    text = long_text(args.kb)
    print(f"{machine()}; record {len(text.encode()) // 1024} KB, MAX_WINDOWS {MAX_WINDOWS}")
    print(f"load before: {os.getloadavg()[0]:.2f}")
    results = []
    for _ in range(args.rounds):
        for bounded in (True, False) if args.unbounded else (True,):
            r = await one_round(text, bounded=bounded)
            results.append(r)
            print(
                f"{'bounded  ' if bounded else 'unbounded'} {r['windows']:4d} windows: embed "
                f"{r['embed_wall_s']:7.2f} s wall {r['embed_cpu_s']:7.2f} s CPU; keywords "
                f"{r['keywords_wall_s']:.2f} s; last passage {r['last_passage_chars']} chars; "
                f"late word {r['late_word']!r} weight {r['late_word_weight']} in passage "
                f"{r['late_word_in_passage']}; load {r['load_after']}"
            )
    print(json.dumps({"kb": args.kb, "max_windows": MAX_WINDOWS, "results": results}))


if __name__ == "__main__":
    asyncio.run(main())
