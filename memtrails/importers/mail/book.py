"""What one pass over a mail source has seen: Message-IDs, what each mail said, its thread."""

from __future__ import annotations

import base64
import binascii
import hashlib
import itertools
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...records import MemoryRecord
from .earlier import Earlier
from .threads import ThreadPlan, raw_named_ids

__all__ = ["THREADS_KEPT", "MailBook", "core_digest"]

#: The replies whose threads a source's saved position keeps (:meth:`MailBook.threads`),
#: newest last; about 100 bytes each.
THREADS_KEPT = 5_000

# Pipermail replaces each attachment by a note whose wording changed between versions
# ("Url : http://..." then "URL: </pipermail/...>", "Name: not available" then the name):
# two archivings of one mail differ only there.
_SCRUBBED = re.compile(
    r"^(?:-{5,} ?next part ?-{5,}\n)?"
    r"(?:An? [\w -]{1,40} was scrubbed\.\.\.\n(?:[A-Za-z][\w -]{0,20}: [^\n]*\n?)*)?",
    re.MULTILINE,
)
# A footer a list appends: a rule line, then a few lines that name the list or a link.
_RULE = re.compile(r"^(?:[_=*~-]{8,}|-- ?)$")
_FOOTER_WORDS = re.compile(r"(?i)https?://|mailto:|@|\blist|subscri|\bgroups?\b")
_FOOTER_LINES = 15
_FOOTER_CHARS = 1500
_TAG = re.compile(r"^(?:\s*\[[^\]\n]{1,40}\])+\s*")  # "[Twisted-Python] " added by the list
_ADDRESS = re.compile(r"[\w.+-]+@[\w.-]+")
_BLANKS = re.compile(r"\s+")
# An archive that lost a charset wrote "Mu?oz" or "Mu\ufffdoz" for "Muñoz": any letter
# outside ASCII, a "?" and U+FFFD read alike.
_LOST = re.compile(r"[^\x00-\x7f]|\?")
# What a saved position keeps of each mail placed (:meth:`MailBook.placed_ids`): the key of
# its Message-ID (8 bytes) and the start of its core digest (7): 15 bytes, 20 in base64, so
# that the base64 of two runs of entries joined is that of the entries joined.
_DIGEST_BYTES = 7
_ENTRY = 8 + _DIGEST_BYTES
_CHUNKS_KEPT = 64  # a saved position's list of base64 pieces, joined into one beyond it


def _strip_footers(text: str) -> str:
    """Drop up to three list footers from the end of a text (nested lists add one each)."""
    lines = text.rstrip().split("\n")
    for _ in range(3):
        tail = lines[-_FOOTER_LINES:]
        cut = None
        for i in range(len(tail) - 1, -1, -1):
            if _RULE.match(tail[i].strip()):
                block = "\n".join(tail[i + 1 :])
                if block.strip() and len(block) <= _FOOTER_CHARS and _FOOTER_WORDS.search(block):
                    cut = len(lines) - len(tail) + i
                break
        if cut is None or cut == 0:
            break
        lines = lines[:cut]
        while lines and not lines[-1].strip():
            lines.pop()
    return "\n".join(lines)


def core_digest(record: MemoryRecord) -> str:
    """Return the SHA-256 hex of what a mail says, without what archives and lists change.

    Kept: subject, sender and recipient addresses, date, text, attachments' names and types.
    Left out: list footers at the end of the text, pipermail's notes for scrubbed
    attachments, ``[list]`` tags before the subject, display names (addresses are kept),
    all differences of white space, and which letter outside ASCII stands where (an archive
    that lost the charset wrote ``?`` or U+FFFD for it). Two copies of one mail delivered through a list and
    archived twice share it; two mails that reuse a Message-ID for other words do not.
    """
    text = _SCRUBBED.sub("", record.text.replace("\r\n", "\n"))
    text = _LOST.sub("?", _BLANKS.sub(" ", _strip_footers(text)).strip())
    title = _LOST.sub("?", _BLANKS.sub(" ", _TAG.sub("", record.title or "")).strip())
    authors = sorted({a.lower() for a in _ADDRESS.findall(record.author or "")})
    if not authors and record.author:
        authors = [_BLANKS.sub(" ", record.author).strip().lower()]
    at = record.at.ms if record.at is not None else None
    to = sorted(
        {
            a.lower()
            for key in ("to", "cc")
            for v in record.meta.get(key) or ()
            for a in _ADDRESS.findall(str(v))
        }
    )
    files = sorted(
        (str(a.get("name") or ""), str(a.get("type") or ""))
        for a in record.meta.get("attachments") or ()
        if isinstance(a, dict)
    )
    core = json.dumps([title, authors, to, at, text, files], ensure_ascii=False)
    return hashlib.sha256(core.encode("utf-8", "surrogatepass")).hexdigest()


def _key(value: str) -> bytes:
    return hashlib.blake2b(value.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class MailBook:
    """The Message-IDs and threads one pass over a mail source has met, in reading order.

    ``place`` keeps the ids of a source distinct: the first mail with a Message-ID keeps it;
    a later one that says the same (a copy: see :func:`core_digest`) is a duplicate, folded
    into the first; a later one that says something else gets ``<Message-ID>#<12 hex>`` (the
    start of its own ``core_digest``), so it depends on the mail, not on where it is.
    ``thread`` joins a mail to the thread of any message it refers to that the pass has met
    (JWZ threading over References and In-Reply-To, as far as the pass has read). A pass
    that first shows the book every mail's headers (``plan``) gets threads that do not
    depend on the reading order: a reply read before its parent (a Maildir's ``new/``
    before ``cur/``, an mbox in reverse order) joins the thread its parent is in.
    Memory: about 60 bytes per mail, plus each thread's name once (a plan: 100 more).

    A pass that resumes where the last one stopped reads its last mail again without what
    came before it: ``pin`` hands over what that mail became (``last``), so it becomes the
    same again.
    """

    def __init__(self) -> None:
        self._digests: dict[bytes, list[bytes]] = {}  # id key -> core digests met under it
        self._threads: dict[bytes, str] = {}  # message id key -> its thread
        self._pins: dict[str, str | None] = {}  # Message-ID -> the id it had (None: a copy)
        self._known: dict[bytes, str] = {}  # message id key -> the thread an earlier run gave
        self._plan: ThreadPlan | None = None
        self._replies: dict[str, str] = {}  # Message-ID -> thread, of the replies placed
        self._fresh = bytearray()  # this pass's entries (see placed_ids), not yet encoded
        self._waiting: set[bytes] = set()  # ids met aside only, their plain id not yet given
        self._earlier = Earlier(_ENTRY)  # earlier runs' entries (recall), by key
        self._looked: set[bytes] = set()  # keys whose earlier entries are in _digests
        self._chunks: list[str] = []  # the entries, base64, earlier runs' first
        self.duplicates = 0
        #: What the last mail placed became: [Message-ID, id or None for a copy, thread].
        self.last: list[str | None] | None = None

    def pin(self, last: object) -> None:
        """Make the next mail with this Message-ID what it was last time (``last`` as saved)."""
        if not (isinstance(last, list) and len(last) == 3 and isinstance(last[0], str)):
            return  # a position saved by another version: nothing to hand over
        plain, placed, thread = last
        self._pins[plain] = placed if isinstance(placed, str) else None
        if isinstance(thread, str) and thread:
            self.known(plain, thread)

    def known(self, plain: str, thread: str) -> None:
        """Note that an earlier run put the message ``plain`` in ``thread``: a mail in it,
        or a reply to it, gets that thread."""
        self._known.setdefault(_key(plain), thread)
        self._threads.setdefault(_key(plain), thread)

    def plan(self, raw: bytes, rank: tuple[Any, ...] | None = None) -> None:
        """Note the thread headers of a mail the pass will read (before it reads any);
        ``rank``: see :meth:`.threads.ThreadPlan.add`."""
        found = raw_named_ids(raw)
        if found is not None:
            self._plan = self._plan or ThreadPlan()
            self._plan.add(*found, rank=rank)

    def thread(self, own: str, refs: list[str], fallback: str, stamp: str = "") -> str:
        """Return the thread of a mail with Message-ID ``own`` referring to ``refs``, oldest first.

        The thread is that of the oldest referred message the pass has met or that an
        earlier mail referred to; else ``fallback`` (the oldest reference, or its own id).
        Every id named is then noted as being in that thread, so a later reply that names
        only one of them (a shortened References, a lone In-Reply-To) joins it. Where the
        pass planned its mails (:meth:`plan`), the thread is the plan's: the root of the
        mail's parents, whatever the order (:class:`~.threads.ThreadPlan`), which tells
        two mails that reuse a Message-ID apart by their ``stamp`` (:func:`~.threads.stamp`).
        """
        plan = self._plan
        found = plan.thread(own, refs, self._known, stamp) if plan is not None else None
        if found is not None:
            for ref in (*refs, own):
                if ref:
                    self._threads.setdefault(_key(ref), found)
            return found
        for ref in refs:
            found = self._threads.get(_key(ref))
            if found is not None:
                break
        if found is None and own:
            found = self._threads.get(_key(own))
        thread = found if found is not None else fallback
        for ref in (*refs, own):
            if ref:
                self._threads.setdefault(_key(ref), thread)
        return thread

    def note(self, plain: str, digest: str) -> None:
        """Note a mail of the source this pass may not read: Message-ID ``plain``, saying
        :func:`core_digest` ``digest`` (a Maildir's message an earlier run placed)."""
        self._met(_key(plain), bytes.fromhex(digest[: 2 * _DIGEST_BYTES]))

    def placed_ids(self) -> list[str]:
        """Return what a saved position keeps of the mails placed so far, earlier runs'
        included: each Message-ID's key with the start of what each mail under it said.

        A later run that reads only what was appended (an mbox) hands it to :meth:`recall`,
        so that a new mail that reuses an earlier run's Message-ID for other words is kept
        under an id of its own, as in one pass, not put in the place of the earlier mail.
        15 bytes a mail, 20 in the saved JSON.
        """
        if self._fresh:
            self._chunks.append(base64.b64encode(self._fresh).decode("ascii"))
            self._fresh = bytearray()
        if len(self._chunks) > _CHUNKS_KEPT:
            self._chunks = ["".join(self._chunks)]
        return list(self._chunks)

    def recall(self, saved: object) -> None:
        """Note the mails an earlier run placed (:meth:`placed_ids`, as saved), as though
        this pass had read them; a value saved by another version is ignored."""
        if not isinstance(saved, list) or not all(isinstance(c, str) for c in saved):
            return
        for chunk in saved:
            try:
                raw = base64.b64decode(chunk, validate=True)
            except (binascii.Error, ValueError):
                continue
            self._earlier.add(raw)
            self._chunks.append(chunk)
        self._looked = set()  # a key looked up before now may have entries in the table

    def _met_under(self, key: bytes) -> list[bytes] | None:
        """Return the digests met under ``key`` (earlier runs' included), None if none."""
        met = self._digests.get(key)
        if len(self._earlier) and key not in self._looked:
            self._looked.add(key)
            earlier = self._earlier.shorts(key)
            if earlier:
                met = self._digests.setdefault(key, [])
                met[:0] = [s for s in earlier if s not in met]
        return met

    def _met(self, key: bytes, short: bytes) -> bool:
        """Note a mail under ``key`` that says ``short``; return whether it is new."""
        met = self._met_under(key)
        if met is None:
            met = self._digests[key] = []
        if short in met:
            return False
        met.append(short)
        self._fresh += key + short
        return True

    def keep(self, record: MemoryRecord, placed: str | None) -> MemoryRecord | None:
        """Return ``record`` as an earlier run placed it: under id ``placed``, or None (a copy).

        For a mail read again whose words are unchanged: :meth:`place` would take it for a
        copy of itself, noted by :meth:`note`.
        """
        self.note(record.id, core_digest(record))
        if placed is None or placed == record.id:
            return self._placed(record, record if placed else None)
        meta = {**record.meta, "message_id": record.id}
        return self._placed(record, replace(record, id=placed, meta=meta))

    def place(self, record: MemoryRecord, *, aside: bool = False) -> MemoryRecord | None:
        """Return the record under a distinct id, or None when it repeats a mail already placed.

        With ``aside``, the mail that keeps its Message-ID comes later (a folder's
        earliest-dated one): this one, unless a copy, takes ``<Message-ID>#<12 hex>``, and
        the next mail placed without ``aside`` still takes the plain id.
        """
        digest = core_digest(record)
        key = _key(record.id)
        first = self._met_under(key) is None or key in self._waiting
        new = self._met(key, bytes.fromhex(digest[: 2 * _DIGEST_BYTES]))
        if aside:
            if not new:  # a copy of a mail placed
                return self._placed(record, None)
            if first:
                self._waiting.add(key)
            own = f"{record.id}#{digest[:12]}"
        elif record.id in self._pins:  # read again where the last run stopped: as it was then
            pinned = self._pins.pop(record.id)
            if pinned is None:
                return self._placed(record, None)
            own = pinned
        elif first:
            self._waiting.discard(key)
            return self._placed(record, record)
        elif not new:
            return self._placed(record, None)
        else:
            own = f"{record.id}#{digest[:12]}"
        if own == record.id:
            return self._placed(record, record)
        meta = {**record.meta, "message_id": record.id}
        return self._placed(record, replace(record, id=own, meta=meta))

    def threads(self, before: Mapping[str, str]) -> dict[str, str]:
        """Return the threads of the replies this pass placed after those of ``before``
        (an earlier run's), Message-ID -> thread, the newest :data:`THREADS_KEPT`: a later
        run that reads what was appended since gives them to :meth:`known`, so a reply
        that names only its parent joins the parent's thread."""
        merged = dict(before)
        for plain, thread in self._replies.items():
            merged.pop(plain, None)
            merged[plain] = thread
        return dict(itertools.islice(merged.items(), max(len(merged) - THREADS_KEPT, 0), None))

    def _placed(self, record: MemoryRecord, placed: MemoryRecord | None) -> MemoryRecord | None:
        self.last = [record.id, placed.id if placed is not None else None, record.thread]
        if placed is not None and placed.id == record.id and record.thread != record.id:
            self._replies.pop(record.id, None)
            self._replies[record.id] = record.thread or ""
            if len(self._replies) > 2 * THREADS_KEPT:
                kept = list(self._replies.items())[-THREADS_KEPT:]
                self._replies = dict(kept)
        if placed is None:
            self.duplicates += 1
        return placed
