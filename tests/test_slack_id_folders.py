"""Slack conversations in folders named by their id (older exports' G… group DMs and
private channels), and exports with no channels.json: titled by what can be known, never
by a raw id where a readable title exists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, slack_export, slack_titles, write_json

from memtrails import Memory
from memtrails.add import add_path, source_name
from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import SourceState

USERS = [
    {"id": "U1", "name": "ann", "real_name": "Ann Archer"},
    {"id": "U2", "name": "bob", "real_name": "Bob Baker"},
]
CLEO = {"real_name": "Cleo Connect", "name": "cleo"}  # another org's (Slack Connect)


def _msg(ts: str, text: str, user: str = "U1", **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": user, "ts": ts, "text": text, **extra}


def _export(root: Path, days: dict[str, list[dict[str, Any]]], **names: Any) -> Path:
    return slack_export(root, days, USERS, **names)


_titles = slack_titles


async def test_a_group_folder_no_name_file_lists_is_titled_by_who_wrote_in_it(
    tmp_path: Path,
) -> None:
    root = _export(
        tmp_path / "export",
        {
            # Only Ann wrote the first day: every record still has the whole title.
            "G0ABCDEFGH/2024-01-01": [_msg("1704100000.000100", "plans?")],
            "G0ABCDEFGH/2024-01-02": [
                _msg("1704200000.000100", "friday", user="U2"),
                _msg("1704200001.000100", "works", user="W9", user_profile=CLEO),
            ],
            # Listed in groups.json under its name: a private channel.
            "G0SECRETXX/2024-01-01": [_msg("1704100000.000200", "budget")],
            # Listed in mpims.json under its mpdm- name, with its members.
            "G0MPDMXXXX/2024-01-01": [_msg("1704100000.000300", "lunch?")],
            # Listed, but with no name at all: who wrote in it.
            "G0NONAMEXX/2024-01-01": [_msg("1704100000.000400", "hey", user="U2")],
            "general/2024-01-01": [_msg("1704100000.000500", "team")],
            # A tool that names every folder by its id: channels.json still names it.
            "C0DESIGNXX/2024-01-01": [_msg("1704100000.000600", "mockups")],
        },
        channels=[{"id": "C1", "name": "general"}, {"id": "C0DESIGNXX", "name": "design"}],
        groups=[{"id": "G0SECRETXX", "name": "secret-proj"}, {"id": "G0NONAMEXX"}],
        mpims=[{"id": "G0MPDMXXXX", "name": "mpdm-ann--bob-1", "members": ["U1", "U2"]}],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert _titles(items) == {
        "G0ABCDEFGH": {"Group: Ann Archer, Bob Baker, Cleo Connect"},
        "G0SECRETXX": {"#secret-proj"},
        "G0MPDMXXXX": {"Group DM: Ann Archer, Bob Baker"},
        "G0NONAMEXX": {"Group: Bob Baker"},
        "general": {"#general"},
        "C0DESIGNXX": {"#design"},
    }
    # The ids still go by the folder.
    assert {r.id for r in records(items) if r.meta["channel"] == "G0SECRETXX"} == {
        "G0SECRETXX/1704100000.000200"
    }


async def test_a_group_title_stays_true_of_the_days_a_re_run_skips(tmp_path: Path) -> None:
    root = _export(
        tmp_path / "export",
        {
            "G0ABCDEFGH/2024-01-01": [_msg("1704100000.000100", "one")],
            "G0ABCDEFGH/2024-01-02": [_msg("1704200000.000100", "two", user="U2")],
        },
    )
    first = await collect(from_slack_export(root))
    assert _titles(first) == {"G0ABCDEFGH": {"Group: Ann Archer, Bob Baker"}}
    state = [i for i in first if isinstance(i, SourceState)][-1].state
    again = await collect(from_slack_export(root, state=state))
    assert [(r.text, r.title) for r in records(again)] == [("two", "Group: Ann Archer, Bob Baker")]
    assert message_count(root, state) == (2, 1)
    # A position from before such folders were titled by who wrote in them (no "people"):
    # the folder is read whole, so no record keeps its old "#G0…" title.
    old = {**state, "channels": {k: dict(v) for k, v in state["channels"].items()}}
    for key in ("people", "title"):
        old["channels"]["G0ABCDEFGH"].pop(key)
    upgraded = await collect(from_slack_export(root, state=old))
    assert [r.text for r in records(upgraded)] == ["one", "two"]
    assert _titles(upgraded) == {"G0ABCDEFGH": {"Group: Ann Archer, Bob Baker"}}


async def test_an_export_without_channels_json_imports_its_channels_by_their_folders(
    tmp_path: Path,
) -> None:
    # Some tools export only the folders: a standard export's folder is the channel's name.
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [_msg("1704100000.000100", "hello all")],
            "dev-ops/2024-01-01": [_msg("1704100000.000200", "deploy", user="U2")],
            "G0ABCDEFGH/2024-01-01": [_msg("1704100000.000300", "psst")],
        },
    )
    assert not (root / "channels.json").exists()
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert _titles(items) == {
        "general": {"#general"},
        "dev-ops": {"#dev-ops"},
        "G0ABCDEFGH": {"Group: Ann Archer"},
    }
    assert sorted(r.id for r in records(items)) == [
        "G0ABCDEFGH/1704100000.000300",
        "dev-ops/1704100000.000200",
        "general/1704100000.000100",
    ]
    assert {r.author for r in records(items)} == {"Ann Archer", "Bob Baker"}


async def test_a_workspace_group_folder_is_titled_by_its_name_in_that_workspace(
    tmp_path: Path,
) -> None:
    ws = tmp_path / "export" / "teams" / "eng"
    root = _export(tmp_path / "export", {})
    write_json(ws / "users.json", USERS)
    write_json(ws / "groups.json", [{"id": "G0SECRETXX", "name": "secret-proj"}])
    write_json(ws / "G0SECRETXX" / "2024-01-01.json", [_msg("1704100000.000100", "x")])
    write_json(ws / "G0OTHERXXX" / "2024-01-01.json", [_msg("1704100000.000200", "y", "U2")])
    items = await collect(from_slack_export(root))
    assert _titles(items) == {
        "teams/eng/G0SECRETXX": {"#secret-proj (eng)"},
        "teams/eng/G0OTHERXXX": {"Group: Bob Baker (eng)"},
    }


@pytest.mark.slow
async def test_a_renamed_channel_s_old_records_go_with_prune(tmp_path: Path, embedder: Any) -> None:
    """What docs/sources.md tells a user to do after a rename: ids follow the folder, so
    the renamed channel imports anew and ``--prune`` forgets the old name's records."""
    days = {
        "general/2024-01-01": [_msg("1704100000.000100", "first words")],
        "general/2024-01-02": [_msg("1704200000.000100", "second words")],
    }
    root = _export(tmp_path / "export", days, channels=[{"id": "C1", "name": "general"}])
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        await add_path(memory, root)
        source = source_name(root)
        (root / "general").rename(root / "lobby")
        write_json(root / "channels.json", [{"id": "C1", "name": "lobby"}])
        renamed = await add_path(memory, root)
        assert renamed.added == 2
        assert (await memory.status()).sources == {source: 4}
        pruned = await add_path(memory, root, prune=True)
        assert (pruned.removed, pruned.added) == (2, 0)
        assert (await memory.status()).sources == {source: 2}
        assert await memory.get("general/1704100000.000100", source=source) is None
        kept = await memory.get("lobby/1704100000.000100", source=source)
        assert kept is not None and kept.title == "#lobby"


async def test_a_bot_in_a_folder_named_by_its_id_is_named_by_its_channel_s_integration(
    tmp_path: Path,
) -> None:
    hook = {"type": "message", "subtype": "bot_message", "bot_id": "B05JENKINS"}
    root = _export(
        tmp_path / "export",
        {
            "G0BUILDSXX/2024-01-01": [{**hook, "ts": "1704100000.000100", "text": "Build passed"}],
            "C0DEPLOYSX/2024-01-01": [{**hook, "ts": "1704100000.000200", "text": "Deployed"}],
        },
        channels=[{"id": "C0DEPLOYSX", "name": "deploys"}],
        integration_logs=[
            {"service_type": "Jenkins CI", "channel": "G0BUILDSXX", "change_type": "added"},
            {"service_type": "Deploy Hook", "channel": "C0DEPLOYSX", "change_type": "added"},
        ],
    )
    recs = records(await collect(from_slack_export(root)))
    assert {r.text: r.author for r in recs} == {
        "Build passed": "Jenkins CI",
        "Deployed": "Deploy Hook",
    }
