"""A DM titled by who wrote in it (no dms.json: its folder named by its id) names those whose
messages are in the memory: not someone whose only message was deleted, nor one whose only
message says nothing (its file removed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import collect, records, slack_export, slack_message, slack_titles

from memtrails.importers.slack import _stream, from_slack_export, message_count
from memtrails.records import SourceState

USERS = [
    {"id": "U1", "name": "ann", "real_name": "Ann Archer"},
    {"id": "U2", "name": "bob", "real_name": "Bob Baker"},
    {"id": "U3", "name": "cy", "real_name": "Cy Cole"},
    {"id": "U4", "name": "di", "real_name": "Di Dunn"},
]
DM = "D0123ABCDE"


def deleted(at: str, ts: str) -> dict[str, Any]:
    return {
        "type": "message",
        "subtype": "message_deleted",
        "hidden": True,
        "ts": at,
        "deleted_ts": ts,
    }


def tombstone(ts: str) -> dict[str, Any]:
    return {
        "type": "message",
        "subtype": "tombstone",
        "user": "USLACKBOT",
        "text": "This message was deleted.",
        "ts": ts,
        "thread_ts": ts,
        "hidden": True,
    }


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_writer_whose_only_message_was_deleted_is_not_in_the_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:
        monkeypatch.setattr(_stream, "STREAM_BYTES", 64)
    root = slack_export(
        tmp_path / "export",
        {
            f"{DM}/2024-01-01": [
                slack_message("1.000100", "hello"),
                slack_message("2.000100", "wrong conversation, sorry", "U2"),
                slack_message("3.000100", "a thread to vanish", "U4", reply_count=1),
                # Cy's only message: its file was removed, its reactions are left.
                slack_message("4.000100", "", "U3", reactions=[{"name": "eyes", "count": 1}]),
            ],
            f"{DM}/2024-01-02": [
                deleted("86401.000100", "2.000100"),  # a day later
                tombstone("3.000100"),
                slack_message("86402.000100", "bye"),
            ],
        },
        USERS,
    )
    items = await collect(from_slack_export(root))
    assert slack_titles(items) == {DM: {"DM: Ann Archer"}}
    assert [r.text for r in records(items)] == ["hello", "bye"]
    assert message_count(root) == (2, 0)


async def test_a_deletion_of_a_skipped_days_message_retitles_every_record(
    tmp_path: Path,
) -> None:
    root = slack_export(
        tmp_path / "export",
        {
            f"{DM}/2024-01-01": [
                slack_message("1.000100", "hello"),
                slack_message("2.000100", "wrong conversation, sorry", "U2"),
            ],
            f"{DM}/2024-01-02": [slack_message("86401.000100", "still here")],
        },
        USERS,
    )
    first = await collect(from_slack_export(root))
    assert slack_titles(first) == {DM: {"DM: Ann Archer, Bob Baker"}}
    state = [i for i in first if isinstance(i, SourceState)][-1].state
    slack_export(
        root,
        {f"{DM}/2024-01-03": [deleted("172801.000100", "2.000100")]},
        USERS,
    )
    again = await collect(from_slack_export(root, state=state))
    # Read whole: every record of the DM carries the new title, none keeps the old one.
    assert slack_titles(again) == {DM: {"DM: Ann Archer"}}
    assert sorted(r.text for r in records(again)) == ["hello", "still here"]
    assert message_count(root, state) == (2, 0)
    states = [i for i in again if isinstance(i, SourceState)]
    assert [id for s in states for id in s.deleted] == [f"{DM}/2.000100"]
    final = states[-1]
    # A run after that one resumes: the deletion is of a message of the days it reads.
    later = await collect(from_slack_export(root, state=final.state))
    assert [i.mode for i in later if isinstance(i, SourceState)][-1] == "incremental"
    assert records(later) == []
