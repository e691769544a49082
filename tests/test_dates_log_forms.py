"""Dates as logs write them: a date without a year (syslog's "May  3 10:00:00", "3 May",
"12/31") is no date, where ``Date.parse`` makes it a day of 2001; Python logging's
"2024-05-03 10:00:00,123" and a web server's access log "03/May/2024:10:00:00 +0200" are
read, with their time and zone, in a row as in a JSON Lines line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import in_tz

from memtrails import At, MemoryRecord, from_jsonl
from memtrails.dates import parse_date
from memtrails.records import RecordError


@pytest.mark.parametrize(
    "text", ["May  3 10:00:00", "May 3", "3 May", "10 May 10:00", "12/31", "May 1", "Jan 1"]
)
async def test_a_date_without_a_year_is_no_date_not_2001(tmp_path: Path, text: str) -> None:
    assert parse_date(text) is not None  # Date.parse: a day of 2001
    with pytest.raises(ValueError, match="not a date"):
        At.of(text)
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"id": "1", "text": "x", "timestamp": text}) + "\n")
    items = [item async for item in from_jsonl(path)]
    assert isinstance(items[0], RecordError) and "not a date" in items[0].reason


@pytest.mark.parametrize(
    "text", ["2001-05-03", "May 3, 2001", "3/15/01", "Thu, 03 May 2001 10:00:00 GMT", "2001/1/1"]
)
def test_a_date_of_2001_that_says_so_is_read(text: str) -> None:
    assert At.of(text).ms == parse_date(text)


@pytest.mark.parametrize("tz", ["UTC", "Europe/Berlin"])
async def test_python_logging_and_access_log_times(tmp_path: Path, tz: str) -> None:
    with in_tz(tz):
        cases = [
            ("2024-05-03 10:00:00,123", At.of("2024-05-03 10:00:00.123")),  # local, no zone
            ("2024-05-03 10:00:00,123 +0200", At.of("2024-05-03T08:00:00.123Z")),
            ("03/May/2024:10:00:00 +0200", At.of("2024-05-03T08:00:00Z")),
            ("03/May/2024:10:00:00 -0700", At.of("2024-05-03T17:00:00Z")),
        ]
        path = tmp_path / "log.jsonl"
        lines = [
            json.dumps({"id": str(n), "text": "x", "time": t}) for n, (t, _) in enumerate(cases)
        ]
        path.write_text("\n".join(lines) + "\n")
        records = [item async for item in from_jsonl(path) if isinstance(item, MemoryRecord)]
        for (text, want), record in zip(cases, records, strict=True):
            assert At.of(text) == want, text
            assert MemoryRecord(id="1", text="x", at=text).at == want, text
            assert record.at == want, text
