"""What a reader of a Slack import sees: no empty records, no bare file ids, DMs by names."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export, message_count
from memtrails.records import SourceState

USERS = [
    {"id": "U1", "name": "ann", "real_name": "Ann Archer"},
    {"id": "U2", "name": "bob", "real_name": "Bob Baker"},
]


def _msg(ts: str, text: str = "", user: str = "U1", **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": user, "ts": ts, "text": text, **extra}


def _export(root: Path, days: dict[str, list[dict[str, Any]]], **names: Any) -> Path:
    write_json(root / "users.json", names.pop("users", USERS))
    for member, data in names.items():
        write_json(root / f"{member}.json", data)
    for where, messages in days.items():
        write_json(root / f"{where}.json", messages)
    return root


# -- messages that say nothing ----------------------------------------------------------------


async def test_messages_that_say_nothing_are_no_records_and_no_errors(tmp_path: Path) -> None:
    reaction = [{"name": "+1", "count": 2, "users": ["U1", "U2"]}]
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                _msg("1704100000.000100", "hello"),
                # What is left of a message whose file was removed: its reactions.
                _msg("1704100001.000100", reactions=reaction),
                _msg("1704100002.000100", "   ", reactions=reaction),
                # Blocks of no words, attachments of no text.
                _msg("1704100003.000100", blocks=[{"type": "divider"}]),
                _msg("1704100004.000100", attachments=[{"color": "36a64f"}]),
                {"type": "message", "user": "U1", "ts": "1704100005.000100"},
                _msg("1704100006.000100", "bye"),
            ]
        },
        channels=[{"id": "C1", "name": "general"}],
    )
    items = await collect(from_slack_export(root))
    recs = records(items)
    assert [r.text for r in recs] == ["hello", "bye"]
    assert errors(items) == []
    # The progress total is what the import then says it saw: two records.
    assert message_count(root) == (2, 0)
    assert [s.skipped for s in items if isinstance(s, SourceState)][-1] == 0


async def test_a_message_of_blocks_or_a_file_alone_is_still_a_record(tmp_path: Path) -> None:
    rich = [
        {
            "type": "rich_text",
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "user", "user_id": "U2"}]}
            ],
        }
    ]
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                _msg("1704100000.000100", blocks=rich),
                _msg("1704100001.000100", files=[{"id": "F1", "name": "plan.pdf"}]),
            ]
        },
    )
    recs = records(await collect(from_slack_export(root)))
    assert [r.text for r in recs] == ["@Bob Baker", "[file: plan.pdf]"]


# -- files without a name ------------------------------------------------------------------


async def test_a_file_without_a_name_is_told_by_what_it_is_never_its_id(tmp_path: Path) -> None:
    files = [
        {"id": "F0AAAAAAA1", "title": "Quarterly numbers"},
        {"id": "F0AAAAAAA2", "filetype": "png", "pretty_type": "PNG", "mimetype": "image/png"},
        {"id": "F0AAAAAAA3", "mimetype": "application/pdf"},
        {"id": "F0AAAAAAA4", "filetype": "gdoc"},
        {"id": "F0AAAAAAA5", "mode": "tombstone"},
        {"id": "F0AAAAAAA6", "mode": "hidden_by_limit"},
        {"id": "F0AAAAAAA7", "name": "  "},
        # Slack Connect: a file of another organization's, its details not exported.
        {"id": "F0AAAAAAA8", "mode": "file_access", "file_access": "check_file_info"},
        {"id": "F0AAAAAAA9", "file_access": "access_denied"},
        {"id": "F0AAAAAAA0", "file_access": "file_not_found"},
    ]
    root = _export(
        tmp_path / "export",
        {
            "general/2024-01-01": [
                _msg(f"170410000{n}.000100", files=[f]) for n, f in enumerate(files)
            ]
        },
    )
    recs = records(await collect(from_slack_export(root)))
    assert [r.text for r in recs] == [
        "[file: Quarterly numbers]",
        "[file: unnamed PNG]",
        "[file: unnamed application/pdf]",
        "[file: unnamed GDOC]",
        "[file: deleted]",
        "[file: hidden by the plan's limit]",
        "[file: unnamed]",
        "[file: shared from another organization]",
        "[file: not accessible]",
        "[file: deleted]",
    ]
    for r in recs:
        assert "F0AAAAAAA" not in r.text
        assert all("F0AAAAAAA" not in str(f["name"]) for f in r.meta["files"])


# -- DMs without dms.json ------------------------------------------------------------------


async def test_a_dm_without_dms_json_is_titled_by_who_wrote_in_it(tmp_path: Path) -> None:
    stranger = {"real_name": "Cleo Connect", "name": "cleo"}
    root = _export(
        tmp_path / "export",
        {
            "D01ABCDEFG/2024-01-01": [_msg("1704100000.000100", "hi Bob")],
            "D01ABCDEFG/2024-01-02": [_msg("1704200000.000100", "hi Ann", user="U2")],
            # Someone of another org (Slack Connect): named by the profile their messages carry.
            "D02ABCDEFG/2024-01-01": [
                _msg("1704100000.000200", "hello", user="W9", user_profile=stranger),
                _msg("1704100001.000200", "welcome"),
            ],
            # An export with dms.json but no members for the DM, and a group DM named by id.
            "D03ABCDEFG/2024-01-01": [_msg("1704100000.000300", "note", user="U2")],
            "G04ABCDEFG/2024-01-01": [
                _msg("1704100000.000400", "all", user="U2"),
                _msg("1704100001.000400", "here"),
            ],
            "general/2024-01-01": [_msg("1704100000.000500", "team")],
        },
        dms=[{"id": "D03ABCDEFG"}],
        mpims=[{"id": "G04ABCDEFG", "name": "G04ABCDEFG"}],
    )
    recs = records(await collect(from_slack_export(root)))
    titles = {r.meta["channel"]: r.title for r in recs}
    assert titles == {
        "D01ABCDEFG": "DM: Ann Archer, Bob Baker",
        "D02ABCDEFG": "DM: Ann Archer, Cleo Connect",
        "D03ABCDEFG": "DM: Bob Baker",
        "G04ABCDEFG": "Group DM: Ann Archer, Bob Baker",
        "general": "#general",
    }
    # Every record of a DM has its title, the first day's too (only Ann wrote that day).
    assert len({r.title for r in recs if r.meta["channel"] == "D01ABCDEFG"}) == 1


async def test_a_dm_title_stays_true_of_the_days_a_re_run_skips(tmp_path: Path) -> None:
    root = _export(
        tmp_path / "export",
        {
            "D01ABCDEFG/2024-01-01": [_msg("1704100000.000100", "anyone?")],
            "D01ABCDEFG/2024-01-02": [_msg("1704200000.000100", "hello?")],
            "D01ABCDEFG/2024-01-03": [_msg("1704300000.000100", "still here")],
        },
    )
    first = await collect(from_slack_export(root))
    assert {r.title for r in records(first)} == {"DM: Ann Archer"}
    state = [i for i in first if isinstance(i, SourceState)][-1].state

    # Nothing new: the earlier days are skipped, and the title is the same.
    again = await collect(from_slack_export(root, state=state))
    assert [r.text for r in records(again)] == ["still here"]
    assert {r.title for r in records(again)} == {"DM: Ann Archer"}

    # Bob answers on a new day: every record, the skipped days' too, gets the new title.
    write_json(root / "D01ABCDEFG" / "2024-01-04.json", [_msg("1704400000.000100", "yes", "U2")])
    assert message_count(root, state) == (4, 0)  # read whole: nothing skipped
    later = await collect(from_slack_export(root, state=state))
    assert [r.text for r in records(later)] == ["anyone?", "hello?", "still here", "yes"]
    assert {r.title for r in records(later)} == {"DM: Ann Archer, Bob Baker"}
    state = [i for i in later if isinstance(i, SourceState)][-1].state

    # Then again nothing new: the days before the last are skipped, the title kept.
    last = await collect(from_slack_export(root, state=state))
    assert [r.text for r in records(last)] == ["yes"]
    assert {r.title for r in records(last)} == {"DM: Ann Archer, Bob Baker"}
    assert message_count(root, state) == (4, 3)


# -- a channel renamed -----------------------------------------------------------------------


async def test_a_renamed_channel_leaves_no_record_of_the_run_with_its_old_title(
    tmp_path: Path,
) -> None:
    days = {
        "general/2024-01-01": [_msg("1704100000.000100", "first")],
        "general/2024-01-02": [_msg("1704200000.000100", "second")],
    }
    root = _export(tmp_path / "export", days, channels=[{"id": "C1", "name": "general"}])
    first = await collect(from_slack_export(root))
    state = [i for i in first if isinstance(i, SourceState)][-1].state
    # Renamed in Slack: the next export's channels.json and folder say the new name.
    (root / "general").rename(root / "lobby")
    write_json(root / "channels.json", [{"id": "C1", "name": "lobby"}])
    again = await collect(from_slack_export(root, state=state))
    end = [i for i in again if isinstance(i, SourceState)][-1]
    assert (end.mode, end.complete, end.skipped) == ("full", True, 0)
    assert [(r.text, r.title) for r in records(again)] == [
        ("first", "#lobby"),
        ("second", "#lobby"),
    ]


async def test_reading_who_wrote_in_dms_costs_a_zip_nothing_of_its_inflation_budget(
    tmp_path: Path,
) -> None:
    """DM day files are read twice (who wrote in them, then their records): their bytes
    count once against the zip's max_ratio, so an export within it imports whole."""
    words = "the same words again and again " * 3000  # about 90 KB a message, compressible
    zipped = tmp_path / "export.zip"
    inflated = 0
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("users.json", json.dumps(USERS))
        for n in range(30):
            day = json.dumps([_msg(f"17041{n:05d}.000100", words)])
            z.writestr(f"D{n:02d}ABCDEFG/2024-01-01.json", day)
            inflated += len(day)
    # A budget of 1.3 times what the export inflates to (past the 1 MiB every zip is given).
    ratio = (1.3 * inflated - (1 << 20)) / zipped.stat().st_size
    items = await collect(from_slack_export(zipped, max_ratio=ratio))
    assert errors(items) == []
    assert {r.title for r in records(items)} == {"DM: Ann Archer"}
    assert len(records(items)) == 30
