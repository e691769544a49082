"""memtrails side by side with LangChain, LlamaIndex and CocoIndex: same records, same model.

One-time setup (the peers are not memtrails dependencies; they live in their own venv):

    python3 -m venv benchmarks/.venv-peers && \
      benchmarks/.venv-peers/bin/pip install -e . -r benchmarks/requirements-peers.txt

Run (from the repository root):

    benchmarks/.venv-peers/bin/python benchmarks/peers.py [--records 2000] [--rounds 3]
        [--fresh-rounds 1] [--peers memtrails,langchain,llamaindex,cocoindex] [--hashing]

The first import is done once by default (``--fresh-rounds``: it embeds everything at the
model's speed, the same for every peer, and takes minutes on a busy machine); every later
round restores the state it left and repeats the unchanged and edited runs. Every peer gets
the same JSON Lines file (GSM8K questions with their answers, see
``_common.records``) and the same injected embedding function: memtrails' packaged
all-MiniLM-L6-v2 int8 model, wrapped for each peer's interface (identical vectors; every call
counted). Each peer writes to Qdrant: memtrails to its embedded Qdrant Edge shard, the peers
to qdrant-client's local mode on disk (no Qdrant server can be installed here). Per round,
each peer does three runs, each in a process of its own (so its peak RSS is its own):

1. fresh: import everything into an empty store;
2. unchanged: the same file again;
3. edited: the file with 1% of the records edited and another 1% deleted.

memtrails runs each import as a scheduled ``memtrails add records.jsonl --prune`` would
(``add_path(memory, path, prune=True)``): the file is read in full and the records that left
it are forgotten by the import itself.

A run's time is the import call (opening the stores included; the Python process start, the
imports and the check excluded); "+ close" adds closing the stores (memtrails' close
flushes the index and writes its checkpoint; the peers close their Qdrant client).
``--strace`` counts each run's fsync/fdatasync/msync calls (the durability each tool pays
for; strace slows the runs, so its times are not the figures). "embedded" counts texts
passed to the embedding function; "points" is the
final point count in the peer's Qdrant collection. A count is "right" when the collection holds
exactly the live records' passages (no duplicates, the deleted records gone, the edited ones
carrying their new text): memtrails cuts a record into passages by word pieces, so its
expected count is the model's own window count; the peers are given whole records (no text
splitter) and so should hold exactly one point per live record. Prints a table, then one
JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # the benchmarks folder is not a package: sys.path above
    CountingEmbedder,
    HashingEmbedder,
    SyncEmbedding,
    load_model,
    machine,
    median,
    model_passages,
    records,
    run_measured,
    write_jsonl,
)

HERE = Path(__file__).resolve().parent
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"
PEERS = ("memtrails", "langchain", "llamaindex", "cocoindex")
RUNS = ("fresh", "unchanged", "edited")
COLLECTION = "bench"
SOURCE = "bench-records"
BATCH = 64  # texts per model call for every peer that lets the caller choose


# -- the records of each run -----------------------------------------------------------------


def edited_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return rows with 1% edited (every 100th, from the 50th) and 1% deleted (from the 99th)."""
    out = []
    for i, row in enumerate(rows):
        if i % 100 == 99:
            continue
        if i % 100 == 50:
            row = {**row, "text": row["text"] + "\n\nEdited: the figures were checked again."}
        out.append(row)
    return out


def embed_string(row: dict[str, Any]) -> str:
    """Return what memtrails embeds for a record (its own ``embed_text``: title and text).

    The peers embed the same string, so every peer's vectors are the same vectors.
    """
    from types import SimpleNamespace

    from memtrails.items import embed_text

    # embed_text reads only .title and .text; the rule is the library's, whatever it becomes.
    return embed_text(SimpleNamespace(title=row.get("title"), text=row["text"]))  # type: ignore[arg-type]


def read_rows(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# -- one run of one peer (child process) -----------------------------------------------------


def check_points(points: list[tuple[str, str]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Compare a peer's points, as (record id, text) pairs, with the live records."""
    expected = {r["id"]: embed_string(r) for r in rows}
    seen: dict[str, int] = {}
    stale = 0
    for rid, text in points:
        seen[rid] = seen.get(rid, 0) + 1
        if rid in expected and text != expected[rid]:
            stale += 1
    duplicates = sum(n - 1 for n in seen.values() if n > 1)
    missing = len(set(expected) - set(seen))
    deleted_left = len(set(seen) - set(expected))
    return {
        "expected_points": len(expected),
        "duplicates": duplicates,
        "missing": missing,
        "deleted_left": deleted_left,
        "stale": stale,
        "right": len(points) == len(expected)
        and not (duplicates or missing or deleted_left or stale),
    }


async def run_memtrails(
    state: Path, data: Path, hashing: bool, threads: int | None, model: str | None = None
) -> dict[str, Any]:
    """Import with memtrails as ``memtrails add FILE --prune`` does (``add_path``, ``prune=True``):
    the records that left the file are forgotten by the import itself."""
    from memtrails import Memory
    from memtrails.add import add_path

    counting: CountingEmbedder | None = None

    async def factory() -> Any:
        nonlocal counting
        inner = HashingEmbedder() if hashing else await load_model(model, threads)
        counting = CountingEmbedder(inner)
        return counting

    started = time.perf_counter()
    memory = await Memory.open(state / "memory", embedder=factory)
    try:
        open_seconds = time.perf_counter() - started
        # What a scheduled `memtrails add records.jsonl --prune` does: with --prune a JSON
        # Lines file is read in full (its saved position is not used), and the records of
        # that source it no longer holds are forgotten at the end of the import.
        report = await add_path(memory, data, prune=True, batch=BATCH)
        seconds = time.perf_counter() - started
        status = await memory.status()
        # The check (outside the timing): get() shows edited records carry their new text
        # and deleted ones are gone; the parent compares the point count with the passages
        # the model cuts the live records into (so this process never loads the model just
        # to count, which would inflate its peak RSS).
        source = report.sources[0].source if report.sources else str(data)
        rows = read_rows(data)
        stale = 0
        for row in rows:
            if row["text"].endswith("checked again."):
                got = await memory.get(row["id"], source=source)
                stale += got is None or got.text != row["text"]
        deleted_left = 0
        for rid in _all_ids(state) - {r["id"] for r in rows}:
            deleted_left += await memory.get(rid, source=source) is not None
    finally:
        # Closing flushes the index and writes the checkpoint: timed on its own.
        closing = time.perf_counter()
        await memory.aclose()
        close_seconds = time.perf_counter() - closing
    right = (
        status.records == len(rows)
        and status.indexed == len(rows)
        and not stale
        and not deleted_left
    )
    return {
        "seconds": seconds,
        "close_seconds": close_seconds,
        "embedded": counting.texts if counting else 0,
        "points": status.points,
        "records": status.records,
        "stale": stale,
        "deleted_left": deleted_left,
        "right": right,
        "open_seconds": open_seconds,
        "report": {
            "added": report.added,
            "updated": report.updated,
            "unchanged": report.unchanged,
            "removed": report.removed,
        },
    }


def _all_ids(state: Path) -> set[str]:
    """Every id the first run saw (kept by the parent in the state folder)."""
    path = state / "all-ids.txt"
    return set(path.read_text().split()) if path.exists() else set()


def _qdrant_points(client: Any, id_of: Any, text_of: Any) -> list[tuple[str, str]]:
    """Scroll a qdrant-client collection; return (record id, text) per point."""
    out: list[tuple[str, str]] = []
    offset = None
    while True:
        points, offset = client.scroll(COLLECTION, limit=1000, offset=offset, with_payload=True)
        out.extend((id_of(p.payload), text_of(p.payload)) for p in points)
        if offset is None:
            return out


def run_langchain(state: Path, data: Path, embed: SyncEmbedding) -> dict[str, Any]:
    """LangChain index() with an SQLRecordManager into QdrantVectorStore (cleanup="full")."""
    from langchain_classic.indexes import SQLRecordManager, index
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient
    from qdrant_client.http import models

    class Injected(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return embed(texts)

        def embed_query(self, text: str) -> list[float]:
            return embed.query(text)

    def docs() -> Any:
        with open(data, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                yield Document(
                    page_content=embed_string(row),
                    metadata={
                        "rid": row["id"],
                        "source": SOURCE,
                        "author": row["author"],
                        "at": row["at"],
                    },
                )

    started = time.perf_counter()
    client = QdrantClient(path=str(state / "qdrant"))
    if not client.collection_exists(COLLECTION):
        client.create_collection(
            COLLECTION,
            vectors_config=models.VectorParams(size=384, distance=models.Distance.COSINE),
        )
    store = QdrantVectorStore(client=client, collection_name=COLLECTION, embedding=Injected())
    manager = SQLRecordManager(
        f"qdrant/{COLLECTION}", db_url=f"sqlite:///{state / 'records.sqlite'}"
    )
    manager.create_schema()
    result = index(
        docs(),
        manager,
        store,
        cleanup="full",
        source_id_key="source",
        # Qdrant takes UUID point ids: LangChain's "sha256" encoder gives a bare hex digest.
        batch_size=BATCH,
        key_encoder=_lc_key,
    )
    seconds = time.perf_counter() - started
    points = client.count(COLLECTION, exact=True).count
    check = check_points(
        _qdrant_points(client, lambda p: p["metadata"]["rid"], lambda p: p["page_content"]),
        read_rows(data),
    )
    closing = time.perf_counter()
    client.close()
    close_seconds = time.perf_counter() - closing
    return {
        "seconds": seconds,
        "close_seconds": close_seconds,
        "embedded": embed.texts,
        "points": points,
        **check,
        "report": dict(result),
    }


def run_llamaindex(state: Path, data: Path, embed: SyncEmbedding) -> dict[str, Any]:
    """LlamaIndex IngestionPipeline with a persisted docstore, strategy upserts and delete."""
    from llama_index.core import Document
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    class Injected(BaseEmbedding):
        def _get_text_embedding(self, text: str) -> list[float]:
            return embed([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return embed(texts)

        def _get_query_embedding(self, query: str) -> list[float]:
            return embed.query(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return embed.query(query)

    started = time.perf_counter()
    docstore_path = state / "docstore.json"
    docstore = (
        SimpleDocumentStore.from_persist_path(str(docstore_path))
        if docstore_path.exists()
        else SimpleDocumentStore()
    )
    client = QdrantClient(path=str(state / "qdrant"))
    store = QdrantVectorStore(client=client, collection_name=COLLECTION)
    documents = []
    for row in read_rows(data):
        meta = {"rid": row["id"], "author": row["author"], "at": row["at"]}
        # Metadata kept out of the embedded text, so the vector is the same as everyone's.
        documents.append(
            Document(
                text=embed_string(row),
                id_=_uuid_for(row["id"]),
                metadata=meta,
                excluded_embed_metadata_keys=list(meta),
                excluded_llm_metadata_keys=list(meta),
            )
        )
    pipeline = IngestionPipeline(
        # A splitter whose chunks are larger than any record: one node per document, as the
        # other peers get, but with the document as the node's source, which the docstore
        # strategy needs to delete a vanished document's points (documents passed straight to
        # the embedding leave their points behind). Its tokenizer is str.split because the
        # default (tiktoken) downloads its tables on first use, and nothing is fetched here.
        transformations=[
            SentenceSplitter(chunk_size=4096, chunk_overlap=0, tokenizer=str.split),
            Injected(embed_batch_size=BATCH),
        ],
        docstore=docstore,
        vector_store=store,
        docstore_strategy=DocstoreStrategy.UPSERTS_AND_DELETE,
    )
    nodes = pipeline.run(documents=documents)
    docstore.persist(str(docstore_path))
    seconds = time.perf_counter() - started
    points = (
        client.count(COLLECTION, exact=True).count if client.collection_exists(COLLECTION) else 0
    )
    pts = (
        _qdrant_points(client, lambda p: p["rid"], lambda p: json.loads(p["_node_content"])["text"])
        if points
        else []
    )
    check = check_points(pts, read_rows(data))
    closing = time.perf_counter()
    client.close()
    close_seconds = time.perf_counter() - closing
    return {
        "seconds": seconds,
        "close_seconds": close_seconds,
        "embedded": embed.texts,
        "points": points,
        **check,
        "report": {"nodes_written": len(nodes)},
    }


def run_cocoindex(state: Path, data: Path, embed: SyncEmbedding) -> dict[str, Any]:
    """CocoIndex 1.x: one memoised component per record, points declared into a Qdrant target."""
    os.environ["COCOINDEX_DB"] = str(state / "cocoindex.lmdb")
    import cocoindex as coco
    import numpy as np
    from cocoindex.connectors import qdrant
    from cocoindex.resources.schema import VectorSchema
    from qdrant_client import QdrantClient

    client = QdrantClient(path=str(state / "qdrant"))
    db = coco.ContextKey[QdrantClient]("bench_qdrant")

    @coco.lifespan
    async def lifespan(builder: coco.EnvironmentBuilder) -> Any:
        builder.provide(db, client)
        yield

    @coco.fn.as_async(batching=True, max_batch_size=BATCH)
    async def embed_batch(texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(embed, texts)

    @coco.fn(memo=True)
    async def process_record(row: dict[str, Any], target: qdrant.CollectionTarget) -> None:
        text = embed_string(row)
        vector = await embed_batch(text)
        target.declare_point(
            qdrant.PointStruct(
                id=_uuid_for(row["id"]),
                vector=vector,
                payload={"rid": row["id"], "text": text, "author": row["author"], "at": row["at"]},
            )
        )

    @coco.fn
    async def app_main(path: Path) -> None:
        target = await qdrant.mount_collection_target(
            db,
            COLLECTION,
            await qdrant.CollectionSchema.create(
                vectors=qdrant.QdrantVectorDef(
                    schema=VectorSchema(dtype=np.dtype("float32"), size=384)
                )
            ),
        )
        await coco.mount_each(process_record, ((r["id"], r) for r in read_rows(path)), target)

    app = coco.App(coco.AppConfig(name="memtrails_bench"), app_main, path=data)
    started = time.perf_counter()
    app.update_blocking()
    seconds = time.perf_counter() - started
    points = client.count(COLLECTION, exact=True).count
    check = check_points(
        _qdrant_points(client, lambda p: p["rid"], lambda p: p["text"]), read_rows(data)
    )
    closing = time.perf_counter()
    client.close()
    close_seconds = time.perf_counter() - closing
    return {
        "seconds": seconds,
        "close_seconds": close_seconds,
        "embedded": embed.texts,
        "embed_calls": embed.calls,
        "points": points,
        **check,
    }


def _lc_key(doc: Any) -> str:
    """Return a LangChain document's key: a UUID from SHA-256 over its content and metadata."""
    import hashlib
    import uuid

    blob = doc.page_content + json.dumps(doc.metadata, sort_keys=True)
    return str(uuid.UUID(hashlib.sha256(blob.encode()).hexdigest()[:32]))


def _uuid_for(rid: str) -> str:
    import uuid

    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memtrails-bench:{rid}"))


SYNC_CALLS = ("fsync", "fdatasync", "msync", "sync_file_range")


def sync_counts(path: Path) -> dict[str, int]:
    """Read the calls per syscall from an ``strace -c`` summary."""
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[-1] in SYNC_CALLS:
            counts[parts[-1]] = int(parts[3])  # % time, seconds, usecs/call, calls
    return counts


def child(
    peer: str, state: Path, data: Path, hashing: bool, threads: int | None, model: str | None
) -> None:
    """Run one peer once and print its figures as one JSON line."""
    if peer == "memtrails":
        result = asyncio.run(run_memtrails(state, data, hashing, threads, model))
    else:
        embed = SyncEmbedding(threads=threads, hashing=hashing, model=model)
        runner = {
            "langchain": run_langchain,
            "llamaindex": run_llamaindex,
            "cocoindex": run_cocoindex,
        }[peer]
        try:
            result = runner(state, data, embed)
        finally:
            embed.close()
    print(json.dumps(result))


# -- the parent: rounds of three runs per peer ------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2000, help="records per import (2000)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds of unchanged + edited runs; medians (3)"
    )
    parser.add_argument(
        "--fresh-rounds",
        type=int,
        default=1,
        help="rounds that start with a fresh import (1); the others restore its state",
    )
    parser.add_argument("--peers", default=",".join(PEERS), help="comma-separated subset")
    parser.add_argument(
        "--python",
        type=Path,
        default=None,
        help="interpreter for the runs (default: benchmarks/.venv-peers, else this one)",
    )
    parser.add_argument("--threads", type=int, default=None, help="onnxruntime threads")
    parser.add_argument(
        "--model",
        default=None,
        help="the model every peer is given: minilm or multilingual-e5-small (default: "
        "memtrails' default model)",
    )
    parser.add_argument(
        "--hashing",
        action="store_true",
        help="replace the model by the cheap hashing embedder (pipeline cost only)",
    )
    parser.add_argument(
        "--strace",
        action="store_true",
        help="count each run's fsync/fdatasync/msync calls under strace (slows the "
        "runs: for the durability comparison, not for timing)",
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("PEER", "STATE", "DATA"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.child:
        peer, state, data = args.child
        child(peer, Path(state), Path(data), args.hashing, args.threads, args.model)
        return

    python = args.python or (PEERS_PYTHON if PEERS_PYTHON.exists() else Path(sys.executable))
    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    rows = list(records(args.records))
    edited = edited_rows(rows)
    # memtrails' expected point count: the passages the model cuts the live records into.
    passages = {
        "rows": len(rows) if args.hashing else model_passages([embed_string(r) for r in rows]),
        "edited": len(edited)
        if args.hashing
        else model_passages([embed_string(r) for r in edited]),
    }
    work = Path(tempfile.mkdtemp(prefix="memtrails-peers-"))
    data = work / "records.jsonl"  # one path for every run: memtrails' source is the same
    results: dict[str, dict[str, list[dict[str, Any]]]] = {p: {r: [] for r in RUNS} for p in peers}
    errors: dict[str, str] = {}
    load: list[float] = []
    try:
        for rnd in range(args.rounds):
            fresh = rnd < args.fresh_rounds
            for p in peers:
                state = work / p
                shutil.rmtree(state, ignore_errors=True)
                if fresh:
                    state.mkdir()
                    (state / "all-ids.txt").write_text("\n".join(r["id"] for r in rows))
                else:
                    # The first import embeds everything, at the model's speed, the same for
                    # every peer: later rounds start from a copy of the state it left.
                    shutil.copytree(work / f"{p}.after-fresh", state)
            for run in RUNS if fresh else RUNS[1:]:
                write_jsonl(data, edited if run == "edited" else rows)
                # Peers take turns inside each run, so the machine's load falls on all alike.
                for p in peers:
                    if p in errors:
                        continue
                    argv = [str(python), __file__, "--child", p, str(work / p), str(data)]
                    argv += ["--hashing"] if args.hashing else []
                    argv += ["--threads", str(args.threads)] if args.threads else []
                    argv += ["--model", args.model] if args.model else []
                    syncs_file = work / f"{p}.{run}.strace"
                    if args.strace:
                        argv = [
                            "strace",
                            "-f",
                            "-c",
                            "-o",
                            str(syncs_file),
                            "-e",
                            f"trace={','.join(SYNC_CALLS)}",
                            *argv,
                        ]
                    try:
                        m = run_measured(argv)
                    except RuntimeError as exc:
                        lines = [
                            ln
                            for ln in str(exc).splitlines()
                            if ln.strip() and "telemetry" not in ln
                        ]
                        errors[p] = (lines or ["no output"])[-1][:500]
                        print(f"{p}: failed: {errors[p]}", file=sys.stderr)
                        continue
                    # cpu_s: the whole child process (imports and checks too), all threads.
                    figures = {
                        **m.result,
                        "peak_rss_mib": round(m.peak_rss_mib, 1),
                        "cpu_s": round(m.cpu_seconds, 2),
                    }
                    if args.strace:
                        figures["syncs"] = sync_counts(syncs_file)
                    if p == "memtrails":
                        figures["expected_points"] = passages[
                            "edited" if run == "edited" else "rows"
                        ]
                        figures["right"] = (
                            figures["right"] and figures["points"] == figures["expected_points"]
                        )
                    results[p][run].append(figures)
                    if run == "fresh":
                        shutil.rmtree(work / f"{p}.after-fresh", ignore_errors=True)
                        shutil.copytree(work / p, work / f"{p}.after-fresh")
                    load.append(os.getloadavg()[0])
                    print(
                        f"round {rnd + 1} {run:9} {p:10} {figures['seconds']:8.2f} s "
                        f"RSS {figures['peak_rss_mib']:7.1f} MiB embedded {figures['embedded']:6} "
                        f"points {figures['points']:6} right {figures['right']}",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    summary: dict[str, dict[str, Any]] = {}
    print(
        f"\n{args.records} records ({'hashing embedder' if args.hashing else 'all-MiniLM-L6-v2 int8'}), "
        f"median of {args.rounds} rounds ({args.fresh_rounds} fresh); load average {min(load or [0]):.1f}-{max(load or [0]):.1f}"
    )
    print(
        f"{'run':10} {'peer':11} {'seconds':>9} {'+ close':>8} {'proc CPU s':>11} {'peak RSS MiB':>13} "
        f"{'embedded':>9} {'points':>7}  right"
    )
    for run in RUNS:
        for p in peers:
            got = results[p][run]
            if not got:
                print(f"{run:10} {p:11} {'failed: ' + errors.get(p, 'no result')}")
                continue
            s = {
                "seconds": round(median([g["seconds"] for g in got]), 3),
                "seconds_with_close": round(
                    median([g["seconds"] + g.get("close_seconds", 0.0) for g in got]), 3
                ),
                "peak_rss_mib": round(median([g["peak_rss_mib"] for g in got]), 1),
                "process_cpu_s": round(median([g.get("cpu_s", 0.0) for g in got]), 2),
                "embedded": int(median([g["embedded"] for g in got])),
                "points": int(median([g["points"] for g in got])),
                "expected_points": got[-1].get("expected_points"),
                "right": all(g["right"] for g in got),
                "runs": len(got),
            }
            if args.strace:
                s["syncs"] = got[-1].get("syncs", {})
            summary.setdefault(p, {})[run] = s
            print(
                f"{run:10} {p:11} {s['seconds']:9.2f} {s['seconds_with_close']:8.2f} "
                f"{s['process_cpu_s']:11.2f} {s['peak_rss_mib']:13.1f} {s['embedded']:9} "
                f"{s['points']:7}  {'yes' if s['right'] else 'NO'} (expected {s['expected_points']})"
                + (f"  syncs {s['syncs']}" if args.strace else "")
            )
    fastest = {}
    for run in RUNS:
        times = {p: summary[p][run]["seconds"] for p in summary if run in summary[p]}
        if times:
            best = min(times, key=lambda p: times[p])
            fastest[run] = best
            if "memtrails" in times:
                ratios = ", ".join(
                    f"{p} {times[p] / times['memtrails']:.1f}x" for p in times if p != "memtrails"
                )
                print(f"{run}: fastest {best}; peers' time over memtrails': {ratios}")
    print(
        json.dumps(
            {
                "benchmark": "peers",
                "records": args.records,
                "rounds": args.rounds,
                "fresh_rounds": args.fresh_rounds,
                "embedder": "hashing" if args.hashing else "all-MiniLM-L6-v2-int8",
                "machine": machine(),
                "load_avg_during": [round(min(load or [0]), 2), round(max(load or [0]), 2)],
                "results": summary,
                "fastest": fastest,
                "errors": errors,
            }
        )
    )


if __name__ == "__main__":
    main()
