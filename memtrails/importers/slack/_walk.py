"""Walk a Slack export channel by channel, day by day, skipping what the last run read."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Any

from ...records import Item, MemoryRecord, RecordError, SourceState
from .._resume import BAD_POSITION, unusable_position
from .._shared import byte_exact
from ._absent import Absent, saved_ts
from ._changes import changes_of
from ._days import day_files
from ._export import METADATA_FILES, NOT_A_DAY, Export
from ._messages import message_items
from ._names import EXTRA_NAME_FILES, Names
from ._people import plan
from ._scan import OUTSIDE

__all__ = ["items", "record_count"]

# The files whose content goes into every record (author names, channel names, DM titles).
_NAME_FILES = ("users.json", *METADATA_FILES, *EXTRA_NAME_FILES)


def _days_digest(export: Export, channel: str, days: list[str]) -> str:
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
        return {}, unusable_position(state, "slack", ("channels", "metadata"))
    for name, entry in channels.items():
        if not (
            isinstance(name, str)
            and isinstance(entry, Mapping)
            and isinstance(entry.get("last"), str)
            and isinstance(entry.get("before"), str)
            and isinstance(entry.get("bots"), Mapping)
        ):
            return {}, BAD_POSITION
    # Those of the workspaces too (teams/<ws>/users.json): each file either run read.
    extra = {m for m in (*saved_meta, *metadata) if isinstance(m, str)} - set(_NAME_FILES)
    names = [*_NAME_FILES, *sorted(extra)]
    changed = [m for m in names if saved_meta.get(m) != metadata.get(m)]
    if changed:
        return {}, (
            f"{', '.join(changed)} changed since the last run "
            "(the names in every record may differ)"
        )
    return {name: dict(entry) for name, entry in channels.items()}, None


def _resumed(
    export: Export, channel: str, days: list[str], entry: Mapping[str, Any] | None
) -> int | None:
    """Return how many of a channel's day files last run's position lets a run skip, or None.

    Day files before the last one read are skipped if none was added, removed or changed
    since; the last one is read again, as it grows during its day.
    """
    if entry is None:
        return None
    earlier = [day for day in days if day < entry["last"]]
    return len(earlier) if _days_digest(export, channel, earlier) == entry["before"] else None


def record_count(export: Export, state: Mapping[str, Any] | None) -> tuple[int, int]:
    """Return the items a run of :func:`items` will count, and how many of those it skips.

    The first number is what the import reports it saw: the records and errors of the day
    files it reads, the errors of the name files, and the records of the day files it
    leaves unread (counted unchanged); the second is those unread ones alone. It reads what
    the run reads (the name files, then each day file it does not skip) and parses it as
    JSON, but makes no records.
    """
    reader = Names(export)
    reader.load_metadata()
    found = len(reader.errors) + len(export.unsafe) + len(export.unlisted) + len(export.not_days)
    found += len(export.outside)
    saved, _ = _saved_channels(state, reader.metadata)
    vouched = 0
    for channel, days in export.channels.items():
        entry = saved.get(channel)
        read = plan(reader, channel, days, entry, _resumed(export, channel, days, entry))
        start = read.start
        if entry is not None and start is not None:
            vouched += int(entry.get("records", 0))
        changes = (
            read.changes
            if read.changes is not None
            else changes_of(export, channel, days[start or 0 :])
        )
        for day in days[start or 0 :]:
            for _, messages in day_files(reader, f"{channel}/{day}", changes):
                found += 1 if isinstance(messages, RecordError) else messages.count
    return found + vouched, vouched


def items(export: Export, state: Mapping[str, Any] | None) -> Iterator[Item]:
    reader = Names(export)
    reader.load_metadata()
    yield from reader.errors
    for name in export.unsafe:
        # Never read: such a name would be written outside the folder if the zip were unpacked.
        yield RecordError(
            reader.source, name, "member name leads outside the export (absolute or ..): not read"
        )
    for name, reason in export.unlisted:
        yield RecordError(reader.source, name, f"{reason}; its messages were not read")
    for name in export.not_days:  # no messages of the export's left unread: not "broken"
        yield RecordError(reader.source, name, NOT_A_DAY)
    for name in export.outside:  # none of its messages a record ever: nothing to prune
        yield RecordError(reader.source, name, OUTSIDE)
    saved, why = _saved_channels(state, reader.metadata)
    done: dict[str, dict[str, Any]] = {}  # the new position of each channel finished
    skipped = False  # whether any day file was left unread
    vouched = 0  # records in the day files left unread: counted unchanged
    # Whether a day file (or a channel folder) could not be read: its messages are unknown.
    broken = bool(export.unlisted)
    # Messages the channels read since the last position say were deleted: forgotten when
    # it is saved, so that one an earlier run imported leaves the memory without a prune.
    deleted: list[str] = []

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
        gone = tuple(deleted)
        deleted.clear()
        why_full = why if mode == "full" else None
        return SourceState(reader.source, body, mode, complete, why_full, vouched, deleted=gone)

    # Items read since the last position: a position costs the size of the whole state (a
    # channel each), so one follows a channel only once a tenth of that much was read since;
    # 10,000 channels of a message each would otherwise take 10,000 positions of up to
    # 10,000 channels each (quadratic, in time and in what the consumer saves).
    since = 0
    dates = sorted(day[:10] for days in export.channels.values() for day in days)
    edges = (dates[0], dates[-1]) if dates else ("", "")
    for channel, days in export.channels.items():
        # Stamped before reading, so a day file written meanwhile is read again next run.
        before = _days_digest(export, channel, days[:-1])
        start, bots, kept = 0, {}, 0  # kept: records in the day files before the last one
        entry = saved.get(channel)
        # A DM titled by who wrote in it: read whole when the newer days change its title.
        read = plan(reader, channel, days, entry, _resumed(export, channel, days, entry))
        resumed = read.start
        if entry is not None and resumed is not None:
            start, bots, kept = resumed, dict(entry["bots"]), int(entry.get("records", 0))
            vouched += kept
            # Bot names the skipped days taught a full pass, for the messages after.
            reader.bots.update(bots)
            skipped = skipped or start > 0
        failed = False  # a day file before the last one could not be read
        # Edits and deletions, from all the days read: an edit may come days later.
        changes = (
            read.changes if read.changes is not None else changes_of(export, channel, days[start:])
        )
        deleted.extend(f"{byte_exact(channel)}/{ts}" for ts in sorted(changes.deleted))
        # What each day file held last run: one read whole that lacks a message deleted it.
        absent = Absent(channel, saved_ts(state, channel), edges)
        for day in days[:start]:
            absent.carry(day)
        for n in range(start, len(days)):
            reader.learned = {}
            since += 1
            absent.read(days[n])
            for where, messages in day_files(reader, f"{channel}/{days[n]}", changes):
                if isinstance(messages, RecordError):
                    broken = True
                    failed = failed or n < len(days) - 1
                    absent.broken(days[n])
                    yield messages
                    continue
                for item in message_items(reader, channel, where, messages, messages):
                    kept += n < len(days) - 1 and isinstance(item, MemoryRecord)
                    since += 1
                    absent.saw(days[n], item)
                    yield item
                if messages.failed is not None:  # a large one, changed since it was checked
                    broken = True
                    failed = failed or n < len(days) - 1
                    absent.broken(days[n])
                    yield messages.failed
            if n < len(days) - 1:
                bots.update(reader.learned)
        deleted.extend(absent.gone(changes.deleted))
        if entry is not None and start == len(days):
            # Nothing read (the last day file read before is gone): the old position holds.
            done[channel] = entry
        else:
            # A day file that failed is tried (and its error named) again next run: a
            # digest that matches nothing makes the next run read the channel whole.
            before = "" if failed else before
            done[channel] = {
                "last": days[-1],
                "before": before,
                "bots": bots,
                "records": kept,
                **read.position(reader, channel),
                **absent.position(),
            }
        if since * 10 >= len(export.channels):
            since = 0
            yield position(final=False)  # after the channel's records, never before
    yield position(final=True)
