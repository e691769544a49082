"""Hostile JSON documents: each is read, or is one error naming the file and saying why, and
a bad item is an error of its own while the others are read."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails.importers._json_doc_text import document_text
from memtrails.importers.json_doc import from_json
from memtrails.limits import Limits


def _read(path: Path, data: bytes, limits: Limits | None = None) -> list[Any]:
    path.write_bytes(data)
    return asyncio.run(collect(from_json(path, limits=limits)))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ('{"messages": [{"text": "a"}, {"text": "b"},\n]}', "a comma before a closing bracket"),
        ('// exported\n{"messages": [{"text": "a"}]}', "a comment"),
        ('{"messages": [{"text": "a"} /* b */]}', "a comment"),
    ],
)
def test_json5_s_extras_are_one_error_saying_what_they_are(
    tmp_path: Path, written: str, said: str
) -> None:
    items = _read(tmp_path / "chat.json", written.encode())
    [error] = errors(items)
    assert not records(items)
    assert "chat.json is not JSON" in error.reason and said in error.reason


@pytest.mark.parametrize(
    "text",
    [
        "plain words",
        "an emoji 😀 and a flag 🇵🇹 in a text",
        "CJK 学习 with 𠀋 (past U+FFFF) and é",
        "\U0010ffff at the end",
    ],
)
def test_a_document_s_emoji_read_as_json_reads_them(text: str) -> None:
    # Emoji are written as escapes before parsing, so that one does not make the whole
    # document's text take 4 bytes a character: what is parsed must be the same.
    doc = {"messages": [{"text": text, text: [text]}]}
    data = json.dumps(doc, ensure_ascii=False).encode()
    assert json.loads(document_text(data)) == doc
    assert document_text(data).isascii() or "😀" not in document_text(data)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-be", "utf-32"])
def test_a_document_in_any_json_encoding_is_read(tmp_path: Path, encoding: str) -> None:
    doc = {"messages": [{"text": "Grüße 😀", "author": "Zoë"}, {"text": "b", "author": "c"}]}
    items = _read(tmp_path / "chat.json", json.dumps(doc, ensure_ascii=False).encode(encoding))
    assert [(r.author, r.text) for r in records(items)] == [("Zoë", "Grüße 😀"), ("c", "b")]


def test_bad_items_are_errors_naming_the_item_and_the_rest_is_read(tmp_path: Path) -> None:
    doc = '{"messages": [{"text": "a"}, 7, {"text": "b", "at": "no date"}, {"text": "c"}]}'
    items = _read(tmp_path / "chat.json", doc.encode())
    assert [r.text for r in records(items)] == ["a", "c"]
    assert [e.where for e in errors(items)] == ["messages[1]", "messages[2]"]


def test_a_compressed_document_over_the_limit_says_what_it_unpacks_to(tmp_path: Path) -> None:
    packed = gzip.compress(json.dumps({"messages": [{"text": "x" * 5000}] * 40}).encode())
    items = _read(tmp_path / "big.json.gz", packed, Limits(max_file_bytes=100_000))
    [error] = errors(items)
    assert "big.json.gz is gzip-compressed and unpacks to more than the 100,000 bytes" in (
        error.reason
    )


@pytest.mark.parametrize("scalar", [b"42", b'"words"', b"null", b"[]"])
def test_a_document_without_records_is_one_note(tmp_path: Path, scalar: bytes) -> None:
    items = _read(tmp_path / "value.json", scalar + b"\n")
    assert not errors(items)
    assert [r.text.strip() for r in records(items)] in ([scalar.decode()], [])


def test_a_document_nested_ten_thousand_deep_is_one_error_naming_it(tmp_path: Path) -> None:
    deep = b'{"messages": [{"text": "a"}], "x": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    [error] = errors(_read(tmp_path / "deep.json", deep))
    assert error.where == "deep.json" and "nests deeper" in error.reason


def test_records_under_a_mapped_text_key_are_found(tmp_path: Path) -> None:
    doc = {"export": {"rows": [{"msg": "first", "who": "ann"}, {"msg": "second", "who": "bo"}]}}
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    items = asyncio.run(collect(from_json(path, fields={"text": "msg", "author": "who"})))
    assert [(r.author, r.text) for r in records(items)] == [("ann", "first"), ("bo", "second")]
