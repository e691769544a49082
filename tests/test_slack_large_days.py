"""A large Slack day file is read a message at a time: its records are those a whole read
gives, its memory a small part of its size, and a broken one is still one named error."""

from __future__ import annotations

import json
import random
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import _stream, from_slack_export, message_count
from memtrails.importers.slack._export import Export
from memtrails.importers.slack._stream import NotAnArray, json_array
from memtrails.records import SourceState

USERS = [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}]


def big_day(n: int) -> list[dict[str, Any]]:
    """``n`` messages as a busy bot channel holds them: rich-text blocks on each."""
    return [
        {
            "type": "message",
            "user": "U1",
            "ts": f"{1700000000 + k}.000100",
            "text": f"deploy {k} finished on host-{k % 97} in {k % 60}s; é ✓ 日本",
            "client_msg_id": f"0000-{k:08d}",
            "blocks": [
                {
                    "type": "rich_text",
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "text", "text": f"deploy {k} finished"}],
                        }
                    ],
                }
            ],
        }
        for k in range(n)
    ]


def chunks(data: bytes, size: int) -> Iterator[bytes]:
    return (data[k : k + size] for k in range(0, len(data), size))


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64])
def test_a_json_array_read_in_pieces_is_what_json_loads_reads(size: int) -> None:
    documents = [
        '[{"a": 1}, {"b": [1, 2, {"c": "é ✓ 日本 \\u00e9 \\ud83d\\ude00"}]}]',
        ' \n [ 1 , 12345 , -1.5e10 , "x" , true , null , [] , {} ] \n ',
        "[]",
        "\ufeff[1]",  # a UTF-8 byte-order mark: json.loads reads bytes so
        '[{"text": "a\\"b\\\\"}, 99999999999999999999]',
    ]
    for document in documents:
        data = document.encode()
        assert list(json_array(chunks(data, size))) == json.loads(data)
    broken = [
        '[{"a": 1}, {"b": 2',
        '[{"a": 1}\n {"b": 2}]',
        "[1,]",
        "[1] x",
        '[{"a": 1},\n  {"text": "cut',
        "[1, 2\n, 3 4]",
        "[nul]",
    ]
    for document in broken:
        data = document.encode()
        with pytest.raises(json.JSONDecodeError) as whole:
            json.loads(data)
        with pytest.raises(json.JSONDecodeError) as pieces:
            list(json_array(chunks(data, size)))
        # Said as json.loads says it: the same words, line, column and character.
        assert str(pieces.value) == str(whole.value), document
    with pytest.raises(NotAnArray):
        list(json_array(chunks(b'{"a": 1}', size)))


@pytest.mark.slow
async def test_a_large_day_file_is_never_held_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1 MiB stands for the 16 MiB past which a day file is read in pieces: the same code,
    # at a size tracemalloc measures in seconds.
    monkeypatch.setattr(_stream, "STREAM_BYTES", 1 << 20)
    messages = big_day(40_000)
    write_json(tmp_path / "users.json", USERS)
    write_json(tmp_path / "general" / "2024-01-01.json", messages)
    write_json(tmp_path / "general" / "2024-01-02.json", messages[:3])
    size = (tmp_path / "general" / "2024-01-01.json").stat().st_size
    assert size > 12 << 20
    tracemalloc.start()
    try:
        seen = 0
        async for item in from_slack_export(tmp_path):
            seen += not isinstance(item, SourceState)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == len(messages) + 3
    # json.loads of the whole file held about seven times its size at once.
    assert peak < size // 2, (peak, size)


async def test_a_large_day_file_gives_what_a_whole_read_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = big_day(300)
    messages[5]["user"] = "U9"  # of another org: named by the profile a later message has
    messages[5]["text"] = "hi <@U9>"
    messages[200]["user"] = "U9"
    messages[200]["user_profile"] = {"real_name": "Grace Hopper"}
    messages[7] = {"type": "message", "subtype": "channel_join", "user": "U1", "ts": "7.0"}
    write_json(tmp_path / "users.json", USERS)
    write_json(tmp_path / "general" / "2024-01-01.json", messages)
    whole = await collect(from_slack_export(tmp_path))
    monkeypatch.setattr(_stream, "STREAM_BYTES", 1024)
    streamed = await collect(from_slack_export(tmp_path))
    assert [(r.id, r.text, r.author, r.meta) for r in records(streamed)] == [
        (r.id, r.text, r.author, r.meta) for r in records(whole)
    ]
    assert len(records(streamed)) == 299 and errors(streamed) == []
    by_id = {r.id: r for r in records(streamed)}
    assert by_id["general/1700000005.000100"].text == "hi @Grace Hopper"
    assert message_count(tmp_path) == (299, 0)


@pytest.mark.parametrize("zipped", [False, True])
async def test_a_truncated_large_day_file_is_one_named_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, zipped: bool
) -> None:
    monkeypatch.setattr(_stream, "STREAM_BYTES", 1024)
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    data = json.dumps(big_day(200), indent=1).encode()
    (root / "general").mkdir()
    (root / "general" / "2024-01-01.json").write_bytes(data[: len(data) * 2 // 3])
    write_json(root / "general" / "2024-01-02.json", big_day(2))
    write_json(root / "random" / "2024-01-01.json", big_day(200))
    path: Path = root
    if zipped:
        path = tmp_path / "export.zip"
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for f in sorted(root.rglob("*.json")):
                z.write(f, f.relative_to(root).as_posix())
    items = await collect(from_slack_export(path))
    (error,) = errors(items)
    assert error.where == "general/2024-01-01.json"
    with pytest.raises(json.JSONDecodeError) as whole:
        json.loads(data[: len(data) * 2 // 3])
    assert error.reason == f"day file is not valid JSON ({whole.value})"
    # None of its messages became records (as a small one's); the rest is read.
    assert len(records(items)) == 202
    final = items[-1]
    assert isinstance(final, SourceState) and not final.complete
    assert message_count(path)[0] == 203


async def test_a_large_day_file_changed_between_its_reads_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_stream, "STREAM_BYTES", 1024)
    write_json(tmp_path / "users.json", USERS)
    write_json(tmp_path / "general" / "2024-01-01.json", big_day(50))
    write_json(tmp_path / "general" / "2024-01-02.json", big_day(2))
    real = Export.chunks

    def cut_on_second_read(self: Export, member: Any, *, again: bool = False) -> Iterator[bytes]:
        # The large day file alone is read twice for its records (the small one is read
        # once, its bytes held from the look for edits and deletions).
        data = b"".join(real(self, member, again=again))
        cut = again and str(member).endswith("2024-01-01.json")
        yield data[: len(data) // 2] if cut else data

    monkeypatch.setattr(Export, "chunks", cut_on_second_read)
    items = await collect(from_slack_export(tmp_path))
    (error,) = errors(items)
    assert error.where == "general/2024-01-01.json"
    assert error.reason.startswith("day file is not valid JSON") and "(read again)" in error.reason
    assert 0 < len(records(items)) < 52
    final = items[-1]
    assert isinstance(final, SourceState) and not final.complete


def test_a_random_document_in_pieces_matches_json_loads() -> None:
    rng = random.Random(46)
    alphabet = '[]{}," :0123456789.eE+-truefalsnl\\u\n\t\xe9'
    for _ in range(3000):
        document = "[" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        data = document.encode()
        try:
            expected: Any = json.loads(data)
        except ValueError as exc:
            expected = exc
        try:
            got: Any = list(json_array(chunks(data, rng.randrange(1, 5))))
        except ValueError as exc:
            got = exc
        if isinstance(expected, ValueError):
            assert isinstance(got, ValueError) and str(got) == str(expected), document
        else:
            assert got == expected, document


async def test_a_large_users_json_is_read_in_pieces_to_the_same_names_and_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = [{"id": f"U{k}", "name": f"u{k}", "real_name": f"Person {k}"} for k in range(400)]
    write_json(tmp_path / "users.json", users)
    write_json(
        tmp_path / "general" / "2024-01-01.json",
        [{"type": "message", "user": "U399", "ts": "1.000100", "text": "hi <@U7>"}],
    )
    whole = await collect(from_slack_export(tmp_path))
    monkeypatch.setattr(_stream, "STREAM_BYTES", 1024)
    streamed = await collect(from_slack_export(tmp_path))
    assert errors(streamed) == []
    ((rec,),) = [records(streamed)]
    assert (rec.author, rec.text) == ("Person 399", "hi @Person 7")
    # The same digest: a state saved by either reading serves the other.
    assert isinstance(streamed[-1], SourceState) and isinstance(whole[-1], SourceState)
    assert streamed[-1].state["metadata"] == whole[-1].state["metadata"]
    assert streamed[-1].state["metadata"]["users.json"] is not None

    # Cut short: the users before the cut still name their messages.
    data = (tmp_path / "users.json").read_bytes()
    (tmp_path / "users.json").write_bytes(data[: data.index(b'"U390"')])
    items = await collect(from_slack_export(tmp_path))
    (error,) = errors(items)
    assert error.where == "users.json"
    assert (
        error.reason.startswith("is not valid JSON (")
        and "; the 390 before it read" in error.reason
    )
    ((rec,),) = [records(items)]
    assert (rec.author, rec.text) == ("U399", "hi @Person 7")
