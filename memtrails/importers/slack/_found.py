"""Names no name file gives, found in the day files themselves.

A conversation folder named by its id (``C0123ABCD``, ``G0123ABCD``) that no name file
names (no ``channels.json``, or one that leaves it out, as a tool exporting by id does) is
named by what its own day files say: the last rename (``channel_name``, ``group_name``:
``"name"`` is the new one), else a ``channel_name`` the messages carry (some tools write
it), else a mention of the conversation in its own messages (``<#C0123ABCD|design>``),
else the label most mentions of it in the other day files give it (their bytes searched,
not parsed: only where such a folder is). The day files are read for it before any record
is made, so that every record has the name, the first day's too.

A member of a DM or group DM that ``users.json`` leaves out (another organization's, in
a Slack Connect DM) is named by the ``user_profile`` of their messages in those
conversations (:func:`found_people`).

Mentions with no label (``<#C0123ABCD>``, ``<!subteam^S1>``, ``<@U1>`` of someone
``users.json`` does not name, rich text's ``channel``, ``usergroup`` and ``user``
elements) are named by a label another message of the same day file gives
(:func:`labels_of`): a day file is always read whole, so a re-run names them the same.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ._export import READ_ERRORS, Export, MemberRefused
from ._stream import NotAnArray, json_array

__all__ = ["FOUND_NAMES", "Labels", "digest", "found_names", "found_people", "labels_of"]

# The key the names found go by in a position's "metadata": a change means a full pass.
FOUND_NAMES = "names found in day files"
_RENAMES = ("channel_name", "group_name")
_CHANNEL_LABEL = re.compile(r"<#([A-Z0-9]+)\|([^<>|]*[^<>|\s][^<>|]*)>")
_USER_LABEL = re.compile(r"<@([A-Z0-9]+)\|@?([^<>|]*[^<>|\s@][^<>|]*)>")
# A labelled channel mention in a day file's bytes, its label as JSON writes it.
_RAW_LABEL = re.compile(rb"<#([CG][A-Z0-9]{8,20})\|([^<>|\"\x00-\x1f]{1,200})>")
_RAW_TAIL = 256  # bytes of a piece searched again with the next: longer than a match
_GROUP_LABEL = re.compile(r"<!subteam\^([A-Z0-9]+)\|@?([^<>|]*[^<>|\s@][^<>|]*)>")


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


class _Found:
    """What a conversation's day files say its name is, by how sure each is."""

    def __init__(self, cid: str) -> None:
        self.cid = cid
        self.renamed: str | None = None
        self.carried: str | None = None
        self.mentioned: str | None = None

    def read(self, message: Any) -> None:
        if not isinstance(message, Mapping):
            return
        if message.get("subtype") in _RENAMES and _text(message.get("name")):
            self.renamed = _text(message.get("name"))
        if _text(message.get("channel_name")):
            self.carried = _text(message.get("channel_name"))
        text = message.get("text")
        if isinstance(text, str) and self.cid in text:
            for cid, label in _CHANNEL_LABEL.findall(text):
                if cid == self.cid:
                    self.mentioned = label.strip().lstrip("#")

    @property
    def name(self) -> str | None:
        return self.renamed or self.carried or self.mentioned or None


def found_names(export: Export, folders: Iterable[str], ids: Mapping[str, str]) -> dict[str, str]:
    """Return the names the day files of ``folders`` give them (those that give one).

    ``ids``: each folder's conversation id. A day file that cannot be read gives nothing
    here; its error is named when its records are read.
    """
    found: dict[str, str] = {}
    for folder in folders:
        seen = _Found(ids[folder])
        for message in _messages(export, folder):
            seen.read(message)
        if seen.name:
            found[folder] = seen.name
    rest = {ids[folder]: folder for folder in folders if folder not in found}
    for cid, name in _mentioned(export, set(rest)).items():
        found[rest[cid]] = name
    return found


def _messages(export: Export, folder: str) -> Iterator[Any]:
    """Yield the messages of a conversation's day files, a message at a time (none of one
    that cannot be read: its error is named when its records are read)."""
    for day in export.channels.get(folder, ()):
        for _, copy in export.copies(f"{folder}/{day}"):
            try:
                export.refuse(copy)
                yield from json_array(export.chunks(copy, again=True))
            except (MemberRefused, NotAnArray, RecursionError, *READ_ERRORS):
                continue


def found_people(
    export: Export,
    folders: Iterable[str],
    missing: set[str],
    name_of: Callable[[Mapping[str, Any]], str | None],
) -> dict[str, str]:
    """Return the names the ``user_profile`` of their messages in ``folders`` give the
    members of DMs and group DMs that ``users.json`` leaves out (``missing``: people of
    another organization in a Slack Connect DM), the first each is given."""
    found: dict[str, str] = {}
    for folder in folders:
        for message in _messages(export, folder):
            if not isinstance(message, Mapping):
                continue
            user, profile = message.get("user"), message.get("user_profile")
            if user in missing and user not in found and isinstance(profile, Mapping):
                name = name_of(profile)
                if name:
                    found[user] = name
    return found


def _mentioned(export: Export, ids: set[str]) -> dict[str, str]:
    """Return the label most mentions of each of ``ids`` give it in all the day files (the
    first in sorted order of those given as often), read as bytes, never parsed."""
    if not ids:
        return {}
    counts: dict[str, Counter[str]] = {}
    for channel, days in export.channels.items():
        for day in days:
            for _, copy in export.copies(f"{channel}/{day}"):
                try:
                    export.refuse(copy)
                    for cid, label in _raw_labels(export.chunks(copy, again=True)):
                        if cid in ids:
                            counts.setdefault(cid, Counter())[label] += 1
                except (MemberRefused, *READ_ERRORS):
                    continue
    return {
        cid: min(counter.items(), key=lambda item: (-item[1], item[0]))[0]
        for cid, counter in counts.items()
    }


def _raw_labels(pieces: Iterable[bytes]) -> Iterator[tuple[str, str]]:
    """Yield ``(id, label)`` of each labelled channel mention in a JSON file's bytes; one
    across two pieces once (the tail of each piece is searched again with the next)."""
    tail = b""
    for piece in pieces:
        held = tail + piece
        for match in _RAW_LABEL.finditer(held):
            if match.end() <= len(tail):
                continue  # found with the piece before
            try:  # the label as the JSON string it is part of says (\u00e9, \/)
                label = json.loads(b'"' + match.group(2) + b'"')
            except ValueError:
                continue
            label = label.strip().lstrip("#").strip() if isinstance(label, str) else ""
            if label:
                yield match.group(1).decode("ascii"), label
        tail = held[-_RAW_TAIL:]


def digest(*found: Mapping[str, str]) -> str:
    """Return a digest of the names found, for a position's metadata."""
    return hashlib.sha256(json.dumps([sorted(f.items()) for f in found]).encode()).hexdigest()


class Labels:
    """The labels a day file's messages give channels, user groups and users, by id."""

    def __init__(self) -> None:
        self.users: dict[str, str] = {}
        self.channels: dict[str, str] = {}
        self.groups: dict[str, str] = {}


def labels_of(message: Any, labels: Labels) -> None:
    """Add the labels of a message's mentions (``<#C1|general>``, ``<!subteam^S1|@team>``,
    ``<@U1|ann>``)."""
    if not isinstance(message, Mapping):
        return
    if message.get("subtype") == "message_changed" and isinstance(message.get("message"), Mapping):
        message = message["message"]
    text = message.get("text")
    if not isinstance(text, str) or "<" not in text:
        return
    for cid, label in _CHANNEL_LABEL.findall(text):
        labels.channels.setdefault(cid, label.strip().lstrip("#"))
    for uid, label in _USER_LABEL.findall(text):
        labels.users.setdefault(uid, label.strip())
    for gid, label in _GROUP_LABEL.findall(text):
        labels.groups.setdefault(gid, label.strip())
