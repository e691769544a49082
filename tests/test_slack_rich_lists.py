"""Rich-text lists read as Slack shows them: nested ones indented (however the export nests
them), ordered ones numbered per level (1., a., i.) and counted on after a nested list,
quotes and code blocks inside an item under its mark, a list inside a quote quoted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import collect, records, slack_export, slack_message

from memtrails.importers.slack import from_slack_export

USERS = [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}]


def section(text: str) -> dict[str, Any]:
    return {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}


def listed(style: str, items: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"type": "rich_text_list", "style": style, "elements": items, **extra}


async def text_of(tmp_path: Path, *elements: dict[str, Any]) -> str:
    rich = {"type": "rich_text", "elements": list(elements)}
    root = slack_export(
        tmp_path, {"general/2024-01-01": [slack_message("1.000100", "", blocks=[rich])]}, USERS
    )
    [record] = records(await collect(from_slack_export(root)))
    return record.text


async def test_slack_s_own_nesting_by_indent_numbers_each_level(tmp_path: Path) -> None:
    text = await text_of(
        tmp_path,
        section("Steps"),
        listed("ordered", [section("one"), section("two")]),
        listed("ordered", [section("two a"), section("two b")], indent=1),
        listed("ordered", [section("deep")], indent=2),
        # Slack continues the outer list after the nested one: `offset` items came before.
        listed("ordered", [section("three")], offset=2),
    )
    assert text.split("\n") == [
        "Steps",
        "1. one",
        "2. two",
        "  a. two a",
        "  b. two b",
        "    i. deep",
        "3. three",
    ]


async def test_a_list_inside_an_item_is_a_level_deeper_never_two_marks(tmp_path: Path) -> None:
    inner = listed("bullet", [section("inner"), listed("ordered", [section("innermost")])])
    text = await text_of(
        tmp_path, listed("bullet", [section("outer"), inner, section("outer two")])
    )
    assert text.split("\n") == ["- outer", "  - inner", "    i. innermost", "- outer two"]
    assert "- -" not in text and "- 1." not in text


async def test_quotes_and_code_inside_an_item_stay_under_its_mark(tmp_path: Path) -> None:
    quote = {"type": "rich_text_quote", "elements": [{"type": "text", "text": "said\nthis"}]}
    code = {
        "type": "rich_text_preformatted",
        "elements": [{"type": "text", "text": "git pull\ngit push"}],
    }
    text = await text_of(
        tmp_path,
        listed("ordered", [quote, code, section("line one\nline two")]),
        listed("bullet", [section("a quoted list")], border=1),
    )
    assert text.split("\n") == [
        "1. > said",
        "   > this",
        "2. git pull",
        "   git push",
        "3. line one",
        "   line two",
        "> - a quoted list",
    ]


async def test_many_items_and_levels_keep_counting(tmp_path: Path) -> None:
    items = [section(f"item {n}") for n in range(1, 31)]
    text = await text_of(
        tmp_path,
        listed("ordered", items[:1]),
        listed("ordered", items, indent=1),
        listed("ordered", items[:4], indent=2),
        listed("ordered", items[:2], indent=3),
    )
    lines = text.split("\n")
    assert (
        lines[1] == "  a. item 1" and lines[26] == "  z. item 26" and lines[27] == "  aa. item 27"
    )
    assert lines[31:35] == ["    i. item 1", "    ii. item 2", "    iii. item 3", "    iv. item 4"]
    assert lines[35:] == ["      1. item 1", "      2. item 2"]


async def test_an_offset_past_any_list_slack_makes_is_ignored(tmp_path: Path) -> None:
    # A hostile offset would make each item's number (a roman one: "m" a thousand) huge.
    text = await text_of(tmp_path, listed("ordered", [section("deep")], indent=2, offset=10**6))
    assert text == "    i. deep"
