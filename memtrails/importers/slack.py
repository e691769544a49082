"""Read a Slack export (a folder or a .zip) as chat records, one per message."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import os
import re
import zipfile
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, cast

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..records import At, Item, MemoryRecord, RecordError, SourceState

__all__ = ["from_slack_export"]

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
    }
)
_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")
_MARKUP = re.compile(r"<([^<>\n]*)>")
_BOT_SERVICE = re.compile(r"/services/(B[A-Z0-9]+)\|([^<>|]+)>")
_METADATA_FILES = ("channels.json", "groups.json", "mpims.json", "dms.json")
_MAX_BLOCK_TEXT = 100_000
_MAIN_KEYS = ("pretext", "title", "text")
# What reading one member can raise: bad JSON or UTF-8 (ValueError), a damaged zip member
# (BadZipFile on a CRC mismatch, zlib.error, EOFError), an encrypted or oddly compressed one.
_READ_ERRORS = (
    ValueError,
    OSError,
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    RuntimeError,
    NotImplementedError,
)
# The files whose content goes into every record (author names, channel names, DM titles).
_NAME_FILES = ("users.json", *_METADATA_FILES)
_BAD_STATE = "the saved position is not one this version reads"


class _Export:
    """The members of an export, read from a folder or a zip archive."""

    def __init__(self, path: Path, source: str) -> None:
        self.source = source
        self._zip: zipfile.ZipFile | None = None
        self._prefix = ""
        if path.is_dir():
            self._root: Path | None = path
            try:
                self._channels = self._scan_folder(path)
            except OSError as exc:
                raise SourceError(source, f"cannot read the folder ({exc})") from exc
        elif path.is_file():
            self._root = None
            try:
                self._zip = zipfile.ZipFile(path)
            except (zipfile.BadZipFile, OSError) as exc:
                raise SourceError(source, f"not a folder or a readable .zip file ({exc})") from exc
            try:
                self._channels = self._scan_zip(self._zip)
            except BaseException:
                self._zip.close()
                raise
        elif path.exists():
            raise SourceError(source, "not a folder or a .zip file")
        else:
            raise SourceError(source, "no such file or folder")
        has_metadata = any(self.has(name) for name in ("users.json", *_METADATA_FILES))
        if not self._channels and not has_metadata:
            self.close()
            raise SourceError(
                source,
                "not a Slack export: no users.json, no channels.json and no channel folders "
                "of YYYY-MM-DD.json day files",
            )

    @classmethod
    def open(cls, path: Path, source: str | None) -> _Export:
        path = path.expanduser()
        return cls(path, source if source is not None else str(path.resolve()))

    @staticmethod
    def _scan_folder(root: Path) -> dict[str, list[str]]:
        channels: dict[str, list[str]] = {}
        with os.scandir(root) as entries:
            folders = sorted(e.name for e in entries if e.is_dir() and not e.name.startswith("."))
        for name in folders:
            with os.scandir(root / name) as entries:
                days = sorted(e.name for e in entries if _DAY_FILE.match(e.name) and e.is_file())
            if days:
                channels[name] = days
        return channels

    def _scan_zip(self, archive: zipfile.ZipFile) -> dict[str, list[str]]:
        names = [
            info.filename
            for info in archive.infolist()
            if not info.is_dir() and not info.filename.startswith("__MACOSX/")  # Finder's extras
        ]
        # Exports zipped from their parent folder put everything under one top-level folder
        # (unless that folder is a channel: its members are day files).
        tops = {name.split("/", 1)[0] for name in names}
        if len(tops) == 1 and all("/" in name for name in names):
            top = tops.pop()
            if not any(_DAY_FILE.match(name[len(top) + 1 :]) for name in names):
                self._prefix = top + "/"
        channels: dict[str, list[str]] = {}
        for name in names:
            if not name.startswith(self._prefix):
                continue
            parts = name[len(self._prefix) :].split("/")
            if len(parts) == 2 and _DAY_FILE.match(parts[1]) and not parts[0].startswith("."):
                channels.setdefault(parts[0], []).append(parts[1])
        return {name: sorted(channels[name]) for name in sorted(channels)}

    @property
    def channels(self) -> dict[str, list[str]]:
        return self._channels

    def has(self, member: str) -> bool:
        if self._zip is not None:
            try:
                self._zip.getinfo(self._prefix + member)
            except KeyError:
                return False
            return True
        assert self._root is not None
        return (self._root / member).is_file()

    def stamp(self, member: str) -> str:
        """Return what changes when a member's content does, without reading it.

        In a zip, its size and CRC-32 (from the archive's directory); in a folder, its size
        and mtime.
        """
        if self._zip is not None:
            info = self._zip.getinfo(self._prefix + member)
            return f"{info.file_size}:{info.CRC:08x}"
        assert self._root is not None
        st = (self._root / member).stat()
        return f"{st.st_size}:{st.st_mtime_ns}"

    def read(self, member: str) -> bytes:
        if self._zip is not None:
            return self._zip.read(self._prefix + member)
        assert self._root is not None
        return (self._root / member).read_bytes()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()


def _name_of(user: Mapping[str, Any]) -> str | None:
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


def _as_ts(value: Any) -> str | None:
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
        return value.strip() if number.is_finite() else None
    return None


def _ms_of(ts: str) -> int:
    return int(Decimal(ts) * 1000)


class _Reader:
    """Everything needed to turn messages into records: names, channels, bot names."""

    def __init__(self, export: _Export) -> None:
        self.export = export
        self.source = export.source
        self.users: dict[str, str] = {}
        self.channel_names: dict[str, str] = {}
        self.channel_types: dict[str, str] = {}
        self.dm_members: dict[str, list[str]] = {}
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
            self.metadata[member] = hashlib.sha256(raw).hexdigest()
            data = json.loads(raw)
        except _READ_ERRORS as exc:
            self.errors.append(RecordError(self.source, member, f"not valid JSON ({exc})"))
            return []
        if not isinstance(data, list):
            self.errors.append(RecordError(self.source, member, "not a JSON array"))
            return []
        return data

    def load_metadata(self) -> None:
        for user in self._load_list("users.json"):
            if isinstance(user, Mapping) and isinstance(user.get("id"), str):
                name = _name_of(user)
                if name:
                    self.users[user["id"]] = name
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
                if kind == "dm" and isinstance(members, list):
                    self.dm_members[folder] = [m for m in members if isinstance(m, str)]

    def user_name(self, uid: str, label: str | None = None) -> str:
        return self.users.get(uid) or label or uid

    def readable(self, text: str) -> str:
        """Turn Slack markup into plain text: mentions, channel links, labelled URLs, escapes."""
        return _unescape(_MARKUP.sub(self._replace_markup, text))

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
        if self.channel_types.get(channel) == "dm" and self.dm_members.get(channel):
            return "DM: " + ", ".join(self.user_name(u) for u in self.dm_members[channel])
        return "#" + channel


def _unescape(text: str) -> str:
    # Slack escapes only these three; &amp; last so "&amp;lt;" stays "&lt;".
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _attachment_text(reader: _Reader, attachment: Mapping[str, Any], context: str) -> str:
    """Return an attachment's readable text; ``context`` is the message text so far."""
    lines: list[str] = []
    for key in ("pretext", "author_name", "title", "text"):
        value = attachment.get(key)
        if isinstance(value, str) and value.strip():
            lines.append(reader.readable(value.strip()))
    if not any(isinstance(attachment.get(k), str) and attachment[k].strip() for k in _MAIN_KEYS):
        # `fallback` is the plain-text summary; used when the attachment has no text of its own.
        fallback = attachment.get("fallback")
        if isinstance(fallback, str) and fallback.strip():
            lines.insert(0, reader.readable(fallback.strip()))
    title_link = attachment.get("title_link")
    if isinstance(title_link, str) and title_link and lines and title_link not in context:
        lines.append(title_link)
    fields = attachment.get("fields")
    if isinstance(fields, list):
        for field in fields:
            if isinstance(field, Mapping):
                title, value = field.get("title"), field.get("value")
                parts = [reader.readable(str(v)) for v in (title, value) if v]
                if parts:
                    lines.append(": ".join(parts))
    return "\n".join(lines)


def _block_text(node: Any, out: list[str], budget: list[int]) -> None:
    """Collect the text of rich-text blocks, for messages that carry no ``text``."""
    if budget[0] <= 0:
        return
    if isinstance(node, Mapping):
        kind = node.get("type")
        if kind == "text" and isinstance(node.get("text"), str):
            out.append(node["text"])
            budget[0] -= len(node["text"])
        elif kind == "link" and isinstance(node.get("url"), str):
            out.append(node.get("text") or node["url"])
        for key in ("elements", "text", "fields"):
            child = node.get(key)
            if isinstance(child, list | Mapping):
                _block_text(child, out, budget)
    elif isinstance(node, list):
        for child in node:
            _block_text(child, out, budget)


def _files_of(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    found: list[Any] = []
    if isinstance(message.get("files"), list):
        found.extend(message["files"])
    if isinstance(message.get("file"), Mapping):  # exports before 2018 hold one `file`
        found.append(message["file"])
    files: list[dict[str, Any]] = []
    for f in found:
        if not isinstance(f, Mapping):
            continue
        files.append(
            {
                "name": f.get("name") or f.get("title") or f.get("id") or "file",
                "title": f.get("title"),
                "mimetype": f.get("mimetype"),
            }
        )
    return files


def _message_record(
    reader: _Reader, channel: str, where: str, message: Mapping[str, Any]
) -> MemoryRecord | RecordError | None:
    subtype = message.get("subtype")
    if subtype == "message_changed" and isinstance(message.get("message"), Mapping):
        # An edit event carries the new version; it replaces the original (same id).
        message = {**message["message"], "channel": channel}
        subtype = message.get("subtype")
    if subtype in _NOISE_SUBTYPES:
        if subtype == "bot_add":
            text = message.get("text")
            if isinstance(text, str):
                for bot_id, name in _BOT_SERVICE.findall(text):
                    reader.bots[bot_id] = name
                    reader.learned[bot_id] = name
        return None
    ts = _as_ts(message.get("ts"))
    if ts is None:
        reason = "message has no ts" if "ts" not in message else "message ts is not a number"
        return RecordError(reader.source, where, reason)

    raw_text = message.get("text")
    text = reader.readable(raw_text) if isinstance(raw_text, str) else ""
    if not text.strip() and isinstance(message.get("blocks"), list):
        out: list[str] = []
        _block_text(message["blocks"], out, [_MAX_BLOCK_TEXT])
        text = _unescape("".join(out))
    parts = [text] if text.strip() else []
    attachments = message.get("attachments")
    if isinstance(attachments, list):
        for attachment in attachments:
            if isinstance(attachment, Mapping):
                extra = _attachment_text(reader, attachment, "\n".join(parts))
                if extra:
                    parts.append(extra)
    files = _files_of(message)
    for f in files:
        title = f["title"]
        note = (
            f"[file: {f['name']}]"
            if not title or title == f["name"]
            else (f"[file: {f['name']} ({title})]")
        )
        parts.append(note)

    user = message.get("user") if isinstance(message.get("user"), str) else None
    comment = message.get("comment")
    if user is None and isinstance(comment, Mapping) and isinstance(comment.get("user"), str):
        user = comment["user"]  # legacy file_comment messages name the commenter here
    bot_id = message.get("bot_id") if isinstance(message.get("bot_id"), str) else None
    is_bot = subtype == "bot_message" or (bot_id is not None and user is None)
    author: str | None
    if is_bot:
        profile = message.get("bot_profile")
        author = next(
            (
                n
                for n in (
                    message.get("username"),
                    profile.get("name") if isinstance(profile, Mapping) else None,
                    reader.bots.get(bot_id or ""),
                    reader.users.get(user or ""),
                )
                if isinstance(n, str) and n
            ),
            "bot",
        )
    elif user is not None:
        profile = message.get("user_profile")
        label = _name_of(profile) if isinstance(profile, Mapping) else None
        author = reader.user_name(user, label)
    else:
        username = message.get("username")
        author = username if isinstance(username, str) and username else None

    meta: dict[str, Any] = {"channel": channel, "ts": ts}
    if user is not None:
        meta["user"] = user
    thread_ts = _as_ts(message.get("thread_ts"))
    if isinstance(subtype, str):
        meta["subtype"] = subtype
    edited = message.get("edited")
    if isinstance(edited, Mapping) and _as_ts(edited.get("ts")):
        meta["edited"] = _as_ts(edited.get("ts"))
    if is_bot:
        meta["bot"] = True
    if files:
        meta["files"] = files
    if isinstance(message.get("reply_count"), int):
        meta["reply_count"] = message["reply_count"]
    reactions = message.get("reactions")
    if isinstance(reactions, list):
        meta["reactions"] = [
            {"name": r.get("name"), "count": r.get("count")}
            for r in reactions
            if isinstance(r, Mapping)
        ]
    try:
        return MemoryRecord(
            id=f"{channel}/{ts}",
            text="\n".join(parts),
            kind="chat",
            author=author,
            title=reader.title_of(channel),
            at=At(_ms_of(ts)),
            source=reader.source,
            thread=f"{channel}/{thread_ts or ts}",
            meta=meta,
        )
    except (ValueError, TypeError) as exc:
        return RecordError(reader.source, where, str(exc))


def _day_messages(reader: _Reader, member: str) -> list[Any] | RecordError:
    """Return the messages of a day file, or the error that stops it being read."""
    try:
        messages = json.loads(reader.export.read(member))
    except _READ_ERRORS as exc:
        return RecordError(reader.source, member, f"day file is not valid JSON ({exc})")
    if not isinstance(messages, list):
        return RecordError(reader.source, member, "day file is not a JSON array")
    return messages


def _message_items(
    reader: _Reader, channel: str, member: str, messages: list[Any]
) -> Iterator[MemoryRecord | RecordError]:
    for index, message in enumerate(messages):
        where = f"{member}, message {index}"
        if not isinstance(message, Mapping):
            yield RecordError(reader.source, where, "message is not a JSON object")
            continue
        item = _message_record(reader, channel, where, message)
        if item is not None:
            yield item


def _days_digest(export: _Export, channel: str, days: list[str]) -> str:
    """Return a digest of the names and stamps of a channel's day files, none of them read."""
    h = hashlib.sha256()
    for day in days:
        h.update(f"{day}\0{export.stamp(f'{channel}/{day}')}\n".encode())
    return h.hexdigest()


def _saved_channels(
    state: Mapping[str, Any] | None, metadata: Mapping[str, str | None]
) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Return last run's per-channel positions, or why they cannot be used (or None)."""
    if state is None:
        return {}, None
    saved_meta, channels = state.get("metadata"), state.get("channels")
    if not isinstance(saved_meta, Mapping) or not isinstance(channels, Mapping):
        return {}, _BAD_STATE
    for name, entry in channels.items():
        if not (
            isinstance(name, str)
            and isinstance(entry, Mapping)
            and isinstance(entry.get("last"), str)
            and isinstance(entry.get("before"), str)
            and isinstance(entry.get("bots"), Mapping)
        ):
            return {}, _BAD_STATE
    changed = [m for m in _NAME_FILES if saved_meta.get(m) != metadata.get(m)]
    if changed:
        return {}, (
            f"{', '.join(changed)} changed since the last run "
            "(the names in every record may differ)"
        )
    return {name: dict(entry) for name, entry in channels.items()}, None


def _items(export: _Export, state: Mapping[str, Any] | None) -> Iterator[Item]:
    reader = _Reader(export)
    reader.load_metadata()
    yield from reader.errors
    saved, why = _saved_channels(state, reader.metadata)
    done: dict[str, dict[str, Any]] = {}  # the new position of each channel finished
    skipped = False  # whether any day file was left unread
    vouched = 0  # records in the day files left unread: counted unchanged
    broken = False  # whether a day file could not be read: its messages are unknown

    def position(final: bool) -> SourceState:
        channels = {
            name: done.get(name) or saved[name]
            for name in export.channels
            if name in done or (not final and name in saved)
        }
        # Channels not reached yet keep last run's position: still true of the export.
        mode = "incremental" if skipped else "full"
        complete = final and not skipped and not broken
        body = {"metadata": dict(reader.metadata), "channels": channels}
        return SourceState(
            reader.source, body, mode, complete, why if mode == "full" else None, vouched
        )

    for channel, days in export.channels.items():
        # Stamped before reading, so a day file written meanwhile is read again next run.
        before = _days_digest(export, channel, days[:-1])
        start, bots, kept = 0, {}, 0  # kept: records in the day files before the last one
        entry = saved.get(channel)
        if entry is not None:
            # Day files before the last one read are skipped if none was added, removed or
            # changed since; the last one is read again, as it grows during its day.
            earlier = [day for day in days if day < entry["last"]]
            if _days_digest(export, channel, earlier) == entry["before"]:
                start, bots = len(earlier), dict(entry["bots"])
                kept = int(entry.get("records", 0))
                vouched += kept
                # Bot names the skipped days taught a full pass, for the messages after.
                reader.bots.update(bots)
                skipped = skipped or start > 0
        for n in range(start, len(days)):
            reader.learned = {}
            member = f"{channel}/{days[n]}"
            messages = _day_messages(reader, member)
            if isinstance(messages, RecordError):
                broken = True
                yield messages
                continue
            for item in _message_items(reader, channel, member, messages):
                kept += n < len(days) - 1 and isinstance(item, MemoryRecord)
                yield item
            if n < len(days) - 1:
                bots.update(reader.learned)
        if entry is not None and start == len(days):
            # Nothing read (the last day file read before is gone): the old position holds.
            done[channel] = entry
        else:
            done[channel] = {"last": days[-1], "before": before, "bots": bots, "records": kept}
        yield position(final=False)  # after the channel's records, never before
    yield position(final=True)


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


async def from_slack_export(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one chat record per message of a Slack export, channel by channel, day by day.

    Reads the export a day file at a time in worker threads, from a folder or straight out of
    the .zip Slack sends (member by member). User names come from ``users.json``; channel
    names from ``channels.json`` (and ``groups.json``, ``mpims.json``, ``dms.json``) or the
    channel folder names. Slack markup becomes plain text (``<@U1>`` becomes ``@Real Name``,
    ``<url|label>`` becomes ``label (url)``), attachment text (integrations, link previews) is
    appended, and shared files are noted as ``[file: name]``. Joins, leaves, integration
    notices and tombstones are skipped silently.

    Each record has ``kind="chat"``, ``id="<channel>/<ts>"`` (stable across runs),
    ``title="#<channel>"`` (``"DM: names"`` for direct messages),
    ``thread="<channel>/<thread_ts or ts>"`` and ``meta`` with ``channel``, ``ts``, ``user``
    and, when present, ``subtype``, ``edited``, ``bot``, ``files``, ``reply_count`` and
    ``reactions``.

    After each channel, and at the end, comes a :class:`~memtrails.records.SourceState`:
    ``{"metadata": {name file: sha256 or None}, "channels": {channel: {"last": last day
    file, "before": digest of the names and stamps of the day files before it, "bots":
    bot names learned from those}}}``. Given back as ``state``, it makes the run
    incremental: in each channel whose day files before its last one are as they were
    (same names, and same size and CRC-32 in a zip, same size and mtime in a folder),
    those are not read; the last day file and any newer ones are (a day file grows during
    its day; its unchanged messages cost no embedding). A new channel is read in full.
    The run is then ``mode="incremental"``, ``complete=False``. It reads everything
    (``mode="full"``, ``why`` set) when:

    - the state is not one this version reads;
    - ``users.json``, ``channels.json``, ``groups.json``, ``mpims.json`` or ``dms.json``
      changed, appeared or disappeared: the names written into every record may differ.

    A channel whose earlier day files changed (a day added before the last one, a file
    edited or, in a folder, rewritten with a new mtime, as a fresh unzip does) is read in
    full, the others still incrementally; if no day file at all could be skipped, the run
    counts as full. A full run is ``complete`` unless a day file could not be read.

    Args:
        path: the export folder or .zip file.
        source: the source name on every record; defaults to the resolved path.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).

    Raises:
        SourceError: the path is missing or is not a Slack export.

    Returns:
        An async iterator of records and source states; a broken day file or message
        becomes a :class:`RecordError` in its place and the rest still imports.

    Example::

        async with aclosing(from_slack_export("slack-export.zip")) as items:
            async for item in items:
                print(item)
    """
    export = await asyncio.to_thread(_Export.open, Path(path), source)
    try:
        # Close the thread-side reader as soon as the consumer stops, not when GC runs.
        read = functools.partial(_items, export, state)
        async with aclosing(_generator(iterate_in_thread(read))) as items:
            async for item in items:
                yield item
    finally:
        await asyncio.to_thread(export.close)
