"""Hostile or odd Slack messages: thousands of reactions or nameless files, a bot's attachment
of a pretext, fields and a fallback alone, a thread whose parent is in a later day file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import collect, errors, records, slack_export

from memtrails.importers.slack import from_slack_export

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]


def message(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


async def test_many_reactions_and_nameless_files_stay_small(tmp_path: Path) -> None:
    many = [{"name": f"emoji{n}", "count": 1, "users": ["U1"]} for n in range(10_000)]
    nameless = [{"id": f"F{n}", "filetype": "png"} for n in range(5_000)]
    root = slack_export(
        tmp_path,
        {
            "general/2024-01-01": [
                message("1.000100", "reacted to", reactions=many),
                message("2.000100", "", files=[*nameless, {"id": "F9", "name": "plan.pdf"}]),
                # Entries that name nothing at all: no file to note, so no record.
                message("3.000100", "", files=[{}, {"id": None}]),
            ]
        },
        USERS,
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    reacted, shared = records(items)
    assert len(reacted.meta["reactions"]) == 100
    assert reacted.meta["reactions"][0] == {"name": "emoji0", "count": 1}
    assert reacted.meta["reactions_left_out"] == 9_900
    assert shared.text == "[5000 files: unnamed PNG]\n[file: plan.pdf]"


async def test_a_bots_attachment_says_what_its_fallback_says(tmp_path: Path) -> None:
    bot = {"subtype": "bot_message", "bot_id": "B1", "username": "ci"}
    root = slack_export(
        tmp_path,
        {
            "builds/2024-01-01": [
                message(
                    "1.000100",
                    "",
                    **bot,
                    attachments=[
                        {
                            "fallback": "Build 12 failed on main",
                            "pretext": "Nightly build",
                            "fields": [{"title": "Branch", "value": "main"}],
                        }
                    ],
                ),
                # A fallback that says nothing its pretext does not is not said twice.
                message(
                    "2.000100",
                    "",
                    **bot,
                    attachments=[{"fallback": "Deploy done", "pretext": "Deploy done"}],
                ),
                # A fallback of no words at all is still what the attachment says.
                message("3.000100", "", **bot, attachments=[{"fallback": "\U0001f389"}]),
            ]
        },
        USERS,
    )
    texts = [r.text for r in records(await collect(from_slack_export(root)))]
    assert texts == [
        "Nightly build\nBuild 12 failed on main\nBranch: main",
        "Deploy done",
        "\U0001f389",
    ]


async def test_a_reply_before_its_parents_day_file_is_in_its_thread(tmp_path: Path) -> None:
    # Does not depend on order: a reply's thread is its thread_ts, the parent's its ts.
    root = slack_export(
        tmp_path,
        {
            "general/2024-01-01": [message("200.000100", "the reply", thread_ts="300.000100")],
            "general/2024-01-02": [
                message("300.000100", "the parent", thread_ts="300.000100", reply_count=1)
            ],
        },
        USERS,
    )
    threads = {r.text: r.thread for r in records(await collect(from_slack_export(root)))}
    assert threads == {"the reply": "general/300.000100", "the parent": "general/300.000100"}


async def test_a_message_of_blocks_alone_reads_as_slack_shows_it(tmp_path: Path) -> None:
    def section(text: str) -> dict[str, Any]:
        return {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}

    rich = {
        "type": "rich_text",
        "elements": [
            section("Plan"),
            {"type": "rich_text_list", "style": "ordered", "elements": [section("first")]},
            {
                "type": "rich_text_list",
                "style": "bullet",
                "indent": 1,
                "elements": [section("sub")],
            },
            {"type": "rich_text_quote", "elements": [{"type": "text", "text": "he said\nthis"}]},
            {"type": "rich_text_preformatted", "elements": [{"type": "text", "text": "git push"}]},
        ],
    }
    root = slack_export(
        tmp_path, {"general/2024-01-01": [message("1.000100", "", blocks=[rich])]}, USERS
    )
    [record] = records(await collect(from_slack_export(root)))
    # A quote is someone else's words: marked as the message's text would mark it.
    assert record.text == "Plan\n1. first\n  - sub\n> he said\n> this\ngit push"
