"""JSON Lines: defaults, field mapping, and every kind of broken line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtrails._exceptions import SourceError
from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, RecordError, SourceState


async def _read(path: Path, **kw: object) -> list[MemoryRecord | RecordError]:
    return [i async for i in from_jsonl(path, **kw) if not isinstance(i, SourceState)]  # type: ignore[arg-type]


async def _states(path: Path, **kw: object) -> list[SourceState]:
    return [i async for i in from_jsonl(path, **kw) if isinstance(i, SourceState)]  # type: ignore[arg-type]


async def test_gsm8k_defaults(corpora: Path) -> None:
    path = corpora / "jsonl" / "gsm8k-test.jsonl"
    items = await _read(path)
    assert len(items) == 1319
    assert all(isinstance(i, MemoryRecord) for i in items)
    first = items[0]
    assert isinstance(first, MemoryRecord)
    # No id field: file name and line number. No text field: "key: value" lines.
    assert first.id == "gsm8k-test.jsonl:1"
    assert first.text.startswith("question: Janet\u2019s ducks lay 16 eggs per day.")
    assert "\nanswer: Janet sells 16 - 3 - 4" in first.text
    assert first.source == str(path.resolve())
    assert len({i.id for i in items if isinstance(i, MemoryRecord)}) == 1319


async def test_mt_bench_maps_fields(corpora: Path) -> None:
    path = corpora / "jsonl" / "fastchat-mt_bench-question.jsonl"
    raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    items = await _read(path, fields={"id": "question_id", "title": "category"})
    assert len(items) == len(raw) == 80
    first = items[0]
    assert isinstance(first, MemoryRecord)
    assert first.id == str(raw[0]["question_id"])
    assert first.title == raw[0]["category"]
    # No text field: `turns` is a list of strings, so each turn is a line of the text.
    assert first.text.startswith("turns: " + raw[0]["turns"][0] + "\n" + raw[0]["turns"][1])
    assert "turns" not in first.meta
    with_reference = next(
        i
        for i, r in zip(items, raw, strict=True)
        if "reference" in r and isinstance(i, MemoryRecord)
    )
    assert isinstance(with_reference, MemoryRecord)
    assert "\nreference: " in with_reference.text


async def test_chat_turn_fields_and_a_text_given_as_a_list(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    lines = [
        {"speaker": "Ana", "session_id": "s1", "text": ["Hi.", "I moved to Porto in May."]},
        {"role": "user", "conversation_id": "c9", "content": "where did Ana move?"},
        {"speaker": "Ana", "text": ["ok", 3]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first, second, third = await _read(path)
    assert isinstance(first, MemoryRecord) and isinstance(second, MemoryRecord)
    assert (first.author, first.thread, first.text) == (
        "Ana",
        "s1",
        "Hi.\n\nI moved to Porto in May.",
    )
    assert (second.author, second.thread) == ("user", "c9")
    assert (first.kind, second.kind) == ("chat", "chat")
    assert isinstance(third, RecordError) and "must be a string, got list" in third.reason


async def test_a_line_whose_author_is_a_speaker_is_a_chat_turn(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    lines = [
        {"sender": "Ana", "text": "on my way"},
        {"author": "Ana", "text": "Minutes of the March meeting"},
        {"user": "ann", "text": "a ticket"},
        {"from": "ann@example.org", "text": "a message"},
        {"speaker": "Ana", "kind": "quote", "text": "said on stage"},
        {"role": "", "text": "no one said it"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    kinds = [r.kind for r in await _read(path) if isinstance(r, MemoryRecord)]
    assert kinds == ["chat", "note", "note", "note", "quote", "note"]
    # The caller's kind stands for every line that names none.
    chosen = [r.kind for r in await _read(path, kind="note") if isinstance(r, MemoryRecord)]
    assert chosen == ["note", "note", "note", "note", "quote", "note"]


async def test_broken_lines_are_errors_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"  # BOM
        + b'{"id": "a", "text": "first"}\n'
        + b"\n"  # blank: skipped
        + b"   \n"
        + b"not json at all\n"
        + b'["an", "array"]\n'
        + b'{"id": "b", "text": 42}\n'
        + b'{"id": {"x": 1}, "text": "bad id"}\n'
        + b'{"id": "c", "message": "from message", "at": "2024-04-02T10:00:00Z", "user": "ann"}\n'
        + b'{"id": "d", "text": "bad date", "at": "not a date"}\n'
        + b'{"id": "e", "text": "cut off'  # truncated last line, no newline
    )
    items = await _read(path)
    errors = {i.where: i.reason for i in items if isinstance(i, RecordError)}
    records = {i.id: i for i in items if isinstance(i, MemoryRecord)}
    assert set(records) == {"a", "c"}
    assert records["c"].text == "from message"
    assert records["c"].author == "ann"
    assert records["c"].at is not None and records["c"].at.iso() == "2024-04-02T10:00:00.000Z"
    assert set(errors) == {"line 4", "line 5", "line 6", "line 7", "line 9", "line 10"}
    assert errors["line 4"].startswith("not JSON")
    assert "expected a JSON object, got list" in errors["line 5"]
    assert "'text'" in errors["line 6"] and "must be a string" in errors["line 6"]
    assert "mapped to id" in errors["line 7"]
    assert "not a date" in errors["line 9"]
    assert errors["line 10"] == "truncated last line (no newline at end of file)"
    assert all(
        isinstance(i, RecordError) and i.source == str(path.resolve())
        for i in items
        if isinstance(i, RecordError)
    )


async def test_last_line_without_newline_that_is_complete_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}')
    assert [i.id for i in await _read(path) if isinstance(i, MemoryRecord)] == ["1", "2"]


async def test_a_followed_file_waits_for_a_line_part_way_written(tmp_path: Path) -> None:
    """A watched file's last line, still being written, is read whole next time, never reported."""
    path = tmp_path / "x.jsonl"
    path.write_bytes(b'{"id": "a", "text": "one"}\n{"id": "b", "te')
    assert [i.id for i in await _read(path, following=True)] == ["a"]  # no error for b
    (state,) = await _states(path, following=True)
    assert state.state["lines"] == 1  # the position stays before the torn line
    with path.open("ab") as f:
        f.write(b'xt": "two"}\n{"id": "c", "text": "three"}')  # c is whole JSON: kept
    items = await _read(path, following=True, state=state.state)
    assert [(i.id, i.text) for i in items if isinstance(i, MemoryRecord)] == [
        ("b", "two"),
        ("c", "three"),
    ]
    assert not [i for i in items if isinstance(i, RecordError)]
    # Not followed (a file cut short): the same torn line is that record's error.
    path.write_bytes(b'{"id": "a", "text": "one"}\n{"id": "b", "te')
    (error,) = [i for i in await _read(path) if isinstance(i, RecordError)]
    assert error.where == "line 2" and error.reason.startswith("truncated last line")


async def test_explicit_mapping_to_a_missing_field_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text('{"key": "k1", "body": "b"}\n{"body": "no key"}\n')
    items = await _read(path, fields={"id": "key"})
    assert isinstance(items[0], MemoryRecord) and items[0].id == "k1"
    assert isinstance(items[1], RecordError) and "missing id field 'key'" in items[1].reason


async def test_missing_file_and_bad_mapping_raise(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="cannot open"):
        await _read(tmp_path / "nope.jsonl")
    with pytest.raises(ValueError, match="unknown record fields"):
        await _read(tmp_path / "nope.jsonl", fields={"body": "x"})


async def test_resumes_after_the_last_run_and_checkpoints_along_the_way(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(f'{{"text": "entry {i}"}}\n' for i in range(1, 26)))
    states = await _states(path, checkpoint_every=10)
    assert [s.state["lines"] for s in states] == [10, 20, 25]
    assert states[-1].complete and states[-1].mode == "full"
    last = states[-1].state

    # Appended lines: only they are read, numbered where the file left off.
    with path.open("a") as f:
        f.write('{"text": "entry 26"}\n{"text": "entry 27"}\n')
    items = [i async for i in from_jsonl(path, state=last)]
    records = [i for i in items if isinstance(i, MemoryRecord)]
    assert [r.id for r in records] == ["log.jsonl:26", "log.jsonl:27"]
    end = items[-1]
    assert isinstance(end, SourceState) and end.mode == "incremental" and not end.complete
    assert (end.skipped, end.state["records"]) == (25, 27)  # 25 vouched for, not read again

    # A checkpoint from the middle resumes at its line.
    middle = await _read(path, state=states[0].state)
    assert next(r.id for r in middle if isinstance(r, MemoryRecord)) == "log.jsonl:11"


async def test_falls_back_to_a_full_pass_when_the_read_part_changed(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"text": "one"}\n{"text": "two"}\n')
    (last,) = await _states(path)
    path.write_text('{"text": "ONE"}\n{"text": "two"}\n{"text": "three"}\n')
    items = [i async for i in from_jsonl(path, state=last.state)]
    assert len([i for i in items if isinstance(i, MemoryRecord)]) == 3
    end = items[-1]
    assert isinstance(end, SourceState)
    assert (end.mode, end.complete, end.why) == ("full", True, "the part read before has changed")
    path.write_text('{"text": "one"}\n')
    end = [i async for i in from_jsonl(path, state=end.state)][-1]
    assert (
        isinstance(end, SourceState)
        and end.why is not None
        and end.why.startswith("the file shrank")
    )


async def test_an_unfinished_last_line_is_read_again_once_it_is_complete(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"id": "a", "text": "one"}\n{"id": "b", "text": "tw')
    items = [i async for i in from_jsonl(path)]
    assert isinstance(items[1], RecordError) and items[1].where == "line 2"
    state = items[-1]
    assert isinstance(state, SourceState) and state.state["lines"] == 1
    with path.open("a") as f:
        f.write('o"}\n')
    again = await _read(path, state=state.state)
    assert [(r.id, r.text) for r in again if isinstance(r, MemoryRecord)] == [("b", "two")]


async def test_dates_as_chat_exports_write_them_are_read(tmp_path: Path) -> None:
    # A session's date written out, a day with its ordinal, "at" between date and time.
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"id": "1", "text": "support group yesterday", "date": "1:56 pm on 8 May, 2023"}\n'
        '{"id": "2", "text": "ordinal", "timestamp": "May 8th, 2023 at 7 p.m."}\n'
        '{"id": "3", "text": "no year", "date": "on 3rd"}\n',
        encoding="utf-8",
    )
    items = await _read(path)
    records = {i.id: i for i in items if isinstance(i, MemoryRecord)}
    assert records["1"].at == At.of("8 May 2023 13:56")
    assert records["2"].at == At.of("8 May 2023 19:00")
    errors = [i.reason for i in items if isinstance(i, RecordError)]
    assert errors == ["field 'date': not a date: 'on 3rd'"]


async def test_numbers_name_threads_and_authors_and_sessions_name_threads(
    tmp_path: Path,
) -> None:
    path = tmp_path / "log.jsonl"
    lines = [
        {"speaker": 7, "session": 17, "text": "I moved to Porto in May."},
        {"user": "ana", "conversation": "c2", "text": "Porto it is."},
        {"session": {"device": "phone"}, "text": "settings, not a thread"},
        {"role": "user", "thread_id": True, "text": "a flag is not a thread"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first, second, third, fourth = await _read(path)
    assert isinstance(first, MemoryRecord) and isinstance(second, MemoryRecord)
    assert (first.author, first.thread, first.kind) == ("7", "17", "chat")
    assert (second.author, second.thread) == ("ana", "c2")
    assert isinstance(third, MemoryRecord)
    assert third.thread is None and third.meta == {"session": {"device": "phone"}}
    assert isinstance(fourth, RecordError) and "must be a string, got bool" in fourth.reason
