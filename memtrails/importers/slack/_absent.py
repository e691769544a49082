"""Messages a day file no longer holds: deleted in Slack before the export was made.

Slack leaves no event for a message deleted before an export was made: a later export's
day file simply lacks it. A channel's position keeps, for each day file, the ts of the
records its messages made (``"ts": {"2024-01-02.json": "ts ts ..."}``); a day file read
whole again that lacks one of them (and no other day file of the channel holds it) names
it deleted, and the import forgets its record as it does one a ``message_deleted`` event
names (:attr:`SourceState.deleted`).

Never for a day file the new export does not hold (a partial export), nor for one that
could not be read whole (an error named in it: its messages are unknown). The export's
first and last days may be cut by a date range (Slack's export picks days, its day files
may follow another zone): there only a message between the first and the last the day
file still holds is taken as deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...records import MemoryRecord, RecordError
from .._shared import byte_exact
from ._dates import seconds

__all__ = ["Absent", "saved_ts"]


def saved_ts(state: Mapping[str, Any] | None, channel: str) -> dict[str, str]:
    """Return the ts the last run's position kept of each of a channel's day files.

    Read from the position even where it cannot be resumed from (a name file changed, so the
    run is full): what the day files held then is still what they held.
    """
    channels = state.get("channels") if isinstance(state, Mapping) else None
    entry = channels.get(channel) if isinstance(channels, Mapping) else None
    kept = entry.get("ts") if isinstance(entry, Mapping) else None
    if not isinstance(kept, Mapping):
        return {}
    return {day: ts for day, ts in kept.items() if isinstance(day, str) and isinstance(ts, str)}


class Absent:
    """One channel's day files: the ts of their records last run and this run.

    ``edges``: the export's first and last dates (``YYYY-MM-DD``), where a date range may
    have cut the day.
    """

    def __init__(self, channel: str, old: dict[str, str], edges: tuple[str, str]) -> None:
        self._prefix = f"{byte_exact(channel)}/"  # the records' ids
        self._old = old
        self._edges = edges
        # Each day file's ts as read, space-separated UTF-8: 18 bytes a message, where a set
        # of them took about 100 (a day file of 250,000 messages is read a message at a time).
        self._new: dict[str, bytearray] = {}
        self._whole: dict[str, bool] = {}  # each day file read this run: whether whole
        self._gone: set[str] = set()  # the ts :meth:`gone` named

    def carry(self, day: str) -> None:
        """A day file not read (unchanged since the last run): its ts as they were."""
        if day in self._old:
            self._new[day] = bytearray(self._old[day].encode())

    def read(self, day: str) -> None:
        """A day file is about to be read (each copy of it in a zip: once each)."""
        self._new.setdefault(day, bytearray())
        self._whole.setdefault(day, True)

    def saw(self, day: str, item: MemoryRecord | RecordError) -> None:
        """An item read from a day file: a record, or an error naming a message or not."""
        id = item.id
        if id is not None and id.startswith(self._prefix):
            self._new[day] += f" {id[len(self._prefix) :]}".encode()
        elif isinstance(item, RecordError):
            self._whole[day] = False  # a message of no known ts, or the file itself

    def broken(self, day: str) -> None:
        """A day file (or one copy of it) could not be read whole."""
        self._whole[day] = False

    def _held(self, day: str) -> set[str]:
        return set(self._new[day].decode().split())

    def gone(self, known: set[str]) -> list[str]:
        """Return the ids of the records of day files read whole that no day file of the
        channel holds now; ``known``: the ts named deleted otherwise (events), left out."""
        missing: dict[str, set[str]] = {}
        for day, whole in self._whole.items():
            if not whole or day not in self._old:
                continue
            held = self._held(day)
            lacks = set(self._old[day].split()) - held - known
            if lacks and day[:10] in self._edges:
                lacks = self._within(lacks, held)
            if lacks:
                missing[day] = lacks
        if not missing:
            return []
        # Moved to another day file (another zone's days): still there. One look at each.
        candidates = set().union(*missing.values())
        moved: set[str] = set()
        for day in self._new:
            moved |= candidates.intersection(self._new[day].decode().split())
        gone = candidates - moved
        self._gone |= gone
        return [self._prefix + ts for ts in sorted(gone)]

    @staticmethod
    def _within(missing: set[str], held: set[str]) -> set[str]:
        """Those of ``missing`` between the first and last ts the day file holds now."""
        numbers = [n for n in map(seconds, held) if n is not None]
        if not numbers:
            return set()
        low, high = min(numbers), max(numbers)
        return {ts for ts in missing if (n := seconds(ts)) is not None and low < n < high}

    def position(self) -> dict[str, Any]:
        """Return what the channel's position keeps: the ts of each day file's records in
        the memory once :meth:`gone`'s are forgotten, those it holds now and those last run
        kept that were not named gone (a day file not read whole, or on an edge day outside
        what it spans now, or one the export does not hold: what the memory still has)."""
        kept = {day: ts for day, ts in self._old.items() if day not in self._new}
        for day, new in self._new.items():
            earlier = set(self._old.get(day, "").split()) - self._gone
            text = new.decode().strip()
            if earlier and earlier - set(text.split()):
                text = " ".join(sorted(earlier.union(text.split())))
            if text:
                kept[day] = text
        return {"ts": kept}
