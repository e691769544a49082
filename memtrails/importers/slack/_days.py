"""Read a Slack day file: whole when small, a message at a time when large."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any
from zipfile import ZipInfo

from ...records import RecordError
from . import _stream
from ._changes import Changes
from ._export import READ_ERRORS, MemberRefused, not_json
from ._found import Labels, labels_of
from ._messages import counted, profile_name
from ._names import Names
from ._stream import NotAnArray, json_array, unwrapped

__all__ = ["DayFile", "day_files"]

# A day file over _stream.STREAM_BYTES is read twice, a message at a time: once to check
# it is valid JSON (a broken one is one error, as a small one is) and learn its senders'
# names, once to make its records.


class DayFile:
    """A day file's messages, held (a small one) or read again when iterated (a large one).

    ``count`` is how many items its messages make (:func:`counted`); ``profiles`` the names
    its messages give senders missing from users.json; ``labels`` those their mentions give
    channels and user groups; ``changes`` the channel's edits and deletions, by which a
    message is not read (:meth:`gone`). A large day file that cannot be read
    the second time (changed or removed meanwhile) ends early, ``failed`` then saying why.
    """

    def __init__(
        self,
        reader: Names,
        where: str,
        copy: str | ZipInfo,
        held: list[Any] | None,
        changes: Changes,
    ) -> None:
        self._reader, self._where, self._copy, self._held = reader, where, copy, held
        self.changes = changes
        self.count = 0
        self.profiles: dict[str, str] = {}
        self.labels = Labels()
        self.failed: RecordError | None = None

    def survey(self, messages: Iterator[Any]) -> None:
        for message in messages:
            if self.changes.gone(message):
                continue
            self.count += counted(self._reader, message)
            found = profile_name(self._reader, message)
            if found is not None:
                self.profiles.setdefault(*found)
            labels_of(message, self.labels)

    def gone(self, message: Any) -> bool:
        """Whether a message is not read: deleted, or replaced by a later edit."""
        return self.changes.gone(message)

    def __iter__(self) -> Iterator[Any]:
        if self._held is not None:
            yield from self._held
            return
        try:
            yield from json_array(self._reader.export.chunks(self._copy, again=True))
        except NotAnArray:
            self.failed = self._error("day file is not a JSON array")
        except MemberRefused as exc:
            self.failed = self._error(f"day file {exc}")
        except (ValueError, RecursionError) as exc:
            self.failed = self._error(f"day file {not_json(exc)}")
        except READ_ERRORS as exc:
            self.failed = self._error(f"cannot read the day file ({exc})")

    def _error(self, reason: str) -> RecordError:
        return RecordError(self._reader.source, self._where, f"{reason} (read again)")


def day_files(
    reader: Names, member: str, changes: Changes | None = None
) -> Iterator[tuple[str, DayFile | RecordError]]:
    """Yield the messages of a day file, or the error that stops it being read, with the
    name its errors go by: of each member of that name, where a zip holds several.
    ``changes``: the edits and deletions of its channel (:func:`._changes.changes_of`)."""
    for where, copy in reader.export.copies(member):
        yield where, _day_file(reader, copy, where, changes if changes is not None else Changes())


def _day_file(
    reader: Names, copy: str | ZipInfo, where: str, changes: Changes
) -> DayFile | RecordError:
    export = reader.export
    held = changes.take(where)
    try:
        if held is not None:  # read to find the channel's events: not read again
            export.charge(copy, len(held))
            raw = held
        elif (size := export.size(copy)) is not None and size > _stream.STREAM_BYTES:
            return _streamed(reader, copy, where, changes)
        else:
            raw = export.read(copy)
    except MemberRefused as exc:
        return RecordError(reader.source, where, f"day file {exc}")
    except READ_ERRORS as exc:  # a damaged member: CRC, inflate or I/O error
        return RecordError(reader.source, where, f"cannot read the day file ({exc})")
    return _parsed(reader, copy, where, raw, changes)


def _streamed(
    reader: Names, copy: str | ZipInfo, where: str, changes: Changes
) -> DayFile | RecordError:
    """Read a large day file a message at a time; raises what reading its bytes raises."""
    pieces = reader.export.chunks(copy)
    first = next(pieces, b"")
    # json.loads reads UTF-16 and UTF-32 too (Slack writes UTF-8): those are read whole.
    if json.detect_encoding(first).startswith("utf-8"):
        day = DayFile(reader, where, copy, None, changes)
        try:
            day.survey(json_array(itertools.chain([first], pieces)))
            return day
        except NotAnArray:  # json.loads says what it is instead
            first, pieces = b"", reader.export.chunks(copy, again=True)
        except MemberRefused:
            raise
        except (ValueError, RecursionError) as exc:  # bad JSON; reading raises no ValueError
            return RecordError(reader.source, where, f"day file {not_json(exc)}")
    return _parsed(reader, copy, where, first + b"".join(pieces), changes)


def _parsed(
    reader: Names, copy: str | ZipInfo, where: str, raw: bytes, changes: Changes
) -> DayFile | RecordError:
    if not raw.strip():  # a download or copy cut off before its first byte: said plainly
        what = "0 bytes" if not raw else "white space alone"
        return RecordError(reader.source, where, f"day file is empty ({what}): no messages read")
    try:
        messages = unwrapped(json.loads(raw))
    except (ValueError, RecursionError) as exc:
        return RecordError(reader.source, where, f"day file {not_json(exc)}")
    if messages is None:
        return RecordError(reader.source, where, "day file is not a JSON array")
    day = DayFile(reader, where, copy, messages, changes)
    day.survey(iter(messages))
    return day
