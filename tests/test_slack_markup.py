"""Slack exports as real workspaces write them: apps' blocks beside a summary, and markup.

Markup follows Slack's "Formatting text for app surfaces" reference: ``<!subteam^ID>`` (a
user group, ``|@handle`` optional), ``<!here>``/``<!channel>``/``<!everyone>`` (exports
before 2017 write ``<!here|here>``), ``<!date^stamp^format^link|fallback>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export
from memtrails.records import MemoryRecord


def message(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


async def texts(root: Path, messages: list[dict[str, Any]]) -> dict[str, MemoryRecord]:
    write_json(root / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(root / "general" / "2024-01-01.json", messages)
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    return {r.meta["ts"]: r for r in records(items)}


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


async def test_an_apps_blocks_say_what_its_summary_text_does_not(tmp_path: Path) -> None:
    alert = [
        {"type": "header", "text": {"type": "plain_text", "text": "Build failed"}},
        section("Pipeline *deploy-prod* failed at step `migrate`: <https://ci.example/42|run 42>"),
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "Triggered by <@U1>"}]},
    ]
    recs = await texts(
        tmp_path,
        [
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B1",
                "username": "ci",
                "ts": "1.000001",
                "text": "Build failed",
                "blocks": alert,
            },
            # The blocks say only what the text says: nothing is added.
            {
                "type": "message",
                "subtype": "bot_message",
                "bot_id": "B1",
                "username": "ci",
                "ts": "1.000002",
                "text": "*Deploy* finished",
                "blocks": [section("Deploy finished")],
            },
            # A person's rich text mirrors the text: never said twice.
            message(
                "1.000003",
                "see *this*",
                blocks=[
                    {
                        "type": "rich_text",
                        "elements": [
                            {
                                "type": "rich_text_section",
                                "elements": [
                                    {"type": "text", "text": "see "},
                                    {"type": "text", "text": "this", "style": {"bold": True}},
                                ],
                            }
                        ],
                    }
                ],
            ),
        ],
    )
    assert recs["1.000001"].text == (
        "Build failed\n"
        "Pipeline *deploy-prod* failed at step `migrate`: run 42 (https://ci.example/42)\n"
        "Triggered by @Ada Lovelace"
    )
    assert recs["1.000002"].text == "*Deploy* finished"
    assert recs["1.000003"].text == "see *this*"


async def test_special_mentions_read_as_a_user_sees_them(tmp_path: Path) -> None:
    recs = await texts(
        tmp_path,
        [
            message("1.1", "ping <!subteam^S0614TZR7|@oncall> and <!subteam^S0614TZR7>"),
            message("1.2", "<!here> <!channel> <!everyone> <!here|here> <!channel|@channel>"),
            message("1.3", "due <!date^1392734382^{date_short}|Feb 18, 2014 PST>"),
            message("1.4", "due <!date^1392734382^{date_num} at {time}^https://x.example>"),
            message("1.5", "in <#C1|old-name>, <#C1>, <#C9|elsewhere>, <#C9>"),
            message("1.6", "cc <@U1|ada>, <@U2|bob>, <@U2>"),
        ],
    )
    # An unlabelled mention is named by the label another gives it in the same day file.
    assert recs["1.1"].text == "ping @oncall and @oncall"
    assert recs["1.2"].text == "@here @channel @everyone @here @channel"
    assert recs["1.3"].text == "due Feb 18, 2014 PST"
    # No fallback: its format filled in, in UTC.
    assert recs["1.4"].text == "due 2014-02-18 at 14:39"
    assert recs["1.5"].text == "in #general, #general, #elsewhere, #elsewhere"
    assert recs["1.6"].text == "cc @Ada Lovelace, @bob, @bob"


async def test_a_rich_text_date_without_fallback_is_a_date(tmp_path: Path) -> None:
    date = {"type": "date", "timestamp": 1392734382, "format": "{date_long}"}
    blocks = [
        {
            "type": "rich_text",
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": "on "}, date]}
            ],
        }
    ]
    recs = await texts(tmp_path, [message("1.1", "", blocks=blocks)])
    assert recs["1.1"].text == "on Tuesday, February 18th, 2014"


async def test_a_snippets_first_lines_are_in_its_message(corpora: Path) -> None:
    # The zulip corpus's file_share of a markdown snippet: Slack exports its first lines
    # as the file's `preview` (preview_is_truncated: the file goes on).
    export = corpora / "slack" / "zulip-test_slack_importer"
    items = await collect(from_slack_export(export))
    share = {r.id: r for r in records(items)}["random/1516457078.000065"]
    assert share.text.endswith(
        "[file: dirac72.md]\n#72. The fine-structure of the energy-levels of hydrogen\n\n"
        'We shall now takethe case ofthe hydrogen atom, for which A, = e/o",\n'
        "and work out its energy-levels, given by the eigenvalues H\u2019 of H.\n"
        "The equation (H '——H )1) = O which de\ufb01nes these eigenvalues, when …"
    )
    assert share.meta["files"] == [
        {"name": "dirac72.md", "title": "dirac72.md", "mimetype": "text/plain"}
    ]
