"""Turn the messages of a Slack day file into chat records."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol, cast

from ...records import At, MemoryRecord, RecordError, unstorable_time
from .._guard import LET_THROUGH, RecordStep
from .._shared import bounded_name, byte_exact, without_controls
from ._blocks import added_by_blocks, blocks_text
from ._found import Labels
from ._names import Names, name_of
from ._parts import OddValue, attachment_text, files_of, json_kind, objects


class _Surveyed(Protocol):
    """What a day file's messages say of them all (``_days.DayFile``)."""

    profiles: dict[str, str]
    labels: Labels

    def gone(self, message: Any) -> bool: ...


__all__ = [
    "as_ts",
    "counted",
    "current_version",
    "is_notice",
    "message_items",
    "message_record",
    "profile_name",
]

# Membership and integration notices carry no conversation; they are dropped silently.
# Tombstones stand in for deleted thread parents; their replies keep the thread id anyway.
_NOISE_SUBTYPES = frozenset(
    {
        "channel_join",
        "channel_leave",
        "group_join",
        "group_leave",
        "bot_add",
        "bot_remove",
        "bot_enable",
        "bot_disable",
        "tombstone",
        "message_deleted",
        # A hidden event of exports before 2018: the thread's parent again, its reply count
        # grown (the parent and the reply are messages of their own).
        "message_replied",
    }
)
_BOT_SERVICE = re.compile(r"/services/(B[A-Z0-9]+)\|([^<>|]+)>")
_MESSAGE = RecordStep("Slack", "message")
_MAX_REACTIONS = 100  # kinds of reaction a record keeps in meta["reactions"]
_MAX_SECONDS = 8_640_000_000_000  # the last second a JavaScript Date (and so At) holds


def as_ts(value: Any) -> str | None:
    """Return a Slack timestamp as the string an export writes, or None if it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        # Slack writes ts as a string with six decimals; a numeric ts gets the same id.
        try:
            return f"{Decimal(str(value)):.6f}"
        except InvalidOperation:
            return None
    if isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            return None
        if not number.is_finite():
            return None
        if not value.strip().replace(".", "", 1).isdigit() and -20 < number.adjusted() < 20:
            # Not as Slack writes it ("1.7040672e9", "+1704067200.5"): the id a numeric ts
            # gets, so that a thread_ts, an edit or a deletion naming it finds it.
            return f"{number:.6f}"
        return value.strip()
    return None


def ms_of(ts: str) -> int | None:
    """Return a ts's epoch milliseconds, or None for a time :class:`At` does not hold.

    Checked before the integer is made: ``1e99999999`` would take a hundred million digits.
    """
    seconds = Decimal(ts)
    return int(seconds * 1000) if -_MAX_SECONDS <= seconds <= _MAX_SECONDS else None


def _subtype(message: Mapping[str, Any]) -> str | None:
    """Return a message's subtype; one that is no string (a damaged file) is none."""
    subtype = message.get("subtype")
    return subtype if isinstance(subtype, str) else None


def _edited(message: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Return the new version an edit event carries (it replaces the original: same id)."""
    if _subtype(message) == "message_changed" and isinstance(message.get("message"), Mapping):
        return cast("Mapping[str, Any]", message["message"])
    return None


def is_notice(message: Mapping[str, Any]) -> bool:
    """Whether a message is a notice dropped silently (a join, a tombstone...)."""
    return _subtype(_edited(message) or message) in _NOISE_SUBTYPES


def current_version(message: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return a message as it now reads: an edit event's new version, else itself."""
    return _edited(message) or message


def counted(reader: Names, message: Any) -> int:
    """Return how many items :func:`message_items` yields for one of a day file's messages.

    Every message but the notices and the messages that say nothing, dropped silently: a
    record, or an error in its place.
    """
    if not isinstance(message, Mapping):
        return 1
    message = _edited(message) or message
    if _subtype(message) in _NOISE_SUBTYPES:
        return 0
    ts = as_ts(message.get("ts"))
    raw_text = message.get("text")
    if ts is None or ms_of(ts) is None or not (raw_text is None or isinstance(raw_text, str)):
        return 1  # an error
    if raw_text and raw_text.strip() and reader.readable(raw_text).strip():
        return 1  # words of its own: a record (or an error), whatever else it holds
    try:
        return int(bool(_body(reader, message)[0]))
    except LET_THROUGH:
        raise
    except Exception:  # why: OddValue, or a bug the record step's guard makes an error
        return 1


def profile_name(reader: Names, message: Any) -> tuple[str, str] | None:
    """Return the user id and name a message's ``user_profile`` gives a sender missing
    from users.json (a person of another org in a Slack Connect channel), else None."""
    if not isinstance(message, Mapping):
        return None
    user, profile = message.get("user"), message.get("user_profile")
    if isinstance(user, str) and user not in reader.users and isinstance(profile, Mapping):
        name = name_of(profile)
        if name:
            return user, name
    return None


def _body(reader: Names, message: Mapping[str, Any]) -> tuple[list[str], list[dict[str, Any]]]:
    """Return the paragraphs a message reads as (none: it says nothing) and its files.

    Raises:
        OddValue: a value that carries its text is of a type that cannot be read as text.
    """
    raw_text = message.get("text")
    text = reader.readable(raw_text) if isinstance(raw_text, str) else ""
    if not text.strip():
        # Rich text and app blocks: the export's `text` is then often empty.
        text = blocks_text(reader, message.get("blocks"))
    else:
        # An app's `text` is often the notification's summary, its blocks the substance.
        extra = added_by_blocks(reader, text, message.get("blocks"))
        text = f"{text}\n{extra}" if extra else text
    if not text.strip() and _subtype(message) in ("huddle_thread", "sh_room_created"):
        text = _huddle(reader, message.get("room"))
    parts = [text] if text.strip() else []
    attachments = objects(message.get("attachments"), "`attachments`", "attachment")
    for number, attachment in enumerate(attachments, 1):
        extra = attachment_text(reader, attachment, "\n".join(parts), number)
        if extra:
            parts.append(extra)
    files = files_of(message)
    # A note several files say alike (nameless ones) is said once: ``[3 files: unnamed]``.
    counted: dict[str, list[int]] = {}  # note -> [its place in parts, how many]
    for f in files:
        title = f["title"]
        note = (
            f"[file: {f['name']}]"
            if not title or title == f["name"]
            else (f"[file: {f['name']} ({title})]")
        )
        if "preview" in f:
            parts.append(f"{note}\n{f.pop('preview')}")
        elif note in counted:
            counted[note][1] += 1
        else:
            counted[note] = [len(parts), 1]
            parts.append(note)
    for note, (place, count) in counted.items():
        if count > 1:
            parts[place] = note.replace("[file: ", f"[{count} files: ", 1)
    return parts, files


def message_record(
    reader: Names, channel: str, where: str, message: Mapping[str, Any]
) -> MemoryRecord | RecordError | None:
    edited = _edited(message)
    if edited is not None:
        message = {**edited, "channel": channel}
    subtype = _subtype(message)
    if subtype in _NOISE_SUBTYPES:
        if subtype == "bot_add":
            text = message.get("text")
            if isinstance(text, str):
                for bot_id, name in _BOT_SERVICE.findall(text):
                    reader.bots[bot_id] = name
                    reader.learned[bot_id] = name
        return None
    ts = as_ts(message.get("ts"))
    if ts is None:
        reason = "message has no ts" if "ts" not in message else "message ts is not a number"
        return RecordError(reader.source, where, reason)
    ms = ms_of(ts)
    if ms is None:
        reason = f"message `ts` {unstorable_time(message['ts'])}"
        return RecordError(reader.source, where, reason)

    raw_text = message.get("text")
    if raw_text is not None and not isinstance(raw_text, str):
        # Importing it without its text would lose that text silently; null is no text.
        return RecordError(
            reader.source, where, f"message text must be a string, got {json_kind(raw_text)}"
        )
    try:
        parts, files = _body(reader, message)
    except OddValue as exc:
        # An earlier run's record of this message stays: a prune keeps it (its id).
        return RecordError(reader.source, where, str(exc), id=f"{byte_exact(channel)}/{ts}")
    if not parts:
        # Nothing a reader could see: a message whose file or text was removed, left with
        # its reactions, or blocks of no words (a divider). No record, and no error.
        return None

    user = _text(message.get("user"))  # "" beside a username: an integration's post
    comment = message.get("comment")
    if user is None and isinstance(comment, Mapping) and isinstance(comment.get("user"), str):
        user = comment["user"]  # legacy file_comment messages name the commenter here
    bot_id = message.get("bot_id") if isinstance(message.get("bot_id"), str) else None
    # A bot's own user id is often missing from users.json: then it is known as a bot.
    is_bot = subtype == "bot_message" or (bot_id is not None and user not in reader.users)
    author: str | None
    if is_bot:
        profile = message.get("bot_profile")
        user_profile = message.get("user_profile")
        author = next(
            (
                n
                for n in (
                    message.get("username"),
                    profile.get("name") if isinstance(profile, Mapping) else None,
                    reader.bots.get(bot_id or ""),
                    reader.users.get(user or ""),
                    name_of(user_profile) if isinstance(user_profile, Mapping) else None,
                    reader.bot_app(channel, _app_id(message), bot_id),
                    # Nameless: its id still tells one bot from another.
                    bot_id,
                    user,
                )
                if isinstance(n, str) and n
            ),
            "bot",
        )
    elif user is not None:
        profile = message.get("user_profile")
        label = name_of(profile) if isinstance(profile, Mapping) else None
        author = reader.user_name(user, label)
    else:
        username = message.get("username")
        author = username if isinstance(username, str) and username else None

    meta: dict[str, Any] = {"channel": channel, "ts": ts}
    if user is not None:
        meta["user"] = user
    thread_ts = as_ts(message.get("thread_ts"))
    if isinstance(subtype, str):
        meta["subtype"] = subtype
    edited = message.get("edited")
    if isinstance(edited, Mapping) and as_ts(edited.get("ts")):
        meta["edited"] = as_ts(edited.get("ts"))
    if is_bot:
        meta["bot"] = True
    if files:
        meta["files"] = files
    if _count(message.get("reply_count")) is not None:
        meta["reply_count"] = message["reply_count"]
    reactions = message.get("reactions")
    if isinstance(reactions, list):
        if len(reactions) > _MAX_REACTIONS:  # a few in a real export; thousands in a hostile one
            meta["reactions_left_out"] = len(reactions) - _MAX_REACTIONS
            reactions = reactions[:_MAX_REACTIONS]
        # A reaction without a name says nothing; one of another shape is ignored.
        meta["reactions"] = [
            {"name": r["name"], "count": _count(r.get("count"))}
            for r in reactions
            if isinstance(r, Mapping) and isinstance(r.get("name"), str)
        ]
    # A name crafted with terminal escapes (to retitle a window) or a pasted coloured
    # terminal session reads as what it shows, as a commit's or a mail's does.
    if author is not None:
        author = bounded_name(without_controls(author, one_line=True).strip()) or None
    title = reader.title_of(channel)
    try:
        return MemoryRecord(
            # A folder name that is not UTF-8 keeps its bytes: two such folders ("gen" and
            # the byte FF, "gen" and FE) would both read "gen" and U+FFFD, one message
            # taking the other's place.
            id=f"{byte_exact(channel)}/{ts}",
            text=without_controls("\n".join(parts)),
            kind="chat",
            author=author,
            title=without_controls(title, one_line=True),
            at=At(ms),
            source=reader.source,
            thread=f"{byte_exact(channel)}/{thread_ts or ts}",
            meta=meta,
        )
    except (ValueError, TypeError) as exc:
        return RecordError(reader.source, where, str(exc))


def _huddle(reader: Names, room: Any) -> str:
    """Return what a huddle's message says: who took part (its `text` is empty)."""
    if not isinstance(room, Mapping):
        return "[huddle]"
    who = room.get("participant_history") or room.get("participants")
    names = (
        [reader.user_name(u) for u in who if isinstance(u, str)] if isinstance(who, list) else []
    )
    name = room["name"] if isinstance(room.get("name"), str) else ""
    title = f"[huddle: {name.strip()}]" if name.strip() else "[huddle]"
    return title + (" with " + ", ".join(names) if names else "")


def _text(value: Any) -> str | None:
    """Return a string that says something, else None."""
    return value if isinstance(value, str) and value.strip() else None


def _count(value: Any) -> int | None:
    """Return a count (an integer, not true or false), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _app_id(message: Mapping[str, Any]) -> str | None:
    profile = message.get("bot_profile")
    for value in (
        message.get("app_id"),
        profile.get("app_id") if isinstance(profile, Mapping) else None,
    ):
        if isinstance(value, str) and value:
            return value
    return None


def message_items(
    reader: Names, channel: str, member: str, messages: Iterable[Any], day: _Surveyed
) -> Iterator[MemoryRecord | RecordError]:
    """Yield a day file's records; ``day``: what its messages say of them all, the names
    they give their senders missing from users.json (:func:`profile_name`) and the labels
    their mentions give channels and user groups."""
    reader.profiles, reader.labels = day.profiles, day.labels
    # Counted from 1, as JSON Lines counts its lines: "message 1" is the file's first.
    for number, message in enumerate(messages, 1):
        where = f"{member}, message {number}"
        if not isinstance(message, Mapping):
            yield RecordError(reader.source, where, "message is not a JSON object")
            continue
        if day.gone(message):  # deleted, or replaced by a later edit: never a record
            continue
        item = _MESSAGE.run(reader.source, where, message_record, reader, channel, where, message)
        if item is not None:
            yield item
