"""Edits and deletions: what a channel's events say of its messages, read before its records.

An export that keeps a channel's events holds a deleted message beside the
``message_deleted`` event that deleted it (``deleted_ts``), and an edited one beside each
``message_changed`` event that edited it (``message``: the new version, the original's
``ts``), often in a later day file. A deleted message (or one edited into a tombstone) is
not imported; an edited one is imported once, as its last edit left it: the original's
words are not in the memory.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from zipfile import ZipInfo

from . import _stream
from ._export import READ_ERRORS, Export, MemberRefused
from ._messages import as_ts
from ._stream import NotAnArray, json_array, unwrapped

__all__ = ["Changes", "changes_of"]

# Words a day file holds only if it holds such an event (Slack escapes no ASCII letters).
_MARKERS = ("message_deleted", "message_changed", "tombstone")
_LONGEST = max(len(m) for m in _MARKERS)


def _new_version(message: Mapping[str, Any]) -> Mapping[str, Any] | None:
    new = message.get("message")
    if message.get("subtype") == "message_changed" and isinstance(new, Mapping):
        return new
    return None


def _key(event: Mapping[str, Any]) -> str:
    """Tell one edit event from another, wherever it is read (its content's digest)."""
    text = json.dumps(event, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# The most bytes of a channel's day files held from the look for events to the reading of
# their records, so that each is read once; those after it are read again.
HELD_BYTES = 32 * 1024 * 1024


class Changes:
    """The messages of a channel deleted (their ts), and the edit event that last edited each
    message edited (by ts: the digest of that event).

    ``held``: the bytes of the day files read to find them, by the name their errors go by
    (:meth:`Export.copies`), up to :data:`HELD_BYTES` in all, for their records to be read
    from (:meth:`take`) rather than read again.
    """

    def __init__(self) -> None:
        self.deleted: set[str] = set()
        self.last_edit: dict[str, str] = {}
        self.held: dict[str, bytes] = {}
        self.held_bytes = 0

    def hold(self, where: str, raw: bytes) -> None:
        if self.held_bytes + len(raw) <= HELD_BYTES:
            self.held[where] = raw
            self.held_bytes += len(raw)

    def take(self, where: str) -> bytes | None:
        """Return (and let go of) the bytes held of a day file, or None."""
        raw = self.held.pop(where, None)
        if raw is not None:
            self.held_bytes -= len(raw)
        return raw

    def __bool__(self) -> bool:
        return bool(self.deleted or self.last_edit)

    def note(self, message: Any) -> None:
        """Learn what one of the channel's messages says of the others."""
        if not isinstance(message, Mapping):
            return
        subtype = message.get("subtype")
        if subtype == "message_deleted":
            previous = message.get("previous_message")
            ts = as_ts(message.get("deleted_ts")) or (
                as_ts(previous.get("ts")) if isinstance(previous, Mapping) else None
            )
            if ts is not None:
                self.deleted.add(ts)
        elif subtype == "tombstone":  # a thread's parent, deleted: what stood there is gone
            ts = as_ts(message.get("ts"))
            if ts is not None:
                self.deleted.add(ts)
        else:
            new = _new_version(message)
            ts = as_ts(new.get("ts")) if new is not None else None
            if ts is not None:
                self.last_edit[ts] = _key(message)
                if new is not None and new.get("subtype") == "tombstone":  # edited into one
                    self.deleted.add(ts)

    def gone(self, message: Any) -> bool:
        """Whether a message of the channel is not read: deleted, or an edit (or the original)
        that a later edit replaces."""
        if not self or not isinstance(message, Mapping):
            return False
        new = _new_version(message)
        ts = as_ts((new or message).get("ts"))
        if ts is None:
            return False
        if ts in self.deleted:
            return True
        last = self.last_edit.get(ts)
        return last is not None and (new is None or _key(message) != last)


def changes_of(export: Export, channel: str, days: Iterable[str]) -> Changes:
    """Return the edits and deletions the events in a channel's day files make.

    A day file is looked at as bytes first, and parsed only if it holds such an event; a
    small one's bytes are held for its records (:meth:`Changes.take`). One that cannot be
    read says nothing here: reading its records names its error. Its bytes are counted
    against a zip's inflation budget once, when its records are read, not here too.
    """
    changes = Changes()
    for day in days:
        for where, copy in export.copies(f"{channel}/{day}"):
            try:
                size = export.size(copy)
                export.refuse(copy, size)
                for message in _messages(export, copy, size, where, changes):
                    changes.note(message)
            except (MemberRefused, NotAnArray, ValueError, RecursionError, *READ_ERRORS):
                changes.take(where)  # read again for its records, which name the error
                continue
    return changes


def _messages(
    export: Export, copy: str | ZipInfo, size: int | None, where: str, changes: Changes
) -> Iterator[Any]:
    if size is not None and size > _stream.STREAM_BYTES:
        if _marked(export.chunks(copy, again=True)):
            yield from json_array(export.chunks(copy, again=True))
        return
    raw = b"".join(export.chunks(copy, again=True))
    changes.hold(where, raw)
    encoding = json.detect_encoding(raw)
    text = raw.decode(encoding, "replace") if not encoding.startswith("utf-8") else None
    if any(m in text if text is not None else m.encode() in raw for m in _MARKERS):
        yield from unwrapped(json.loads(raw)) or ()


def _marked(pieces: Iterator[bytes]) -> bool:
    """Whether a large day file's bytes hold one of the markers (or are not UTF-8: then it
    is parsed all the same)."""
    tail = b""
    first = True
    for piece in pieces:
        if first and not json.detect_encoding(piece).startswith("utf-8"):
            return True
        first = False
        window = tail + piece
        if any(m.encode() in window for m in _MARKERS):
            return True
        tail = window[-_LONGEST:]
    return False
