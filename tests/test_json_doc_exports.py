"""Real exporters' JSON, built from their documented shapes (invented words): the records a
user sees are the messages, in the conversation's order, with their words as sent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from helpers import collect, errors, records

from memtrails.importers.json_doc import from_json


def _read(path: Path, data: str | bytes) -> list[Any]:
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return asyncio.run(collect(from_json(path)))  # type: ignore[arg-type]


def _node(nid: str, parent: str | None, kids: list[str], role: str | None, text: str) -> Any:
    message = None
    if role is not None:
        message = {
            "id": nid,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": 1700000000.0 + len(text),
            "content": {"content_type": "text", "parts": [text]},
            "metadata": {},
        }
    return {"id": nid, "message": message, "parent": parent, "children": kids}


# A ChatGPT conversation with an edited question (q1 -> q2) and a regenerated answer
# (a2 -> a3): its mapping written leaf first, as no order is promised.
_TREE = [
    _node("a3", "q2", [], "assistant", "Try Lisbon in May."),
    _node("a2", "q2", [], "assistant", "Try Porto (regenerated away)."),
    _node("q1", "sys", ["a1"], "user", "Where to go? (before the edit)"),
    _node("a1", "q1", [], "assistant", "An answer to the old question."),
    _node("q2", "sys", ["a2", "a3"], "user", "Where should we go in spring?"),
    _node("sys", "root", ["q1", "q2"], "system", ""),
    _node("root", None, ["sys"], None, ""),
]


def _chatgpt(current: str | None) -> str:
    conversation: dict[str, Any] = {
        "title": "Spring trip",
        "create_time": 1700000000.0,
        "mapping": {n["id"]: n for n in _TREE},
        "conversation_id": "c-1",
    }
    if current is not None:
        conversation["current_node"] = current
    return json.dumps([conversation])


def test_a_chatgpt_conversation_reads_the_branch_it_shows_in_order(tmp_path: Path) -> None:
    for current, last in (("a3", "Try Lisbon in May."), ("a2", "Try Porto (regenerated away).")):
        got = records(_read(tmp_path / "conversations.json", _chatgpt(current)))
        turns = [(r.author, r.text) for r in got if r.text]
        assert turns == [("user", "Where should we go in spring?"), ("assistant", last)]
    # Without current_node, the newest edit of each turn: what ChatGPT opens on.
    got = records(_read(tmp_path / "conversations.json", _chatgpt(None)))
    assert [r.text for r in got if r.text][-1] == "Try Lisbon in May."


def test_a_chatgpt_tree_whose_parents_loop_still_ends(tmp_path: Path) -> None:
    looped = [
        _node("x", "y", ["y"], "user", "first words"),
        _node("y", "x", ["x"], "assistant", "second words"),
    ]
    doc = [{"title": "loop", "mapping": {n["id"]: n for n in looped}, "current_node": "y"}]
    got = records(_read(tmp_path / "loop.json", json.dumps(doc)))
    assert [r.text for r in got] == ["first words", "second words"]


# Facebook and Instagram write each byte of UTF-8 as a character: "é" as "\u00c3\u00a9".
_MESSENGER = (
    '{"participants": [{"name": "Ren\\u00c3\\u00a9e"}, {"name": "Zo\\u00c3\\u00ab"}],'
    ' "messages": [{"sender_name": "Ren\\u00c3\\u00a9e", "timestamp_ms": 1600000000000,'
    ' "content": "Caf\\u00c3\\u00a9 demain \\u00f0\\u009f\\u0098\\u0080?",'
    ' "reactions": [{"reaction": "\\u00e2\\u009d\\u00a4", "actor": "Zo\\u00c3\\u00ab"}]},'
    ' {"sender_name": "Zo\\u00c3\\u00ab", "timestamp_ms": 1600000060000, "content": "Oui"}],'
    ' "title": "Ren\\u00c3\\u00a9e", "thread_path": "inbox/renee_1"}'
)


def test_a_messenger_export_s_escaped_utf8_reads_as_written(tmp_path: Path) -> None:
    first, second = records(_read(tmp_path / "message_1.json", _MESSENGER))
    assert (first.author, first.text, first.thread) == ("Renée", "Café demain 😀?", "Renée")
    assert second.author == "Zoë"
    assert first.meta["reactions"] == [{"reaction": "❤", "actor": "Zoë"}]


def test_real_accents_and_emoji_are_left_as_they_are(tmp_path: Path) -> None:
    doc = {"messages": [{"author": "Zoë", "text": "Ã© is mojibake, 😀 is not"}, {"text": "b"}]}
    first = records(_read(tmp_path / "plain.json", json.dumps(doc, ensure_ascii=False)))[0]
    assert (first.author, first.text) == ("Zoë", "Ã© is mojibake, 😀 is not")


def test_a_twitter_archive_s_tweets_js(tmp_path: Path) -> None:
    script = (
        "window.YTD.tweets.part0 = [ {\n"
        '  "tweet" : { "id_str" : "1050118621198921728", "full_text" : "Rowing at dawn",\n'
        '    "created_at" : "Wed Oct 10 20:19:24 +0000 2018" } },\n'
        '  { "tweet" : { "id_str" : "2", "full_text" : "Fog on the river",\n'
        '    "created_at" : "Thu Oct 11 20:19:24 +0000 2018" } } ];\n'
    )
    got = records(_read(tmp_path / "tweets.js", script))
    assert [(r.id, r.text, r.at and r.at.iso()) for r in got] == [
        ("1050118621198921728", "Rowing at dawn", "2018-10-10T20:19:24.000Z"),
        ("2", "Fog on the river", "2018-10-11T20:19:24.000Z"),
    ]


def test_an_html_body_is_read_as_its_words(tmp_path: Path) -> None:
    graph = {
        "value": [
            {
                "id": "1",
                "createdDateTime": "2023-01-01T10:00:00Z",
                "from": {"user": {"displayName": "Ann"}},
                "body": {"contentType": "html", "content": "<div><p>Hi &amp; <b>welcome</b></p>"},
            },
            {
                "id": "2",
                "from": {"user": {"displayName": "Bob"}},
                "body": {"contentType": "text", "content": "a <tag> typed as text"},
            },
            {"id": "3", "content": "<p>Teams&nbsp;export</p>", "messagetype": "RichText/Html"},
        ]
    }
    got = records(_read(tmp_path / "messages.json", json.dumps(graph)))
    assert [r.text for r in got] == ["Hi & welcome", "a <tag> typed as text", "Teams export"]


def test_a_hangouts_event_s_segments_are_one_message(tmp_path: Path) -> None:
    def event(eid: str, stamp: str, *segments: dict[str, str]) -> dict[str, Any]:
        return {
            "sender_id": {"gaia_id": "101", "chat_id": "101"},
            "timestamp": stamp,
            "chat_message": {"message_content": {"segment": list(segments)}},
            "event_id": eid,
            "event_type": "REGULAR_CHAT_MESSAGE",
        }

    doc = {
        "conversations": [
            {
                "conversation": {"conversation_id": {"id": "Ugx1"}},
                "events": [
                    event(
                        "e1",
                        "1400000000000000",
                        {"type": "TEXT", "text": "see "},
                        {"type": "LINK", "text": "example.org"},
                        {"type": "LINE_BREAK", "text": "\n"},
                        {"type": "TEXT", "text": "then call"},
                    ),
                    event("e2", "1400000060000000", {"type": "TEXT", "text": "ok"}),
                ],
            }
        ]
    }
    items = _read(tmp_path / "Hangouts.json", json.dumps(doc))
    assert not errors(items)
    got = records(items)
    assert [(r.text, r.at and r.at.iso()) for r in got] == [
        ("see example.org\nthen call", "2014-05-13T16:53:20.000Z"),
        ("ok", "2014-05-13T16:54:20.000Z"),
    ]
