"""What flows between the stages once a record has been read."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .embedding._base import Passage
from .portable import js_well_formed
from .records import MemoryRecord, RecordError, SourceState
from .words import words

__all__ = [
    "ATTACHMENT_HEADING",
    "SHORT_TURN_CHARS",
    "RawItem",
    "RawLine",
    "RawReadable",
    "StageItem",
    "Staged",
    "Unchanged",
    "UnchangedMany",
    "attachment_of",
    "conversation_key",
    "conversation_of",
    "embed_text",
]

# A chat turn says little without the turns around it, while a mail or a note stands alone:
# only records this short (and untitled) count as turns of a conversation, for the search's
# neighbours and for the stored vector's context (lifting a thread's neighbouring mails cost
# first places on the dev set's mail queries, issue 32).
SHORT_TURN_CHARS = 400


@dataclass(slots=True)
class Staged:
    """A record on its way to the sink, with the keys and work attached by each stage.

    ``raw`` is the digest of the input the record was made from (see :class:`RawLine`),
    when that input alone decides the record; the table keeps it beside the fingerprint.
    """

    record: MemoryRecord
    secrets: Counter[str] | None = None
    uid: str = ""
    fp: str = ""
    update: bool = False
    passages: list[Passage] = field(default_factory=list)
    raw: bytes | None = None


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A record the folder already holds with the same fingerprint: no further work."""

    uid: str
    source: str


@dataclass(frozen=True, slots=True)
class UnchangedMany:
    """Records of one source found unchanged by their raw input's digest: no further work."""

    source: str
    uids: list[str]


StageItem = Staged | Unchanged | UnchangedMany | RecordError | SourceState


@dataclass(frozen=True, slots=True)
class RawLine:
    """A line an importer has read but not parsed, with a digest of everything that makes it.

    ``key`` is a keyed BLAKE2b digest of the line's bytes, the importer's settings (source
    name, field mapping, default kind, limits) and the salt the import passed in (the
    library's code, the rule set, the record limits, the time zone): equal keys make equal
    records. ``parse(raw, where)`` makes the item, and says whether the record depends on
    the line's bytes alone (a record whose id is its line number does not: its key is
    never kept).
    """

    key: bytes
    source: str
    raw: bytes
    where: int
    parse: Callable[[bytes, int], tuple[MemoryRecord | RecordError | None, bool]]


RawItem = RawLine | MemoryRecord | RecordError | SourceState


class RawReadable(Protocol):
    """An importer that can hand over its lines unparsed, each with its digest."""

    def raw_lines(self, salt: bytes) -> AsyncIterator[list[RawItem]]:
        """Yield lists of a :class:`RawLine` per record line (errors and positions as usual).

        Args:
            salt: mixed into every key: what else decides the records (code, rules, limits).
        """
        ...

    def settle(self, state: SourceState, not_records: int) -> SourceState:
        """Return a position of :meth:`raw_lines` that counted ``not_records`` lines as records
        that turned out not to be, counting only the records."""
        ...


#: The line that opens an attachment's text inside a mail's record: ``[attachment: NAME]``.
ATTACHMENT_HEADING = "\n[attachment: "


def attachment_of(text: str, start: int, end: int, query_words: Collection[str] = ()) -> str | None:
    """Return the name of the attachment a passage ``text[start:end]`` lies in, or None.

    A mail's record holds its attachments' text after its own, each under a heading line
    (:data:`ATTACHMENT_HEADING`). A passage that spans several parts (a short mail is one
    passage, its text and every attachment) lies in the part that holds the most of
    ``query_words``; when none holds one, in the part it starts in, as its snippet does. The
    mail's own text is None.

    Example:
        >>> mail = "See both.\\n[attachment: a.txt]\\nbudget 2024\\n[attachment: b.txt]\\nmenu"
        >>> attachment_of(mail, 0, len(mail), {"budget"}), attachment_of(mail, 0, len(mail))
        ('a.txt', None)
    """
    parts: list[tuple[int, str | None]] = []
    at = text.rfind(ATTACHMENT_HEADING, 0, start + len(ATTACHMENT_HEADING))
    parts.append((start, _heading_name(text, at) if at >= 0 else None))
    while (at := text.find(ATTACHMENT_HEADING, max(at, start) + 1, end)) >= 0:
        parts.append((at, _heading_name(text, at)))
    if len(parts) == 1 or not query_words:
        return parts[0][1]
    bounds = [p for p, _ in parts[1:]] + [end]
    held = [
        len(set(words(text[begin:until])).intersection(query_words))
        for (begin, _), until in zip(parts, bounds, strict=True)
    ]
    return parts[held.index(max(held))][1]


def _heading_name(text: str, at: int) -> str | None:
    close = text.find("]\n", at)
    return text[at + len(ATTACHMENT_HEADING) : close] if close > at else None


def embed_text(record: MemoryRecord) -> str:
    """Return the text the model sees for a record: its title, a blank line, its text.

    The title is left out when the text already starts with it (a commit message). Lone
    surrogates become U+FFFD, as ``TextEncoder`` hands text to the reference's tokenizer
    (normalisation has done it for every imported record; a record read back from an older
    folder may still hold them).
    """
    if record.title and record.text and not record.text.startswith(record.title):
        return js_well_formed(f"{record.title}\n\n{record.text}")
    return js_well_formed(record.text or record.title or "")


def conversation_key(
    source: Any, kind: Any, text: Any, title: Any, thread: Any, meta: Any
) -> tuple[Any, ...] | None:
    """Return what a record shares with its neighbours in one conversation, None if nothing.

    A thread (a session, a mail thread), a chat's channel, or for chat records with neither
    their source: other rows without a thread (notes, files, a table's rows) are not turns of
    a conversation, whoever wrote them. Only turns count, short (at most
    :data:`SHORT_TURN_CHARS`) and untitled: a mail or a long message stands on its own. The
    arguments are a record's fields as a log line holds them (any of them may be missing).
    """
    if not isinstance(text, str) or len(text) > SHORT_TURN_CHARS or title:
        return None
    channel = meta.get("channel") if isinstance(meta, Mapping) else None
    if kind == "chat" and channel:
        return (_plain(source), "chat", _plain(channel))
    if thread:
        return (_plain(source), _plain(kind), _plain(thread))
    if kind == "chat":
        return (_plain(source), "chat", None)
    return None


def _plain(value: Any) -> Any:
    """``value`` as a key can hold it: a list or an object (a meta "channel" may be one) as
    its JSON, so that a key is always hashable."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def conversation_of(record: MemoryRecord) -> tuple[Any, ...] | None:
    """:func:`conversation_key` of a record on its way to the folder."""
    return conversation_key(
        record.source, record.kind, record.text, record.title, record.thread, record.meta
    )
