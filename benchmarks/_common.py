"""Shared helpers for the benchmarks: records, mbox files, embedders, peak RSS, medians."""

from __future__ import annotations

import asyncio
import base64
import bisect
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))
GSM8K = CORPORA / "jsonl" / "gsm8k-test.jsonl"
MIB = 1024 * 1024
T = TypeVar("T")

__all__ = [
    "CORPORA",
    "MIB",
    "ROOT",
    "CountingEmbedder",
    "HashingEmbedder",
    "Measured",
    "SyncEmbedding",
    "auc",
    "generate_mbox",
    "machine",
    "median",
    "percentile_ms",
    "records",
    "run_measured",
    "write_jsonl",
]


# -- records ---------------------------------------------------------------------------------


def _gsm8k() -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in GSM8K.read_text(encoding="utf-8").splitlines() if line]
    return [(r["question"], r["answer"]) for r in rows]


def records(n: int, *, small: bool = False, seed: int = 8) -> Iterator[dict[str, Any]]:
    """Yield n realistic JSON Lines records built from the GSM8K test set (1,319 rows).

    A record is a question with its worked answer (about 100-200 word pieces: one passage
    for the model), with an author, a date and a title, as a notes or ticket export would
    have. Past 1,319 records, questions and answers are paired anew, so every text is
    distinct without being random noise. ``small=True`` gives the question alone (about 50
    word pieces), for the million-record runs.
    """
    rows = _gsm8k()
    rng = random.Random(seed)
    for i in range(n):
        question, answer = rows[i % len(rows)]
        lap = i // len(rows)
        if lap:
            # Another answer for the same question: a distinct text of the same shape.
            answer = rows[(i + 7 * lap) % len(rows)][1]
        text = question if small else f"{question}\n\n{answer}"
        if lap and small:
            text = f"{text} (case {lap})"
        yield {
            "id": f"r{i}",
            "title": question.split("?")[0][:80],
            "author": f"user{rng.randrange(200)}@example.org",
            "at": f"20{10 + i % 15:02d}-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
            "text": text,
        }


def write_jsonl(path: Path, rows: Iterator[dict[str, Any]] | Sequence[dict[str, Any]]) -> int:
    """Write rows as JSON Lines (streamed: a million rows never sit in memory); return the count."""
    count = 0
    with open(path, "w", encoding="utf-8", buffering=4 * MIB) as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False))
            out.write("\n")
            count += 1
    return count


# -- mbox files (moved from mbox_memory.py, which imports them from here) ---------------------

_WORDS = [
    "memory",
    "archive",
    "thread",
    "reply",
    "meeting",
    "budget",
    "release",
    "server",
    "deploy",
    "patch",
    "review",
    "schedule",
    "question",
    "answer",
    "protocol",
    "transport",
    "twisted",
    "python",
    "reactor",
    "deferred",
    "callback",
    "agenda",
    "notes",
    "draft",
    "invoice",
    "travel",
    "weekend",
    "coffee",
    "lunch",
    "project",
    "report",
    "figures",
]


def _paragraphs(rng: random.Random, n: int) -> str:
    paras = []
    for _ in range(n):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(20, 90))]
        lines, line = [], ""
        for word in words:
            if len(line) + len(word) > 70:
                lines.append(line)
                line = ""
            line = f"{line} {word}".strip()
        lines.append(line)
        paras.append("\n".join(lines).capitalize() + ".")
    return "\n\n".join(paras)


def _message(rng: random.Random, n: int) -> bytes:
    """Return one mbox entry (From_ line, headers, body, blank line)."""
    day = 1 + n % 28
    head = (
        f"From user{n % 97}@example.org  Tue Apr {day:2d} 12:{n % 60:02d}:37 2003\n"
        f"From: User {n % 97} <user{n % 97}@example.org>\n"
        f"To: list@example.org\n"
        f"Date: Tue, {day} Apr 2003 12:{n % 60:02d}:37 -0800\n"
        f"Message-ID: <{n}.{rng.getrandbits(32):08x}@example.org>\n"
    )
    if n % 5:
        head += f"References: <{max(0, n - 7)}.root@example.org>\n"
    if n % 11 == 0:
        head += (
            "Subject: =?UTF-8?B?"
            + base64.b64encode(f"Grüße Nr. {n} - 会議".encode()).decode()
            + "?=\n"
        )
    else:
        head += f"Subject: {_paragraphs(rng, 1)[:60]}\n"
    text = _paragraphs(rng, rng.randint(2, 8))
    # mboxrd: body lines starting with "From " are written as ">From "
    text += "\n\n>From the archive, as discussed.\n"
    kind = n % 20
    if kind < 12:
        body = head + "Content-Type: text/plain; charset=utf-8\n\n" + text
    elif kind < 17:
        html = "".join(f"<p>{p}</p>" for p in text.split("\n\n"))
        body = (
            head + 'MIME-Version: 1.0\nContent-Type: multipart/alternative; boundary="alt"\n\n'
            "--alt\nContent-Type: text/plain; charset=utf-8\n\n" + text + "\n"
            "--alt\nContent-Type: text/html; charset=utf-8\n\n<html><body>"
            + html
            + "</body></html>\n--alt--\n"
        )
    else:
        blob = base64.encodebytes(rng.randbytes(rng.randint(20_000, 400_000))).decode()
        body = (
            head + 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="mix"\n\n'
            "--mix\nContent-Type: text/plain; charset=utf-8\n\n" + text + "\n"
            '--mix\nContent-Type: application/pdf; name="report-' + str(n) + '.pdf"\n'
            "Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9-"
            + str(n)
            + ".pdf\nContent-Transfer-Encoding: base64\n\n"
            + blob
            + "--mix--\n"
        )
    return body.encode() + b"\n"


def generate_mbox(path: Path, size_mib: int, seed: int = 4) -> int:
    """Write an mbox of about ``size_mib`` MiB to ``path`` (streamed); return the message count.

    Plain, multipart/alternative and mails with base64 attachments (a fifth of the bytes'
    worth of messages carry 20-400 kB of attachment), RFC 2047 subjects and ``>From`` lines.
    """
    rng = random.Random(seed)
    target = size_mib * MIB
    written = count = 0
    with open(path, "wb", buffering=4 * MIB) as out:
        while written < target:
            data = _message(rng, count)
            out.write(data)
            written += len(data)
            count += 1
    return count


# -- embedders -------------------------------------------------------------------------------


def HashingEmbedder(dims: int = 384) -> Any:
    """The shipped hashing stand-in, hashing whole texts: constant cost per byte.

    It measures the pipeline's own cost (memory, dedup, log, index) where the real model
    would take hours; its vectors mean nothing, so searches over them measure the index's
    latency, not the quality of answers.
    """
    from memtrails.testing import HashingEmbedder as Shipped

    return Shipped(dims, words=False)


class CountingEmbedder:
    """Wrap an embedder and count the texts and passages it is asked to embed."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.texts = 0
        self.passages = 0
        self.calls = 0

    @property
    def model_id(self) -> str:
        return str(self.inner.model_id)

    @property
    def dims(self) -> int:
        return int(self.inner.dims)

    def describe(self) -> dict[str, Any]:
        return dict(self.inner.describe())

    async def embed(self, texts: Sequence[str]) -> list[list[Any]]:
        self.calls += 1
        self.texts += len(texts)
        out: list[list[Any]] = await self.inner.embed(texts)
        self.passages += sum(len(p) for p in out)
        return out

    async def embed_query(self, text: str) -> Any:
        return await self.inner.embed_query(text)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def load_model(name: str | None, threads: int | None) -> Any:
    """The model ``name`` (``multilingual-e5-small``, ``minilm``), or memtrails' default one."""
    if name is None:
        from memtrails.embedding import default_embedder

        return await default_embedder(threads=threads)
    from memtrails.embedding.registry import embedder_by_name

    return await embedder_by_name(name, threads=threads)


class SyncEmbedding:
    """The injected embedding function for the peers: ``texts -> one vector each``, blocking.

    The memtrails embedder is asynchronous; the peers call a plain function, sometimes from
    threads of their own. So the embedder lives on its own event loop in a background thread
    and each call waits for it. A text gets its first passage's vector: for texts of up to
    254 word pieces (every benchmark record) that is exactly the vector memtrails stores.
    The model is loaded on first use, as memtrails loads it, so a run that embeds nothing
    does not pay for it.
    """

    def __init__(
        self, threads: int | None = None, hashing: bool = False, model: str | None = None
    ) -> None:
        self.threads = threads
        self.model = model
        self.hashing = hashing
        self.texts = 0
        self.calls = 0
        self._embedder: Any = None
        self._lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result()

    def _model(self) -> Any:
        with self._lock:
            if self._embedder is None:
                if self.hashing:
                    self._embedder = HashingEmbedder()
                else:
                    self._embedder = self._run(load_model(self.model, self.threads))
            return self._embedder

    @property
    def dims(self) -> int:
        return 384

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts; return one list of floats per text."""
        model = self._model()
        with self._lock:
            self.calls += 1
            self.texts += len(texts)
        passages = self._run(model.embed(list(texts)))
        return [p[0].vector.tolist() for p in passages]

    def query(self, text: str) -> list[float]:
        """Embed a search query."""
        vector = self._run(self._model().embed_query(text))
        return [float(x) for x in vector]

    def close(self) -> None:
        if self._embedder is not None:
            self._run(self._embedder.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()


# -- measuring -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Measured:
    """One child process: its last JSON line, its peak RSS, its wall time and its CPU time.

    CPU time (user + system, all threads) is steadier than wall time on a shared machine.
    """

    result: dict[str, Any]
    peak_rss_mib: float
    seconds: float
    stderr: str
    cpu_seconds: float = 0.0


def run_measured(argv: Sequence[str], *, env: dict[str, str] | None = None) -> Measured:
    """Run a child process to the end; return its last stdout JSON line and its own peak RSS.

    Each measurement gets a process of its own so that ru_maxrss (taken with ``wait4`` for
    that child alone) is that measurement's peak, not the highest of everything before it.

    Raises:
        RuntimeError: the child failed or printed no JSON line; the message has its stderr.
    """
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    # communicate() would reap the child and lose its rusage: read both pipes in threads.
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=lambda: out.append(proc.stdout.read() if proc.stdout else "")),
        threading.Thread(target=lambda: err.append(proc.stderr.read() if proc.stderr else "")),
    ]
    for reader in readers:
        reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    for reader in readers:
        reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    stdout, stderr = "".join(out), "".join(err)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(
            f"{' '.join(argv)} exited {proc.returncode}:\n{stderr[-4000:]}\n{stdout[-2000:]}"
        )
    # ru_maxrss is in KiB on Linux.
    return Measured(
        json.loads(lines[-1]),
        usage.ru_maxrss / 1024,
        seconds,
        stderr,
        usage.ru_utime + usage.ru_stime,
    )


def auc(high: Sequence[float], low: Sequence[float]) -> float | None:
    """Return the chance that a value of ``high`` beats one of ``low`` (ties count half): the
    area under the ROC curve of a signal meant to be higher for ``high`` (3 decimals)."""
    if not high or not low:
        return None
    ranked = sorted(high)
    above = sum(len(ranked) - bisect.bisect_right(ranked, x) for x in low)
    ties = sum(bisect.bisect_right(ranked, x) - bisect.bisect_left(ranked, x) for x in low)
    return round((above + 0.5 * ties) / (len(high) * len(low)), 3)


def median(xs: Sequence[float]) -> float:
    """Return the median of xs."""
    return float(statistics.median(xs))


def percentile_ms(xs: Sequence[float], q: float) -> float:
    """Return the q-th percentile of seconds xs, in milliseconds (2 decimals)."""
    return round(float(np.percentile(np.asarray(xs), q)) * 1000, 2)


def machine() -> dict[str, Any]:
    """Return what the figures ran on: CPU model, cores, memory, load average, Python."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "mem_gib": mem_gib,
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": sys.platform,
    }


# -- one import in this process (the child side of the memory and re-run benchmarks) ----------


def rss_now_mib() -> float:
    """Return this process's resident set size now, in MiB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / MIB


async def import_once(
    folder: Path,
    path: Path,
    *,
    kind: str,
    embedder: str,
    threads: int | None,
    batch: int = 64,
    incremental: bool = False,
) -> dict[str, Any]:
    """Open (or create) a memory folder, import one file into it, close it; return figures.

    ``kind`` is ``jsonl`` or ``mbox``; ``embedder`` is ``model`` (the packaged model, loaded
    on first use as memtrails does) or ``hashing``. Seconds cover open + ingest + close, as a
    ``memtrails add`` would; ``ingest_seconds`` the ingest call alone. ``incremental``
    hands the importer the position the folder saved for the source (``state=``, as
    ``memtrails add`` does), so an unchanged file is not read again; without it every record
    is read, scrubbed and fingerprinted (a changed file, a cursor with no position).
    """
    import resource

    from memtrails import Memory, from_jsonl, from_mbox
    from memtrails.embedding import default_embedder

    counting: CountingEmbedder | None = None

    async def factory() -> Any:
        nonlocal counting
        inner = (
            HashingEmbedder() if embedder == "hashing" else await default_embedder(threads=threads)
        )
        counting = CountingEmbedder(inner)
        return counting

    baseline = rss_now_mib()  # after importing memtrails (and numpy, onnxruntime, qdrant)
    started = time.perf_counter()
    async with Memory.open(folder, embedder=factory) as memory:
        opened = time.perf_counter()
        state = memory.source_state("bench" if kind == "jsonl" else str(path.resolve()))
        state = state if incremental else None
        source = (
            from_jsonl(path, source="bench", state=state)
            if kind == "jsonl"
            else from_mbox(path, state=state)
        )
        report = await memory.ingest(source, batch=batch, name="bench")
        ingested = time.perf_counter()
        status = await memory.status()
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "open_seconds": opened - started,
        "ingest_seconds": ingested - opened,
        "added": report.added,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "skipped": report.skipped,
        "embedded": counting.texts if counting else 0,
        "records": status.records,
        "points": status.points,
        "baseline_rss_mib": round(baseline, 1),
        "peak_rss_self_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def model_passages(texts: Sequence[str], *, max_tokens: int = 256, overlap: int = 32) -> int:
    """Return how many passages the packaged model cuts these texts into (tokenizer only).

    The same rule as ``OnnxEmbedder``: windows of ``max_tokens`` - 2 content word pieces
    ([CLS] and [SEP] take two), consecutive windows sharing ``overlap`` pieces. Loading the
    tokenizer alone keeps the model's 300 MB out of the process whose memory is measured.
    """
    from tokenizers import Tokenizer

    from memtrails.embedding.onnx import DEFAULT_TOKENIZER_FILE

    tok = Tokenizer.from_file(
        str(ROOT / "memtrails" / "embedding" / "data" / DEFAULT_TOKENIZER_FILE)
    )
    tok.no_padding()
    tok.no_truncation()
    size, step = max_tokens - 2, max_tokens - 2 - overlap
    total = 0
    for enc in tok.encode_batch(list(texts), add_special_tokens=False):
        n = len(enc.ids)
        total += 1 if n <= size else 1 + -(-(n - size) // step)
    return total
