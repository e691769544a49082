"""`memtrails add export.json`: a JSON document's arrays of records are read one record per
object, with their thread, time and a stable id; a document without records stays one note.

Every fixture here is invented, in the shapes exporters write (docs/sources.md).
"""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails import At, Limits, Memory, MemoryRecord, add_path
from memtrails.importers.json_doc import from_json
from memtrails.importers.plan import plan_inputs

DIALOGUES: list[dict[str, Any]] = [
    {
        "sample_id": "conv-7",
        "conversation": {
            "speaker_a": "Ilse",
            "speaker_b": "Ravi",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ilse", "dia_id": "D1:1", "text": "I started restoring an old canoe."},
                {
                    "speaker": "Ravi",
                    "dia_id": "D1:2",
                    "text": "Nice! Here is mine.",
                    "blip_caption": "a photo of a green kayak on a lake",
                },
            ],
            "session_2_date_time": "10:15 am on 3 June, 2023",
            "session_2": [
                {"speaker": "Ravi", "dia_id": "D2:1", "text": "Did the varnish dry?"},
                {"speaker": "Ilse", "dia_id": "D2:2", "text": "Yes, it floats again."},
                {"speaker": "Ravi", "dia_id": "D2:3", "text": "My sister adopted a beagle."},
            ],
        },
        "qa": [{"question": "What did Ilse restore?", "answer": "a canoe", "evidence": ["D1:1"]}],
    },
    {
        "sample_id": "conv-8",
        "conversation": {
            "speaker_a": "Noor",
            "speaker_b": "Ada",
            "session_1_date_time": "9:00 am on 1 July, 2023",
            "session_1": [
                {"speaker": "Noor", "dia_id": "D1:1", "text": "I learned to bake bread."}
            ],
        },
    },
]


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _read(path: Path, **kwargs: Any) -> list[Any]:
    return asyncio.run(collect(from_json(path, **kwargs)))  # type: ignore[arg-type]


def test_a_long_conversation_dataset_is_one_chat_record_per_turn(tmp_path: Path) -> None:
    got = records(_read(_write(tmp_path / "dialogues.json", DIALOGUES)))
    assert [(r.thread, r.author, r.text.split("\n")[0]) for r in got] == [
        ("conv-7/session_1", "Ilse", "I started restoring an old canoe."),
        ("conv-7/session_1", "Ravi", "Nice! Here is mine."),
        ("conv-7/session_2", "Ravi", "Did the varnish dry?"),
        ("conv-7/session_2", "Ilse", "Yes, it floats again."),
        ("conv-7/session_2", "Ravi", "My sister adopted a beagle."),
        ("conv-8/session_1", "Noor", "I learned to bake bread."),
    ]
    assert {r.kind for r in got} == {"chat"}
    assert got[1].text.endswith("a photo of a green kayak on a lake")  # the picture, in words
    # Each session's turns take its date; the per-sample "D1:1" is unique under its thread.
    assert got[0].at == At.of("2023-05-08T13:56:00") and got[2].at == At.of("2023-06-03T10:15:00")
    assert len({r.id for r in got}) == 6 and got[5].id == "conv-8/session_1/D1:1"
    assert not any("canoe" in r.text and r.author is None for r in got)  # the qa is no record


def test_a_top_level_array_is_one_record_per_object(tmp_path: Path) -> None:
    issues = [
        {"number": 12, "title": "Crash on empty input", "body": "It dies when the file is empty."},
        {"number": 13, "title": "Dark mode", "body": "Please add a dark theme."},
    ]
    got = records(_read(_write(tmp_path / "issues.json", issues)))
    assert [(r.title, r.text, r.thread) for r in got] == [
        ("Crash on empty input", "It dies when the file is empty.", None),
        ("Dark mode", "Please add a dark theme.", None),
    ]
    assert [r.id for r in got] == ["issues.json:[0]", "issues.json:[1]"]
    assert got[0].meta["number"] == 12


def test_a_top_level_array_without_text_reads_as_json_lines_would(tmp_path: Path) -> None:
    rows = [
        {"_id": "a1", "name": "Ada", "city": "Lisbon"},
        {"_id": "a2", "name": "Bo", "city": "Oslo"},
    ]
    got = records(_read(_write(tmp_path / "people.json", rows)))
    assert [(r.id, r.text) for r in got] == [
        ("a1", "name: Ada\ncity: Lisbon"),
        ("a2", "name: Bo\ncity: Oslo"),
    ]


def test_a_re_import_of_the_unchanged_file_adds_nothing_and_an_edit_updates_one(
    tmp_path: Path, embedder: Any
) -> None:
    path = _write(tmp_path / "dialogues.json", DIALOGUES)

    async def add() -> tuple[int, int, int]:
        async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
            report = await add_path(memory, path)
        return report.added, report.updated, report.unchanged

    assert asyncio.run(add()) == (6, 0, 0)
    assert asyncio.run(add()) == (0, 0, 6)
    edited = json.loads(json.dumps(DIALOGUES))
    edited[0]["conversation"]["session_2"][1]["text"] = "Yes, and it floats again."
    _write(path, edited)
    assert asyncio.run(add()) == (0, 1, 5)


@pytest.fixture(scope="module")
def dialogue_memory(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    """One memory of the dialogues, imported as `memtrails add` imports them."""
    folder = tmp_path_factory.mktemp("json-doc")
    path = _write(folder / "dialogues.json", DIALOGUES)

    async def add() -> None:
        async with Memory.open(folder / "memory", embedder=embedder) as memory:
            await add_path(memory, path)

    asyncio.run(add())
    return folder / "memory"


def _search(home: Path, embedder: Any, query: str, **kwargs: Any) -> list[str]:
    async def search() -> list[str]:
        async with Memory.open(home, embedder=embedder) as memory:
            return [hit.id for hit in await memory.search(query, k=3, **kwargs)]

    return asyncio.run(search())


def test_a_question_finds_the_turn_of_a_conversation_by_meaning(
    dialogue_memory: Path, embedder: Any
) -> None:
    hits = _search(dialogue_memory, embedder, "Which old boat is being fixed up?")
    assert hits[0] == "conv-7/session_1/D1:1"  # "I started restoring an old canoe."


def test_a_date_scoped_search_finds_turns_by_their_session_date(
    dialogue_memory: Path, embedder: Any
) -> None:
    june = _search(dialogue_memory, embedder, "a new dog", since="2023-06-01", until="2023-06-30")
    assert june[0] == "conv-7/session_2/D2:3"  # "My sister adopted a beagle."
    assert all(hit.startswith("conv-7/session_2/") for hit in june)
    may = _search(dialogue_memory, embedder, "a new dog", until="2023-05-31")
    assert may and all(hit.startswith("conv-7/session_1/") for hit in may)


PACKAGE = {
    "name": "left-pad-ish",
    "version": "1.0.0",
    "scripts": {"test": "node test.js"},
    "contributors": [{"name": "Ada", "email": "ada@example.com"}],
}


def test_a_document_without_records_is_one_note_as_a_lone_text_file_is(tmp_path: Path) -> None:
    from memtrails.importers.files.lone import note_of

    path = _write(tmp_path / "package.json", PACKAGE)
    got = _read(path)
    assert records(got) == [note_of(path)]
    assert records(got)[0].text == path.read_text(encoding="utf-8")


def test_invalid_json_is_one_error_naming_the_file_and_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"text": "one"},\n  {"text": "two",}\n]\n', encoding="utf-8")
    got = _read(path)
    assert records(got) == []
    [error] = errors(got)
    assert error.where == "line 3 column 18" and "broken.json is not JSON" in error.reason


def test_a_document_over_the_limit_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    path = _write(tmp_path / "big.json", [{"text": f"turn {n}"} for n in range(200)])
    got = _read(path, limits=Limits(max_file_bytes=1000))
    assert records(got) == []
    [error] = errors(got)
    assert "big.json is" in error.reason and "over the 1,000" in error.reason
    assert "jq -c '.[]' big.json > big.json.jsonl" in error.reason


@pytest.mark.parametrize(
    ("name", "lines"),
    [
        ("rows.json", '{"id": "r1", "text": "alpha"}\n{"id": "r2", "text": "beta"}\n'),
        ("rows.json.gz", '{"id": "r1", "text": "alpha"}\n{"id": "r2", "text": "beta"}\n'),
        ("one.json.gz", '\ufeff\n{"id": "r1", "text": "alpha"}\n'),
    ],
)
def test_json_lines_under_a_json_name_are_still_read_as_json_lines(
    tmp_path: Path, name: str, lines: str
) -> None:
    path = tmp_path / name
    data = lines.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    want = [("r1", "alpha"), ("r2", "beta")][: lines.count("{")]
    assert [(r.id, r.text) for r in records(_read(path))] == want


def test_add_reads_a_json_file_as_a_document_and_a_folder_keeps_it_a_note(tmp_path: Path) -> None:
    doc = _write(tmp_path / "dialogues.json", DIALOGUES)
    folder = tmp_path / "project"
    folder.mkdir()
    _write(folder / "package.json", PACKAGE)
    _write(folder / "dialogues.json", DIALOGUES)
    planned = plan_inputs([str(doc), str(folder)])
    assert [[p.kind for p in parts] for parts in planned.parts] == [["json"], ["files"]]
    assert planned.parts[0][0].kind == "json"


@pytest.mark.parametrize("shape", ["one line", "pretty"])
def test_one_object_with_text_is_the_record_json_lines_made_of_it(
    tmp_path: Path, shape: str
) -> None:
    path = tmp_path / "note.json"
    obj = {"text": "remember the milk", "author": "me"}
    path.write_text(
        json.dumps(obj, indent=2 if shape == "pretty" else None) + "\n", encoding="utf-8"
    )
    [record] = records(_read(path))
    assert isinstance(record, MemoryRecord)
    assert (record.id, record.text, record.author) == ("note.json:1", "remember the milk", "me")


def test_a_top_level_array_keeps_its_records_and_their_replies(tmp_path: Path) -> None:
    issues = [
        {
            "number": 12,
            "title": "Crash on empty input",
            "body": "It dies on an empty file.",
            "author": {"login": "ada"},
            "createdAt": "2024-01-02T10:00:00Z",
            "comments": [
                {
                    "author": {"login": "bo"},
                    "body": "Same on 1.2",
                    "createdAt": "2024-01-03T08:00:00Z",
                }
            ],
        }
    ]
    got = records(_read(_write(tmp_path / "issues.json", issues)))
    assert [(r.id, r.author, r.thread, r.text) for r in got] == [
        ("issues.json:[0]", "ada", None, "It dies on an empty file."),
        ("issues.json:Crash on empty input[0]", "bo", "Crash on empty input", "Same on 1.2"),
    ]
    assert "comments" not in got[0].meta  # each reply is its own record
