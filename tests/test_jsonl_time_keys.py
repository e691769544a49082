"""A JSON Lines record's time under a key no list names but whose name says it is a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import jsonl_items

from memtrails import MemoryRecord
from memtrails.importers._jsonl_dates import record_time
from memtrails.records import At


@pytest.mark.parametrize(
    "key", ["date_time", "session_date", "eventTime", "posted_on", "messageDate", "start_time"]
)
async def test_a_time_under_a_key_named_like_one_is_the_records(tmp_path: Path, key: str) -> None:
    # A chat exported with its session's time under "date_time" (a long-conversation
    # benchmark's layout) had no time: its questions about "May 2023" found nothing by date.
    [record] = await jsonl_items(
        tmp_path / "chat.jsonl",
        [
            {
                "speaker": "Caroline",
                "text": "I went to a support group",
                key: "1:56 pm on 8 May, 2023",
            }
        ],
    )
    assert isinstance(record, MemoryRecord)
    assert record.at is not None and record.at.iso() == "2023-05-08T13:56:00.000Z"
    assert key not in record.meta


async def test_a_listed_key_comes_first_and_a_guess_that_is_no_date_is_no_error(
    tmp_path: Path,
) -> None:
    records = await jsonl_items(
        tmp_path / "rows.jsonl",
        [
            {
                "text": "a",
                "date_time": "2020-01-01T00:00:00Z",
                "created_at": "2023-05-08T10:00:00Z",
            },
            {"text": "b", "session_date": "the first session"},
            {"text": "c", "birth_date": "1990-04-01", "due_date": "2031-01-01"},
        ],
    )
    a, b, c = records
    assert isinstance(a, MemoryRecord) and a.at is not None
    assert a.at.iso() == "2023-05-08T10:00:00.000Z"
    assert isinstance(b, MemoryRecord) and b.at is None
    assert b.meta["session_date"] == "the first session"
    # A birthday or a deadline is not when the record was written.
    assert isinstance(c, MemoryRecord) and c.at is None


@pytest.mark.parametrize(
    ("row", "key"),
    [
        ({"end_time": "2024-05-03T11:00:00Z", "start_time": "2024-05-03T10:00:00Z"}, "start_time"),
        ({"finishedAt": "2024-05-03T11:00:00Z", "beganAt": "2024-05-03T10:00:00Z"}, "beganAt"),
        ({"closed_on": "2024-05-03T11:00:00Z", "opened_on": "2024-05-03T10:00:00Z"}, "opened_on"),
        (
            {"deleted_at": "2024-05-03T11:00:00Z", "event_time": "2024-05-03T10:00:00Z"},
            "event_time",
        ),
        ({"end_date": "2024-05-03T10:00:00Z", "title": "call"}, "end_date"),  # the only one
    ],
)
def test_a_record_s_time_is_when_it_began_not_when_it_ended(row: dict[str, Any], key: str) -> None:
    # The first key named like a time was taken: a call exported end first was dated by its end.
    assert record_time(row, None) == ((key,), At.of("2024-05-03T10:00:00Z"))
