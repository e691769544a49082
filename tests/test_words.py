"""ICU word splitting and keyword vectors, as Intl.Segmenter sees words."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from memtrails.portable import fnv1a32
from memtrails.words import keyword_vector, words


def test_words_are_normalised_and_filtered() -> None:
    assert words("Hello, World! hello") == ["hello", "world", "hello"]
    assert words("a I x") == []  # one unit is too short
    # NFKC, then lower case: full-width letters, the "fi" ligature, a final sigma.
    assert words("\uff21\uff22\uff23 \ufb01nal ΟΔΟΣ") == ["abc", "final", "οδος"]
    assert words("x" * 60 + " " + "y" * 61) == ["x" * 60]  # 60 units at most


def test_numbers_and_punctuation() -> None:
    assert words("v1.2.3 costs $1,234.56 (20%)") == ["v1.2.3", "costs", "1,234.56", "20"]
    assert words("don't stop 10:30") == ["don't", "stop", "10", "30"]


def test_emoji_and_symbols_are_not_words() -> None:
    assert words("ship it 🚀 👨‍👩‍👧 🇫🇷 ✓") == ["ship", "it"]


def test_email_and_colons_split_as_in_node() -> None:
    # ICU 72 kept "ana@example.com" whole and split "foo:bar"; Node's ICU does the opposite.
    assert words("ana@example.com foo:bar") == ["ana", "example.com", "foo:bar"]


def test_dictionary_scripts() -> None:
    assert words("東京都に住んでいます") == ["東京", "んで", "ます"]
    assert words("ภาษาไทย") == ["ภาษา", "ไทย"]


def test_keyword_vector_counts_words() -> None:
    vector = keyword_vector("Budget budget BUDGET review")
    assert vector == dict(sorted({fnv1a32("budget"): 3.0, fnv1a32("review"): 1.0}.items()))
    assert list(vector) == sorted(vector)
    assert keyword_vector("") == {}


def test_words_in_threads() -> None:
    texts = ["今日は東京で会議があります。", "The quick brown fox", "สวัสดีครับ"] * 50
    expected = [words(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(words, texts)) == expected
