"""Where a JSON document's records are: its arrays of objects that hold text, what names
each array (its thread) and what dates it.

An exporter's document wraps its messages in context: a Discord channel, a Telegram chat,
a research sample's sessions. The arrays are found by what their objects hold, not by the
exporter's key names, so that shapes nobody has seen yet are read too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from ..records import At
from ._json_doc_text import PIECE_KEYS, plain_text
from ._jsonl_dates import DATE_KEYS, record_time
from ._jsonl_ids import ID_KEYS
from .jsonl import _DEFAULTS

__all__ = [
    "MORE_TEXT_KEYS",
    "TEXT_KEYS",
    "Found",
    "collection",
    "find_arrays",
    "is_record_array",
    "plain_text",
    "record_arrays",
    "spoken_value",
    "textual",
]

TEXT_KEYS = _DEFAULTS["text"]  # from_jsonl's text defaults
# What a post's text is under where none of those is: a tweet's, a Reddit post's.
MORE_TEXT_KEYS = ("full_text", "selftext", "plain_text")
# What labels an object that encloses records (a chat, a sample, a channel), best first.
_LABEL_KEYS = (
    "name", "title", "subject", "topic", "display_name", "displayName", "room_name",
    "channel_name", "chat_name", "group_name", "thread_name", "conversation_name", "sample_id",
    "conversation_id", "chat_id", "thread_id", "channel_id", "session_id", "id", "uuid", "_id",
)  # fmt: skip
# An object without a label of its own is named by the one it describes (Discord's
# ``{"guild":.., "channel": {"name": "general"}, "messages": [..]}``); a server or guild is
# wider than the conversation and names none.
_CONTEXT_CHILDREN = ("channel", "chat", "conversation", "thread", "room", "group", "space")
# A key beside an array that dates it: ``session_2_date_time`` beside ``session_2``.
_TIME_SUFFIXES = ("_date_time", "_datetime", "_date", "_time", "_timestamp", "_at")
# An array under such a key holds a conversation's turns (a record with an author is a chat
# turn, whatever its author key is called).
_CHAT_ARRAY = re.compile(r"message|turn|chat|dialog|utterance|conversation|session|repl", re.I)
_LABEL_LONGEST = 200  # a longer "name" is prose, not a label
# from_jsonl's author defaults first, then what exporters write instead.
AUTHOR_KEYS = (
    *_DEFAULTS["author"], "creator", "sender_name",
    "author_name", "from_name", "user_name", "username", "screen_name", "displayName",
)  # fmt: skip
# What a reply has and a piece of formatted text (Telegram's text_entities, a content block)
# has not: an id, an author or a time of its own.
_OWN = frozenset((*ID_KEYS, *AUTHOR_KEYS, *DATE_KEYS))


@dataclass(frozen=True, slots=True)
class Found:
    """One record array: its items, the thread its records take, the raw value that dates
    the items that have no time of their own, and whether it holds a conversation."""

    items: list[Any]
    thread: str | None
    when: At | None
    chat: bool
    by_text: bool = True  # found by its objects' text: one without is no record's text


def _has_text(obj: Mapping[str, Any], extra: tuple[str, ...] = ()) -> bool | None:
    """True: a text key with words; False: a text key, empty (a photo, a sticker); None: none."""
    for key in (*extra, *TEXT_KEYS, *MORE_TEXT_KEYS):
        if key in obj:
            value = obj[key]
            if isinstance(value, str):
                return bool(value.strip())
            if isinstance(value, list | dict):
                joined = plain_text(value)
                if joined is not None:
                    return bool(joined.strip())
                if isinstance(value, list) and all(isinstance(v, str) for v in value):
                    return any(v.strip() for v in value)
    for key in PIECE_KEYS:
        if isinstance(obj.get(key), list) and (joined := plain_text(obj[key])) is not None:
            return bool(joined.strip())
    if spoken_value(obj):
        return bool(obj["value"].strip())
    return None


def spoken_value(obj: Mapping[str, Any]) -> bool:
    """Whether a turn's text is its ``value`` (ShareGPT's ``{"from": "human", "value": ..}``):
    a string there beside an author, where a setting's value has none."""
    return isinstance(obj.get("value"), str) and any(k in obj for k in AUTHOR_KEYS)


def textual(
    obj: Mapping[str, Any], extra: tuple[str, ...] = ()
) -> tuple[str | None, Mapping[str, Any]] | None:
    """Return where an object's text is: ``(None, obj)`` when it has a text key, ``(key,
    child)`` when an object under one of its keys has (a tweet's ``{"tweet": {..}}``, a
    ChatGPT node's ``message``, a Reddit listing's ``data``; deeper, Hangouts' event's
    ``chat_message.message_content``), or None."""
    if _has_text(obj, extra) is not None:
        return None, obj
    for key, value in obj.items():
        if isinstance(value, dict) and (inner := _text_within(value, _WRAPS, extra)) is not None:
            return key, inner
    return None


_WRAPS = 3  # how deep a record's text may sit in wrappers (event.chat_message.message_content)


def _text_within(
    obj: Mapping[str, Any], depth: int, extra: tuple[str, ...]
) -> Mapping[str, Any] | None:
    if _has_text(obj, extra) is not None:
        return obj
    if depth > 1 and not (len(obj) > 1 and all(isinstance(v, dict) for v in obj.values())):
        # (not into a mapping of records: a conversation's ``mapping`` is no wrapper)
        for value in obj.values():
            if (
                isinstance(value, dict)
                and (inner := _text_within(value, depth - 1, extra)) is not None
            ):
                return inner
    return None


def is_record_array(value: Any, extra: tuple[str, ...] = ()) -> bool:
    """Whether a JSON value is an array of records: mostly objects, half at least with a text
    key (empty in some: a photo without caption; none in a few: a member joined), and one at
    least with words."""
    if not isinstance(value, list) or not value:
        return False
    objects = [v for v in value if isinstance(v, dict)]
    if 2 * len(objects) < len(value):
        return False
    texts = [
        _has_text(t[1], extra) if (t := textual(o, extra)) is not None else None for o in objects
    ]
    keyed = sum(t is not None for t in texts)
    return 2 * keyed >= len(objects) and any(texts)


def collection(value: Any, current: Any = None, extra: tuple[str, ...] = ()) -> list[Any] | None:
    """The records of an array of them, or of an object that maps ids to them (ChatGPT's
    ``mapping`` of message nodes); None when ``value`` holds none.

    A mapping of nodes that name their ``parent`` and ``children`` is a conversation's tree
    of edits and regenerations: its records are the branch the conversation shows, root
    first, up to ``current`` (ChatGPT's ``current_node``), else along each node's last child.
    """
    if isinstance(value, dict):
        if len(value) < 2 or not all(isinstance(v, dict) for v in value.values()):
            return None
        value = _branch(value, current) or list(value.values())
    return value if is_record_array(value, extra) else None


def _branch(nodes: Mapping[str, Any], current: Any) -> list[Any] | None:
    """The nodes from the root to ``current`` (or to the last child's last child), in order;
    None when ``nodes`` is not such a tree (a node without a parent or children key)."""
    if not all("parent" in n and isinstance(n.get("children"), list) for n in nodes.values()):
        return None
    if not isinstance(current, str) or current not in nodes:
        roots = [k for k, n in nodes.items() if n.get("parent") not in nodes]
        if not roots:
            return None
        current = roots[0]
        seen = {current}
        while True:  # down the newest edit at each turn
            kids = [c for c in nodes[current]["children"] if isinstance(c, str) and c in nodes]
            if not kids or kids[-1] in seen:
                break
            current = kids[-1]
            seen.add(current)
    path: list[Any] = []
    on_path: set[str] = set()
    while isinstance(current, str) and current in nodes and current not in on_path:
        on_path.add(current)  # a parent loop (a damaged file) ends the walk
        path.append(nodes[current])
        current = nodes[current].get("parent")
    path.reverse()
    return path


def record_arrays(
    obj: Mapping[str, Any], in_record: bool, extra: tuple[str, ...] = ()
) -> list[str]:
    """Return the keys of an object's record arrays; inside a record (``in_record``), only
    those whose objects have an id, an author or a time: its replies, not its text's pieces."""
    keys = []
    for key, value in obj.items():
        if in_record and key in TEXT_KEYS:
            continue
        items = collection(value, None, extra)
        if items is not None and (not in_record or _own_records(items)):
            keys.append(key)
    return keys


def _own_records(items: list[Any]) -> bool:
    objects = [v for v in items if isinstance(v, dict)]
    return 2 * sum(not _OWN.isdisjoint(o) for o in objects) > len(objects)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value.strip() and len(value) <= _LABEL_LONGEST:
        return value.strip()
    return None


def _label(obj: Mapping[str, Any]) -> str | None:
    for key in _LABEL_KEYS:
        if (label := _scalar(obj.get(key))) is not None:
            return label
    for key in _CONTEXT_CHILDREN:
        child = obj.get(key)
        if isinstance(child, dict):
            for name in _LABEL_KEYS:
                if (label := _scalar(child.get(name))) is not None:
                    return label
    return None


def _time_of(value: Any) -> At | None:
    with suppress(ValueError, TypeError):
        return record_time({"at": value}, "at")[1]
    return None


def _when(chain: list[tuple[Mapping[str, Any], str | None]]) -> At | None:
    """The time of an array's items that have none: the key beside it that names its time,
    else the nearest enclosing object's own date."""
    owner, key = chain[-1]
    if key is not None:
        for suffix in _TIME_SUFFIXES:
            if key + suffix in owner and (at := _time_of(owner[key + suffix])) is not None:
                return at
    for obj, _ in reversed(chain):
        with suppress(ValueError, TypeError):
            at = record_time(
                {k: v for k, v in obj.items() if not isinstance(v, dict | list)}, None
            )[1]
            if at is not None:
                return at
    return None


def find_arrays(doc: Any, max_depth: int, extra: tuple[str, ...] = ()) -> list[Found]:
    """Return the document's record arrays, in document order, each with its context.

    An array is looked into for more arrays (a comment's replies), and so is each of its
    records; nothing deeper than ``max_depth`` is looked at. ``extra``: text keys looked
    for before the defaults (the one ``fields`` maps ``text`` to).
    """
    found: list[Found] = []
    taken: dict[str, int] = {}

    def thread_of(parts: list[str]) -> str | None:
        if not parts:
            return None
        name = "/".join(parts)
        taken[name] = taken.get(name, 0) + 1
        # Two chats of the same name are two threads (and two sets of record ids).
        return name if taken[name] == 1 else f"{name}#{taken[name]}"

    def visit(
        value: Any,
        parts: list[str],
        chain: list[tuple[Mapping[str, Any], str | None]],
        depth: int,
        in_record: bool = False,
    ) -> None:
        if depth > max_depth:
            return
        if isinstance(value, dict):
            label = _label(value)
            here = [*parts, label] if label is not None else parts
            arrays = record_arrays(value, in_record, extra)
            for key, child in value.items():
                if not isinstance(child, dict | list):
                    continue
                items = (
                    collection(child, value.get("current_node"), extra) if key in arrays else None
                )
                if items is not None:
                    # A labelled object's one array is the object's (a chat's messages);
                    # else each array is named by its key (a sample's sessions).
                    named = here if label is not None and len(arrays) == 1 else [*here, str(key)]
                    at = _when([*chain, (value, str(key))])
                    chat = bool(_CHAT_ARRAY.search(str(key)))
                    thread = thread_of(named)
                    found.append(Found(items, thread, at, chat))
                    base = [thread] if thread is not None else []
                    for n, item in enumerate(items):
                        if isinstance(item, dict):
                            inner = base if _label(item) is not None else [*base, f"[{n}]"]
                            visit(item, inner, [*chain, (value, str(key))], depth + 2, True)
                elif not (in_record and key in TEXT_KEYS):
                    visit(child, here, [*chain, (value, str(key))], depth + 1, in_record)
        elif isinstance(value, list):
            for n, item in enumerate(value):
                if isinstance(item, dict) and _label(item) is not None:
                    visit(item, parts, chain, depth + 1, in_record)
                else:
                    key = chain[-1][1] if chain else None
                    visit(item, [*parts, f"{key or ''}[{n}]"], chain, depth + 1, in_record)

    top = collection(doc, None, extra) if isinstance(doc, list) else None
    if top is None:
        visit(doc, [], [], 0)
        return found
    # The document is itself the array (gh issue list --json): its items' own arrays
    # (an issue's comments) are found inside them.
    found.append(Found(top, None, None, False))
    for n, item in enumerate(top):
        if isinstance(item, dict):
            visit(item, [] if _label(item) is not None else [f"[{n}]"], [], 1, True)
    return found
