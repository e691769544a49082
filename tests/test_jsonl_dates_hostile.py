"""JSON Lines: hostile date values that an earlier reading got wrong, each beside the
instant it stands for written as an ISO or a ``Date.parse`` form (so the tests hold in any
``TZ``)."""

# ruff: noqa: RUF001 (Cyrillic words, on purpose)

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memtrails.importers.jsonl import from_jsonl
from memtrails.records import At, MemoryRecord, RecordError, SourceState


async def _import(tmp_path: Path, rows: list[Any]) -> list[MemoryRecord | RecordError]:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [i async for i in from_jsonl(path) if not isinstance(i, SourceState)]


async def _times(tmp_path: Path, values: dict[str, Any], key: str = "date") -> dict[str, Any]:
    """Each value's time under ``key`` (an ``At``), or its error's reason."""
    rows = [{"id": name, "text": "t", key: value} for name, value in values.items()]
    got: dict[str, Any] = {}
    for item in await _import(tmp_path, rows):
        if isinstance(item, MemoryRecord):
            got[item.id] = item.at
        else:
            got[item.where] = item.reason
    return got


# A day's ordinal as other languages write it, beside the same day without it (local time).
_ORDINALS = {
    "fr-1er": ("1er mai 2024", "2024/05/01"),
    "fr-2e": ("2e mai 2024 10:00", "2024/05/02 10:00"),
    "fr-3eme": ("3ème mai 2024", "2024/05/03"),
    "es-1o": ("1º de mayo de 2024", "2024/05/01"),
    "it-1deg": ("1° maggio 2024", "2024/05/01"),
    "pt-1a": ("1.º de maio de 2024", "2024/05/01"),
    "nl-3de": ("3de mei 2024", "2024/05/03"),
    "nl-1ste": ("1ste mei 2024", "2024/05/01"),
    "sv-1a": ("1:a maj 2024", "2024/05/01"),
    "ru-3go": ("3-го мая 2024", "2024/05/03"),
    "ru-3e": ("3-е мая 2024 10:00", "2024/05/03 10:00"),
}


@pytest.mark.parametrize("name", sorted(_ORDINALS))
async def test_a_days_ordinal_in_another_language_is_that_day(tmp_path: Path, name: str) -> None:
    written, meant = _ORDINALS[name]
    got = await _times(tmp_path, {"r": written})
    assert got == {"r": At.of(meant)}, written  # before: the line was an error, and skipped
