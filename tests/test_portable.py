"""What JavaScript does to text: UTF-16 units, FNV-1a, JSON.stringify, whitespace, UTF-8."""

from __future__ import annotations

import json
import random

import pytest

from memtrails import portable
from memtrails.portable import (
    fnv1a32,
    js_number,
    js_split_ws,
    js_stringify,
    js_trim,
    js_utf8,
    sha256_hex,
    utf16_cut,
    utf16_len,
    utf16_slice,
)


def test_utf16_len_counts_code_units() -> None:
    assert utf16_len("abc") == 3
    assert utf16_len("é全") == 2
    assert utf16_len("😀") == 2
    assert utf16_len("👨‍👩‍👧") == 8  # three pairs and two ZWJs
    assert utf16_len("a\ud800") == 2  # a lone surrogate is one unit


def test_cut_never_splits_a_pair() -> None:
    assert utf16_cut("ab😀cd", 3) == "ab"  # unit 3 is inside the pair: cut before it
    assert utf16_cut("ab😀cd", 4) == "ab😀"
    assert utf16_cut("ab😀cd", 0) == ""
    assert utf16_cut("ab😀cd", 99) == "ab😀cd"


def test_slice_is_string_slice_in_units() -> None:
    s = "a😀b"  # units: a, high, low, b
    assert utf16_slice(s, 1) == "😀b"
    assert utf16_slice(s, 2) == "😀b"  # a start inside the pair moves before it too
    assert utf16_slice(s, 1, 2) == ""
    assert utf16_slice(s, -1) == "b"
    assert utf16_slice(s, 3, 1) == ""


def test_fnv1a32_over_utf16_units() -> None:
    assert fnv1a32("") == 0x811C9DC5
    assert fnv1a32("a") == 0xE40C292C  # the same as over bytes for ASCII
    assert fnv1a32("foobar") == 0xBF9CF968

    # Non-ASCII: one XOR per UTF-16 unit, not per UTF-8 byte.
    def reference(s: str) -> int:
        h = 0x811C9DC5
        units = s.encode("utf-16-le", "surrogatepass")
        for i in range(0, len(units), 2):
            h = ((h ^ int.from_bytes(units[i : i + 2], "little")) * 0x01000193) & 0xFFFFFFFF
        return h

    for s in ["é", "全角", "😀", "a\ud800b", "\udfff"]:
        assert fnv1a32(s) == reference(s)


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (-0.0, "0"),
        (0.1 + 0.2, "0.30000000000000004"),
        (1.0, "1"),
        (5e-324, "5e-324"),
        (2**53 + 1, "9007199254740992"),  # a Python int becomes the nearest double
        (10**400, "null"),  # beyond the largest double: Infinity
        (float("nan"), "null"),
        (True, "true"),
    ],
)
def test_js_number(x: float, text: str) -> None:
    assert js_number(x) == text


def test_stringify_orders_index_keys_first() -> None:
    value = {"b": 1, "10": 2, "a": 3, "2": 4, "01": 5, "-1": 6, "4294967295": 7}
    assert js_stringify(value) == '{"2":4,"10":2,"b":1,"a":3,"01":5,"-1":6,"4294967295":7}'


def test_stringify_escapes_like_javascript() -> None:
    assert (
        js_stringify('\u0000\u001f\b\t"\\ \u2028 é 😀')
        == '"\\u0000\\u001f\\b\\t\\"\\\\ \u2028 é 😀"'
    )
    assert js_stringify(["\ud800", "x\udfff"]) == '["\\ud800","x\\udfff"]'
    assert (
        js_stringify({"a": None, "b": [1.5, -0.0, float("inf")]}) == '{"a":null,"b":[1.5,0,null]}'
    )


def test_stringify_takes_other_number_types() -> None:
    from fractions import Fraction

    import numpy as np

    assert js_stringify([np.int64(2**60), np.float32(0.5), np.float64(1e21), Fraction(1, 4)]) == (
        "[1152921504606847000,0.5,1e+21,0.25]"
    )


def test_stringify_rejects_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError, match="bytes"):
        js_stringify({"a": b"raw"})


def _random_value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(7 if depth < 3 else 4)
    if kind == 0:
        return rng.choice(
            [0, -7, 2**53 - 1, 2**53, 10**22, 0.5, 1e-5, 3.25e15, 1e16, 2.0, -0.0, 1e-7]
        )
    if kind == 1:
        return rng.choice(["", "plain", "é 全", "😀", '\n\t"\\', "\x00\x7f", "\u2028", "\ud800"])
    if kind == 2:
        return rng.choice([None, True, False])
    if kind == 3:
        return rng.uniform(-1e6, 1e6)
    if kind == 4:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["a", "b", "0", "7", "10", "01", "x y", "é", "-1"]
    return {rng.choice(keys): _random_value(rng, depth + 1) for _ in range(rng.randrange(5))}


def test_fast_path_agrees_with_the_slow_path() -> None:
    rng = random.Random(6)
    for _ in range(3000):
        value = _random_value(rng)
        assert js_stringify(value) == portable._stringify(value), value


def test_stringify_output_is_json() -> None:
    record = {"id": "x", "text": "line\nnext 😀", "meta": {"n": 1234, "ratio": 0.25}}
    assert json.loads(js_stringify(record)) == record


def test_trim_and_split_use_javascript_whitespace() -> None:
    # U+0085 and U+001C..U+001F are white space to Python, not to JavaScript; U+FEFF is the reverse.
    assert js_trim("\ufeff\u3000 x \u0085") == "x \u0085"
    assert js_trim("\u001fx") == "\u001fx"
    assert js_split_ws("  one\u00a0two\u2003three\u0085four  ") == ["one", "two", "three\u0085four"]
    assert js_split_ws(" \t\n") == []


def test_utf8_replaces_lone_surrogates() -> None:
    assert js_utf8("a\ud800b") == b"a\xef\xbf\xbdb"
    assert js_utf8("😀") == "😀".encode()
    assert sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
