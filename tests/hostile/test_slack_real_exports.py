"""Slack exports as Slack writes them today, beyond the corpora: Enterprise Grid, Block Kit.

Layouts and fields follow Slack's "How to read Slack data exports" (help article 220556107:
an Enterprise Grid org's export names its users in ``org_users.json``), hfaran/slack-export-
viewer issue #224 (the same, from a user's Grid export) and Slack's Block Kit reference
(``rich_text`` elements ``user``, ``channel``, ``broadcast``, ``emoji``; ``section``,
``header`` and ``context`` blocks of ``mrkdwn``/``plain_text`` text objects).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export
from memtrails.records import MemoryRecord, SourceState

USERS = [
    {"id": "W1", "team_id": "T1", "name": "ada", "real_name": "Ada Lovelace"},
    {"id": "W2", "team_id": "T2", "name": "bob", "deleted": True, "profile": {"real_name": "Bob"}},
]


def message(ts: str, text: str = "", **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "W1", "ts": ts, "text": text, **extra}


async def by_id(root: Path, state: Any = None) -> tuple[dict[str, MemoryRecord], list[Any]]:
    items = await collect(from_slack_export(root, state=state))
    assert errors(items) == []
    return {r.id: r for r in records(items)}, items


async def test_an_enterprise_grid_export_names_its_users_from_org_users_json(
    tmp_path: Path,
) -> None:
    root = tmp_path / "grid"
    write_json(root / "org_users.json", USERS)
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(root / "dms.json", [{"id": "D1", "members": ["W1", "W2"]}])
    write_json(root / "general" / "2024-01-01.json", [message("1704067200.000100", "hi <@W2>")])
    write_json(root / "D1" / "2024-01-01.json", [message("1704067300.000100", "psst", user="W2")])

    recs, items = await by_id(root)
    general, dm = recs["general/1704067200.000100"], recs["D1/1704067300.000100"]
    assert (general.author, general.text) == ("Ada Lovelace", "hi @Bob")
    assert (dm.author, dm.title) == ("Bob", "DM: Ada Lovelace, Bob")

    # A user renamed in org_users.json: every record may carry the old name, so all is read.
    end = items[-1]
    assert isinstance(end, SourceState)
    write_json(root / "org_users.json", [{**USERS[0], "real_name": "Ada King"}, USERS[1]])
    again, items = await by_id(root, state=end.state)
    assert again["general/1704067200.000100"].author == "Ada King"
    assert isinstance(items[-1], SourceState)
    assert items[-1].mode == "full"
    assert "org_users.json" in (items[-1].why or "")


async def test_an_org_users_json_alone_is_an_export(tmp_path: Path) -> None:
    root = tmp_path / "grid"
    write_json(root / "org_users.json", USERS)
    recs, items = await by_id(root)
    assert recs == {}
    assert isinstance(items[-1], SourceState)


def rich_text(*elements: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "rich_text", "block_id": "b1", "elements": list(elements)}]


def section(*inline: dict[str, Any]) -> dict[str, Any]:
    return {"type": "rich_text_section", "elements": list(inline)}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


async def test_a_rich_text_only_message_reads_as_its_sender_wrote_it(tmp_path: Path) -> None:
    """Slack's clients send rich text; the export's `text` may then be empty."""
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    blocks = rich_text(
        section(
            text("ask "),
            {"type": "user", "user_id": "W2"},
            text(" in "),
            {"type": "channel", "channel_id": "C1"},
            text(" "),
            {"type": "broadcast", "range": "here"},
            text(" "),
            {"type": "emoji", "name": "tada", "unicode": "1f389"},
        ),
        {
            "type": "rich_text_list",
            "style": "ordered",
            "elements": [section(text("one")), section(text("two &amp; three"))],
        },
        {"type": "rich_text_preformatted", "elements": [text("make test")]},
        {"type": "rich_text_quote", "elements": [text("a quote")]},
    )
    write_json(root / "general" / "2024-01-01.json", [message("1704067200.000100", blocks=blocks)])

    recs, _ = await by_id(root)
    assert recs["general/1704067200.000100"].text == (
        "ask @Bob in #general @here :tada:\n1. one\n2. two & three\nmake test\n> a quote"
    )


async def test_app_blocks_and_attachment_blocks_are_the_messages_text(tmp_path: Path) -> None:
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    header = {"type": "header", "text": {"type": "plain_text", "text": "Deploy finished"}}
    body = {
        "type": "section",
        "text": {"type": "mrkdwn", "text": "*prod* by <@W1>"},
        "fields": [{"type": "mrkdwn", "text": "Version: 1.2"}],
    }
    context = {"type": "context", "elements": [{"type": "mrkdwn", "text": "took 3m"}]}
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B1",
                "username": "deploybot",
                "text": "",
                "ts": "1704067200.000100",
                "blocks": [header, body, {"type": "divider"}, context],
            },
            message(
                "1704067201.000100",
                attachments=[
                    {"color": "good", "fallback": "[no preview]", "blocks": [body]},
                    {"fallback": "only a fallback"},
                ],
            ),
        ],
    )
    recs, _ = await by_id(root)
    assert recs["general/1704067200.000100"].text == (
        "Deploy finished\n*prod* by @Ada Lovelace\nVersion: 1.2\ntook 3m"
    )
    assert recs["general/1704067201.000100"].text == (
        "*prod* by @Ada Lovelace\nVersion: 1.2\nonly a fallback"
    )


async def test_a_huddle_says_who_took_part(tmp_path: Path) -> None:
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    room = {
        "id": "R1",
        "name": "",
        "participants": [],
        "participant_history": ["W1", "W2"],
        "date_start": 1704067200,
        "date_end": 1704067500,
    }
    write_json(
        root / "general" / "2024-01-01.json",
        [message("1704067200.000100", subtype="huddle_thread", room=room)],
    )
    recs, _ = await by_id(root)
    assert recs["general/1704067200.000100"].text == "[huddle] with Ada Lovelace, Bob"


def zip_unflagged(path: Path, files: dict[bytes, bytes]) -> None:
    """Write a zip whose member names are these bytes, not flagged UTF-8 (as Info-ZIP's
    ``zip`` writes them on Linux): zipfile flags every non-ASCII name, so ASCII stand-ins
    of the same length are swapped for the names' bytes afterwards."""
    stand_ins = {}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, (name, data) in enumerate(files.items()):
            stand_in = f"{n:04d}".encode() + b"Q" * (len(name) - 4)
            stand_ins[stand_in] = name
            z.writestr(stand_in.decode(), data)
    raw = path.read_bytes()
    for stand_in, name in stand_ins.items():
        assert raw.count(stand_in) == 2  # the local header and the central directory
        raw = raw.replace(stand_in, name)
    path.write_bytes(raw)


async def test_zip_names_written_utf8_but_unflagged_keep_their_channel(tmp_path: Path) -> None:
    users = json.dumps(USERS).encode()
    day = json.dumps([message("1704067200.000100", "こんにちは 🎉")]).encode()
    old = json.dumps([message("1704067300.000100", "ancien")]).encode()
    archive = tmp_path / "export.zip"
    zip_unflagged(
        archive,
        {
            b"Slack export/users.json": users,
            "Slack export/日本語-チャンネル/2024-01-01.json".encode(): day,
            # A true code page 437 name (a DOS-era tool): not valid UTF-8, read as cp437.
            "Slack export/café/2024-01-01.json".encode("cp437"): old,
        },
    )
    with zipfile.ZipFile(archive) as z:  # what zipfile alone makes of the names
        assert "Slack export/日本語-チャンネル/2024-01-01.json" not in z.namelist()
    recs, _ = await by_id(archive)
    assert set(recs) == {"日本語-チャンネル/1704067200.000100", "café/1704067300.000100"}
    record = recs["日本語-チャンネル/1704067200.000100"]
    assert (record.title, record.author, record.text) == (
        "#日本語-チャンネル",
        "Ada Lovelace",
        "こんにちは 🎉",
    )


async def test_many_small_channels_take_positions_linear_in_the_export(tmp_path: Path) -> None:
    """Big workspaces hold thousands of conversations (each DM a folder) of a few messages.

    A position after every one of them, each naming every channel read so far, is quadratic:
    in what is built and in what the consumer saves. Counted, not timed.
    """
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    channels = 300
    for n in range(channels):
        write_json(
            root / f"D{n:04d}" / "2024-01-01.json", [message(f"17040672{n:02d}.000100", "hi")]
        )
    items = await collect(from_slack_export(root))
    positions = [i for i in items if isinstance(i, SourceState)]
    assert len(records(items)) == channels
    assert positions[-1].complete
    assert len(positions[-1].state["channels"]) == channels
    saved = sum(len(p.state["channels"]) for p in positions)
    assert saved <= 12 * channels  # a position per tenth of the export, and the last
    # Each position still follows the records of the channels it names.
    for p in positions:
        before = records(items[: items.index(p)])
        assert {r.meta["channel"] for r in before} == set(p.state["channels"])


def grid_with_workspaces(root: Path) -> Path:
    """An org export holding each workspace as an export of its own, in teams/<workspace>/
    (the layout mattermost/mmetl's services/slack_grid/discover.go reads)."""
    write_json(root / "org_users.json", USERS)
    write_json(root / "channels.json", [])
    write_json(root / "dms.json", [{"id": "D1", "members": ["W1", "W2"]}])
    write_json(root / "D1" / "2024-01-01.json", [message("1704067200.000100", "org-level DM")])
    for ws, user in (("acme", "U5"), ("beta", "U6")):
        team = root / "teams" / ws
        write_json(team / "users.json", [{"id": user, "name": ws, "real_name": f"{ws} person"}])
        write_json(team / "channels.json", [{"id": f"C{ws}", "name": "general"}])
        for day, ts in (("2024-01-01", "1704067300"), ("2024-01-02", "1704153700")):
            write_json(
                team / "general" / f"{day}.json",
                [message(f"{ts}.000100", f"{ws} on {day} in <#C{ws}>", user=user)],
            )
    return root


async def test_workspaces_of_a_grid_export_are_each_read(tmp_path: Path) -> None:
    root = grid_with_workspaces(tmp_path / "grid")
    archive = tmp_path / "grid.zip"
    with zipfile.ZipFile(archive, "w") as z:  # zipped from its parent: a leading folder
        for f in sorted(root.rglob("*.json")):
            z.write(f, "Org export/" + f.relative_to(root).as_posix())

    for path in (archive, root):  # the folder last: its positions are re-used below
        recs, items = await by_id(path)
        assert set(recs) == {
            "D1/1704067200.000100",
            "teams/acme/general/1704067300.000100",
            "teams/acme/general/1704153700.000100",
            "teams/beta/general/1704067300.000100",
            "teams/beta/general/1704153700.000100",
        }
        acme = recs["teams/acme/general/1704153700.000100"]
        assert (acme.title, acme.author, acme.text) == (
            "#general (acme)",
            "acme person",
            "acme on 2024-01-02 in #general",
        )
        # Two workspaces' #general stay apart: by id, thread and title.
        beta = recs["teams/beta/general/1704153700.000100"]
        assert (beta.title, beta.thread) == (
            "#general (beta)",
            "teams/beta/general/1704153700.000100",
        )
        assert acme.thread == "teams/acme/general/1704153700.000100"
        assert recs["D1/1704067200.000100"].title == "DM: Ada Lovelace, Bob"

    # A re-run reads only each channel's last day file.
    end = items[-1]
    assert isinstance(end, SourceState)
    again, items = await by_id(root, state=end.state)
    assert set(again) == {
        "D1/1704067200.000100",
        "teams/acme/general/1704153700.000100",
        "teams/beta/general/1704153700.000100",
    }
    assert isinstance(items[-1], SourceState)
    assert items[-1].mode == "incremental"
    # A workspace's users.json changed: its names may be in every record, all is read.
    write_json(root / "teams" / "acme" / "users.json", [{"id": "U5", "real_name": "Eve"}])
    third, items = await by_id(root, state=items[-1].state)
    assert len(third) == 5
    assert third["teams/acme/general/1704067300.000100"].author == "Eve"
    assert isinstance(items[-1], SourceState)
    assert "teams/acme/users.json" in (items[-1].why or "")


async def test_a_leading_folder_beside_desktop_files_is_still_the_export(tmp_path: Path) -> None:
    """The export folder zipped with what a desktop leaves beside it."""
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(".DS_Store", b"\0\0\0\1Bud1")
        z.writestr("Thumbs.db", b"\xd0\xcf\x11\xe0")
        z.writestr("Slack export Jan 1 2024/users.json", json.dumps(USERS))
        z.writestr(
            "Slack export Jan 1 2024/general/2024-01-01.json",
            json.dumps([message("1704067200.000100", "hello")]),
        )
    recs, _ = await by_id(archive)
    assert [(r.id, r.author, r.text) for r in recs.values()] == [
        ("general/1704067200.000100", "Ada Lovelace", "hello")
    ]


async def test_a_zip_with_backslash_separators_keeps_its_channels(tmp_path: Path) -> None:
    """Windows PowerShell 5.1's Compress-Archive writes ``general\\2024-01-01.json``."""
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("users.json", json.dumps(USERS))
        z.writestr("general\\2024-01-01.json", json.dumps([message("1704067200.000100", "a")]))
        z.writestr("general\\2024-01-02.json", json.dumps([message("1704153600.000100", "b")]))
        z.writestr("..\\outside.json", "[]")  # still refused, as ../outside.json is
    items = await collect(from_slack_export(archive))
    assert [(r.id, r.author) for r in records(items)] == [
        ("general/1704067200.000100", "Ada Lovelace"),
        ("general/1704153600.000100", "Ada Lovelace"),
    ]
    assert [e.where for e in errors(items)] == ["..\\outside.json"]  # as the zip names it


async def test_people_missing_from_users_json_are_mentioned_by_their_profile(
    tmp_path: Path,
) -> None:
    """A Slack Connect channel: people of the other org are in no users.json of this
    export, but each of their messages carries its `user_profile`."""
    root = tmp_path / "export"
    write_json(root / "users.json", USERS)
    profile = {"real_name": "Jane Ext", "display_name": "jane", "team": "T9"}
    write_json(
        root / "shared-with-partner" / "2024-01-01.json",
        [
            message("1704067200.000100", "<@U0EXT> can you look?"),
            message(
                "1704067201.000100",
                blocks=rich_text(section(text("thanks "), {"type": "user", "user_id": "U0EXT"})),
            ),
            message("1704067202.000100", "sure", user="U0EXT", user_profile=profile),
        ],
    )
    recs, _ = await by_id(root)
    texts = {key.split("/")[1]: r.text for key, r in recs.items()}
    assert texts == {
        "1704067200.000100": "@Jane Ext can you look?",
        "1704067201.000100": "thanks @Jane Ext",
        "1704067202.000100": "sure",
    }
    assert recs["shared-with-partner/1704067202.000100"].author == "Jane Ext"
