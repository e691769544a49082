"""The packaged model's fused graph: the packaged graph's vectors, built once, cached, checked."""

from __future__ import annotations

import asyncio
import json
import mailbox
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memtrails.embedding import OnnxEmbedder, Passage
from memtrails.embedding._fused import FUSED_SHA256
from memtrails.embedding.onnx import sha256_file

# The fused graph is built for the module first (~45 s).
pytestmark = pytest.mark.slow


def mail_texts(path: Path, n: int) -> list[str]:
    """Subject and plain body (up to 3,000 characters: two windows or three) of the first n
    single-part mails of an mbox."""
    out = []
    box = mailbox.mbox(path, create=False)
    try:
        for message in box:
            body = message.get_payload(decode=True)
            if isinstance(body, bytes) and body.strip():
                text = f"{message.get('Subject', '')}\n{body.decode('utf-8', 'replace')}"
                out.append(text[:3000])
            if len(out) == n:
                break
    finally:
        box.close()
    return out


@pytest.fixture(scope="module")
def texts(corpora: Path) -> list[str]:
    """About 180 real texts: mails (long ones cut into windows), Slack messages, JSON Lines.

    Each kind is there; more of each (300 texts) doubled the module's time, nearly all of it
    embedding with both graphs, and met no window the fewer did not.
    """
    mails = mail_texts(corpora / "mbox" / "twisted-python-2004-February.mbox", 20)
    slack = [
        m["text"]
        for f in sorted((corpora / "slack").glob("*/*/*.json"))
        for m in json.loads(f.read_text())
        if m.get("text")
    ]
    rows = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:30]
    gsm8k = [t for r in map(json.loads, rows) for t in (r["question"], r["answer"])]
    prompts = (corpora / "jsonl" / "fastchat-mt_bench-question.jsonl").read_text().splitlines()
    mt_bench = [json.loads(line)["turns"][0] for line in prompts[:20]]
    return mails + slack + gsm8k + mt_bench + ["", "ok"]


@pytest.fixture(scope="module")
def packaged_graph() -> Iterator[OnnxEmbedder]:
    e = asyncio.run(OnnxEmbedder.packaged(threads=2, optimize=False))
    yield e
    asyncio.run(e.aclose())


@pytest.fixture(scope="module")
def fused(embedder: OnnxEmbedder, texts: list[str]) -> list[list[Passage]]:
    """The texts through the fused graph, in one call: length-sorted runs of many windows."""
    return asyncio.run(embedder.embed(texts))


def vectors(passages: list[list[Passage]]) -> np.ndarray[Any, Any]:
    return np.stack([p.vector for text in passages for p in text])


async def test_fused_graph_gives_the_packaged_graphs_vectors(
    embedder: OnnxEmbedder,
    packaged_graph: OnnxEmbedder,
    texts: list[str],
    fused: list[list[Passage]],
) -> None:
    assert embedder.optimized and not packaged_graph.optimized
    assert embedder.describe() == packaged_graph.describe()  # the folder's model is the same
    assert len(texts) >= 150
    packaged = await packaged_graph.embed(texts)
    assert [[(p.start, p.end) for p in t] for t in fused] == [
        [(p.start, p.end) for p in t] for t in packaged
    ]
    a, b = vectors(fused), vectors(packaged)
    assert len(a) > len(texts)  # long mails gave several windows
    assert float(np.min(np.sum(a * b, axis=1))) >= 0.9999
    for q in texts[::25]:
        fq, pq = await embedder.embed_query(q), await packaged_graph.embed_query(q)
        assert float(fq @ pq) >= 0.9999


async def test_fused_vectors_do_not_depend_on_the_batch(
    embedder: OnnxEmbedder, texts: list[str], fused: list[list[Passage]]
) -> None:
    for i in range(0, len(texts), 9):
        [alone] = await embedder.embed([texts[i]])
        assert len(alone) == len(fused[i])
        for a, b in zip(alone, fused[i], strict=True):
            assert float(a.vector @ b.vector) >= 0.9999


async def test_the_fused_graph_is_built_once_checked_and_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = await OnnxEmbedder.packaged(threads=1, cache_dir=cache)
    [built] = cache.glob("models/*/model.onnx")
    assert first.optimized and sha256_file(built) == FUSED_SHA256
    stamp = built.stat().st_mtime_ns
    await first.aclose()
    second = await OnnxEmbedder.packaged(threads=1, cache_dir=cache)
    assert second.optimized and built.stat().st_mtime_ns == stamp  # reused, not rebuilt
    await second.aclose()
    built.write_bytes(built.read_bytes()[:-10] + b"0123456789")  # damaged in the cache
    third = await OnnxEmbedder.packaged(threads=1, cache_dir=cache)
    assert third.optimized and sha256_file(built) == FUSED_SHA256
    await third.aclose()


async def test_without_a_usable_cache_the_packaged_graph_serves(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    e = await OnnxEmbedder.packaged(threads=1, cache_dir=not_a_folder)
    try:
        assert not e.optimized
        [[p]] = await e.embed(["A kitten naps on the couch."])
        assert abs(float(np.linalg.norm(p.vector)) - 1.0) < 1e-5
    finally:
        await e.aclose()
