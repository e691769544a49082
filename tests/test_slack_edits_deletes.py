"""Edits and deletions in a Slack export's events: a deleted message is not in the memory, an
edited one is there once, as its last edit left it (the original's words gone)."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, slack_export

from memtrails import Memory
from memtrails.importers.slack import _export, _stream, from_slack_export, message_count
from memtrails.records import SourceState

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]
CHANNELS = [{"id": "C1", "name": "general"}]


def message(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


def changed(at: str, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """A ``message_changed`` event, as an export that keeps events holds it."""
    return {
        "type": "message",
        "subtype": "message_changed",
        "hidden": True,
        "ts": at,
        "message": {**new, "edited": {"user": new["user"], "ts": at}},
        "previous_message": old,
    }


def deleted(at: str, old: dict[str, Any], *, with_ts: bool = True) -> dict[str, Any]:
    """A ``message_deleted`` event: ``deleted_ts`` names the message (or only the
    ``previous_message`` it carries does)."""
    event = {"type": "message", "subtype": "message_deleted", "hidden": True, "ts": at}
    event.update({"deleted_ts": old["ts"]} if with_ts else {"previous_message": old})
    return event


def export(root: Path) -> Path:
    draft = message("1.000100", "first draft mentions the password hunter2")
    second = message("1.000100", "second draft without it")
    final = message("1.000100", "final words of the message")
    secret = message("2.000100", "please forget the launch code 4711")
    regret = message("3.000100", "a regrettable remark")
    parent = message("4.000100", "thread parent to vanish", thread_ts="4.000100", reply_count=1)
    tombstone = {
        **parent,
        "subtype": "tombstone",
        "user": "USLACKBOT",
        "text": "This message was deleted.",
        "hidden": True,
    }
    return slack_export(
        root,
        {
            "general/2024-01-01": [
                draft,
                changed("1.000200", second, draft),
                secret,
                deleted("2.000200", secret),
                parent,
                message("4.000200", "a reply that stays", thread_ts="4.000100"),
            ],
            "general/2024-01-02": [
                # Edited again, and deleted, a day later: the earlier day's records too.
                changed("86401.000100", final, second),
                deleted("86402.000100", regret, with_ts=False),
                changed("86403.000100", tombstone, parent),
                message("86404.000100", "an ordinary later message"),
            ],
            # The message deleted the day after is in neither day's file (listed last here).
            "general/2024-01-03": [regret],
        },
        USERS,
        channels=CHANNELS,
    )


@pytest.mark.parametrize("streamed", [False, True])
async def test_deleted_messages_are_not_imported_and_edits_keep_the_last_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:  # every day file read a piece at a time, as one over 16 MiB is
        monkeypatch.setattr(_stream, "STREAM_BYTES", 64)
        monkeypatch.setattr(_export, "_CHUNK", 7)  # a marker may be cut between pieces
    root = export(tmp_path / "export")
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    texts = {r.id: r.text for r in records(items)}
    assert texts == {
        "general/1.000100": "final words of the message",
        "general/4.000200": "a reply that stays",
        "general/86404.000100": "an ordinary later message",
    }
    everything = " ".join(texts.values())
    for gone in ("hunter2", "second draft", "4711", "regrettable", "to vanish"):
        assert gone not in everything
    [edited] = [r for r in records(items) if r.id == "general/1.000100"]
    assert edited.meta["edited"] == "86401.000100"
    # The count a progress bar shows is what the import yields.
    assert message_count(root) == (3, 0)


async def test_the_same_from_a_zip(tmp_path: Path) -> None:
    root = export(tmp_path / "export")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(root.rglob("*.json")):
            z.write(path, path.relative_to(root).as_posix())
    texts = sorted(r.text for r in records(await collect(from_slack_export(archive))))
    assert texts == sorted(
        ["final words of the message", "a reply that stays", "an ordinary later message"]
    )


async def test_an_edit_in_a_later_run_replaces_the_record(tmp_path: Path) -> None:
    root = slack_export(
        tmp_path / "export",
        {"general/2024-01-01": [message("1.000100", "original wording alpha")]},
        USERS,
        channels=CHANNELS,
    )
    first = await collect(from_slack_export(root))
    state = [i for i in first if isinstance(i, SourceState)][-1].state
    slack_export(
        root,
        {
            "general/2024-01-02": [
                changed(
                    "86401.000100",
                    message("1.000100", "new wording beta"),
                    message("1.000100", "original wording alpha"),
                )
            ]
        },
        USERS,
        channels=CHANNELS,
    )
    again = await collect(from_slack_export(root, state=state))
    assert [(r.id, r.text) for r in records(again)] == [("general/1.000100", "new wording beta")]


@pytest.mark.slow
async def test_the_memory_holds_the_edited_words_not_the_original(
    tmp_path: Path, embedder: Any
) -> None:
    root = export(tmp_path / "export")
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        report = await memory.ingest(from_slack_export(root))
        assert report.errors == []
        edited = await memory.get("general/1.000100")
        assert edited is not None and edited.text == "final words of the message"
        for gone in ("general/2.000100", "general/3.000100", "general/4.000100"):
            assert await memory.get(gone) is None
