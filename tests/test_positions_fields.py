"""What sources.json's entries keep when read back: a field of the wrong type is dropped, as if
never written, and an entry with no position (``state``) is no entry."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memtrails.folder.positions import LOG_MARK, Positions

STATE = {"offset": 10}


@pytest.mark.parametrize(
    ("entry", "kept"),
    [
        (
            {"state": STATE, "mode": "full", "saved": 1.5, "complete": True},
            {"state": STATE, "mode": "full", "saved": 1.5, "complete": True},
        ),
        ({"state": STATE, "saved": 1700000000}, {"state": STATE, "saved": 1700000000}),
        # JSON's true is no time, 1 no flag, 7 no mode
        ({"state": STATE, "saved": True, "complete": 1, "mode": 7}, {"state": STATE}),
        ({"state": STATE, "saved": "yesterday", "mode": None}, {"state": STATE}),
        ({"state": STATE, "complete": False}, {"state": STATE, "complete": False}),
        # a field this version does not know is kept as it is
        ({"state": STATE, "note": [1, 2]}, {"state": STATE, "note": [1, 2]}),
    ],
)
def test_a_field_of_the_wrong_type_is_dropped(
    tmp_path: Path, entry: dict[str, Any], kept: dict[str, Any]
) -> None:
    positions = Positions(tmp_path, {"a": entry})
    assert positions.entries() == {"a": kept}
    assert positions.get("a") == STATE


@pytest.mark.parametrize("entry", ["junk", ["state", {}], {"state": 5}, {"mode": "full"}, None])
def test_an_entry_without_a_position_is_left_out(tmp_path: Path, entry: Any) -> None:
    positions = Positions(tmp_path, {"a": entry, "b": {"state": STATE}, LOG_MARK: {"size": 1}})
    assert positions.entries() == {"b": {"state": STATE}}
    assert positions.get("a") is None and positions.log_mark == {"size": 1}
