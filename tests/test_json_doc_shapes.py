"""Chat exporters' JSON documents, each read one record per message with its author, time,
thread and text. The fixtures are invented, in each exporter's shape."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import collect, errors, records

from memtrails import At
from memtrails.importers.json_doc import from_json

DISCORD = {
    "guild": {"id": "81384788765712384", "name": "Rowing Club"},
    "channel": {"id": "81384788765712385", "type": "GuildTextChat", "name": "general"},
    "dateRange": {"after": None, "before": None},
    "messages": [
        {
            "id": "1093000000000000001",
            "type": "Default",
            "timestamp": "2023-04-01T09:30:00.000+00:00",
            "content": "Practice moves to the north dock on Saturday.",
            "author": {"id": "1", "name": "coach_mo", "nickname": "Mo", "isBot": False},
            "attachments": [],
            "reactions": [{"emoji": {"name": "👍"}, "count": 3}],
        },
        {
            "id": "1093000000000000002",
            "type": "Default",
            "timestamp": "2023-04-01T09:41:00.000+00:00",
            "content": "Will the trailer be there?",
            "author": {"id": "2", "name": "priya", "nickname": "Priya", "isBot": False},
            "attachments": [],
            "reactions": [],
        },
    ],
    "messageCount": 2,
}

MESSENGER = {
    "participants": [{"name": "Jonas Berg"}, {"name": "Lena Voss"}],
    "title": "Jonas Berg",
    "thread_path": "inbox/jonasberg_123",
    "messages": [
        {"sender_name": "Lena Voss", "timestamp_ms": 1685617200000, "content": "Landed in Porto!"},
        {
            "sender_name": "Jonas Berg",
            "timestamp_ms": 1685617500000,
            "content": "Send pictures of the tiles",
            "reactions": [{"reaction": "❤", "actor": "Lena Voss"}],
        },
        {"sender_name": "Lena Voss", "timestamp_ms": 1685617600000, "photos": [{"uri": "a.jpg"}]},
    ],
}

TELEGRAM = {
    "about": "Here is the data you requested.",
    "chats": {
        "about": "This page lists all chats from this export.",
        "list": [
            {
                "name": "Marta",
                "type": "personal_chat",
                "id": 4401,
                "messages": [
                    {
                        "id": 1,
                        "type": "message",
                        "date": "2023-09-10T18:02:11",
                        "date_unixtime": "1694368931",
                        "from": "Marta",
                        "from_id": "user4401",
                        "text": "The ferry leaves at 7",
                        "text_entities": [{"type": "plain", "text": "The ferry leaves at 7"}],
                    },
                    {
                        "id": 2,
                        "type": "message",
                        "date": "2023-09-10T18:03:40",
                        "from": "Sam",
                        "from_id": "user17",
                        "text": [
                            "Tickets are on ",
                            {"type": "link", "text": "ferries.example"},
                            " now",
                        ],
                        "text_entities": [
                            {"type": "plain", "text": "Tickets are on "},
                            {"type": "link", "text": "ferries.example"},
                            {"type": "plain", "text": " now"},
                        ],
                    },
                ],
            },
            {
                "name": "Book club",
                "type": "private_group",
                "id": 5502,
                "messages": [
                    {
                        "id": 1,
                        "type": "message",
                        "date": "2023-09-11T20:00:00",
                        "from": "Ines",
                        "text": "Next read: a novel about lighthouses",
                    }
                ],
            },
        ],
    },
}

GOOGLE_CHAT = {
    "messages": [
        {
            "creator": {"name": "Dana Okafor", "email": "dana@example.com", "user_type": "Human"},
            "created_date": "Tuesday, February 27, 2024 at 3:33:53 PM UTC",
            "text": "Standup moved to 10:30 tomorrow",
            "topic_id": "t1",
        },
        {
            "creator": {"name": "Felix Grün", "email": "felix@example.com", "user_type": "Human"},
            "created_date": "Tuesday, February 27, 2024 at 3:35:02 PM UTC",
            "text": "Thanks, noted",
            "topic_id": "t1",
        },
    ]
}


def _read(tmp_path: Path, name: str, data: Any) -> list[Any]:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return asyncio.run(collect(from_json(path)))  # type: ignore[arg-type]


def _rows(items: list[Any]) -> list[tuple[Any, ...]]:
    return [(r.id, r.author, r.at, r.thread, r.kind, r.text) for r in records(items)]


def test_a_discord_channel_export(tmp_path: Path) -> None:
    got = _read(tmp_path, "general.json", DISCORD)
    assert _rows(got) == [
        (
            "general/1093000000000000001",
            "coach_mo",
            At.of("2023-04-01T09:30:00Z"),
            "general",
            "chat",
            "Practice moves to the north dock on Saturday.",
        ),
        (
            "general/1093000000000000002",
            "priya",
            At.of("2023-04-01T09:41:00Z"),
            "general",
            "chat",
            "Will the trailer be there?",
        ),
    ]
    assert records(got)[0].meta["author_info"]["nickname"] == "Mo"


def test_a_messenger_thread(tmp_path: Path) -> None:
    got = _read(tmp_path, "message_1.json", MESSENGER)
    assert _rows(got)[:2] == [
        (
            "message_1.json:Jonas Berg[0]",
            "Lena Voss",
            At(1685617200000),
            "Jonas Berg",
            "chat",
            "Landed in Porto!",
        ),
        (
            "message_1.json:Jonas Berg[1]",
            "Jonas Berg",
            At(1685617500000),
            "Jonas Berg",
            "chat",
            "Send pictures of the tiles",
        ),
    ]
    # A photo without words is read, and left out as a record without text is (JSON Lines').
    assert len(records(got)) == 3 and errors(got) == []


def test_a_telegram_export_of_several_chats(tmp_path: Path) -> None:
    got = _read(tmp_path, "result.json", TELEGRAM)
    assert _rows(got) == [
        (
            "Marta/1",
            "Marta",
            At.of("2023-09-10T18:02:11"),
            "Marta",
            "chat",
            "The ferry leaves at 7",
        ),
        (
            "Marta/2",
            "Sam",
            At.of("2023-09-10T18:03:40"),
            "Marta",
            "chat",
            "Tickets are on ferries.example now",
        ),
        (
            "Book club/1",  # its message 1 is not Marta's
            "Ines",
            At.of("2023-09-11T20:00:00"),
            "Book club",
            "chat",
            "Next read: a novel about lighthouses",
        ),
    ]


def test_a_google_chat_export(tmp_path: Path) -> None:
    got = _read(tmp_path, "messages.json", GOOGLE_CHAT)
    assert [(r.author, r.at, r.text, r.kind) for r in records(got)] == [
        ("Dana Okafor", At.of("2024-02-27T15:33:53Z"), "Standup moved to 10:30 tomorrow", "chat"),
        ("Felix Grün", At.of("2024-02-27T15:35:02Z"), "Thanks, noted", "chat"),
    ]
    assert {r.thread for r in records(got)} == {"messages"}


@pytest.mark.parametrize("shape", ["discord", "telegram"])
def test_an_unchanged_export_reads_the_same_records_again(tmp_path: Path, shape: str) -> None:
    data = DISCORD if shape == "discord" else TELEGRAM
    first = records(_read(tmp_path, "a.json", data))
    assert records(_read(tmp_path, "a.json", data)) == first


CHATGPT = [
    {
        "title": "Sourdough help",
        "create_time": 1700000000.5,
        "mapping": {
            "root": {"id": "root", "message": None, "parent": None, "children": ["n1"]},
            "n1": {
                "id": "n1",
                "message": {
                    "id": "n1",
                    "author": {"role": "user", "name": None},
                    "create_time": 1700000001.0,
                    "content": {"content_type": "text", "parts": ["Why is my starter flat?"]},
                },
                "parent": "root",
                "children": ["n2"],
            },
            "n2": {
                "id": "n2",
                "message": {
                    "id": "n2",
                    "author": {"role": "assistant", "name": None},
                    "create_time": 1700000005.0,
                    "content": {"content_type": "text", "parts": ["Your kitchen may be cold."]},
                },
                "parent": "n1",
                "children": [],
            },
        },
    }
]


def test_a_conversation_whose_messages_are_a_mapping_of_wrapped_nodes(tmp_path: Path) -> None:
    got = records(_read(tmp_path, "conversations.json", CHATGPT))
    assert [(r.id, r.author, r.at, r.thread, r.kind, r.text) for r in got if r.text] == [
        (
            "Sourdough help/n1",
            "user",
            At(1700000001000),
            "Sourdough help",
            "chat",
            "Why is my starter flat?",
        ),
        (
            "Sourdough help/n2",
            "assistant",
            At(1700000005000),
            "Sourdough help",
            "chat",
            "Your kitchen may be cold.",
        ),
    ]
    # The root node has no text: a record without any, left out as a JSON Lines line is.
    assert [r.text for r in got if r.id == "Sourdough help/root"] == [""]


def test_items_wrapped_in_an_object_with_a_post_text(tmp_path: Path) -> None:
    tweets = [
        {
            "tweet": {
                "id_str": "1650",
                "full_text": "Rowing at dawn",
                "created_at": "2023-04-24T06:10:00Z",
            }
        },
        {
            "tweet": {
                "id_str": "1651",
                "full_text": "The lake was glass",
                "created_at": "2023-04-24T06:30:00Z",
            }
        },
    ]
    got = records(_read(tmp_path, "tweets.json", tweets))
    assert [(r.id, r.at, r.text) for r in got] == [
        ("1650", At.of("2023-04-24T06:10:00Z"), "Rowing at dawn"),
        ("1651", At.of("2023-04-24T06:30:00Z"), "The lake was glass"),
    ]


def test_a_dataset_of_turns_whose_text_is_their_value(tmp_path: Path) -> None:
    samples = [
        {
            "id": "s1",
            "conversations": [
                {"from": "human", "value": "How do I tie a bowline?"},
                {"from": "gpt", "value": "Make a small loop first."},
            ],
        },
        {"id": "s2", "conversations": [{"from": "human", "value": "Which knot for a cleat?"}]},
        # A setting's value has no author: it is no turn.
        {"id": "s3", "settings": [{"name": "temperature", "value": "0.7"}]},
    ]
    got = records(_read(tmp_path, "sharegpt.json", samples))
    assert [(r.id, r.author, r.thread, r.kind, r.text) for r in got] == [
        ("sharegpt.json:s1[0]", "human", "s1", "chat", "How do I tie a bowline?"),
        ("sharegpt.json:s1[1]", "gpt", "s1", "chat", "Make a small loop first."),
        ("sharegpt.json:s2[0]", "human", "s2", "chat", "Which knot for a cleat?"),
    ]


def test_a_room_whose_events_hold_their_text_in_an_object(tmp_path: Path) -> None:
    room = {
        "room_name": "Boat repairs",
        "messages": [
            {
                "type": "m.room.message",
                "sender": "@ann:example.org",
                "origin_server_ts": 1600000000000,
                "event_id": "$a1",
                "content": {"msgtype": "m.text", "body": "Epoxy arrives Monday"},
            },
            {
                "type": "m.room.member",
                "sender": "@bo:example.org",
                "origin_server_ts": 1600000100000,
                "event_id": "$a2",
                "content": {"membership": "join"},
            },
        ],
    }
    got = [r for r in records(_read(tmp_path, "room.json", room)) if r.text]
    assert [(r.id, r.author, r.thread, r.at, r.kind, r.text) for r in got] == [
        (
            "Boat repairs/$a1",
            "@ann:example.org",
            "Boat repairs",
            At(1600000000000),
            "chat",
            "Epoxy arrives Monday",
        )
    ]


def test_messages_whose_author_and_body_are_objects(tmp_path: Path) -> None:
    graph = {
        "value": [
            {
                "id": "171",
                "createdDateTime": "2024-05-02T09:00:00Z",
                "from": {"user": {"id": "u1", "displayName": "Kai Lund"}},
                "body": {"contentType": "text", "content": "Deploy at noon"},
            }
        ]
    }
    [record] = records(_read(tmp_path, "teams.json", graph))
    assert (record.author, record.at, record.text) == (
        "Kai Lund",
        At.of("2024-05-02T09:00:00Z"),
        "Deploy at noon",
    )


def test_two_chats_of_one_name_keep_their_messages_apart(tmp_path: Path) -> None:
    chat = {"name": "Alice", "type": "personal_chat", "messages": []}
    export = {
        "chats": {
            "list": [
                {**chat, "id": 1, "messages": [{"id": 1, "from": "Alice", "text": "first Alice"}]},
                {**chat, "id": 2, "messages": [{"id": 1, "from": "Alice", "text": "second Alice"}]},
            ]
        }
    }
    got = records(_read(tmp_path, "result.json", export))
    assert [(r.id, r.thread, r.text) for r in got] == [
        ("Alice/1", "Alice", "first Alice"),
        ("Alice#2/1", "Alice#2", "second Alice"),
    ]
