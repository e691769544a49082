"""A message an earlier run imported and Slack deleted since leaves the memory on the next
run that reads the deletion (a ``message_deleted`` event, a tombstone, an edit into one),
incremental or not, without ``--prune``."""

from __future__ import annotations

from pathlib import Path

from helpers import collect, records, slack_export, slack_message

from memtrails import Memory
from memtrails.importers.slack import from_slack_export
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]
CHANNELS = [{"id": "C1", "name": "general"}]
DAY = 86400


def first_days(root: Path) -> Path:
    return slack_export(
        root,
        {
            "general/2024-01-01": [
                slack_message("1.000100", "launch code 4711 by mistake"),
                slack_message("2.000100", "thread parent soon gone", reply_count=1),
                slack_message("2.000200", "a reply that stays", thread_ts="2.000100"),
            ],
            "general/2024-01-02": [
                slack_message(f"{DAY + 1}.000100", "an ordinary message"),
                slack_message(f"{DAY + 2}.000100", "edited into a tombstone later"),
            ],
        },
        USERS,
        channels=CHANNELS,
    )


def deletions(root: Path) -> None:
    """A third day: a deletion event, a tombstone for the thread's parent, an edit of another
    into a tombstone (each deletes a message the first two days held)."""
    ts = f"{DAY + 2}.000100"
    slack_export(
        root,
        {
            "general/2024-01-03": [
                {
                    "type": "message",
                    "subtype": "message_deleted",
                    "hidden": True,
                    "ts": f"{2 * DAY + 1}.000100",
                    "deleted_ts": "1.000100",
                },
                {
                    "type": "message",
                    "subtype": "tombstone",
                    "user": "USLACKBOT",
                    "text": "This message was deleted.",
                    "ts": "2.000100",
                    "thread_ts": "2.000100",
                    "hidden": True,
                },
                {
                    "type": "message",
                    "subtype": "message_changed",
                    "hidden": True,
                    "ts": f"{2 * DAY + 3}.000100",
                    "message": {
                        "type": "message",
                        "subtype": "tombstone",
                        "user": "USLACKBOT",
                        "text": "This message was deleted.",
                        "ts": ts,
                    },
                    "previous_message": slack_message(ts, "edited into a tombstone later"),
                },
                slack_message(f"{2 * DAY + 4}.000100", "a new message"),
            ]
        },
        USERS,
        channels=CHANNELS,
    )


GONE = {"general/1.000100", "general/2.000100", f"general/{DAY + 2}.000100"}


async def test_the_importer_names_the_messages_deleted(tmp_path: Path) -> None:
    root = first_days(tmp_path / "export")
    state = [i for i in await collect(from_slack_export(root)) if isinstance(i, SourceState)]
    deletions(root)
    again = await collect(from_slack_export(root, state=state[-1].state))
    states = [i for i in again if isinstance(i, SourceState)]
    assert states[-1].mode == "incremental"
    assert {id for s in states for id in s.deleted} == GONE
    assert not GONE & {r.id for r in records(again)}


async def test_a_later_incremental_run_removes_them_from_the_memory(tmp_path: Path) -> None:
    root = first_days(tmp_path / "export")
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        first = await memory.ingest(from_slack_export(root))
        assert first.added == 5
        deletions(root)
        report = await memory.ingest(from_slack_export(root))  # resumes: no --full, no prune
        assert [s.mode for s in report.sources] == ["incremental"]
        assert report.removed == 3
        assert report.added == 1
        for id in GONE:
            assert await memory.get(id) is None
        kept = await memory.get("general/2.000200")
        assert kept is not None and kept.text == "a reply that stays"
        hits = await memory.search("launch code 4711", k=10)
        assert hits and not GONE & {hit.id for hit in hits}
        assert all("4711" not in hit.snippet for hit in hits)
        # The next run reads the same events again: nothing more to forget, nothing added.
        again = await memory.ingest(from_slack_export(root))
        assert (again.removed, again.added) == (0, 0)


async def test_a_full_run_without_prune_removes_them_too(tmp_path: Path) -> None:
    root = first_days(tmp_path / "export")
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        deletions(root)
        report = await memory.ingest(from_slack_export(root), full=True)
        assert [s.mode for s in report.sources] == ["full"]
        assert report.removed == 3
        for id in GONE:
            assert await memory.get(id) is None
