"""``sources.json``: where each source's importer got to, written every few seconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .manifest import read_states, write_json_atomic

if TYPE_CHECKING:
    from ..records import SourceState

__all__ = ["LOG_MARK", "SAVE_EVERY", "Positions", "describe_position", "stopped_part_way"]

SAVE_EVERY = 5.0  # seconds between two writes of sources.json during an import
# The key under which sources.json keeps the log's size and tail digest at the time it was
# written: positions vouch for records in the log, so a log cut below that size voids them.
LOG_MARK = "~log"


class Positions:
    """The importers' saved positions, held in memory and written at most every ``every`` s.

    A notes folder's position can be megabytes, and a kill costs at most a few seconds of
    re-reading: positions are only ever saved after the records before them are in the log.
    """

    def __init__(
        self,
        folder: Path,
        saved: dict[str, Any],
        *,
        every: float = SAVE_EVERY,
        clock: Callable[[], float] = time.monotonic,
        mark: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self._path = folder / "sources.json"
        found = saved.get(LOG_MARK)
        self.log_mark: dict[str, Any] | None = found if isinstance(found, dict) else None
        self._saved = {
            source: entry
            for source, entry in ((s, _sound(e)) for s, e in saved.items() if s != LOG_MARK)
            if entry is not None
        }
        self._mark = mark
        self._every = every
        self._clock = clock
        self._dirty = False
        self._written = clock()

    @classmethod
    def load(cls, folder: Path, **options: Any) -> Positions:
        """Read ``sources.json`` (blocking)."""
        return cls(folder, read_states(folder), **options)

    def get(self, source: str) -> dict[str, Any] | None:
        """Return the position saved for ``source``, or None."""
        saved = self._saved.get(source)
        return dict(saved["state"]) if saved else None

    def entries(self) -> dict[str, dict[str, Any]]:
        """Return every source's saved entry (``state``, ``mode``, ``saved``, ``complete``)."""
        return {source: dict(entry) for source, entry in self._saved.items()}

    async def save(self, state: SourceState) -> None:
        """Keep ``state`` as its source's position; write the file if the last write is old."""
        self._saved[state.source] = {
            "state": dict(state.state),
            "mode": state.mode,
            "saved": time.time(),
            # A full pass saves its way along, and its last position says whether it ended
            # (`memtrails sources`: a run killed or stopped by damaged input did not).
            "complete": state.complete,
        }
        self._dirty = True
        if self._clock() - self._written >= self._every:
            await self.flush()

    async def forget(self, source: str) -> None:
        """Drop ``source``'s position and write: its records are gone, the next run reads it whole."""
        if self._saved.pop(source, None) is not None:
            self._dirty = True
            await self.flush()

    async def forget_all(self) -> None:
        """Drop every saved position and write: the next run reads every source in full."""
        self._saved.clear()
        self._dirty = True
        await self.flush()

    async def flush(self) -> None:
        """Write ``sources.json`` if anything changed since the last write."""
        if self._dirty:
            import asyncio  # here: `memtrails status` reads positions without an event loop

            await asyncio.to_thread(self._write)
            self._dirty = False
            self._written = self._clock()

    def _write(self) -> None:
        saved: dict[str, Any] = dict(self._saved)
        if self._mark is not None:
            saved[LOG_MARK] = self.log_mark = self._mark()
        write_json_atomic(self._path, saved)


# The type each field of an entry is written with; True is no time, so "saved" is no bool.
_FIELDS: dict[str, Callable[[Any], bool]] = {
    "mode": lambda value: isinstance(value, str),
    "saved": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "complete": lambda value: isinstance(value, bool),
}


def _sound(entry: Any) -> dict[str, Any] | None:
    """Return a saved entry as the code reads it, or None when its position is damaged (an
    edit, another version): that source is then read whole, as if never saved. A field of
    another type is dropped, as if never written; a field not known here is kept."""
    if not isinstance(entry, dict) or not isinstance(entry.get("state"), dict):
        return None
    return {k: v for k, v in entry.items() if k not in _FIELDS or _FIELDS[k](v)}


def describe_position(state: Any) -> str:
    """A few words on where a source's importer got to (the whole position is in its JSON)."""
    if not isinstance(state, dict) or not state:
        return "-"
    if "cursor" in state:
        return f"{state['cursor']} >= {state.get('value', '(none yet)')}"
    if isinstance(state.get("files"), dict):
        return f"{len(state['files'])} files"
    refs = state.get("heads", state.get("refs"))
    if isinstance(refs, dict):
        return ", ".join(f"{ref} {str(sha)[:10]}" for ref, sha in list(refs.items())[:2])
    if isinstance(state.get("offset"), int):
        return f"byte {state['offset']:,}"
    if isinstance(state.get("channels"), dict):
        return f"{len(state['channels'])} channels"
    return ", ".join(sorted(str(k) for k in state)[:4])


def stopped_part_way(entry: Any) -> bool:
    """Tell whether a source's saved entry is that of a full pass that did not reach its
    source's end: killed, stopped by a read error or damaged data, or still running. An
    incremental run never reads a source whole, and an entry saved before memtrails kept
    the flag tells nothing: neither counts."""
    return (
        isinstance(entry, dict) and entry.get("mode") == "full" and entry.get("complete") is False
    )
