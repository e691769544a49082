"""Slack conversations and mentions that no name file names: named by what the export's
messages say, and where nothing does, by their id saying so, never a bare id that reads
like a channel's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, slack_export, slack_titles, write_json

from memtrails.importers.slack import _found, from_slack_export, message_count
from memtrails.records import SourceState

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]


def _msg(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text} | extra


def _rename(ts: str, old: str, new: str, subtype: str = "channel_name") -> dict[str, Any]:
    text = f'<@U1> has renamed the channel from "{old}" to "{new}"'
    return _msg(ts, text, subtype=subtype, old_name=old, name=new)


def _export(root: Path, days: dict[str, list[dict[str, Any]]], **names: Any) -> Path:
    return slack_export(root, days, USERS, **names)


_titles = slack_titles


async def test_a_folder_named_by_an_id_no_name_file_names_is_named_by_its_messages(
    tmp_path: Path,
) -> None:
    root = _export(
        tmp_path / "export",
        {
            # Renamed on its second day: every record has the name, the first day's too.
            "C0DESIGNXX/2024-01-01": [_msg("1704100000.000100", "mockups")],
            "C0DESIGNXX/2024-01-02": [_rename("1704200000.000100", "mocks", "design")],
            # A private channel of an older export, renamed: a channel, not "Group: ...".
            "G0SECRETXX/2024-01-01": [
                _rename("1704100000.000200", "x", "secret-plans", "group_name"),
                _msg("1704100001.000200", "budget"),
            ],
            # A tool that writes the channel's name into each message.
            "C0MARKETXX/2024-01-01": [_msg("1704100000.000300", "ads", channel_name="marketing")],
            # A message that mentions its own channel by name.
            "C0OPSXXXXX/2024-01-01": [_msg("1704100000.000400", "welcome to <#C0OPSXXXXX|ops>")],
            # Listed in channels.json, but with no name.
            "C0LISTEDXX/2024-01-01": [_msg("1704100000.000500", "listed")],
            # Nothing anywhere says its name.
            "C0UNKNOWNX/2024-01-01": [_msg("1704100000.000600", "who am I")],
            "general/2024-01-01": [
                _msg("1704100000.000700", "see <#C0DESIGNXX> and <#C0UNKNOWNX>")
            ],
        },
        channels=[{"id": "C1", "name": "general"}, {"id": "C0LISTEDXX"}],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert _titles(items) == {
        "C0DESIGNXX": {"#design"},
        "G0SECRETXX": {"#secret-plans"},
        "C0MARKETXX": {"#marketing"},
        "C0OPSXXXXX": {"#ops"},
        "C0LISTEDXX": {"#C0LISTEDXX (name not in the export)"},
        "C0UNKNOWNX": {"#C0UNKNOWNX (name not in the export)"},
        "general": {"#general"},
    }
    texts = {r.id: r.text for r in records(items)}
    assert texts["general/1704100000.000700"] == (
        "see #design and #C0UNKNOWNX (name not in the export)"
    )
    # Ids stay the folder's: a name found later changes no record's id.
    assert "C0DESIGNXX/1704100000.000100" in texts


async def test_a_name_found_in_a_new_day_file_retitles_the_records_of_the_days_skipped(
    tmp_path: Path,
) -> None:
    root = _export(
        tmp_path / "export",
        {
            "C0DESIGNXX/2024-01-01": [_msg("1704100000.000100", "one")],
            "C0DESIGNXX/2024-01-02": [_msg("1704200000.000100", "two")],
        },
    )
    first = await collect(from_slack_export(root))
    assert _titles(first) == {"C0DESIGNXX": {"#C0DESIGNXX (name not in the export)"}}
    state = first[-1]
    assert isinstance(state, SourceState)
    write_json(root / "C0DESIGNXX/2024-01-03.json", [_rename("1704300000.000100", "a", "design")])
    again = await collect(from_slack_export(root, state=state.state))
    final = again[-1]
    assert isinstance(final, SourceState) and final.mode == "full"
    assert final.why is not None and "names found in day files" in final.why
    assert _titles(again) == {"C0DESIGNXX": {"#design"}}
    assert len(records(again)) == 3
    assert message_count(root, final.state) == (3, 2)


async def test_every_mention_form_reads_as_a_person_reads_it(tmp_path: Path) -> None:
    text = (
        "<#G0PRIVATEX> <#G0PRIVATEX|secret> <#C0ELSEWHER|> <#C1> "
        "<!subteam^S0ONCALL> <!subteam^S0ONCALL|@oncall> "
        "<mailto:ann@example.com> <mailto:ann@example.com|Ann> "
        "<mailto:bob@example.com|bob@example.com> <https://example.com/a?b=1&amp;c=2|the doc> "
        # Slack links what looks like an address as it is typed: the words typed, once.
        "<http://example.com|example.com> <https://www.example.org/x/|www.example.org/x> "
        "<tel:+15551234|+1 555 1234> <tel:+15551234|+15551234> "
        # A person users.json does not name (another org's), named by another mention.
        "<@U0GUESTXX> <@U0GUESTXX|gina>"
    )
    rich = {
        "type": "rich_text",
        "elements": [
            {
                "type": "rich_text_section",
                "elements": [
                    {"type": "channel", "channel_id": "G0PRIVATEX"},
                    {"type": "text", "text": " "},
                    {"type": "usergroup", "usergroup_id": "S0ONCALL"},
                    {"type": "text", "text": " "},
                    {"type": "channel", "channel_id": "C0NOWHEREX"},
                    {"type": "text", "text": " "},
                    {"type": "user", "user_id": "U0GUESTXX"},
                    {"type": "text", "text": " "},
                    {"type": "link", "url": "mailto:ann@example.com", "text": "Ann"},
                    {"type": "text", "text": " "},
                    {"type": "link", "url": "http://example.com", "text": "example.com"},
                ],
            }
        ],
    }
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                _msg("1704100000.000100", text),
                _msg("1704100000.000200", "", blocks=[rich]),
            ],
            # Another day file: what the first one's labels said is not known here.
            "general/2024-01-02": [_msg("1704200000.000100", "<#G0PRIVATEX> again")],
        },
        channels=[{"id": "C1", "name": "general"}],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    texts = [r.text for r in records(items)]
    assert texts == [
        "#secret #secret #C0ELSEWHER (name not in the export) #general "
        "@oncall @oncall ann@example.com Ann (ann@example.com) bob@example.com "
        "the doc (https://example.com/a?b=1&c=2) http://example.com https://www.example.org/x/ "
        "+1 555 1234 (+15551234) +15551234 @gina @gina",
        "#secret @oncall #C0NOWHEREX (name not in the export) @gina Ann (ann@example.com) "
        "http://example.com",
        "#G0PRIVATEX (name not in the export) again",
    ]


async def test_a_message_with_an_empty_user_is_by_its_username(tmp_path: Path) -> None:
    # Integrations and older importers write "user": "" beside the name they post as.
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                _msg("1704100000.000100", "deployed", user="", username="deploy-hook"),
                _msg("1704100001.000100", "anonymous", user=" "),
            ]
        },
        channels=[{"id": "C1", "name": "general"}],
    )
    recs = records(await collect(from_slack_export(root)))
    assert [(r.author, r.text) for r in recs] == [("deploy-hook", "deployed"), (None, "anonymous")]
    assert all("user" not in r.meta for r in recs)


async def test_a_folder_named_by_an_id_is_named_by_mentions_of_it_elsewhere(
    tmp_path: Path,
) -> None:
    root = _export(
        tmp_path / "export",
        {
            "C0DESIGNXX/2024-01-01": [_msg("1704100000.000100", "mockups")],
            "C0DESIGNXX/2024-01-02": [_msg("1704200000.000100", "more mockups")],
            "general/2024-01-01": [
                _msg("1704100000.000200", "see <#C0DESIGNXX|design> and <#C0DESIGNXX>"),
                _msg("1704100000.000300", "<#C0DESIGNXX|design>, <#C0OTHERXXX|elsewhere>"),
            ],
            "random/2024-01-01": [_msg("1704100000.000400", "in <#C0DESIGNXX|old-name>")],
            # A day without the label: the folder's name, found in the others, names it.
            "random/2024-01-02": [_msg("1704200000.000400", "back to <#C0DESIGNXX>")],
        },
        channels=[{"id": "C1", "name": "general"}, {"id": "C2", "name": "random"}],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    # The label most mentions give it.
    assert _titles(items)["C0DESIGNXX"] == {"#design"}
    texts = {r.id: r.text for r in records(items)}
    assert texts["random/1704200000.000400"] == "back to #design"
    # Every mention of it by that name, as one of a channel channels.json names.
    assert texts["random/1704100000.000400"] == "in #design"


@pytest.mark.parametrize("size", [1, 5, 64, 10_000])
def test_mentions_across_pieces_are_found_once(size: int) -> None:
    text = "x <#C0DESIGNXX|d\u00e9sign> <#C0GENERALX|general> <#C1|short id> y"
    doc = json.dumps([_msg(f"17041000{n:02d}.000100", text) for n in range(20)]).encode()
    assert b"\\u00e9" in doc  # as json.dumps escapes it
    pieces = [doc[i : i + size] for i in range(0, len(doc), size)]
    found = list(_found._raw_labels(pieces))
    assert found == [("C0DESIGNXX", "d\u00e9sign"), ("C0GENERALX", "general")] * 20


async def test_a_dm_member_users_json_leaves_out_is_named_by_their_messages(
    tmp_path: Path,
) -> None:
    cleo = {"real_name": "Cleo Connect", "name": "cleo"}  # another org's (Slack Connect)
    root = _export(
        tmp_path / "export",
        {
            "D0CLEOXXXX/2024-01-01": [_msg("1704100000.000100", "hi Cleo")],
            "D0CLEOXXXX/2024-01-02": [
                _msg("1704200000.000100", "hi Ann", user="W0CLEOXXX", user_profile=cleo)
            ],
            "mpdm-ann--cleo--dan-1/2024-01-01": [_msg("1704100000.000200", "all three")],
        },
        dms=[{"id": "D0CLEOXXXX", "members": ["U1", "W0CLEOXXX"]}],
        mpims=[
            {
                "id": "G0MPDMXXXX",
                "name": "mpdm-ann--cleo--dan-1",
                "members": ["U1", "W0CLEOXXX", "W0DANXXXXX"],
            }
        ],
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert _titles(items) == {
        "D0CLEOXXXX": {"DM: Ann Archer, Cleo Connect"},
        # Cleo's name comes from the DM; Dan wrote nowhere: his id is all there is.
        "mpdm-ann--cleo--dan-1": {"Group DM: Ann Archer, Cleo Connect, W0DANXXXXX"},
    }
