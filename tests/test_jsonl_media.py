"""A JSON Lines turn's picture described beside its text (a caption, alt text) is searchable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import jsonl_items

from memtrails import Memory, MemoryRecord, from_jsonl


@pytest.mark.parametrize("key", ["blip_caption", "caption", "imageCaption", "alt_text", "altText"])
async def test_a_caption_beside_the_text_is_part_of_it(tmp_path: Path, key: str) -> None:
    # A long-conversation export shares photos as a short turn plus the image's caption under
    # a key of its own; the caption stayed in meta, where no search reaches.
    [record] = await jsonl_items(
        tmp_path / "chat.jsonl",
        [
            {
                "speaker": "Melanie",
                "text": "Here's the one I finished last week!",
                key: "a painting of a sunset over a lake",
            }
        ],
    )
    assert isinstance(record, MemoryRecord)
    assert "Here's the one I finished last week!" in record.text
    assert "a painting of a sunset over a lake" in record.text
    assert key not in record.meta


async def test_a_turn_that_is_only_a_picture_is_its_caption(tmp_path: Path) -> None:
    [record] = await jsonl_items(
        tmp_path / "chat.jsonl",
        [{"speaker": "Ann", "text": "", "captions": ["a red canoe on a trailer", "a lake"]}],
    )
    assert isinstance(record, MemoryRecord)
    assert record.text == "a red canoe on a trailer\na lake"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("description", "a ticket about the login page"),  # what a record is about, not media
        ("captioned_by", "Ann"),
        ("salt", "9f8e"),
        ("caption", 17),  # not words
    ],
)
async def test_other_fields_stay_in_meta(tmp_path: Path, key: str, value: Any) -> None:
    [record] = await jsonl_items(
        tmp_path / "notes.jsonl", [{"text": "Fixed the login page", key: value}]
    )
    assert isinstance(record, MemoryRecord)
    assert record.text == "Fixed the login page"
    assert record.meta[key] == value


async def test_a_text_field_the_caller_names_is_the_whole_text(tmp_path: Path) -> None:
    [record] = await jsonl_items(
        tmp_path / "chat.jsonl",
        [{"body": "Look!", "caption": "a heron"}],
        fields={"text": "body"},
    )
    assert isinstance(record, MemoryRecord)
    assert record.text == "Look!"
    assert record.meta["caption"] == "a heron"


async def test_a_question_about_what_a_photo_showed_finds_its_turn(
    tmp_path: Path, embedder: Any
) -> None:
    rows = [
        {"speaker": "Teo", "text": "How was the weekend?", "session": 1},
        {
            "speaker": "Maren",
            "text": "Look what turned up this morning!",
            "blip_caption": "a photo of a small green lizard on a flower pot",
            "session": 1,
        },
        {"speaker": "Teo", "text": "I watched a snake documentary last night.", "session": 1},
        {
            "speaker": "Maren",
            "text": "The flower pots on the balcony need repotting.",
            "session": 1,
        },
    ]
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    async with Memory.open(tmp_path / "memory", embedder=embedder) as memory:
        await memory.ingest(from_jsonl(path))
        hits = await memory.search("What lizard was sitting on the flower pot?", k=2)
    assert hits and hits[0].id == "chat.jsonl:2"
