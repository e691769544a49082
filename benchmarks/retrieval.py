"""Retrieval quality of Memory.search on a dev set built from the shared corpora.

Usage (from the repository root):

    .venv/bin/python benchmarks/retrieval.py [--folder DIR] [--k 10] [--quotes 150] [--dated 60]
        [--speaker-in-text | --jsonl [--jsonl-without-sessions]] [--long] [--long-check]
        [--only-long] [--rows]

Opens a real memory folder (the default ONNX model, the Qdrant Edge index), imports the dev
corpora (three Twisted mailing-list months, a spam-heavy list month, two Slack exports, the
corpora's Markdown notes, the MT-Bench prompts and the mail-gem .eml fixtures as distractors),
then runs the dev set through the public ``Memory.search`` and reports, per category and
overall, hit@1/5/10 and MRR@10 for the queries with an answer, and the abstention trade-off
for those without: at each threshold of the search's confidence signal (``SearchHit.confidence``;
for older code the raw dense cosine, else the fused score), how many no-answer queries come back empty and how
many answered queries (answer in the top 10) would be lost. ``--folder`` keeps the imported
folder and reuses it on the next run (the import takes a few minutes). Prints a table, then
one JSON line.

The dev set (see ``_devset.py``): a reply's quoted question -> the message it quotes;
"in <Month> <Year>" + a few of a message's own words -> that message; hand-written questions
about the notes folder and a Slack channel (``data/retrieval_questions.json``); no-answer
queries, unrelated or sharing words with the folder; and the conversational part: three
written multi-session chats (``data/conversations.txt``), one record a turn, each question
searched within its own conversation, reported per kind of question (``conv:<kind>``), with
questions each conversation does not answer. ``--speaker-in-text`` searches a second copy of
the chats whose turns start with the speaker's name; ``--jsonl`` searches them imported through
``from_jsonl`` (``speaker``, ``session_id``; without sessions with
``--jsonl-without-sessions``) into a folder of their own; ``--long`` adds the
long chats (``data/long/``: a year or more of one pair's sessions, about 550 turns each, the
same topics coming back) in a folder of their own, reported as ``lconv``; ``--long-check``
the check set's two long chats (``data/long_check/``, written apart from those, tuned on by
nobody), in a folder of their own too, reported as ``lcheck`` and ``lcheck-none``: out of
``all`` and of the abstention trade-off, their flags counted apart; ``--only-long`` runs
those alone, without the dev corpora (the same figures: their folders are their own). Each
search's CPU time (``process_time``: every thread, the query's embedding included) is reported
beside its wall time. Records that hold the query's words verbatim without being the answer
(the reply the quote was taken from, other replies quoting it) are left out of the ranking.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CORPORA, auc, machine  # the benchmarks folder is not a package: sys.path above
from _devset import (
    MBOXES,
    MULTILINGUAL_SOURCE,
    Conversation,
    Query,
    Record,
    build_queries,
    conversation_queries,
    conversations,
    long_check_conversations,
    long_conversations,
    multilingual_notes,
    multilingual_queries,
    notes_folder,
)

if not CORPORA.is_dir():  # a git worktree sits one level deeper than the main checkout
    CORPORA = Path("/work/shared/corpora")
# Importers name a record's source by the resolved path: the dev set compares with those.
CORPORA = CORPORA.resolve()

CATEGORIES = ["quoted", "dated", "dated-side", "notes", "chat", "conv", "lconv", "lcheck", "xlang"]
# The conversational part's questions by kind (see data/conversations.txt); "multi": the
# answer needs two turns, either found counts; "event": the answer placed before or after an
# event the chat tells of, not a date (both in the long chats, data/long/).
CONV_KINDS = [
    "words",
    "next",
    "date",
    "person",
    "meaning",
    "when",
    "xlang",
    "xwhen",
    "askwhen",
    "multi",
    "event",
]
# The cross-language questions by direction (see data/multilingual_notes.json).
XLANG_KINDS = ["to-en", "from-en", "other"]
# A conversation's turns are also imported a second time under this prefix, each text
# starting with its speaker's name ("Maya: ..."), to measure the speaker in the text.
SPEAKER_PREFIX = "speaker-in-text/"


def _sources(notes: Path) -> list[tuple[str, Any]]:
    from memtrails import from_eml, from_files, from_jsonl, from_mbox, from_slack_export

    out: list[tuple[str, Any]] = [(rel, lambda rel=rel: from_mbox(CORPORA / rel)) for rel in MBOXES]
    out += [
        (
            "divunal",
            lambda: from_mbox(CORPORA / "mbox/quirks/twisted-divunal-list-2006-December.mbox"),
        ),
        ("slack-hfaran", lambda: from_slack_export(CORPORA / "slack/hfaran-testarchive")),
        ("slack-zulip", lambda: from_slack_export(CORPORA / "slack/zulip-test_slack_importer")),
        ("notes", lambda: from_files(notes)),
        ("mt-bench", lambda: from_jsonl(CORPORA / "jsonl/fastchat-mt_bench-question.jsonl")),
        ("eml-mail", lambda: from_eml(CORPORA / "eml/mikel-mail")),
    ]
    return out


async def _turns(conv: Conversation, speaker_in_text: bool = False) -> AsyncIterator[Any]:
    """Yield a conversation's turns as records: one a turn, dated by its session.

    Each turn carries its speaker as ``author``, its session as ``thread`` and its session's
    date as ``at`` (a multi-session chat log dates its sessions, not its turns).
    """
    from memtrails.records import At, MemoryRecord

    for turn in conv.turns:
        yield MemoryRecord(
            id=turn.id,
            text=f"{turn.speaker}: {turn.text}" if speaker_in_text else turn.text,
            kind="chat",
            author=turn.speaker,
            at=At.of(turn.at),
            source=(SPEAKER_PREFIX if speaker_in_text else "") + conv.source,
            thread=f"{conv.name}:s{turn.session}",
        )


def _jsonl(conv: Conversation, into: Path, sessions: bool = True) -> Path:
    """Write a conversation as a chat export in JSON Lines would hold it: one turn a line,
    with ``speaker`` and (``sessions``) ``session_id`` (``from_jsonl`` reads them as author
    and thread)."""
    path = into / f"{conv.name}.jsonl"
    into.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
            {
                "id": t.id,
                "speaker": t.speaker,
                **({"session_id": f"{conv.name}:s{t.session}"} if sessions else {}),
                "at": t.at,
                "text": t.text,
            }
        )
        for t in conv.turns
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path.resolve()


async def _multilingual() -> AsyncIterator[Any]:
    """Yield the multilingual notes as note records (data/multilingual_notes.json)."""
    from memtrails.records import MemoryRecord

    for note_id, _lang, title, text in multilingual_notes():
        yield MemoryRecord(
            id=note_id, text=text, title=title, kind="note", source=MULTILINGUAL_SOURCE
        )


async def _records(make: Any) -> AsyncIterator[Record]:
    from memtrails.records import MemoryRecord

    async for item in make():
        if isinstance(item, MemoryRecord):
            yield Record(item.source, item.id, item.text)


def ranks(query: Query, hits: Sequence[Any], k: int) -> int | None:
    """Return the 1-based rank of the first answer among ``hits`` (ignored records skipped)."""
    rank = 0
    for hit in hits:
        key = (hit.source, hit.id)
        if key in query.ignore:
            continue
        rank += 1
        if rank > k:
            return None
        if key in query.answers:
            return rank
    return None


def signal(hits: Sequence[Any]) -> float:
    """Return a search's confidence signal: the hits' ``confidence`` when they carry one.

    Older hits give their best raw dense cosine, or without raw scores the top fused score.
    """
    if not hits:
        return float("-inf")
    sure = getattr(hits[0], "confidence", None)
    if sure is not None:
        return float(sure)
    dense = [h.dense for h in hits if getattr(h, "dense", None) is not None]
    return float(max(dense)) if dense else float(hits[0].score)


def summarise(rows: list[dict[str, Any]], k: int) -> dict[str, Any]:
    """Return hit@1/5/10 and MRR@k per category and overall (queries with an answer)."""
    out: dict[str, Any] = {}
    answered = [r for r in rows if not _no_answer(r)]
    # "all" and "non-conv" stay the sets earlier passes measured: the dated mails asked for
    # by the time on one side of them (issue 32, twelfth pass) are reported apart, and so is
    # the check set (--long-check), which no figure that choices are made on may hold.
    kept = [r for r in answered if r["category"] not in ("dated-side", "lcheck")]
    others = [r for r in kept if r["category"] not in ("conv", "lconv", "xlang")]
    for name, group in [
        *((c, [r for r in answered if r["category"] == c]) for c in CATEGORIES),
        *(
            (
                f"dated-side:{k}",
                [r for r in answered if r["category"] == "dated-side" and r["kind"] == k],
            )
            for k in ("before", "after", "since")
        ),
        *(
            (f"{c}:{k}", [r for r in answered if r["category"] == c and r["kind"] == k])
            for c in ("conv", "lconv", "lcheck")
            for k in CONV_KINDS
        ),
        *(
            (f"xlang:{k}", [r for r in answered if r["category"] == "xlang" and r["kind"] == k])
            for k in XLANG_KINDS
        ),
        ("non-conv", others),
        ("all", kept),
    ]:
        if not group:
            continue
        n = len(group)
        out[name] = {
            "n": n,
            "hit@1": round(sum(1 for r in group if r["rank"] == 1) / n, 3),
            "hit@5": round(sum(1 for r in group if r["rank"] and r["rank"] <= 5) / n, 3),
            "hit@10": round(sum(1 for r in group if r["rank"] and r["rank"] <= 10) / n, 3),
            "mrr": round(sum(1 / r["rank"] for r in group if r["rank"]) / n, 3),
        }
    return out


def _no_answer(row: dict[str, Any]) -> bool:
    category = str(row["category"])
    return category.startswith("none") or category.endswith(("conv-none", "lcheck-none"))


def abstention(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the no-answer / answered trade-off over thresholds of the confidence signal."""
    # The check set (--long-check) is left out, as of "all": only its flags are counted.
    check = [r for r in rows if str(r["category"]).startswith("lcheck")]
    rows = [r for r in rows if r["category"] != "dated-side"]  # as before they were added
    rows = [r for r in rows if not str(r["category"]).startswith("lcheck")]
    none = [r for r in rows if _no_answer(r)]
    found = [r for r in rows if not _no_answer(r) and r["rank"]]
    levels = sorted({r["signal"] for r in none + found if r["signal"] > float("-inf")})
    table = []
    for t in levels:
        table.append(
            {
                "threshold": round(t, 4),
                "none_abstained": sum(1 for r in none if r["signal"] < t),
                "answered_lost": sum(1 for r in found if r["signal"] < t),
            }
        )
    safe = [row for row in table if row["answered_lost"] == 0]
    best = max(safe, key=lambda row: row["none_abstained"]) if safe else None
    by_part = {
        part: f"{sum(1 for r in none if r['category'] == part and (r['n_hits'] == 0 or r['confident'] is False))}"
        f" of {sum(1 for r in none if r['category'] == part)}"
        for part in ("none", "none-near", "conv-none", "lconv-none", "none-xlang")
    }
    if check:
        check_none = [r for r in check if _no_answer(r)]
        flagged_none = [r for r in check_none if r["n_hits"] == 0 or r["confident"] is False]
        by_part["lcheck-none"] = f"{len(flagged_none)} of {len(check_none)}"
        by_part["lcheck-answered"] = (
            f"{sum(1 for r in check if not _no_answer(r) and r['confident'] is False)}"
            f" of {len(check) - len(check_none)}"
        )
    flagged = {
        "by_part": by_part,
        "none_empty": sum(1 for r in none if r["n_hits"] == 0),
        "none_unconfident": sum(1 for r in none if r["confident"] is False),
        "answered_empty": sum(1 for r in found if r["n_hits"] == 0),
        "answered_unconfident": sum(1 for r in found if r["confident"] is False),
    }
    # How well the signal tells the two apart at any threshold, overall and by where the
    # search ran: over a whole folder, or inside one conversation.
    inside = ("conv", "lconv", "conv-none", "lconv-none")
    areas = {
        "all": auc([r["signal"] for r in found], [r["signal"] for r in none]),
        "folder": auc(
            [r["signal"] for r in found if r["category"] not in inside],
            [r["signal"] for r in none if r["category"] not in inside],
        ),
        "conversation": auc(
            [r["signal"] for r in found if r["category"] in inside],
            [r["signal"] for r in none if r["category"] in inside],
        ),
    }
    return {
        "none": len(none),
        "answered_found": len(found),
        "best_lossless": best,
        "flags": flagged,
        "auc": areas,
        "table": table,
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """Import the dev corpora (unless reused), run the dev set, return the figures."""
    from memtrails import Memory, from_jsonl

    work = (
        Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="memtrails-retrieval-"))
    )
    work.mkdir(parents=True, exist_ok=True)
    notes = work / "notes"
    if not notes.is_dir():
        notes_folder(CORPORA, notes)
    fresh = not (work / "memory").exists()
    records: list[Record] = []
    async with Memory.open(work / "memory", model=args.model) as memory:
        t0 = time.perf_counter()
        for name, make in _sources(notes):
            if fresh:
                await memory.ingest(make(), name=name)
            records += [r async for r in _records(make)]
        import_s = time.perf_counter() - t0
        convs = conversations()
        for conv in convs:
            # Always offered: a re-run finds them unchanged, a new conversation is added.
            for speaker_in_text in (False, True):
                await memory.ingest(
                    _turns(conv, speaker_in_text),
                    name=(SPEAKER_PREFIX if speaker_in_text else "") + conv.source,
                )
        # Always offered, as the conversations: an older dev folder gains them.
        await memory.ingest(_multilingual(), name=MULTILINGUAL_SOURCE)
        notes_source = next(r.source for r in records if r.id == "INVENTORY.md")
        queries = build_queries(
            CORPORA, records, notes_source, quotes=args.quotes, dated=args.dated
        )
        conv_queries = conversation_queries(convs)
        if args.speaker_in_text:
            for q in conv_queries:
                q.source = SPEAKER_PREFIX + str(q.source)
                q.answers = {(SPEAKER_PREFIX + s, i) for s, i in q.answers}
        queries += conv_queries + multilingual_queries()
        if args.jsonl:
            queries = [q for q in queries if q not in conv_queries]
        rows, times, cpus = await _run_queries(memory, queries, args.k)
    if args.jsonl:
        # The chats alone, through from_jsonl, in a folder of their own (adding them to the
        # dev folder would change its IDF and so every other figure).
        async with Memory.open(work / "conversations-jsonl", model=args.model) as chats:
            for conv in convs:
                path = _jsonl(conv, work / "conversations", not args.jsonl_without_sessions)
                await chats.ingest(from_jsonl(path))
                for q in conv_queries:
                    if q.source == conv.source:
                        q.source = str(path)
                        q.answers = {(str(path), i) for _, i in q.answers}
            more = await _run_queries(chats, conv_queries, args.k)
        rows, times, cpus = rows + more[0], times + more[1], cpus + more[2]
        queries += conv_queries
    found, wall, cpu, asked = await _long_parts(work, args)
    rows, times, cpus, queries = rows + found, times + wall, cpus + cpu, queries + asked
    return _result(
        args, records, queries, (rows, times, cpus), round(import_s, 1) if fresh else None
    )


async def _long_parts(
    work: Path, args: argparse.Namespace
) -> tuple[list[dict[str, Any]], list[float], list[float], list[Query]]:
    """Search the long chats asked for (``--long``, ``--long-check``), each set in its folder."""
    rows: list[dict[str, Any]] = []
    times: list[float] = []
    cpus: list[float] = []
    queries: list[Query] = []
    for check in (False, True):
        if args.long_check if check else args.long:
            (found, wall, cpu), asked = await _long(work, args, check)
            rows, times, cpus, queries = rows + found, times + wall, cpus + cpu, queries + asked
    return rows, times, cpus, queries


async def run_long_only(args: argparse.Namespace) -> dict[str, Any]:
    """``--only-long``: the long chats alone, no dev corpora imported (their folders are their
    own, so their figures are those of a whole run)."""
    work = (
        Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="memtrails-retrieval-"))
    )
    work.mkdir(parents=True, exist_ok=True)
    rows, times, cpus, queries = await _long_parts(work, args)
    return _result(args, [], queries, (rows, times, cpus), None)


def _result(
    args: argparse.Namespace,
    records: list[Record],
    queries: list[Query],
    searched: tuple[list[dict[str, Any]], list[float], list[float]],
    import_s: float | None,
) -> dict[str, Any]:
    """Return the figures of a run: its rows, with each search's wall and CPU seconds."""
    rows, times, cpus = searched
    conv_cpu = [c for c, r in zip(cpus, rows, strict=True) if "conv" in r["category"]]
    return {
        "benchmark": "retrieval",
        "records": len(records),
        "queries": len(queries),
        "import_s": import_s,
        "search_ms_median": round(statistics.median(times) * 1000, 1),
        # Process CPU (every thread: the model's, the index's) per search, query embedding in.
        "search_cpu_ms_mean": round(statistics.fmean(cpus) * 1000, 2),
        "conv_search_cpu_ms_mean": round(statistics.fmean(conv_cpu) * 1000, 2)
        if conv_cpu
        else None,
        "quality": summarise(rows, args.k),
        "abstention": abstention(rows),
        "misses": [r["query"][:80] for r in rows if not _no_answer(r) and not r["rank"]][:40],
        "machine": machine(),
        "rows": rows if args.rows else None,
    }


async def _long(
    work: Path, args: argparse.Namespace, check: bool = False
) -> tuple[tuple[list[dict[str, Any]], list[float], list[float]], list[Query]]:
    """Search the long chats (data/long/), imported into a folder of their own.

    A folder of their own: their ~550 turns each would move the dev folder's IDF, and so
    every other figure. Each question is searched within its own chat (``source=``), as the
    short chats' are; categories ``lconv`` and ``lconv-none``. ``check``: the check set's
    chats (data/long_check/) instead, in another folder, ``lcheck`` and ``lcheck-none``.
    """
    from memtrails import Memory

    convs = long_check_conversations() if check else long_conversations()
    queries = conversation_queries(convs)
    for q in queries:
        q.category = q.category.replace("conv", "lcheck") if check else "l" + q.category
    folder = work / ("long-check" if check else "long-conversations")
    async with Memory.open(folder, model=args.model) as chats:
        for conv in convs:
            await chats.ingest(_turns(conv), name=conv.source)
        return await _run_queries(chats, queries, args.k), queries


async def _run_queries(
    memory: Any, queries: list[Query], k: int
) -> tuple[list[dict[str, Any]], list[float], list[float]]:
    """Search every query; return its row, and each search's wall and CPU seconds."""
    rows, times, cpus = [], [], []
    # Enough extra hits that the ignored ones (verbatim copies) cannot push the answer out.
    extra = max((len(q.ignore) for q in queries), default=0)
    for q in queries:
        t, c = time.perf_counter(), time.process_time()
        kwargs: dict[str, Any] = {"source": q.source} if q.source else {}
        if q.now:
            kwargs["now"] = q.now
        hits = await memory.search(q.text, k=k + extra, **kwargs)
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        kept = [h for h in hits if (h.source, h.id) not in q.ignore]
        rows.append(
            {
                "category": q.category,
                "kind": q.kind,
                "query": q.text,
                "rank": ranks(q, hits, k) if q.answers else None,
                "signal": signal(hits),
                "confident": getattr(kept[0], "confident", None) if kept else None,
                "n_hits": len(kept),
            }
        )
    return rows, times, cpus


def report(result: dict[str, Any]) -> None:
    """Print the figures as text, then one JSON line."""
    print(f"retrieval dev set: {result['queries']} queries over {result['records']} records")
    print(f"{'category':<12} {'n':>4} {'hit@1':>6} {'hit@5':>6} {'hit@10':>6} {'MRR':>6}")
    for name, q in result["quality"].items():
        print(
            f"{name:<12} {q['n']:>4} {q['hit@1']:>6.3f} {q['hit@5']:>6.3f} {q['hit@10']:>6.3f} {q['mrr']:>6.3f}"
        )
    a = result["abstention"]
    best = a["best_lossless"]
    print(
        f"abstention: {a['none']} no-answer queries, {a['answered_found']} answered (answer in top 10); "
        f"flags {a['flags']}; AUC {a['auc']}"
    )
    if best:
        print(
            f"  best threshold losing no answered query: {best['threshold']} -> "
            f"{best['none_abstained']}/{a['none']} no-answer queries abstained"
        )
    for row in a["table"][:: max(1, len(a["table"]) // 12)]:
        print(
            f"  below {row['threshold']:>8}: no-answer abstained {row['none_abstained']:>3}, answered lost {row['answered_lost']:>3}"
        )
    print(
        f"search median {result['search_ms_median']} ms; CPU per search {result['search_cpu_ms_mean']} ms"
        f" (conversational: {result['conv_search_cpu_ms_mean']} ms)"
    )
    slim = {key: value for key, value in result.items() if key != "rows" or value}
    slim["abstention"] = {key: value for key, value in a.items() if key != "table"}
    print(json.dumps(slim))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", help="keep the dev memory here and reuse it on later runs")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--quotes", type=int, default=150)
    parser.add_argument("--dated", type=int, default=60)
    parser.add_argument(
        "--model", help="the model of a new dev folder (default: memtrails' default model)"
    )
    parser.add_argument("--rows", action="store_true", help="include every query's row in the JSON")
    parser.add_argument(
        "--speaker-in-text",
        action="store_true",
        help="search the conversations' second copy, whose turns start with the speaker's name",
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="search the conversations imported through from_jsonl, in a folder of their own",
    )
    parser.add_argument(
        "--jsonl-without-sessions",
        action="store_true",
        help="with --jsonl: the export's lines carry no session (a fresh --folder: the chats "
        "are imported once)",
    )
    parser.add_argument(
        "--long",
        action="store_true",
        help="also search the long chats (data/long/), imported into a folder of their own",
    )
    parser.add_argument(
        "--long-check",
        action="store_true",
        help="also search the check set's long chats (data/long_check/), in a folder of their "
        "own, reported apart (lcheck): nothing is tuned on them",
    )
    parser.add_argument(
        "--only-long",
        action="store_true",
        help="with --long and/or --long-check: search only those, no dev corpora imported",
    )
    args = parser.parse_args()
    report(asyncio.run(run_long_only(args) if args.only_long else run(args)))


if __name__ == "__main__":
    main()
