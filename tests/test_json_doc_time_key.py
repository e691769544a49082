"""One guess of a record's time key, when none of the listed keys is there: a JSON Lines line
and an item of a JSON document are dated by the same key."""

from __future__ import annotations

from typing import Any

import pytest

from memtrails import MemoryRecord
from memtrails.importers._json_doc_find import find_arrays
from memtrails.importers._json_doc_items import items_of
from memtrails.importers._jsonl_dates import record_time
from memtrails.records import At

BEGAN = "2024-05-03T10:00:00.000Z"
LATER = "2024-05-03T11:00:00Z"


@pytest.mark.parametrize(
    ("row", "key"),
    [
        # Telegram writes a message's time as "date_unixtime" (seconds, as a string).
        ({"date_unixtime": "1714730400"}, "date_unixtime"),
        # Matrix's events: "origin_server_ts", milliseconds.
        ({"origin_server_ts": 1714730400000}, "origin_server_ts"),
        ({"sentTimeMs": 1714730400000}, "sentTimeMs"),
        # A start is a record's time, whichever key comes first.
        ({"start_time": "2024-05-03T10:00:00Z", "created_date": LATER}, "start_time"),
        ({"created_date": "2024-05-03T10:00:00Z", "start_time": LATER}, "created_date"),
        # An edit or an end comes after the record's own time.
        ({"edited_date": LATER, "sent_date": "2024-05-03T10:00:00Z"}, "sent_date"),
        ({"lastModifiedDateTime": LATER, "postedOn": "2024-05-03T10:00:00Z"}, "postedOn"),
        ({"end_time": LATER, "start_time": "2024-05-03T10:00:00Z"}, "start_time"),
    ],
)
def test_a_line_and_a_document_s_item_take_the_same_time_key(row: dict[str, Any], key: str) -> None:
    line = {"text": "the record", **row}
    keys, at = record_time(line, None)
    assert (keys, at) == ((key,), At.of(BEGAN))
    doc = {"messages": [line, {"text": "another"}]}
    first = next(iter(items_of(doc, find_arrays(doc, 64), "chat.json", "chat.json", {}, None)))
    assert isinstance(first, MemoryRecord)
    assert first.at == At.of(BEGAN)
    assert key not in first.meta and all(k in first.meta for k in row if k != key)


@pytest.mark.parametrize(
    ("other", "read"),
    [
        ("25/12/2023", "2023-08-05T00:00:00.000Z"),  # the document writes days first
        ("12/25/2023", "2023-05-08T00:00:00.000Z"),  # months first
        ("2023-12-25", None),  # says nothing: no date rather than a wrong one
    ],
)
def test_a_document_s_ambiguous_day_reads_as_its_other_days_write_theirs(
    other: str, read: str | None
) -> None:
    doc = {"messages": [{"text": "a", "date": other}, {"text": "b", "date": "05/08/2023"}]}
    got = list(items_of(doc, find_arrays(doc, 64), "chat.json", "chat.json", {}, None))
    assert isinstance(got[1], MemoryRecord)
    assert got[1].at == (At.of(read) if read else None)
