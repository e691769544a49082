"""The dev set's long chats as one JSON document, imported by ``memtrails add FILE.json``.

Usage (from the repository root):

    .venv/bin/python benchmarks/json_long_chats.py [--check] [--k 10]

Writes the long chats (``data/long/``, or ``data/long_check/`` with ``--check``) the way a
long-conversation dataset ships them: a list of samples, each a ``conversation`` of
``session_N`` arrays of turns (``speaker``, ``id``, ``text``) with a ``session_N_date_time``
beside each ("6:42 pm on 8 January, 2023"). The document goes through ``from_json`` into a
fresh folder (the default model), every chat in it; then each question with an answer is asked
through ``Memory.search`` without a source (one document holds every chat), ``now`` where the
question says when it is asked. Prints hit@1/5/10 and the import's counts, then one JSON line.

The figure to compare it with is ``retrieval.py --only-long --long`` with the chats in one
folder searched without their source: the same turns imported record by record. The two agree
when the JSON reading gives each turn its speaker, its session as its thread and its session's
time, as the record-by-record import does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine  # the benchmarks folder is not a package: sys.path above
from _devset import (
    Conversation,
    conversation_queries,
    long_check_conversations,
    long_conversations,
)

from memtrails import Memory
from memtrails.importers.json_doc import from_json


def as_document(convs: Iterable[Conversation]) -> list[dict[str, Any]]:
    """Return the chats as a long-conversation dataset's samples (see the module's doc)."""
    samples = []
    for conv in convs:
        sessions: dict[int, list[dict[str, str]]] = defaultdict(list)
        dates: dict[int, str] = {}
        for turn in conv.turns:
            sessions[turn.session].append(
                {"speaker": turn.speaker, "id": turn.id, "text": turn.text}
            )
            at = datetime.fromisoformat(turn.at.replace("Z", "+00:00"))
            dates[turn.session] = f"{at:%-I:%M} {at:%p}".lower() + f" on {at:%-d %B, %Y}"
        conversation: dict[str, Any] = {}
        for n in sorted(sessions):
            conversation[f"session_{n}_date_time"] = dates[n]
            conversation[f"session_{n}"] = sessions[n]
        samples.append({"sample_id": conv.name, "conversation": conversation})
    return samples


async def run(check: bool, k: int) -> dict[str, Any]:
    """Import the document into a fresh folder and ask every answered question."""
    convs = long_check_conversations() if check else long_conversations()
    queries = [q for q in conversation_queries(convs) if q.answers]
    with tempfile.TemporaryDirectory(prefix="memtrails-json-chats-") as tmp:
        path = Path(tmp) / "long_chats.json"
        path.write_text(json.dumps(as_document(convs)), encoding="utf-8")
        async with Memory.open(Path(tmp) / "memory") as memory:
            t0 = time.perf_counter()
            report = await memory.ingest(from_json(path))
            import_s = time.perf_counter() - t0
            found = {1: 0, 5: 0, 10: 0}
            for q in queries:
                hits = await memory.search(q.text, k=k + len(q.ignore), now=q.now or None)
                # A turn's record id is its own id under its thread: "chat/session_3/<id>".
                ranked = [h.id.rsplit("/", 1)[-1] for h in hits]
                ignored = {a for _, a in q.ignore}
                ranked = [i for i in ranked if i not in ignored][:k]
                answers = {a for _, a in q.answers}
                rank = next((n for n, i in enumerate(ranked, 1) if i in answers), None)
                for at in found:
                    found[at] += rank is not None and rank <= at
    return {
        "benchmark": "json_long_chats",
        "set": "check" if check else "dev",
        "turns": sum(len(c.turns) for c in convs),
        "added": report.added,
        "errors": len(report.errors),
        "import_s": round(import_s, 1),
        "questions": len(queries),
        "hit": {str(at): round(n / len(queries), 3) for at, n in found.items()},
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="the check set's long chats")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    result = asyncio.run(run(args.check, args.k))
    hit = result["hit"]
    print(
        f"{result['set']} long chats as one JSON document: {result['turns']} turns, "
        f"{result['added']} records added, {result['errors']} errors, {result['import_s']} s; "
        f"{result['questions']} questions: hit@1/5/10 {hit['1']} / {hit['5']} / {hit['10']}"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
