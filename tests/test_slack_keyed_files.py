"""Name files and day files saved as objects, not arrays: users or channels keyed by their id
(``{"U1": {...}}``, as a script of one's own writes them), a day file of one message or of
messages keyed by their ts; each read as the entries it holds, whole or a piece at a time."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import collect, errors, records, slack_message, slack_titles, write_json

from memtrails.importers.slack import _stream, from_slack_export, message_count


@pytest.mark.parametrize("streamed", [False, True])
async def test_name_files_keyed_by_id_name_people_and_channels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:  # every file read a piece at a time
        monkeypatch.setattr(_stream, "STREAM_BYTES", 64)
    root = tmp_path / "export"
    # Keyed by id, the id in the entry or not.
    write_json(
        root / "users.json",
        {
            "U1": {"id": "U1", "name": "ann", "real_name": "Ann Archer"},
            "U2": {"name": "bob", "real_name": "Bob Baker"},
        },
    )
    write_json(root / "channels.json", {"C0DESIGN": {"name": "design"}})
    write_json(root / "groups.json", {"ok": True, "groups": {"G0SECRET": {"name": "secret"}}})
    write_json(root / "dms.json", {"D0ANNBOB": {"members": ["U1", "U2"]}})
    write_json(root / "mpims.json", {"G0MPIM": {"name": "mpdm-x", "members": ["U1", "U2"]}})
    hello = slack_message("1704100000.000100", "hello <@U2> in <#C0DESIGN>")
    for folder in ("design", "secret", "D0ANNBOB", "mpdm-x"):
        write_json(root / folder / "2024-01-01.json", [hello])
    # A workspace of an Enterprise Grid export, its users keyed by id too.
    write_json(root / "teams/ws1/users.json", {"W1": {"real_name": "Wen Wu"}})
    write_json(root / "teams/ws1/channels.json", {"C0OPS": {"name": "ops"}})
    write_json(
        root / "teams/ws1/ops/2024-01-01.json", [slack_message("1704100000.000100", "hi", "W1")]
    )
    items = await collect(from_slack_export(root))
    assert errors(items) == []
    assert slack_titles(items) == {
        "design": {"#design"},
        "secret": {"#secret"},
        "D0ANNBOB": {"DM: Ann Archer, Bob Baker"},
        "mpdm-x": {"Group DM: Ann Archer, Bob Baker"},
        "teams/ws1/ops": {"#ops (ws1)"},
    }
    by_channel = {r.meta["channel"]: r for r in records(items)}
    assert by_channel["design"].text == "hello @Bob Baker in #design"
    assert by_channel["design"].author == "Ann Archer"
    assert by_channel["teams/ws1/ops"].author == "Wen Wu"


@pytest.mark.parametrize("streamed", [False, True])
async def test_a_day_file_of_one_message_or_of_messages_keyed_by_ts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, streamed: bool
) -> None:
    if streamed:
        monkeypatch.setattr(_stream, "STREAM_BYTES", 64)
    root = tmp_path / "export"
    write_json(root / "users.json", [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}])
    write_json(root / "general/2024-01-01.json", slack_message("1704100000.000100", "one alone"))
    write_json(
        root / "general/2024-01-02.json",
        {
            "1704200000.000100": {"type": "message", "user": "U1", "text": "keyed first"},
            "1704200000.000200": slack_message("1704200000.000200", "keyed second"),
        },
    )
    # An object that is neither is still no day file.
    write_json(root / "general/2024-01-03.json", {"ok": False, "error": "ratelimited"})
    items = await collect(from_slack_export(root))
    assert [(r.id, r.text, r.author) for r in records(items)] == [
        ("general/1704100000.000100", "one alone", "Ann Archer"),
        ("general/1704200000.000100", "keyed first", "Ann Archer"),
        ("general/1704200000.000200", "keyed second", "Ann Archer"),
    ]
    assert [(e.where, e.reason) for e in errors(items)] == [
        ("general/2024-01-03.json", "day file is not a JSON array")
    ]
    assert message_count(root) == (4, 0)
