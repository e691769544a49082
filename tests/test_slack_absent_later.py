"""A message an earlier run imported that a later export's day file no longer holds (deleted
in Slack before the export was made: no event, no tombstone left) leaves the memory on the
run that reads that day file whole, without ``--prune``; never one of a day the new export
does not hold (a partial export), nor of a day file that could not be read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import collect, slack_export, slack_message, write_json

from memtrails import Memory
from memtrails.importers.slack import from_slack_export
from memtrails.records import SourceState
from memtrails.testing import HashingEmbedder

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]
CHANNELS = [{"id": "C1", "name": "general"}]
DAY = 86400


def day(n: int, *texts: str) -> list[dict[str, Any]]:
    """Messages of day n (from 1), one a minute from 08:00 UTC."""
    base = 1704067200 + (n - 1) * DAY + 8 * 3600
    return [slack_message(f"{base + 60 * k}.000100", text) for k, text in enumerate(texts)]


def ts_of(n: int, k: int) -> str:
    return f"general/{1704067200 + (n - 1) * DAY + 8 * 3600 + 60 * k}.000100"


def export(root: Path, days: dict[int, list[dict[str, Any]]], users: Any = None) -> Path:
    for old in root.glob("general/*.json"):
        old.unlink()
    return slack_export(
        root,
        {f"general/2024-01-{n:02d}": messages for n, messages in days.items()},
        users or USERS,
        channels=CHANNELS,
    )


FIRST = {
    1: day(1, "monday standup notes", "the deploy is at noon"),
    2: day(2, "db password is hunter2 oops", "lunch at the usual place", "retro moved"),
    3: day(3, "release 1.4 is out", "please update the changelog"),
}


async def test_a_message_gone_from_an_earlier_day_file_is_forgotten(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        assert (await memory.ingest(from_slack_export(root))).added == 7
        # A new export: the second day's first message deleted in Slack, nothing says so.
        later = {**FIRST, 2: FIRST[2][1:]}
        export(root, later)
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 1 and report.added == 0
        assert await memory.get(ts_of(2, 0)) is None
        hits = await memory.search("db password hunter2", k=10)
        assert all("hunter2" not in hit.snippet for hit in hits)
        for n, k in [(1, 0), (1, 1), (2, 1), (2, 2), (3, 0), (3, 1)]:
            assert await memory.get(ts_of(n, k)) is not None
        again = await memory.ingest(from_slack_export(root))
        assert (again.removed, again.added) == (0, 0)


async def test_a_full_run_after_the_names_changed_forgets_it_too(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        users = [{**USERS[0], "real_name": "Ann Archer-Smith"}]  # users.json changed
        export(root, {**FIRST, 2: FIRST[2][:1] + FIRST[2][2:]}, users)
        report = await memory.ingest(from_slack_export(root))
        assert [s.mode for s in report.sources] == ["full"]
        assert report.removed == 1
        assert await memory.get(ts_of(2, 1)) is None


async def test_the_last_day_re_read_incrementally_forgets_it(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        # The last day grows, and loses its first message; a later day is added.
        grown = day(3, "release 1.4 is out", "please update the changelog", "done")
        write_json(root / "general" / "2024-01-03.json", grown[1:])
        write_json(root / "general" / "2024-01-04.json", day(4, "next sprint"))
        report = await memory.ingest(from_slack_export(root))
        assert [s.mode for s in report.sources] == ["incremental"]
        assert (report.removed, report.added) == (1, 2)
        assert await memory.get(ts_of(3, 0)) is None


async def test_days_the_new_export_does_not_hold_keep_their_records(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        export(root, {2: FIRST[2], 3: FIRST[3]})  # a partial export: from the second day on
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 0
        assert await memory.get(ts_of(1, 0)) is not None


async def test_a_day_file_that_cannot_be_read_forgets_nothing(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        export(root, FIRST)
        (root / "general" / "2024-01-02.json").write_text('[{"ts": "1", "text": ')
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 0 and report.errors
        for k in range(3):
            assert await memory.get(ts_of(2, k)) is not None


async def test_a_message_moved_to_another_day_file_is_kept(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        # Another zone's days: the second day's last message now in the third day's file.
        export(root, {**FIRST, 2: FIRST[2][:2], 3: FIRST[2][2:] + FIRST[3]})
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 0
        assert await memory.get(ts_of(2, 2)) is not None


async def test_on_the_export_s_edge_days_only_what_it_spans_is_forgotten(tmp_path: Path) -> None:
    """A date range may cut the export's first and last days: there, only a message between
    the first and last the day file still holds counts as deleted."""
    root = export(tmp_path / "export", FIRST)
    async with Memory.open(tmp_path / "memory", embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_slack_export(root))
        export(root, {**FIRST, 1: FIRST[1][1:], 3: FIRST[3][:1]})
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 0
        assert await memory.get(ts_of(1, 0)) is not None
        assert await memory.get(ts_of(3, 1)) is not None
        three = day(3, "release 1.4 is out", "please update the changelog", "done")
        export(root, {**FIRST, 3: [three[0], three[2]]})  # the middle one gone: within
        report = await memory.ingest(from_slack_export(root))
        assert report.removed == 1
        assert await memory.get(ts_of(3, 1)) is None


async def test_the_importer_names_them_in_its_position(tmp_path: Path) -> None:
    root = export(tmp_path / "export", FIRST)
    items = await collect(from_slack_export(root))
    state = [i for i in items if isinstance(i, SourceState)][-1]
    json.dumps(state.state)  # the position stays JSON
    export(root, {**FIRST, 2: FIRST[2][1:]})
    again = await collect(from_slack_export(root, state=state.state))
    gone = {id for s in again if isinstance(s, SourceState) for id in s.deleted}
    assert gone == {ts_of(2, 0)}
