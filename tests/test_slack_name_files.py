"""A Slack name file (users.json, channels.json...) reads the same whatever its size: one way,
a piece at a time, so a large org's users.json is never held whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import _stream, from_slack_export
from memtrails.records import SourceState

USERS = [{"id": f"U{n}", "name": f"u{n}", "real_name": f"Person {n}"} for n in range(40)]
_JSON = json.dumps(USERS, indent=1)

SHAPES: dict[str, bytes] = {
    "utf-8": _JSON.encode(),
    "utf-8 with a byte order mark": b"\xef\xbb\xbf" + _JSON.encode(),
    "utf-16 with a byte order mark": _JSON.encode("utf-16"),
    "utf-16-le without one": _JSON.encode("utf-16-le"),
    "utf-32 with a byte order mark": _JSON.encode("utf-32"),
    "cut short": _JSON.encode()[: len(_JSON) // 2],
    # An object, but not the Web API's answer holding the array ({"members": [...]}).
    "not an array": b'{"ok": false, "error": "not_authed"}',
    "empty": b"",
    "not utf-8": _JSON.encode()[:400] + b"\xff\xfe" + _JSON.encode()[400:],
}


async def _read(root: Path) -> tuple[list[tuple[str, str | None]], list[str], Any]:
    items = await collect(from_slack_export(root))
    state = [i for i in items if isinstance(i, SourceState)][-1].state
    found = [(r.text, r.author) for r in records(items)]
    return found, [f"{e.where}: {e.reason}" for e in errors(items)], state["metadata"]


@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_a_name_file_reads_the_same_small_or_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    root = tmp_path / "export"
    root.mkdir()
    (root / "users.json").write_bytes(SHAPES[shape])
    write_json(
        root / "general" / "2024-01-01.json",
        [
            {"type": "message", "user": f"U{n}", "ts": f"17041000{n:02d}.000100", "text": "hi"}
            for n in (0, 5, 39)
        ],
    )
    small = await _read(root)
    monkeypatch.setattr(_stream, "STREAM_BYTES", 64)  # now read as a large org's would be
    large = await _read(root)
    assert large == small
    authors = [author for _, author in small[0]]
    if shape.startswith("utf"):
        assert small[1] == []
        assert authors == ["Person 0", "Person 5", "Person 39"]
    else:
        assert len(small[1]) == 1 and small[1][0].startswith("users.json: ")
    if shape == "cut short":
        assert authors[:2] == ["Person 0", "Person 5"]  # the entries before the break
        assert "before it read" in small[1][0]
