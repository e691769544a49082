"""Who wrote in a DM that no name file gives members: its title, the same run after run.

An export without ``dms.json`` (or ``mpims.json``) names a direct message's folder by its
conversation id (``D01ABCDEFG``) and nothing says who is in it but its messages. Such a
conversation is titled by the names of those who wrote in it (``DM: Ann Archer, Bob
Baker``), sorted, from all its day files: read before its records are made, as the first
day may hold only one of them. A re-run that skips the earlier day files knows who wrote in
them from its position (``people``); if the newer ones add someone, the title changes and
the channel is read whole, so that no record keeps the old title.

Only those with a message that becomes a record count: not the writer of a message deleted
since (a ``message_deleted`` event, a tombstone), nor of one that says nothing. A deletion
in the day files read of a message in those skipped has the channel read whole, as who
wrote it is known only from its day file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._changes import Changes, changes_of
from ._export import READ_ERRORS, MemberRefused
from ._messages import as_ts, counted, current_version, is_notice
from ._names import Names, name_of
from ._stream import NotAnArray, json_array

__all__ = ["Plan", "plan"]


def _writer(reader: Names, message: Any) -> str | None:
    """Return the name of who wrote a message (a person, else a bot's name), or None."""
    if not isinstance(message, Mapping) or is_notice(message):
        return None
    message = current_version(message)
    user, profile = message.get("user"), message.get("user_profile")
    if isinstance(user, str) and user.strip():
        label = name_of(profile) if isinstance(profile, Mapping) else None
        return reader.user_name(user, label)
    bot = message.get("bot_profile")
    for value in (message.get("username"), bot.get("name") if isinstance(bot, Mapping) else None):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _day_people(reader: Names, member: str, changes: Changes, seen: set[str]) -> set[str]:
    """Return the names of who wrote in a day file a message that becomes a record, read a
    message at a time (none from one that cannot be read: its error is named when its
    records are read); add the ts of each of its messages to ``seen``.

    Its bytes are counted against a zip's inflation budget once, when its records are read,
    not here too; the limits are looked at first all the same.
    """
    found: set[str] = set()
    export = reader.export
    for where, copy in export.copies(member):
        held = changes.held.get(where)  # read already, to find the events
        try:
            export.refuse(copy)
            pieces = iter([held]) if held is not None else export.chunks(copy, again=True)
            for message in json_array(pieces):
                if isinstance(message, Mapping) and (ts := as_ts(message.get("ts"))):
                    seen.add(ts)
                if changes.gone(message) or not counted(reader, message):
                    continue
                name = _writer(reader, message)
                if name:
                    found.add(name)
        except (MemberRefused, NotAnArray, RecursionError, *READ_ERRORS):
            continue
    return found


class Plan:
    """Where a channel's reading starts and what its position keeps of who wrote in it.

    ``start``: the day files skipped (None: read whole); ``people``: for a conversation
    titled by who wrote in it, the names in its day files before the last one (what the
    next run's skipped files hold), else None; ``changes``: the edits and deletions of the
    day files read from ``start`` on, where finding its people read them (else None);
    ``deleted``: the ts of the messages deleted that its people leave out.
    """

    def __init__(
        self,
        start: int | None,
        people: list[str] | None,
        changes: Changes | None = None,
        deleted: list[str] | None = None,
    ) -> None:
        self.start, self.people, self.changes = start, people, changes
        self.deleted = deleted or []

    def position(self, reader: Names, channel: str) -> dict[str, Any]:
        """Return what the channel's position adds: who wrote in it, its title and the
        messages deleted those leave out."""
        if self.people is None:
            return {}
        return {"people": self.people, "title": reader.title_of(channel), "deleted": self.deleted}


def plan(
    reader: Names,
    channel: str,
    days: list[str],
    entry: Mapping[str, Any] | None,
    resumed: int | None,
) -> Plan:
    """Return where to start reading a channel, given where last run's position would.

    For a conversation titled by who wrote in it, sets its names in ``reader.people`` (from
    the day files read, and the position's names of those skipped); it is read whole when
    those give another title than the records of the skipped day files have.
    """
    if not reader.by_people(channel):
        return Plan(resumed, None)
    saved = entry.get("people") if entry is not None else None
    known = saved if isinstance(saved, list) and all(isinstance(n, str) for n in saved) else None
    start = resumed if known is not None else None
    changes = changes_of(reader.export, channel, days[start or 0 :])
    seen: set[str] = set()
    found = {
        day: _day_people(reader, f"{channel}/{day}", changes, seen) for day in days[start or 0 :]
    }
    applied = entry.get("deleted") if start and entry is not None else None
    applied = {t for t in applied if isinstance(t, str)} if isinstance(applied, list) else set()
    if start and changes.deleted - seen - applied:
        # A message of the skipped days deleted since: its writer may be in no record now.
        return plan(reader, channel, days, None, None)
    deleted = sorted(applied | changes.deleted)
    known = known if start is not None and known is not None else []
    everyone = set(known).union(*found.values())
    reader.people[channel] = sorted(everyone, key=_order)
    before_last = sorted(
        set(known).union(*(found[day] for day in days[start or 0 : -1])), key=_order
    )
    if start and (entry is None or entry.get("title") != reader.title_of(channel)):
        # The skipped days' records have another title: read them again.
        return Plan(None, before_last, None, deleted)
    return Plan(start, before_last, changes, deleted)


def _order(name: str) -> tuple[str, str]:
    return name.casefold(), name
