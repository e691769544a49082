"""The Python keys against the fixtures Node computed (conformance/generate.mjs).

Every case of every fixture must match exactly (floats to 1e-6), except the cases listed in
KNOWN_DIFFERENCES, which conformance/README.md explains one by one. A listed case that starts
matching fails too, so the list never goes stale.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import struct
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import icu
import pytest
from helpers import in_tz

from memtrails.dates import iso_from_ms, parse_date, utc_from_local_ms
from memtrails.keys import fingerprint, fingerprint_of, point_id, record_uid
from memtrails.pipeline.normalise import normalise_item
from memtrails.portable import (
    JS_WHITESPACE,
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
from memtrails.records import At, MemoryRecord
from memtrails.words import _WORD_LIKE, _breaker, keyword_vector, words

FIXTURES = Path(__file__).resolve().parents[1] / "conformance" / "fixtures"

# Case id -> why it differs. Keep in step with "Known differences" in conformance/README.md.
# Node 20 bundles ICU 78.2 (Unicode 17); PyICU here is built on the system's ICU 72.1 (Unicode 15),
# and Python 3.11's unicodedata (NFKC, lower case) is Unicode 14.
_NEWER_UNICODE = (
    "characters newer than ICU 72 / Python 3.11's Unicode data: unassigned there, so not "
    "word-like (and no case mapping for lower case)"
)
KNOWN_DIFFERENCES: dict[str, str] = {
    "words/cjk-ext-i": _NEWER_UNICODE + " (CJK Extension I, Unicode 15.1)",
    "vector/cjk-ext-i": _NEWER_UNICODE + " (CJK Extension I, Unicode 15.1)",
    "words/unicode16-scripts": _NEWER_UNICODE + " (Garay, Todhri, Sunuwar: Unicode 16)",
    "vector/unicode16-scripts": _NEWER_UNICODE + " (Garay, Todhri, Sunuwar: Unicode 16)",
    "words/unicode16-latin": _NEWER_UNICODE + " (Latin U+A7CB..U+A7DC: Unicode 16)",
    "vector/unicode16-latin": _NEWER_UNICODE + " (Latin U+A7CB..U+A7DC: Unicode 16)",
}

# Code points the installed ICU does not define (assigned in Unicode 15.1..17): ICU gives them
# no Word_Break class, so word_classes.json cannot match for them. Counted per ICU version so
# that the exclusion is explicit: review and record the count when ICU changes.
UNDEFINED_IN_ICU = {"72.1": 10615}


def _load(name: str) -> dict[str, Any]:
    with open(FIXTURES / f"{name}.json", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    assert data["count"] == len(data["cases"])
    return data


def _decode(v: Any) -> Any:
    """Rebuild the value JavaScript had: {"f": bits} float, {"i": digits} int, {"o": pairs} object."""
    if isinstance(v, list):
        return [_decode(x) for x in v]
    if isinstance(v, dict):
        if "f" in v:
            return struct.unpack(">d", bytes.fromhex(v["f"]))[0]
        if "i" in v:
            return int(v["i"])
        return {k: _decode(x) for k, x in v["o"]}
    return v


def _check(name: str, check: Callable[[dict[str, Any]], Iterator[str]]) -> None:
    """Run ``check`` on every case; fail listing every unexpected mismatch and stale exclusion."""
    data = _load(name)
    problems: list[str] = []
    for case in data["cases"]:
        found = list(check(case))
        known = case["id"] in KNOWN_DIFFERENCES
        if found and not known:
            problems.append(f"{case['id']}: " + "; ".join(found))
        elif known and not found:
            problems.append(f"{case['id']}: listed as a known difference but matches now")
    assert not problems, f"{len(problems)} case(s) of {name}.json:\n" + "\n".join(problems[:40])


def _diff(what: str, got: Any, want: Any) -> Iterator[str]:
    if got != want:
        yield f"{what}: got {got!r}, want {want!r}"


@pytest.fixture
def fixture_tz() -> Iterator[None]:
    """Run under the zone the date fixtures were made in, restoring the caller's afterwards."""
    with in_tz(_load("dates")["tz"]):
        yield


def test_utf16() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        s = case["text"]
        yield from _diff("length", utf16_len(s), case["length"])
        for n, want in case["cuts"]:
            yield from _diff(f"cut {n}", utf16_cut(s, n), want)
        for start, end, want in case["slices"]:
            yield from _diff(f"slice {start},{end}", utf16_slice(s, start, end), want)

    _check("utf16", check)


def test_words() -> None:
    _check("words", lambda case: _diff("words", words(case["text"]), case["words"]))


def test_fnv() -> None:
    _check("fnv", lambda case: _diff("fnv1a32", fnv1a32(case["text"]), case["fnv1a32"]))


def test_keyword_vectors() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        got = keyword_vector(case["text"])
        want = {term: float(n) for term, n in case["vector"]}
        if list(got) != list(want) or any(abs(got[t] - want[t]) > 1e-6 for t in want):
            yield f"vector: got {got}, want {want}"

    _check("vectors", check)


def test_numbers() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        x = struct.unpack(">d", bytes.fromhex(case["bits"]))[0]
        if math.isfinite(x):  # String(NaN) is "NaN" but memtrails only ever writes JSON
            yield from _diff("String", js_number(x), case["string"])
        yield from _diff("JSON", js_stringify(x), case["json"])

    _check("numbers", check)


def test_json() -> None:
    _check("json", lambda case: _diff("json", js_stringify(_decode(case["value"])), case["json"]))


def test_whitespace() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        if case["id"] == "ws/class":
            yield from _diff("class", sorted(map(ord, JS_WHITESPACE)), case["codepoints"])
            return
        yield from _diff("trim", js_trim(case["text"]), case["trim"])
        yield from _diff("split", js_split_ws(case["text"]), case["split"])

    _check("whitespace", check)


@pytest.mark.usefixtures("fixture_tz")
def test_dates() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        got = parse_date(case["text"])
        yield from _diff(f"Date.parse({case['text']!r})", got, case["ms"])
        if got is not None and case["iso"] is not None:
            yield from _diff("toISOString", iso_from_ms(got), case["iso"])

    _check("dates", check)


def test_iso() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        yield from _diff(f"iso({case['ms']})", iso_from_ms(int(case["ms"])), case["iso"])
        yield from _diff(f"parse({case['iso']})", parse_date(case["iso"]), case["parsed"])

    _check("iso", check)


def test_keys() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        kind = case["id"].split("/")[0]
        if kind == "uid":
            uid = record_uid(case["source"], case["record_id"])
            yield from _diff("uid", uid, case["uid"])
            for n, want in case["points"]:
                yield from _diff(f"point {n}", point_id(uid, n), want)
        elif kind == "normalised":
            # Lone surrogates anywhere in a record become U+FFFD before its keys are taken.
            content = _decode(case["content"])
            item = normalise_item(content, "unused", 1)
            assert isinstance(item, MemoryRecord), item
            yield from _diff("json", js_stringify(item.to_json()), case["json"])
            yield from _diff("fingerprint", fingerprint(item), case["fingerprint"])
            yield from _diff("uid", record_uid(item.source, item.id), case["uid"])
        elif kind == "fingerprint":
            content = _decode(case["content"])
            yield from _diff("json", js_stringify(content), case["json"])
            yield from _diff("fingerprint_of", fingerprint_of(content), case["fingerprint"])
            yield from _diff("uid", record_uid(content["source"], content["id"]), case["uid"])
            record = MemoryRecord(
                id=content["id"],
                text=content["text"],
                kind=content["kind"],
                author=content["author"],
                title=content["title"],
                at=At.of(content["at"]) if content["at"] is not None else None,
                source=content["source"],
                thread=content["thread"],
                meta=content["meta"],
            )
            yield from _diff("fingerprint(record)", fingerprint(record), case["fingerprint"])
        else:
            yield from _diff("utf8", js_utf8(case["text"]).hex(), case["utf8_hex"])
            yield from _diff("sha256", sha256_hex(case["text"]), case["sha256"])

    _check("keys", check)


def test_enough_cases() -> None:
    total = sum(_load(p.stem)["count"] for p in FIXTURES.glob("*.json"))
    assert total >= 500
    assert len(_load("dates")["cases"]) >= 60


@pytest.mark.usefixtures("fixture_tz")
def test_dates_fuzz() -> None:
    _check(
        "dates_fuzz", lambda case: _diff(repr(case["text"]), parse_date(case["text"]), case["ms"])
    )


def test_words_fuzz() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        yield from _diff("words", words(case["text"]), case["words"])
        want = {term: float(n) for term, n in case["vector"]}
        yield from _diff("vector", keyword_vector(case["text"]), want)

    _check("words_fuzz", check)


def test_utf16_fuzz() -> None:
    def check(case: dict[str, Any]) -> Iterator[str]:
        s = case["text"]
        yield from _diff("length", utf16_len(s), case["length"])
        yield from _diff("fnv1a32", fnv1a32(s), case["fnv1a32"])
        yield from _diff("utf8", js_utf8(s).hex(), case["utf8_hex"])
        for n, want in case["cuts"]:
            yield from _diff(f"cut {n}", utf16_cut(s, n), want)
        for start, end, want in case["slices"]:
            yield from _diff(f"slice {start},{end}", utf16_slice(s, start, end), want)

    _check("utf16_fuzz", check)


def test_json_fuzz() -> None:
    _check(
        "json_fuzz", lambda case: _diff("json", js_stringify(_decode(case["value"])), case["json"])
    )


@pytest.mark.usefixtures("fixture_tz")
def test_dates_forms() -> None:
    _check(
        "dates_forms", lambda case: _diff(repr(case["text"]), parse_date(case["text"]), case["ms"])
    )


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_fixtures_are_current() -> None:
    """The committed fixtures are what Node computes now (the check .ci/run also runs)."""
    tz = _load("dates")["tz"]
    result = subprocess.run(
        ["node", str(FIXTURES.parent / "generate.mjs"), "--check"],
        env={**os.environ, "TZ": tz},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr + result.stdout


def _signature(ch: str) -> str:
    """Segment the probes of generate.mjs's wordClassCases the way it writes their signature."""
    probes = [
        ch,
        "a" + ch + "a",
        "1" + ch + "1",
        ch + ch,
        "\u30a2" + ch + "\u30a2",
        "\u0e01" + ch + "\u0e01",
    ]
    text = icu.UnicodeString("\n".join(probes))
    breaker = _breaker()
    breaker.setText(text)
    out = []
    start = breaker.first()
    for end in breaker:
        if end - start == 1 and text[start] == "\n":
            out.append("/")
        else:
            out.append(("+" if breaker.getRuleStatus() in _WORD_LIKE else "-") + str(end - start))
        start = end
    return "".join(out)


@pytest.mark.slow
def test_word_classes() -> None:
    skipped = 0

    def check(case: dict[str, Any]) -> Iterator[str]:
        nonlocal skipped
        for cp in range(case["first"], case["last"] + 1):
            if not icu.Char.isdefined(cp):
                skipped += 1
                continue
            got = _signature(chr(cp))
            if got != case["signature"]:
                yield f"U+{cp:04X}: got {got}, want {case['signature']}"

    _check("word_classes", check)
    assert skipped == UNDEFINED_IN_ICU.get(icu.ICU_VERSION), (
        f"{skipped} code points are undefined in ICU {icu.ICU_VERSION}: record the count in "
        "UNDEFINED_IN_ICU and conformance/README.md (Known differences) after reviewing them"
    )


@pytest.mark.usefixtures("fixture_tz")
def test_local_time() -> None:
    _check("local_time", lambda case: _diff("utc", utc_from_local_ms(case["wall_ms"]), case["ms"]))
