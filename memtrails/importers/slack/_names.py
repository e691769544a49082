"""Who and what a Slack export names: users, channels, DM members, bots; markup made readable."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from ...records import RecordError
from ._export import READ_ERRORS, Export, MemberRefused

__all__ = ["Names", "name_of", "unescape"]

_MARKUP = re.compile(r"<([^<>\n]*)>")
# A group DM's folder: "mpdm-" + the members' user names joined by "--" + "-1".
_GROUP_DM = re.compile(r"^mpdm-(.+)-\d+$")


def name_of(user: Mapping[str, Any]) -> str | None:
    profile = user.get("profile")
    profile = profile if isinstance(profile, Mapping) else {}
    for value in (
        user.get("real_name"),
        profile.get("real_name"),
        profile.get("display_name"),
        user.get("display_name"),
        user.get("name"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


class Names:
    """Everything needed to turn messages into records: names, channels, bot names."""

    def __init__(self, export: Export) -> None:
        self.export = export
        self.source = export.source
        self.users: dict[str, str] = {}
        self.handles: dict[str, str] = {}  # user name (the @handle) -> real name
        self.channel_names: dict[str, str] = {}
        self.channel_types: dict[str, str] = {}
        self.members: dict[str, list[str]] = {}  # DM and group DM folder -> user ids
        self.bots: dict[str, str] = {}
        self.learned: dict[str, str] = {}  # bot names learned from the current day file
        self.errors: list[RecordError] = []
        # SHA-256 of each name file as read (None when absent): a change means a full pass.
        self.metadata: dict[str, str | None] = {}

    def _load_list(self, member: str) -> list[Any]:
        self.metadata[member] = None
        if not self.export.has(member):
            return []
        try:
            raw = self.export.read(member)
        except MemberRefused as exc:
            self.errors.append(RecordError(self.source, member, str(exc)))
            return []
        except READ_ERRORS as exc:  # a damaged member: CRC, inflate or I/O error
            self.errors.append(RecordError(self.source, member, f"cannot read ({exc})"))
            return []
        self.metadata[member] = hashlib.sha256(raw).hexdigest()
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            self.errors.append(RecordError(self.source, member, f"not valid JSON ({exc})"))
            return []
        if not isinstance(data, list):
            self.errors.append(RecordError(self.source, member, "not a JSON array"))
            return []
        return data

    def load_metadata(self) -> None:
        for user in self._load_list("users.json"):
            if isinstance(user, Mapping) and isinstance(user.get("id"), str):
                name = name_of(user)
                if name:
                    self.users[user["id"]] = name
                    if isinstance(user.get("name"), str) and user["name"]:
                        self.handles[user["name"]] = name
        kinds = {
            "channels.json": "channel",
            "groups.json": "group",
            "mpims.json": "mpim",
            "dms.json": "dm",
        }
        for member, kind in kinds.items():
            for channel in self._load_list(member):
                if not isinstance(channel, Mapping):
                    continue
                cid, name = channel.get("id"), channel.get("name")
                # DM folders are named by their id; everything else by its name.
                folder = name if isinstance(name, str) and name else cid
                if not isinstance(folder, str):
                    continue
                if isinstance(cid, str):
                    self.channel_names[cid] = folder
                self.channel_types[folder] = kind
                members = channel.get("members")
                if kind in ("dm", "mpim") and isinstance(members, list):
                    self.members[folder] = [m for m in members if isinstance(m, str)]

    def user_name(self, uid: str, label: str | None = None) -> str:
        return self.users.get(uid) or label or uid

    def readable(self, text: str) -> str:
        """Turn Slack markup into plain text: mentions, channel links, labelled URLs, escapes."""
        return unescape(_MARKUP.sub(self._replace_markup, text))

    def _replace_markup(self, match: re.Match[str]) -> str:
        inner = match.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            return "@" + self.user_name(target[1:], label.lstrip("@") or None)
        if target.startswith("#"):
            return "#" + (self.channel_names.get(target[1:]) or label or target[1:])
        if target.startswith("!"):
            if label:
                return label
            word = target[1:].split("^", 1)[0]
            return "@" + word
        if not label:
            return target
        if label == target or "mailto:" + label == target:
            return label
        return f"{label} ({target})"

    def title_of(self, channel: str) -> str:
        """Return a conversation's title: ``#name``, ``DM: names`` or ``Group DM: names``."""
        members = self.members.get(channel)
        if self.channel_types.get(channel) == "dm" and members:
            return "DM: " + ", ".join(self.user_name(u) for u in members)
        group = _GROUP_DM.match(channel)
        if self.channel_types.get(channel) == "mpim" or group:
            if members:
                return "Group DM: " + ", ".join(self.user_name(u) for u in members)
            if group:
                # No mpims.json: the folder name lists the members' user names.
                names = [n for n in group.group(1).split("--") if n]
                return "Group DM: " + ", ".join(self.handles.get(n, n) for n in names)
        return "#" + channel


def unescape(text: str) -> str:
    # Slack escapes only these three; &amp; last so "&amp;lt;" stays "&lt;".
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
