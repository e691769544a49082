"""Which messages a mail names for its thread, and the threads of a whole source planned
before its mails are read, so that a mail's thread does not depend on the reading order."""

from __future__ import annotations

import hashlib
import itertools
import re
from email.message import Message
from typing import Any

from .dates import mail_date
from .headers import msg_id, raw_header, refs

__all__ = [
    "MAX_REFS",
    "ThreadPlan",
    "gmail_thread",
    "named_ids",
    "raw_id_and_date",
    "raw_named_ids",
    "stamp",
]

#: References ids a mail's thread is looked up by: the first (the root) and the last ones
#: (the parents), as RFC 5322 3.6.4 says a long list is shortened. The book notes each id
#: it is given, so 10,000 ids in every mail of an mbox would grow it without bound.
MAX_REFS = 64


def _kept_refs(found: list[str]) -> list[str]:
    """Return a References list shortened to its first and last ``MAX_REFS - 1`` ids."""
    if len(found) <= MAX_REFS:
        return found
    return found[:1] + found[1 - MAX_REFS :]


def gmail_thread(value: str | None) -> str:
    """Return Gmail's thread id (``X-GM-THRID``, in Takeout mbox files), or empty."""
    value = (value or "").strip()
    return f"gmail:{value}" if value.isdigit() else ""


def named_ids(msg: Message) -> tuple[str, list[str]]:
    """Return a mail's Message-ID (empty when it has none) and the ids it names, oldest
    first: its References (shortened), then the In-Reply-To ids References lacks."""
    named = _kept_refs(refs(raw_header(msg, "references")))
    named += [r for r in refs(raw_header(msg, "in-reply-to")) if r not in named]
    return msg_id(raw_header(msg, "message-id")), named


# The headers a thread is found by, with their folded lines; a space before the colon is
# obsolete syntax the reader accepts (see :func:`~.headers.fix_obsolete_names`).
_THREAD_HEADER = re.compile(
    rb"^(message-id|references|in-reply-to|x-gm-thrid|date|subject)[ \t]*:[ \t]*([^\n]*(?:\n[ \t][^\n]*)*)",
    re.IGNORECASE | re.MULTILINE,
)


# What a subject says without a list's tags and reply or forward prefixes.
_SUBJECT_NOISE = re.compile(r"\[[^\]]{0,40}\]|\b(?:re|fwd?|aw|sv|wg)\s*(?:\[\d+\])?\s*:", re.I)


def stamp(date: str | None, subject: str | None) -> str:
    """Return what tells two mails with one Message-ID apart: the Date header as written
    and the subject without list tags and ``Re:``/``Fwd:``, white space folded."""
    said = _SUBJECT_NOISE.sub(" ", subject or "").lower()
    return " ".join((date or "").split()) + "\n" + " ".join(said.split())


def raw_named_ids(raw: bytes) -> tuple[str, list[str], str] | None:
    """Return :func:`named_ids` of a raw message and its :func:`stamp`, from its header
    block alone and without parsing it (a 50 MB header block costs no more than its
    bytes); None for a mail whose thread Gmail gives (``X-GM-THRID``)."""
    found = _header_fields(raw)
    if gmail_thread(found.get("x-gm-thrid")):
        return None
    named = _kept_refs(refs(found.get("references")))
    named += [r for r in refs(found.get("in-reply-to")) if r not in named]
    return msg_id(found.get("message-id")), named, stamp(found.get("date"), found.get("subject"))


def raw_id_and_date(raw: bytes) -> tuple[str, int | None]:
    """Return a raw message's Message-ID (empty when it has none) and the time its Date
    header says (epoch ms, None when it says none), from its header block alone."""
    found = _header_fields(raw)
    date = found.get("date")
    return msg_id(found.get("message-id")), mail_date(date) if date else None


def _header_fields(raw: bytes) -> dict[str, str]:
    """The threading headers of a raw message's header block, the first of each, by name
    in lower case (the block is scanned, not parsed)."""
    data = raw.replace(b"\r\n", b"\n").lstrip(b"\n\x00").removeprefix(b"\xef\xbb\xbf")
    end = data.find(b"\n\n")
    found: dict[str, str] = {}
    for m in _THREAD_HEADER.finditer(data, 0, end + 1 if end >= 0 else len(data)):
        name = m.group(1).decode("ascii").lower()
        found.setdefault(name, m.group(2).decode("ascii", "surrogateescape"))
    return found


def _key(value: str) -> bytes:
    return hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class ThreadPlan:
    """The parent of every message of a source, as its mails say (JWZ threading), gathered by
    a pass over their headers before the mails are read.

    A mail's own References (or In-Reply-To) name its parent; a message no mail of the
    source is (a mail not kept) gets its parent from the References lists that name it,
    the longest list's word first. A mail's thread is the Message-ID of the root its
    parents lead to, or the thread an earlier run gave a message on the way (``known``).
    None where the parents run in a circle (then the book threads as it reads).

    Two mails with one Message-ID and one Date are copies: one that names no parent joins
    the thread of a copy that does (an archive dropped its References). With other Dates,
    they are two mails that reuse the id: each keeps the parent it names, one that names
    none is a thread of its own unless its subject is the other's (a mail sent twice), and
    a reply to the id joins the first one's thread.
    Memory: about 100 bytes per message named, plus each root's name once.
    """

    def __init__(self) -> None:
        self._own: dict[bytes, bytes | None] = {}  # a mail's key -> its parent's (None: root)
        self._dates: dict[bytes, bytes] = {}  # a mail's key -> its Date's
        self._subjects: dict[bytes, bytes] = {}  # a reused id's key -> its first subject
        self._ranks: dict[bytes, tuple[Any, ...]] = {}  # a mail's key -> the rank given
        self._reused: set[bytes] = set()  # Message-IDs two mails with other Dates have
        self._said: dict[bytes, tuple[int, bytes]] = {}  # other messages: (-list length, parent)
        self._names: dict[bytes, str] = {}  # the Message-IDs that may be a root
        self._done: dict[bytes, str | None] = {}

    def add(
        self, own: str, named: list[str], stamp: str = "", rank: tuple[Any, ...] | None = None
    ) -> None:
        """Note a mail: its Message-ID (empty when none), the ids it names, oldest first,
        and its :func:`stamp`. Of two mails that reuse a Message-ID, the first noted is the
        id's own, or, given ``rank`` (a folder of .eml: its Date first), the least ranked."""
        date, _, subject = stamp.partition("\n")
        kept = [n for n in named if n and n != own]
        keys = [_key(n) for n in kept]
        if keys:
            self._names.setdefault(keys[0], kept[0])
        for before, child in itertools.pairwise(keys):
            said = (-len(keys), before)
            if before != child and said < self._said.get(child, (1, b"")):
                self._said[child] = said
        if not own:
            return
        key = _key(own)
        parent: bytes | None = keys[-1] if keys else None
        if not keys:
            self._names.setdefault(key, own)
        if key in self._own:
            if self._dates[key] != _key(date):  # another mail reusing the id: the first stays
                self._reused.add(key)
                ranked = self._ranks.get(key)
                if rank is None or ranked is None or not rank < ranked:
                    return
                self._subjects.pop(key, None)  # unless it ranks before: then it is the id's
            else:
                said_before = self._own[key]  # a copy: a reply wins, then the least key
                if parent is None or (said_before is not None and said_before < parent):
                    parent = said_before
        if rank is not None:
            self._ranks[key] = rank
        self._own[key] = parent
        self._dates[key] = _key(date)
        self._subjects.setdefault(key, _key(subject))

    def thread(
        self, own: str, named: list[str], known: dict[bytes, str], stamp: str = ""
    ) -> str | None:
        """Return the thread of a mail the plan noted (``own``, ``named`` and ``stamp`` as
        given to :meth:`add`), or None when the plan cannot tell. A mail that names a
        parent is in its parent's thread, and one that names none and reuses the
        Message-ID of another mail with another Date and subject is a thread of its own,
        ``<Message-ID>#<12 hex of its stamp>`` (the plan's parent of the id may be the
        other mail's)."""
        parents = [n for n in named if n and n != own]
        start = _key(own) if own else None
        if not parents and start in self._reused:
            date, _, subject = stamp.partition("\n")
            if self._dates[start] != _key(date) and self._subjects.get(start) != _key(subject):
                return f"{own}#{_key(stamp).hex()[:12]}"  # its own, told apart by its stamp
        if parents or start is None or start not in self._own:
            start = _key(parents[-1]) if parents else start
        return self._resolve(start, known) if start is not None else None

    def _resolve(self, start: bytes, known: dict[bytes, str]) -> str | None:
        path: list[bytes] = []
        seen: set[bytes] = set()
        node: bytes | None = start
        found: str | None = None
        while node is not None:
            if node in self._done:
                found = self._done[node]
                break
            if node in known:
                found = known[node]
                break
            if node in seen:  # a circle of parents
                found = None
                break
            seen.add(node)
            path.append(node)
            if node in self._own:
                parent = self._own[node]
            else:
                said = self._said.get(node)
                parent = said[1] if said is not None else None
            if parent is None:
                found = self._names.get(node)
            node = parent
        for visited in path:
            self._done[visited] = found
        return found
