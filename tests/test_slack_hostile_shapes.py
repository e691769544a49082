"""Slack exports of hostile shapes, built small: a thread of thousands of replies, edits,
names and text holding terminal escapes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers import collect, errors, records, slack_export, slack_message

from memtrails import Memory
from memtrails.importers.slack import from_slack_export
from memtrails.testing import HashingEmbedder

PARENT = "1704067200.000100"
USERS = [
    {"id": "U1", "name": "ann", "real_name": "Ann \x1b]0;owned\x07Archer"},
    {"id": "U2", "name": "bob", "real_name": "Bob Baker"},
    {"id": "U3", "name": "flood", "real_name": "Flood " * 400_000},
]


async def test_a_huge_thread_with_edits_and_escapes(tmp_path: Path) -> None:
    replies = [
        slack_message(
            f"{1704067201 + n}.000100",
            f"reply {n} \x1b[31mred\x1b[0m\x07",
            user="U2",
            thread_ts=PARENT,
            parent_user_id="U1",
        )
        for n in range(3000)
    ]
    edited = slack_message("1704070300.000200", "first words", edited={"ts": "1704070400.0"})
    change = {
        "type": "message",
        "subtype": "message_changed",
        "ts": "1704070500.000000",
        "message": {**edited, "text": "last words"},
    }
    root = slack_export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                slack_message(PARENT, "parent", reply_count=3000, thread_ts=PARENT),
                *replies,
                edited,
                change,
                slack_message("1704070600.000300", "from a crafted name", user="U3"),
            ]
        },
        USERS,
        channels=[{"id": "C1", "name": "general"}],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    recs = {r.id: r for r in records(items)}
    thread = [r for r in recs.values() if r.thread == f"general/{PARENT}"]
    assert len(thread) == 3001 and len(recs) == 3003
    assert recs["general/1704067205.000100"].text == "reply 4 red"
    assert recs[f"general/{PARENT}"].author == "Ann Archer"
    assert recs["general/1704070300.000200"].text == "last words"
    # A name of megabytes got the whole record refused (Limits.max_field_bytes): cut.
    flood = recs["general/1704070600.000300"].author
    assert flood is not None and len(flood) == 1000 and flood.startswith("Flood Flood ")


async def test_channel_folders_whose_names_are_not_utf8_stay_apart(tmp_path: Path) -> None:
    """Two folders whose names differ only in bytes that are not UTF-8 (a zip unpacked on
    a Latin-1 system) read as the same U+FFFD: each keeps its bytes in its ids, and neither
    message takes the other's place."""
    root = slack_export(tmp_path / "export", {}, USERS, channels=[{"id": "C1", "name": "general"}])
    for byte, text in ((b"\xff", "from the first"), (b"\xfe", "from the second")):
        folder = os.path.join(bytes(root), b"gen" + byte)
        os.mkdir(folder)
        with open(os.path.join(folder, b"2024-01-01.json"), "w", encoding="utf-8") as f:
            json.dump([slack_message(PARENT, text)], f)
    items = await collect(from_slack_export(root))
    recs = records(items)
    assert errors(items) == []
    assert sorted(r.text for r in recs) == ["from the first", "from the second"]
    assert sorted(r.id for r in recs) == [
        f"gen\ufffd//67656efe/{PARENT}",
        f"gen\ufffd//67656eff/{PARENT}",
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await memory.ingest(from_slack_export(root))
        assert (report.added, len(report.errors)) == (2, 0), report
