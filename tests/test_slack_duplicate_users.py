"""A user id that several entries name (twice in users.json, in users.json and
org_users.json, in a workspace's users.json too) is named by the entry that tells most
about who they are now: one not deleted, then one with a real name, then the newest
``updated``; of entries alike, the last read. An app integration_logs.json names more
than once (its entries newest first) by its newest entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import collect, records, slack_export, slack_message, write_json

from memtrails.importers.slack import from_slack_export

ANN = {"id": "U1", "name": "ann", "real_name": "Ann Archer", "deleted": False, "updated": 100}


async def author(root: Path) -> str | None:
    [record] = records(await collect(from_slack_export(root)))
    return record.author


def export(root: Path, users: list[Any], **names: Any) -> Path:
    day = [slack_message("1704103200.000100", "hello")]
    return slack_export(
        root,
        {"general/2024-01-01": day},
        users,
        channels=[{"id": "C1", "name": "general"}],
        **names,
    )


CASES = {
    # The account's stub left after it was deleted, and its live entry: in either order.
    "deleted-last": [ANN, {"id": "U1", "name": "ann", "deleted": True, "updated": 300}],
    "deleted-first": [{"id": "U1", "name": "ann-old", "deleted": True, "updated": 300}, ANN],
    # A handle alone against a real name.
    "handle-last": [ANN, {"id": "U1", "name": "ann.a"}],
    # The newest profile: after a rename.
    "newest-first": [{**ANN, "real_name": "Ann Archer-Smith", "updated": 200}, ANN],
    "newest-last": [
        {**ANN, "real_name": "Ann Old", "updated": 50},
        {**ANN, "real_name": "Ann Archer-Smith", "updated": 200},
    ],
}
EXPECTED = {
    "deleted-last": "Ann Archer",
    "deleted-first": "Ann Archer",
    "handle-last": "Ann Archer",
    "newest-first": "Ann Archer-Smith",
    "newest-last": "Ann Archer-Smith",
}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_twice_in_users_json(tmp_path: Path, case: str) -> None:
    assert await author(export(tmp_path, CASES[case])) == EXPECTED[case]


async def test_users_json_against_org_users_json(tmp_path: Path) -> None:
    root = export(tmp_path, [{**ANN, "real_name": "Ann Archer-Smith", "updated": 200}])
    write_json(root / "org_users.json", [ANN])  # an older copy of the profile
    assert await author(root) == "Ann Archer-Smith"
    write_json(root / "org_users.json", [{**ANN, "real_name": "Ann Smith", "updated": 300}])
    assert await author(root) == "Ann Smith"


async def test_alike_entries_keep_the_last_read(tmp_path: Path) -> None:
    users = [{"id": "U1", "name": "ann", "real_name": "Ann A"}, {"id": "U1", "real_name": "Ann B"}]
    assert await author(export(tmp_path, users)) == "Ann B"


async def test_a_group_dm_s_handles_follow_the_entry_kept(tmp_path: Path) -> None:
    users = [
        {"id": "U1", "name": "ann", "real_name": "Ann Archer", "updated": 200},
        {"id": "U1", "name": "ann", "real_name": "Ann Old", "updated": 100},
        {"id": "U2", "name": "bob", "real_name": "Bob Baker"},
    ]
    day = [slack_message("1704103200.000100", "hello")]
    root = slack_export(tmp_path, {"mpdm-ann--bob-1/2024-01-01": day}, users)
    [record] = records(await collect(from_slack_export(root)))
    assert record.title == "Group DM: Ann Archer, Bob Baker"


async def test_an_app_named_twice_in_integration_logs_by_its_newest_entry(tmp_path: Path) -> None:
    logs = [  # Slack writes them newest first
        {"date": "1700000200", "change_type": "updated", "app_type": "Deploys", "app_id": "A1"},
        {"date": "1700000100", "change_type": "added", "app_type": "Deploy Bot", "app_id": "A1"},
    ]
    day = [
        {
            "type": "message",
            "subtype": "bot_message",
            "bot_id": "B1",
            "app_id": "A1",
            "ts": "1704103200.000100",
            "text": "deployed",
        }
    ]
    root = slack_export(
        tmp_path,
        {"general/2024-01-01": day},
        [ANN],
        channels=[{"id": "C1", "name": "general"}],
        integration_logs=logs,
    )
    assert await author(root) == "Deploys"
    write_json(root / "integration_logs.json", logs[::-1])  # oldest first: the date decides
    assert await author(root) == "Deploys"
