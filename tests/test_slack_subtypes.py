"""Message subtypes of real Slack exports: hidden events dropped, built-in users named,
legacy calls read as huddles are (subtypes as Slack's "message" event reference lists them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export, message_count


def message(ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "user": "U1", "ts": ts, "text": text, **extra}


async def test_hidden_events_built_in_users_and_legacy_calls(tmp_path: Path) -> None:
    write_json(tmp_path / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(tmp_path / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(
        tmp_path / "general" / "2017-01-01.json",
        [
            message("1.000100", "parent", thread_ts="1.000100", reply_count=1),
            # Exports before 2018: the parent again, hidden, as its thread grew.
            {
                "type": "message",
                "subtype": "message_replied",
                "hidden": True,
                "ts": "2.000500",
                "message": message("1.000100", "parent", thread_ts="1.000100", reply_count=1),
            },
            message("2.000100", "reply", thread_ts="1.000100"),
            {"type": "message", "user": "USLACKBOT", "ts": "3.000100", "text": "Reminder: standup"},
            message("4.000100", "ask <@USLACKBOT>"),
            message(
                "5.000100",
                "",
                subtype="sh_room_created",
                room={"name": "design review", "participants": ["U1", "USLACKBOT"]},
            ),
        ],
    )
    items = await collect(from_slack_export(tmp_path))
    assert errors(items) == []
    recs = {r.meta["ts"]: r for r in records(items)}
    assert sorted(recs) == ["1.000100", "2.000100", "3.000100", "4.000100", "5.000100"]
    assert recs["3.000100"].author == "Slackbot"
    assert recs["4.000100"].text == "ask @Slackbot"
    assert recs["5.000100"].text == "[huddle: design review] with Ada Lovelace, Slackbot"
    assert message_count(tmp_path) == (5, 0)


async def test_a_users_json_cut_short_still_names_the_users_before_the_cut(
    tmp_path: Path,
) -> None:
    users = [{"id": f"U{k}", "name": f"u{k}", "real_name": f"Person {k}"} for k in range(1, 4)]
    data = json.dumps(users).encode()
    (tmp_path / "users.json").write_bytes(data[: data.index(b'{"id": "U3"') + 10])
    write_json(
        tmp_path / "general" / "2024-01-01.json",
        [message("1.000100", "hi <@U2>"), message("2.000100", "and <@U3>", user="U3")],
    )
    items = await collect(from_slack_export(tmp_path))
    (error,) = errors(items)
    assert error.where == "users.json"
    assert (
        error.reason.startswith("is not valid JSON (") and "; the 2 before it read" in error.reason
    )
    recs = {r.meta["ts"]: r for r in records(items)}
    assert (recs["1.000100"].author, recs["1.000100"].text) == ("Person 1", "hi @Person 2")
    assert (recs["2.000100"].author, recs["2.000100"].text) == ("U3", "and @U3")


async def test_a_mail_sent_to_slack_gives_its_words_not_its_html(tmp_path: Path) -> None:
    # Slack's file object for a mail forwarded to a channel: mode "email", an HTML preview
    # and its plain words in preview_plain_text.
    mail = {
        "id": "F1",
        "name": "Quarterly numbers",
        "title": "Quarterly numbers",
        "mode": "email",
        "subject": "Quarterly numbers",
        "preview": "<div><p>Revenue is <b>up</b> 4%.</p></div>",
        "preview_plain_text": "Revenue is up 4%.",
        "has_more": True,
    }
    write_json(tmp_path / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(
        tmp_path / "general" / "2024-01-01.json",
        [message("1.000100", "", subtype="file_share", files=[mail])],
    )
    (rec,) = records(await collect(from_slack_export(tmp_path)))
    assert rec.text == "[file: Quarterly numbers]\nRevenue is up 4%. …"
