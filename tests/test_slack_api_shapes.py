"""Slack exports a script of one's own wrote from the Web API: each file the response it
got, saved whole (``{"ok": true, "channels": [...]}``, ``{"ok": true, "messages": [...],
"has_more": false}``), read as the arrays they hold, large day files a message at a time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import collect, errors, records, slack_message, write_json

from memtrails.importers.slack import _stream, from_slack_export, message_count


@pytest.mark.parametrize("streamed", [False, True])
async def test_files_saved_as_api_responses_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:  # every file read a piece at a time
        monkeypatch.setattr(_stream, "STREAM_BYTES", 64)
    root = tmp_path / "export"
    users = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]
    write_json(root / "users.json", {"ok": True, "members": users, "cache_ts": 1})
    channels = [{"id": "C0DESIGNXX", "name": "design", "topic": {"value": "[x]"}}]
    write_json(root / "channels.json", {"ok": True, "channels": channels})
    day = {
        "ok": True,
        "latest": "1704100000.000200",
        "messages": [
            slack_message("1704100000.000100", "one"),
            slack_message("1704100000.000200", "two"),
        ],
        "has_more": False,
        "response_metadata": {"next_cursor": ""},
    }
    write_json(root / "C0DESIGNXX/2024-01-01.json", day)
    # An object holding no array of messages is still no day file.
    write_json(root / "C0DESIGNXX/2024-01-02.json", {"ok": False, "error": "ratelimited"})
    items = await collect(from_slack_export(root))
    assert [(r.text, r.title, r.author) for r in records(items)] == [
        ("one", "#design", "Ann Archer"),
        ("two", "#design", "Ann Archer"),
    ]
    assert [(e.where, e.reason) for e in errors(items)] == [
        ("C0DESIGNXX/2024-01-02.json", "day file is not a JSON array")
    ]
    assert message_count(root) == (3, 0)


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_a_wrapped_array_read_in_pieces_is_what_json_loads_reads(size: int) -> None:
    doc = json.dumps(
        {
            "ok": True,
            "latest": -1.5e3,
            "nested": {"messages": "not this one", "list": [1, [2, {"a": "}"}]]},
            "messages": [{"ts": "1.0", "text": 'a "quoted" }] word'}, [], 3],
            "channels": ["a later array: not read"],
            "has_more": False,
        }
    ).encode()
    pieces = iter([doc[i : i + size] for i in range(0, len(doc), size)])
    assert list(_stream.json_array(pieces)) == _stream.unwrapped(json.loads(doc))
    # Cut short: an error, as json.loads says of it.
    with pytest.raises(json.JSONDecodeError):
        list(_stream.json_array(iter([doc[:-3]])))
    with pytest.raises(_stream.NotAnArray):
        list(_stream.json_array(iter([b'{"ok": false, "error": "not_authed"}'])))
