"""Tests for the Slack export importer, on the real corpora and on small synthetic exports."""

from __future__ import annotations

import json
import os
import tracemalloc
import zipfile
from collections import Counter
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, spy_reads, write_json

from memtrails._exceptions import SourceError
from memtrails.importers.slack import from_slack_export
from memtrails.limits import Limits
from memtrails.records import At, MemoryRecord, SourceState

SKIPPED = {"channel_join", "channel_leave", "group_join", "group_leave", "bot_add"}


def expected_messages(export: Path) -> Counter[str]:
    """Count the messages per channel folder straight from the JSON, joins and adds left out."""
    counts: Counter[str] = Counter()
    for day in sorted(export.glob("*/*.json")):
        for message in json.loads(day.read_text(encoding="utf-8")):
            if message.get("subtype") not in SKIPPED:
                counts[day.parent.name] += 1
    return counts


@pytest.fixture
def hfaran(corpora: Path) -> Path:
    return corpora / "slack" / "hfaran-testarchive"


@pytest.fixture
def zulip(corpora: Path) -> Path:
    return corpora / "slack" / "zulip-test_slack_importer"


# -- real corpora -------------------------------------------------------------------------


async def test_hfaran_counts(hfaran: Path) -> None:
    items = await collect(from_slack_export(hfaran))
    recs = records(items)
    assert errors(items) == []
    # 158 messages in the JSON, less 8 channel_join and 3 bot_add notices (hand-checked).
    assert len(recs) == 147
    assert Counter(r.meta["channel"] for r in recs) == expected_messages(hfaran)
    assert len({r.id for r in recs}) == len(recs)
    assert {r.kind for r in recs} == {"chat"}
    assert {r.source for r in recs} == {str(hfaran.resolve())}
    assert all(isinstance(r.at, At) for r in recs)


async def test_zulip_export_without_channels_json(zulip: Path) -> None:
    recs = records(await collect(from_slack_export(zulip)))
    # 13 messages, 4 of them channel_join.
    assert len(recs) == 9 == sum(expected_messages(zulip).values())
    assert {r.title for r in recs} == {"#random"}
    assert {r.meta["channel"] for r in recs} == {"random"}
    assert {"Josef K.", "Steve Howell", "Rhea Parekh"} <= {r.author for r in recs}
    first = recs[0]
    assert first.id == "random/1498401071.279035"
    assert first.at == At(1498401071279)
    assert first.text == "edfadfa"


async def test_real_names_and_markup(hfaran: Path) -> None:
    recs = {r.id: r for r in records(await collect(from_slack_export(hfaran)))}
    authors = {r.author for r in recs.values()}
    assert {"Hamza Faran", "Harry Potter", "Hermione Granger", "heroeshannibal"} <= authors
    mention = recs["enrique/1452837352.000006"]
    assert mention.author == "Hamza Faran"
    assert mention.text.startswith("@Harry Potter: Created an issue for a setup.py")
    assert mention.title == "#enrique"
    assert mention.thread == "enrique/1452837352.000006"
    for r in recs.values():
        assert "<@U" not in r.text and "<http" not in r.text
        assert "has joined the channel" not in r.text


async def test_bot_messages_carry_attachment_text(hfaran: Path) -> None:
    recs = {r.id: r for r in records(await collect(from_slack_export(hfaran)))}
    bots = [r for r in recs.values() if r.meta.get("bot")]
    assert len(bots) == 94
    assert all(r.text.strip() for r in bots)
    assert all(r.meta["subtype"] == "bot_message" for r in bots)
    commit = recs["enrique/1454892394.000004"]
    assert "executor with simulated annealing rough draft" in commit.text
    assert "ed1acbe (https://github.com/mesos-magellan/enrique/commit/" in commit.text
    # The bot's name comes from the "added an integration ... |github>" notice.
    assert commit.author == "github"
    reacted = recs["enrique/1459154014.000018"]
    assert reacted.meta["reactions"] == [{"name": "botman", "count": 1}]


async def test_edited_and_file_shares(hfaran: Path) -> None:
    recs = {r.id: r for r in records(await collect(from_slack_export(hfaran)))}
    edited = recs["traveling-sailor/1458972985.000010"]
    assert edited.meta["edited"] == "1458981134.000000"
    assert '"New York City": [40.72, 74.00]' in edited.text
    shared = recs["traveling-sailor/1459052866.000012"]
    assert shared.meta["files"] == [
        {"name": "100_cities.js", "title": "100 cities", "mimetype": "text/plain"}
    ]
    assert "[file: 100_cities.js (100 cities)]" in shared.text
    assert shared.text.startswith("@Hermione Granger uploaded a file: 100 cities (https://")
    comment = recs["traveling-sailor/1459106048.000018"]
    assert comment.author == "Hermione Granger"  # from the legacy `comment.user`
    shares = [r for r in recs.values() if r.meta.get("subtype") == "file_share"]
    assert len(shares) == 3


async def test_zip_of_a_corpus_matches_the_folder(
    hfaran: Path, zulip: Path, tmp_path: Path
) -> None:
    for export, prefix in ((hfaran, "export/"), (zulip, "")):
        archive = tmp_path / f"{export.name}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            if prefix:
                z.writestr(prefix, "")  # a folder entry, as zip tools write them
            for file in sorted(export.rglob("*")):
                if file.is_file() and file.suffix == ".json":
                    z.write(file, prefix + file.relative_to(export).as_posix())
        from_folder = [r.to_json() for r in records(await collect(from_slack_export(export)))]
        from_zip = records(await collect(from_slack_export(archive, source="s")))
        assert {r.source for r in from_zip} == {"s"}
        assert [{**r.to_json(), "source": ""} for r in from_zip] == [
            {**r, "source": ""} for r in from_folder
        ]


async def test_zip_of_one_channel_folder_and_finder_extras(zulip: Path, tmp_path: Path) -> None:
    archive = tmp_path / "random.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for day in sorted((zulip / "random").glob("*.json")):
            z.write(day, f"random/{day.name}")
        z.writestr("__MACOSX/random/._2017-06-25.json", b"\0\5\26\7")
    recs = records(await collect(from_slack_export(archive)))
    assert len(recs) == 9
    assert {r.author for r in recs} <= {"U6006P1CN", "U8VAHEVUY", "U8W3QFGQ5"}  # no users.json


async def test_damaged_zip_member_is_an_error(zulip: Path, tmp_path: Path) -> None:
    archive = tmp_path / "damaged.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:
        for file in sorted(zulip.rglob("*.json")):
            z.write(file, file.relative_to(zulip).as_posix())
    data = bytearray(archive.read_bytes())
    at = data.index(b"This is Steve typing")
    data[at : at + 4] = b"That"  # same length, so only the CRC check notices
    archive.write_bytes(bytes(data))
    items = await collect(from_slack_export(archive))
    assert [(e.where, "CRC" in e.reason) for e in errors(items)] == [
        ("random/2018-01-20.json", True)
    ]
    assert [r.text for r in records(items)] == ["edfadfa"]


# -- hostile and damaged zips -------------------------------------------------------------

USERS = [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}]
ONE_DAY = [{"type": "message", "user": "U1", "ts": "1704067200.000001", "text": "hello"}]


def bomb_zip(path: Path, inflated: int) -> Path:
    """An export whose second day file is ``inflated`` bytes of JSON whitespace, deflated."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", json.dumps(USERS))
        z.writestr("general/2024-01-01.json", json.dumps(ONE_DAY))
        with z.open("general/2024-01-02.json", "w") as f:
            f.write(b"[")
            chunk = b" " * (1 << 20)
            for _ in range(inflated // len(chunk)):
                f.write(chunk)
            f.write(b"]")
    return path


async def test_zip_bomb_member_is_an_error_and_is_never_inflated(tmp_path: Path) -> None:
    archive = bomb_zip(tmp_path / "bomb.zip", 64 << 20)
    tracemalloc.start()
    try:
        items = await collect(from_slack_export(archive))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    ((error,),) = [errors(items)]
    assert error.where == "general/2024-01-02.json"
    assert "max_ratio" in error.reason and "over the limit of 250" in error.reason
    assert [r.text for r in records(items)] == ["hello"]
    assert peak < 8 << 20  # the 64 MiB member was never inflated
    # The limit is the user's to set: raised, the same member is read (and holds nothing).
    items = await collect(from_slack_export(archive, max_ratio=5000))
    assert errors(items) == [] and [r.text for r in records(items)] == ["hello"]


async def test_many_small_bombs_stop_at_max_ratio_times_the_archive(tmp_path: Path) -> None:
    # Each day file is just under 1 MiB (below the per-member ratio check) and inflates
    # about 1,000 times: together they may inflate no more than 250 times the archive.
    archive = tmp_path / "many.zip"
    day = b"[" + b" " * ((1 << 20) - 2) + b"]"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", json.dumps(USERS))
        for k in range(1, 29):
            z.writestr(f"general/2024-02-{k:02d}.json", day)
    budget = 250 * archive.stat().st_size + (1 << 20)
    items = await collect(from_slack_export(archive))
    refused = [e for e in errors(items) if "past 250 times its size" in e.reason]
    read = 28 - len(refused)
    assert errors(items) == refused and 0 < read < 28
    assert read * len(day) <= budget < (read + 1) * len(day)
    assert refused[0].where == f"general/2024-02-{read + 1:02d}.json"


async def test_member_over_max_file_bytes_is_an_error(zulip: Path, tmp_path: Path) -> None:
    # users.json has 8,577 bytes, the day files 326 and 4,854: the same in a folder and a zip.
    archive = tmp_path / "zulip.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted(zulip.rglob("*.json")):
            z.write(file, file.relative_to(zulip).as_posix())
    for export in (zulip, archive):
        items = await collect(from_slack_export(export, limits=Limits(max_file_bytes=4000)))
        assert [(e.where, e.reason) for e in errors(items)] == [
            ("users.json", "8577 bytes, over the limit of 4000 (Limits.max_file_bytes): not read"),
            (
                "random/2018-01-20.json",
                "day file 4854 bytes, over the limit of 4000 (Limits.max_file_bytes): not read",
            ),
        ]
        assert [r.text for r in records(items)] == ["edfadfa"]
    with pytest.raises(ValueError, match="max_file_bytes"):
        await collect(from_slack_export(zulip, limits=Limits(max_file_bytes=0)))


async def test_a_member_lying_about_its_size_inflates_no_further(tmp_path: Path) -> None:
    archive = bomb_zip(tmp_path / "liar.zip", 32 << 20)
    data = bytearray(archive.read_bytes())
    # Claim 100 bytes in the member's local header and in the zip's directory.
    name = b"general/2024-01-02.json"
    for signature, name_at, size_at in ((b"PK\x03\x04", 30, 22), (b"PK\x01\x02", 46, 24)):
        at = data.index(signature)
        while data[at + name_at : at + name_at + len(name)] != name:
            at = data.index(signature, at + 1)
        data[at + size_at : at + size_at + 4] = (100).to_bytes(4, "little")
    archive.write_bytes(bytes(data))
    tracemalloc.start()
    try:
        items = await collect(from_slack_export(archive))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    ((error,),) = [errors(items)]
    assert error.where == "general/2024-01-02.json"
    assert error.reason.startswith("cannot read the day file")
    assert peak < 8 << 20


async def test_truncated_zip_is_a_clear_error(zulip: Path, tmp_path: Path) -> None:
    archive = tmp_path / "cut.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted(zulip.rglob("*.json")):
            z.write(file, file.relative_to(zulip).as_posix())
    whole = archive.read_bytes()
    archive.write_bytes(whole[: len(whole) * 2 // 3])  # a download cut short
    with pytest.raises(SourceError) as raised:
        await collect(from_slack_export(archive))
    assert raised.value.source == str(archive.resolve())
    assert raised.value.reason.startswith("damaged or incomplete .zip file")


async def test_members_leading_outside_the_export_are_errors(tmp_path: Path) -> None:
    archive = tmp_path / "traversal.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("users.json", json.dumps(USERS))
        z.writestr("general/2024-01-01.json", json.dumps(ONE_DAY))
        for name in ("../general/2024-01-02.json", "/etc/2024-01-03.json", "a/../../x.json"):
            z.writestr(zipfile.ZipInfo(name), json.dumps(ONE_DAY))
        z.writestr(zipfile.ZipInfo("C:\\evil\\2024-01-04.json"), "[]")
    items = await collect(from_slack_export(archive))
    assert sorted(e.where for e in errors(items)) == sorted(
        [
            "../general/2024-01-02.json",
            "/etc/2024-01-03.json",
            "a/../../x.json",
            "C:\\evil\\2024-01-04.json",
        ]
    )
    assert {e.reason for e in errors(items)} == {
        "member name leads outside the export (absolute or ..): not read"
    }
    assert [r.id for r in records(items)] == ["general/1704067200.000001"]


async def test_stops_when_the_consumer_stops(hfaran: Path) -> None:
    async with aclosing(from_slack_export(hfaran)) as it:
        async for first in it:
            assert isinstance(first, MemoryRecord)
            break


# -- synthetic exports --------------------------------------------------------------------


@pytest.fixture
def synthetic(tmp_path: Path) -> Path:
    root = tmp_path / "export"
    write_json(
        root / "users.json",
        [
            {"id": "U1", "name": "ada", "real_name": "Ada Lovelace"},
            {"id": "U2", "name": "bob", "profile": {"real_name": "", "display_name": "Bobby"}},
            {"id": "U3", "name": "carl"},
        ],
    )
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(root / "dms.json", [{"id": "D1", "members": ["U1", "U2"]}])
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {
                "type": "message",
                "subtype": "channel_join",
                "user": "U3",
                "ts": "1704067100.000001",
                "text": "<@U3> has joined the channel",
            },
            {
                "type": "message",
                "user": "U1",
                "ts": "1704067200.000100",
                "thread_ts": "1704067200.000100",
                "reply_count": 2,
                "text": "Plan for <#C1|general> and <#C1>: see <https://example.com/p?a=1&amp;b=2|the plan>",
            },
            {
                "type": "message",
                "user": "U2",
                "ts": "1704067260.000200",
                "thread_ts": "1704067200.000100",
                "text": "&lt;ok&gt; &amp;lt; <@U1> <mailto:a@b.c|a@b.c>",
                "edited": {"user": "U2", "ts": "1704067290.000000"},
            },
            {
                "type": "message",
                "user": "U3",
                "ts": 1704067320.0003,
                "thread_ts": "1704067200.000100",
                "text": "numeric ts reply",
            },
            {"type": "message", "user": "U1", "text": "no ts here"},
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B1",
                "username": "deploybot",
                "ts": "1704067400.000001",
                "text": "deployed <!here>",
            },
            {
                "type": "message",
                "bot_id": "B2",
                "bot_profile": {"name": "CI"},
                "ts": "1704067401.000001",
                "text": "",
                "attachments": [
                    {"fallback": "build 7 failed", "fields": [{"title": "Job", "value": "tests"}]}
                ],
            },
            {
                "type": "message",
                "subtype": "tombstone",
                "user": "USLACKBOT",
                "hidden": True,
                "ts": "1704067450.000001",
                "thread_ts": "1704067450.000001",
                "text": "This message was deleted.",
            },
            {
                "type": "message",
                "subtype": "channel_leave",
                "user": "U3",
                "ts": "1704067500.000001",
                "text": "<@U3> has left the channel",
            },
            {
                "type": "message",
                "user": "U2",
                "ts": "1704067600.000001",
                "text": "see attached",
                "files": [
                    {
                        "id": "F1",
                        "name": "plan.pdf",
                        "title": "plan.pdf",
                        "mimetype": "application/pdf",
                    },
                    {"id": "F2", "mode": "hidden_by_limit"},
                ],
            },
            {
                "type": "message",
                "user": "U2",
                "ts": "1704067700.000001",
                "blocks": [
                    {
                        "type": "rich_text",
                        "elements": [
                            {
                                "type": "rich_text_section",
                                "elements": [
                                    {"type": "text", "text": "from blocks "},
                                    {"type": "link", "url": "https://x.org"},
                                ],
                            }
                        ],
                    }
                ],
            },
        ],
    )
    (root / "general" / "2024-01-02.json").write_text("[{not json", encoding="utf-8")
    write_json(
        root / "general" / "2024-01-03.json",
        [
            {
                "type": "message",
                "user": "U9",
                "ts": "1704240000.000001",
                "text": "later",
                "user_profile": {"real_name": "Guest Nine"},
            }
        ],
    )
    write_json(
        root / "D1" / "2024-01-01.json",
        [{"type": "message", "user": "U1", "ts": "1704067800.000001", "text": "psst"}],
    )
    (root / "general" / "notes.txt").write_text("not a day file", encoding="utf-8")
    return root


async def test_synthetic_threads_and_fields(synthetic: Path) -> None:
    items = await collect(from_slack_export(synthetic))
    recs = {r.id: r for r in records(items)}
    assert list(recs) == [
        "D1/1704067800.000001",
        "general/1704067200.000100",
        "general/1704067260.000200",
        "general/1704067320.000300",
        "general/1704067400.000001",
        "general/1704067401.000001",
        "general/1704067600.000001",
        "general/1704067700.000001",
        "general/1704240000.000001",
    ]
    parent = recs["general/1704067200.000100"]
    assert parent.text == (
        "Plan for #general and #general: see the plan (https://example.com/p?a=1&b=2)"
    )
    assert parent.meta["reply_count"] == 2
    assert parent.author == "Ada Lovelace"
    thread = {r.id for r in recs.values() if r.thread == "general/1704067200.000100"}
    assert thread == {
        "general/1704067200.000100",
        "general/1704067260.000200",
        "general/1704067320.000300",
    }
    reply = recs["general/1704067260.000200"]
    assert reply.text == "<ok> &lt; @Ada Lovelace a@b.c"
    assert reply.author == "Bobby"
    assert reply.meta["edited"] == "1704067290.000000"
    numeric = recs["general/1704067320.000300"]
    assert numeric.author == "carl"
    assert numeric.at == At(1704067320000)
    assert numeric.meta["ts"] == "1704067320.000300"
    bot = recs["general/1704067400.000001"]
    assert (bot.author, bot.text, bot.meta["bot"]) == ("deploybot", "deployed @here", True)
    ci = recs["general/1704067401.000001"]
    assert (ci.author, ci.text) == ("CI", "build 7 failed\nJob: tests")
    files = recs["general/1704067600.000001"]
    assert files.text == "see attached\n[file: plan.pdf]\n[file: hidden by the plan's limit]"
    assert files.meta["files"][0] == {
        "name": "plan.pdf",
        "title": "plan.pdf",
        "mimetype": "application/pdf",
    }
    assert recs["general/1704067700.000001"].text == "from blocks https://x.org"
    assert recs["general/1704240000.000001"].author == "Guest Nine"
    dm = recs["D1/1704067800.000001"]
    assert dm.title == "DM: Ada Lovelace, Bobby"


def group_dm_export(root: Path, with_mpims: bool) -> Path:
    write_json(
        root / "users.json",
        [
            {"id": "U1", "name": "ada", "real_name": "Ada Lovelace"},
            {"id": "U2", "name": "smith", "real_name": "John Smith"},
            {"id": "U3", "name": "seymore.a", "profile": {"display_name": "Alice Seymore"}},
            {"id": "U4", "name": "jane.d", "real_name": "Jane Doe"},
        ],
    )
    group = "mpdm-smith--seymore.a--jane.d-1"
    if with_mpims:
        write_json(
            root / "mpims.json", [{"id": "G1", "name": group, "members": ["U4", "U2", "U3"]}]
        )
    write_json(
        root / group / "2024-01-01.json", [message("1704067200.000001", "lunch?", user="U2")]
    )
    # Not in mpims.json either way: named from the folder; an unknown user name stays as is.
    write_json(root / "mpdm-ada--ghost-1" / "2024-01-01.json", [message("1704067200.000002", "hi")])
    return root


@pytest.mark.parametrize("with_mpims", [True, False])
async def test_group_dms_are_titled_by_their_members(tmp_path: Path, with_mpims: bool) -> None:
    export = group_dm_export(tmp_path / "export", with_mpims)
    recs = {r.meta["channel"]: r for r in records(await collect(from_slack_export(export)))}
    # mpims.json lists the members in its own order; the folder name in the name's order.
    expected = (
        ["Jane Doe", "John Smith", "Alice Seymore"]
        if with_mpims
        else [
            "John Smith",
            "Alice Seymore",
            "Jane Doe",
        ]
    )
    assert recs["mpdm-smith--seymore.a--jane.d-1"].title == "Group DM: " + ", ".join(expected)
    assert recs["mpdm-ada--ghost-1"].title == "Group DM: Ada Lovelace, ghost"
    assert recs["mpdm-smith--seymore.a--jane.d-1"].author == "John Smith"


async def test_bots_are_named_by_what_the_export_knows(tmp_path: Path) -> None:
    export = tmp_path / "export"
    write_json(export / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(
        export / "ops" / "2024-01-01.json",
        [
            # A bot user missing from users.json, named by its bot_profile.
            message(
                "1704067200.000001",
                "PR merged",
                user="UBOT",
                bot_id="B1",
                bot_profile={"name": "GitHub", "id": "B1"},
            ),
            # A bot_message with no name anywhere: its bot id, not just "bot".
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B9",
                "ts": "1704067200.000002",
                "text": "ping",
            },
            # A person posting through an app is still the person.
            message("1704067200.000003", "via app", bot_id="B2", bot_profile={"name": "Zap"}),
            # Nothing at all to go by.
            {"type": "message", "subtype": "bot_message", "ts": "1704067200.000004", "text": "?"},
        ],
    )
    recs = records(await collect(from_slack_export(export)))
    assert [(r.author, r.meta.get("bot", False)) for r in recs] == [
        ("GitHub", True),
        ("B9", True),
        ("Ada Lovelace", False),
        ("bot", True),
    ]


async def test_broken_day_file_and_message_without_ts(synthetic: Path) -> None:
    items = await collect(from_slack_export(synthetic, source="slack:test"))
    errs = errors(items)
    assert [(e.source, e.where) for e in errs] == [
        ("slack:test", "general/2024-01-01.json, message 5"),
        ("slack:test", "general/2024-01-02.json"),
    ]
    assert errs[0].reason == "message has no ts"
    assert "not valid JSON" in errs[1].reason
    # The day after the broken one still imports.
    assert any(isinstance(i, MemoryRecord) and i.text == "later" for i in items)


async def test_a_subtype_that_is_no_string_is_a_plain_message(tmp_path: Path) -> None:
    """A damaged export with an object or a list for ``subtype``: the messages still import."""
    root = tmp_path / "export"
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {"user": "U1", "ts": "1704067200.000100", "text": "one", "subtype": {"x": 1}},
            {"user": "U1", "ts": "1704067260.000100", "text": "two", "subtype": ["bot_add"]},
        ],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert [(r.text, r.author) for r in records(items)] == [
        ("one", "Ada Lovelace"),
        ("two", "Ada Lovelace"),
    ]
    assert all("subtype" not in r.meta for r in records(items))


async def test_ids_are_stable_across_runs(synthetic: Path) -> None:
    first = records(await collect(from_slack_export(synthetic)))
    second = records(await collect(from_slack_export(synthetic)))
    assert first == second


async def test_not_an_export(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file or folder"):
        await collect(from_slack_export(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "readme.txt").write_text("hello", encoding="utf-8")
    with pytest.raises(SourceError, match="not a Slack export"):
        await collect(from_slack_export(tmp_path / "empty"))
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as z:
        z.writestr("photos/cat.jpg", b"\xff\xd8")
    with pytest.raises(SourceError, match="not a Slack export"):
        await collect(from_slack_export(tmp_path / "other.zip"))
    (tmp_path / "fake.zip").write_bytes(b"PK but not really")
    with pytest.raises(SourceError, match=r"\.zip"):
        await collect(from_slack_export(tmp_path / "fake.zip"))


async def test_default_source_is_the_resolved_path(synthetic: Path) -> None:
    cwd = os.getcwd()
    os.chdir(synthetic.parent)
    try:
        items = await collect(from_slack_export("export"))
    finally:
        os.chdir(cwd)
    assert {i.source for i in items} == {str(synthetic.resolve())}


# -- re-runs with the last run's state ------------------------------------------------------


def message(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


@pytest.fixture
def growing(tmp_path: Path) -> Path:
    """An export of two channels over three days, with a bot named only by a bot_add notice."""
    root = tmp_path / "growing"
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(
        root / "channels.json", [{"id": "C1", "name": "general"}, {"id": "C2", "name": "random"}]
    )
    write_json(
        root / "general" / "2024-01-01.json",
        [
            message("1704067200.000001", "hello"),
            {
                "type": "message",
                "subtype": "bot_add",
                "user": "U1",
                "ts": "1704067201.000001",
                "text": "added an integration: <https://x.slack.com/services/B7|deploybot>",
            },
        ],
    )
    write_json(root / "general" / "2024-01-02.json", [message("1704153600.000001", "day two")])
    write_json(
        root / "general" / "2024-01-03.json",
        [
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B7",
                "ts": "1704240000.000001",
                "text": "deployed",
            },
        ],
    )
    write_json(root / "random" / "2024-01-01.json", [message("1704067300.000001", "random one")])
    write_json(root / "random" / "2024-01-02.json", [message("1704153700.000001", "random two")])
    return root


def states(items: list[Any]) -> list[SourceState]:
    return [i for i in items if isinstance(i, SourceState)]


NAME_FILES = ["users.json", "channels.json"]  # the ones present in `growing`


async def test_first_run_positions(growing: Path) -> None:
    items = await collect(from_slack_export(growing))
    positions = states(items)
    assert len(positions) == 3  # after each channel, and at the end
    assert isinstance(items[-1], SourceState)
    # A position follows its channel's records, and only finished channels are in it.
    split = items.index(positions[0])
    assert {r.meta["channel"] for r in records(items[:split])} == {"general"}
    assert list(positions[0].state["channels"]) == ["general"]
    end = positions[-1]
    assert (end.mode, end.complete, end.why) == ("full", True, None)
    assert end.state["channels"]["general"]["last"] == "2024-01-03.json"
    assert end.state["channels"]["general"]["bots"] == {"B7": "deploybot"}
    assert end.state["channels"]["random"]["bots"] == {}
    assert set(end.state["metadata"]) == {
        "users.json",
        "channels.json",
        "groups.json",
        "mpims.json",
        "dms.json",
        "org_users.json",
        "integration_logs.json",
        "canvases.json",
        "file_conversations.json",
    }
    assert end.state["metadata"]["groups.json"] is None


async def test_unchanged_export_rereads_only_the_last_days(
    growing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await collect(from_slack_export(growing))
    reads = spy_reads(monkeypatch)
    again = await collect(from_slack_export(growing, state=states(first)[-1].state))
    assert [r for r in reads if r not in NAME_FILES] == [
        "general/2024-01-03.json",
        "random/2024-01-02.json",
    ]
    by_id = {r.id: r for r in records(first)}
    # The re-read messages are exactly what a full pass gives (the bot keeps its name).
    assert [r.id for r in records(again)] == [
        "general/1704240000.000001",
        "random/1704153700.000001",
    ]
    for r in records(again):
        assert r == by_id[r.id]
    assert by_id["general/1704240000.000001"].author == "deploybot"
    end = states(again)[-1]
    assert (end.mode, end.complete, end.why) == ("incremental", False, None)
    assert end.state == states(first)[-1].state


async def test_a_new_day_file_is_read_with_the_last_one(
    growing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = states(await collect(from_slack_export(growing)))[-1].state
    write_json(
        growing / "general" / "2024-01-04.json",
        [
            message("1704326400.000001", "day four"),
            {
                "type": "message",
                "bot_id": "B7",
                "ts": "1704326401.000001",
                "text": "deployed again",
            },
        ],
    )
    reads = spy_reads(monkeypatch)
    items = await collect(from_slack_export(growing, state=state))
    assert [r for r in reads if r not in NAME_FILES] == [
        "general/2024-01-03.json",
        "general/2024-01-04.json",
        "random/2024-01-02.json",
    ]
    recs = {r.id: r for r in records(items)}
    assert recs["general/1704326401.000001"].author == "deploybot"
    end = states(items)[-1]
    assert end.state["channels"]["general"]["last"] == "2024-01-04.json"
    # The bot was named in a day now before the last one: remembered for the next run.
    assert end.state["channels"]["general"]["bots"] == {"B7": "deploybot"}


async def test_changed_names_mean_a_full_pass(
    growing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = states(await collect(from_slack_export(growing)))[-1].state
    write_json(growing / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada King"}])
    reads = spy_reads(monkeypatch)
    items = await collect(from_slack_export(growing, state=state))
    assert len([r for r in reads if r not in NAME_FILES]) == 5  # every day file
    assert {r.author for r in records(items) if r.meta.get("user") == "U1"} == {"Ada King"}
    end = states(items)[-1]
    assert (end.mode, end.complete) == ("full", True)
    assert end.why == "users.json changed since the last run (the names in every record may differ)"
    # A file that appears changes the names too.
    write_json(growing / "dms.json", [])
    end = states(await collect(from_slack_export(growing, state=end.state)))[-1]
    assert end.mode == "full" and end.why is not None and end.why.startswith("dms.json changed")


async def test_a_changed_earlier_day_rereads_its_channel(
    growing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = states(await collect(from_slack_export(growing)))[-1].state
    edited = [message("1704153600.000001", "day two, edited")]
    write_json(growing / "general" / "2024-01-02.json", edited)
    reads = spy_reads(monkeypatch)
    items = await collect(from_slack_export(growing, state=state))
    assert [r for r in reads if r not in NAME_FILES] == [
        "general/2024-01-01.json",
        "general/2024-01-02.json",
        "general/2024-01-03.json",
        "random/2024-01-02.json",
    ]
    assert "general/1704153600.000001" in {r.id for r in records(items)}
    assert states(items)[-1].mode == "incremental"  # random still skipped a day


async def test_positions_keep_channels_not_reached(growing: Path) -> None:
    state = states(await collect(from_slack_export(growing)))[-1].state
    items = await collect(from_slack_export(growing, state=state))
    # After general, random still has last run's position (incremental run)...
    assert states(items)[0].state["channels"] == state["channels"]
    # ... but not in a full pass, where it would name records not yet rewritten.
    write_json(growing / "users.json", [])
    items = await collect(from_slack_export(growing, state=state))
    assert list(states(items)[0].state["channels"]) == ["general"]


async def test_zip_incremental_by_member_stamps(
    growing: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def pack(name: str) -> Path:
        archive = tmp_path / name
        with zipfile.ZipFile(archive, "w") as z:
            for f in sorted(growing.rglob("*.json")):
                z.write(f, "export/" + f.relative_to(growing).as_posix())
        return archive

    first = states(await collect(from_slack_export(pack("week1.zip"), source="s")))[-1]
    write_json(
        growing / "random" / "2024-01-03.json", [message("1704240100.000001", "random three")]
    )
    reads = spy_reads(monkeypatch)
    # A fresh download of the same export: new file, same member stamps (size and CRC).
    items = await collect(from_slack_export(pack("week2.zip"), source="s", state=first.state))
    assert [r for r in reads if r not in NAME_FILES] == [
        "general/2024-01-03.json",
        "random/2024-01-02.json",
        "random/2024-01-03.json",
    ]
    assert states(items)[-1].mode == "incremental"


async def test_a_state_it_cannot_read_means_a_full_pass(growing: Path) -> None:
    good = states(await collect(from_slack_export(growing)))[-1].state
    bad_entry = {**good, "channels": {"general": {"last": 3}}}
    for bad in ({}, {"metadata": {}}, {"metadata": [], "channels": {}}, bad_entry):
        end = states(await collect(from_slack_export(growing, state=bad)))[-1]
        assert (end.mode, end.complete) == ("full", True)
        assert end.why == "the saved position is not one this version reads"


async def test_a_broken_day_file_makes_the_run_incomplete(synthetic: Path) -> None:
    end = states(await collect(from_slack_export(synthetic)))[-1]
    assert (end.mode, end.complete) == ("full", False)


@pytest.mark.parametrize("name", ["hfaran", "zulip"])
async def test_real_export_rerun_gives_what_a_full_pass_gives(
    name: str, request: pytest.FixtureRequest
) -> None:
    export: Path = request.getfixturevalue(name)
    first = await collect(from_slack_export(export))
    by_id = {r.id: r for r in records(first)}
    again = await collect(from_slack_export(export, state=states(first)[-1].state))
    assert records(again)  # the last day of each channel
    assert len(records(again)) < len(by_id)
    for r in records(again):
        assert r == by_id[r.id]  # bot names learned in skipped days included
    assert states(again)[-1].mode == "incremental"


async def test_a_deleted_last_day_keeps_the_old_position(
    growing: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = states(await collect(from_slack_export(growing)))[-1].state
    (growing / "general" / "2024-01-03.json").unlink()
    reads = spy_reads(monkeypatch)
    items = await collect(from_slack_export(growing, state=state))
    assert [r for r in reads if r not in NAME_FILES] == ["random/2024-01-02.json"]
    assert states(items)[-1].state["channels"]["general"] == state["channels"]["general"]


async def test_attachment_links_lose_slacks_escapes(tmp_path: Path) -> None:
    root = tmp_path / "export"
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    link = "https://example.org/search?q=heron&amp;page=2"
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {
                "type": "message",
                "user": "U1",
                "ts": "1704067200.000100",
                "text": "look",
                "attachments": [{"title": "Herons", "title_link": link}],
            }
        ],
    )
    (rec,) = records(await collect(from_slack_export(root)))
    assert rec.text.endswith("https://example.org/search?q=heron&page=2")


APPS_AND_CANVASES = Path(__file__).parent / "data" / "slack" / "apps-and-canvases.json"


@pytest.fixture(params=["folder", "zip"])
def apps_and_canvases(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    members: dict[str, Any] = json.loads(APPS_AND_CANVASES.read_text(encoding="utf-8"))
    if request.param == "zip":
        archive = tmp_path / "export.zip"
        with zipfile.ZipFile(archive, "w") as z:
            for name, data in members.items():
                z.writestr(name, json.dumps(data))
        return archive
    root = tmp_path / "export"
    for name, data in members.items():
        write_json(root / name, data)
    return root


async def test_bots_without_a_username_are_named_by_their_app(apps_and_canvases: Path) -> None:
    recs = records(await collect(from_slack_export(apps_and_canvases)))
    authors = {r.text: (r.author, r.meta.get("bot", False)) for r in recs}
    # By its app id in integration_logs.json.
    assert authors["Daily standup: what did you ship yesterday?"] == ("Standup Bot", True)
    # By the one integration ever added to its channel.
    assert authors["Build #512 of memtrails passed"] == ("Jenkins CI", True)
    # Its channel had two: which one posted is unknown, so its own id names it.
    assert authors["New post on the team blog"] == ("B07WHOKNOWS", True)
    assert authors["Shipped the parser."] == ("Ada Lovelace", False)


async def test_canvas_comments_are_titled_by_the_canvas(apps_and_canvases: Path) -> None:
    recs = records(await collect(from_slack_export(apps_and_canvases)))
    titles = {r.text: (r.title, r.author) for r in recs}
    # The folder says only the canvas's file id; canvases.json has its title.
    assert titles["Should the launch wait for the new importer?"] == (
        "Canvas: Q3 launch plan",
        "Grace Hopper",
    )
    # Not in canvases.json: the title the folder name carries.
    assert titles["Fewer meetings on Fridays."] == ("Canvas: Retro notes", "Grace Hopper")
    assert titles["Shipped the parser."][0] == "#general"
