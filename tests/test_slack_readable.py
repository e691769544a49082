"""What a reader of a Slack import sees: no empty records, no bare file ids, DMs by names."""

from __future__ import annotations

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
    ]
    for r in recs:
        assert "F0AAAAAAA" not in r.text
        assert all("F0AAAAAAA" not in str(f["name"]) for f in r.meta["files"])
