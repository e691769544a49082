"""A time past what a memory folder stores is named in the user's words: field, value, range."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import collect, errors, records

from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.slack import from_slack_export
from memtrails.records import At

_RANGE = "is not a time memtrails can store (times run from about 271,800 BC to AD 275,760)"
_NUMBERS = (
    "a number is read as seconds since 1970, or as milliseconds from 1e11 up, microseconds "
    "from 1e14, nanoseconds from 1e17"
)


@pytest.mark.parametrize(
    ("written", "shown"),
    # (-1e17 is a nanosecond stamp of 1966 now: -1e22 ns is past the range)
    [("1e300", "1e+300"), ("-1e22", "-1e+22"), ("9" * 400, "1.000e+400")],
)
async def test_json_lines_names_the_field_and_the_value(
    tmp_path: Path, written: str, shown: str
) -> None:
    # Not "`ms` is outside the range of a JavaScript Date: 1000...(301 digits)".
    path = tmp_path / "notes.jsonl"
    path.write_text(
        '{"id": "a", "text": "kept"}\n'
        f'{{"id": "b", "text": "x", "date": {written}}}\n'
        '{"id": "c", "text": "kept too"}\n'
    )
    items = await collect(from_jsonl(path))
    assert [r.id for r in records(items)] == ["a", "c"]
    (error,) = errors(items)
    assert (error.where, error.reason) == ("line 2", f"field 'date': {shown} {_RANGE}; {_NUMBERS}")


def test_at_of_a_number_says_how_numbers_are_read() -> None:
    with pytest.raises(ValueError) as caught:
        At.of(1e22)  # nanoseconds: 1e16 ms, past the year 275,760
    assert str(caught.value) == f"1e+22 {_RANGE}; {_NUMBERS}"


@pytest.mark.parametrize(
    ("ts", "shown"),
    [
        (1e300, "1e+300"),
        ("1e300", "1e300"),
        ("-9e12", "-9e12"),
        # Once an importer bug (decimal.Overflow); a hundred million digits were never made.
        ("1e99999999", "1e99999999"),
        ("1e999999999", "1e999999999"),
    ],
)
async def test_slack_names_the_ts_and_its_value(tmp_path: Path, ts: object, shown: str) -> None:
    root = tmp_path / "export"
    (root / "general").mkdir(parents=True)
    (root / "users.json").write_text("[]")
    messages = [
        {"type": "message", "ts": ts, "text": "lost"},
        {"type": "message", "ts": "8640000000000.000000", "text": "the last second stored"},
    ]
    (root / "general" / "2024-01-01.json").write_text(json.dumps(messages))
    items = await collect(from_slack_export(root))
    assert [r.text for r in records(items)] == ["the last second stored"]
    (error,) = errors(items)
    assert error.where == "general/2024-01-01.json, message 1"
    assert error.reason == f"message `ts` {shown} {_RANGE}"
