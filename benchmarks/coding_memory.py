"""A team's coding memory in English and Korean: first places by direction, and the flags.

Usage (from the repository root):

    .venv/bin/python benchmarks/coding_memory.py [--data FILE] [--model MODEL] [--rows]

Builds a fresh memory folder (the default ONNX model unless ``--model``, the Qdrant Edge
index) from a data file's notes, one record a note, then asks every question through the
public ``Memory.search``. Reports, for the questions a note answers, how many find it first,
in the first 5 and in the first 10, by direction (the question in the note's language,
English about a Korean note, Korean about an English note), and how many of them come back
unconfident (``SearchHit.confident`` false: "answered flagged"); for the questions no note
answers, how many come back flagged. ``--rows`` prints each question's rank and confidence.
Prints a table, then one JSON line.

Data files (``benchmarks/data/``, written for this project, none from a public benchmark):
``coding_memory.json`` is the dev set the ranking was looked at against;
``coding_memory_check.json`` was written separately and kept out of that work, to check
that a change carries over. Format: ``{"notes": {id: text}, "answered": [{"q", "note"}],
"none": [question]}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import auc, machine  # the benchmarks folder is not a package: sys.path above

from memtrails import Memory
from memtrails.folder.scripts import main_scripts
from memtrails.records import MemoryRecord

DATA = Path(__file__).resolve().parent / "data"


def _language(text: str) -> str:
    """'ko' when the text is mostly Hangul, else 'en' (the data files hold only these two)."""
    return "ko" if "hangul" in main_scripts(text, least=1) else "en"


async def run(data: dict[str, Any], model: str | None, rows: bool) -> dict[str, Any]:
    notes: dict[str, str] = data["notes"]
    with tempfile.TemporaryDirectory(prefix="coding-memory-") as work:
        async with Memory.open(Path(work) / "memory", model=model) as memory:
            await memory.ingest(
                MemoryRecord(id=key, text=text, kind="note", source="notes")
                for key, text in notes.items()
            )
            parts: dict[str, list[tuple[int | None, bool]]] = {}
            # The search's confidence for answered questions (answer in the first 10) and for
            # the rest, for the area under the ROC curve: how well it tells them apart at
            # any threshold, not only at the default one.
            sure: tuple[list[float], list[float]] = ([], [])
            for item in data["answered"]:
                question, note = item["q"], item["note"]
                hits = await memory.search(question, k=10)
                ids = [h.id for h in hits]
                rank = ids.index(note) + 1 if note in ids else None
                confident = bool(hits) and hits[0].confident
                if rank is not None and hits[0].confidence is not None:
                    sure[0].append(hits[0].confidence)
                direction = f"{_language(question)}->{_language(notes[note])}"
                parts.setdefault(direction, []).append((rank, confident))
                if rows:
                    top = hits[0] if hits else None
                    print(
                        f"{rank or '-':>2} {'ok ' if confident else 'FLAG'} "
                        f"{top.confidence if top else 0:.3f} {direction} {question}"
                        + ("" if rank == 1 or top is None else f"  [first: {top.id}]")
                    )
            flags = []
            for question in data["none"]:
                hits = await memory.search(question, k=10)
                flagged = not hits or not hits[0].confident
                if hits and hits[0].confidence is not None:
                    sure[1].append(hits[0].confidence)
                flags.append((_language(question), flagged))
                if rows:
                    top = hits[0] if hits else None
                    print(
                        f" x {'FLAG' if flagged else 'ok  '} "
                        f"{top.confidence if top else 0:.3f} none {question}"
                        + ("" if top is None else f"  [first: {top.id}]")
                    )
    report: dict[str, Any] = {"model": model or "default", "auc": auc(*sure), "parts": {}}
    # The trade-off at other thresholds than the default (0.35): no-answer questions that
    # would be flagged, answered ones (answer in the first 10) that would be.
    report["curve"] = [
        {
            "below": t,
            "none_flagged": sum(c < t for c in sure[1]),
            "answered_flagged": sum(c < t for c in sure[0]),
        }
        for t in (0.25, 0.30, 0.35, 0.40, 0.45, 0.50)
    ]
    every = [r for part in parts.values() for r in part]
    for name, results in [*sorted(parts.items()), ("all", every)]:
        report["parts"][name] = {
            "questions": len(results),
            "first": sum(rank == 1 for rank, _ in results),
            "top5": sum(rank is not None and rank <= 5 for rank, _ in results),
            "top10": sum(rank is not None for rank, _ in results),
            "flagged": sum(not confident for _, confident in results),
        }
    for language in ("en", "ko", "all"):
        mine = [f for lang, f in flags if language in (lang, "all")]
        report["parts"][f"none:{language}"] = {"questions": len(mine), "flagged": sum(mine)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA / "coding_memory.json")
    parser.add_argument("--model", help="the folder's model (default: memtrails' default)")
    parser.add_argument("--rows", action="store_true", help="print each question's result")
    args = parser.parse_args()
    data = json.loads(args.data.read_text(encoding="utf-8"))
    report = asyncio.run(run(data, args.model, args.rows))
    report["data"] = args.data.name
    report["machine"] = machine()
    print(f"{'part':<10} {'asked':>5} {'first':>5} {'top5':>5} {'top10':>5} {'flagged':>7}")
    for name, part in report["parts"].items():
        cells = [part.get(key, "") for key in ("first", "top5", "top10")]
        print(
            f"{name:<10} {part['questions']:>5} "
            + " ".join(f"{c:>5}" for c in cells)
            + f" {part['flagged']:>7}"
        )
    print(f"confidence AUC (answered in the first 10 against no-answer): {report['auc']}")
    print(
        "flagged below each threshold (no-answer / answered): "
        + ", ".join(
            f"{c['below']:.2f}: {c['none_flagged']} / {c['answered_flagged']}"
            for c in report["curve"]
        )
    )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
