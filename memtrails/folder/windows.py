"""The times a search lifts: those a query names (when.py), or the time of an event it names.

"What broke before the migration?" names no date, yet places its answer in time: before the
record that tells of the migration. The folder itself says when that was: the record that
best matches the event's words, asked of the index as a query of its own. Its time then
opens a window to that side, as "before 2020" does (``when._directed``), and the records
inside it gain ``ranking.DATE_BOOST``: a lift among near-equals, not a filter, since the
best match for "the migration" may be a plan written before it or a review after.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ..embedding._base import Vector
from ..words import keyword_vector, words
from .index._base import Hit, IndexBackend, SearchFilter, SparseVector
from .lines import live_record
from .log import RecordLog
from .points import passage_text
from .ranking import WINDOW_CANDIDATES, rank_records
from .table import Table
from .when import EARLIEST, LATEST, Windows, query_windows

__all__ = ["EVENT_CANDIDATES", "Event", "event_named", "search_windows", "written_then"]

# How many passages each side offers for the event's own query: its best match is taken.
EVENT_CANDIDATES = 10
# Words that place what is asked on one side of what follows them. "up to" ("up to date",
# "up to you") and "till" are left out: seldom an event's side in a question; "once" only
# before a clause ("once her kittens had gone"), not "once a week".
_DIRECTION = re.compile(
    r"(?<![\w'\u2019-])(before|prior\s+to|earlier\s+than|until|after|later\s+than|following"
    r"|since|once(?=\s+(?:the|a|an|my|our|his|her|their|its|we|i|he|she|they|it|you)\b))\s+",
    re.IGNORECASE,
)
_BEFORE = {"before", "prior to", "earlier than", "until"}
# The event ends where its clause does: at punctuation or a word that starts another clause
# ("and" and "or" join nouns as often: "before her brothers and sisters were adopted").
_CLAUSE_END = re.compile(r"[?!.;:,()\[\]\"\u201c\u201d]|\s(?:but|so|because|while|when|if)\s")
# The words before a direction that make it no time: "the following error", "looked
# after the dog", "named after her aunt", "takes after his father".
_NOT_TIME = frozenset(
    {
        *("the", "a", "look", "looks", "looked", "looking", "named", "name", "ask", "asks"),
        *("asked", "take", "takes", "took", "taking"),
    }
)
# Words that name no event: pronouns, determiners, auxiliaries, and parts of a day ("after
# lunch", "before work": every day has one, so the folder's best match says nothing).
_NO_EVENT = frozenset(
    {
        *("the", "a", "an", "this", "that", "these", "those", "it", "its", "then", "now"),
        *("all", "we", "i", "you", "he", "she", "they", "our", "my", "your", "his", "her"),
        *("their", "me", "us", "him", "them", "was", "were", "is", "are", "be", "been"),
        *("had", "has", "have", "did", "do", "does", "got", "get", "went", "one", "some"),
        *("any", "each", "every", "which", "what", "who", "of", "to", "in", "on", "at"),
        *("for", "with", "by", "from", "up", "out", "there", "here", "ever", "last", "next"),
        *("lunch", "dinner", "breakfast", "work", "school", "bed", "bedtime", "dark"),
        *("noon", "midnight", "midday", "hours", "class", "sunset", "sunrise", "dawn"),
        *("dusk", "today", "tomorrow", "yesterday", "tonight", "while", "long", "ago"),
        *("again", "once", "twice", "more", "less", "much", "many", "years", "months"),
        *("weeks", "days", "year", "month", "week", "day", "time", "times", "said", "say"),
        *("doing", "done", "just", "not", "no", "too", "very", "also", "about", "into"),
    }
)
_EVENT_WORDS = 8


@dataclass(frozen=True, slots=True)
class Event:
    """An event a query places its answer beside: ``side`` is "before" or "after"."""

    side: str
    words: str


def event_named(query: str) -> Event | None:
    """Return the event the query places its answer before or after, None when it names none.

    The event is the clause after "before", "prior to", "earlier than", "until", "after",
    "later than", "following", "since" or "once" (up to its punctuation or a word that
    starts another clause: "because", "when", ...; eight words at most), when it holds a word that names something: not
    "after that", "before lunch" or "the following error". English words only.

    Example:
        >>> event_named("What did we try before the Postgres migration?")
        Event(side='before', words='the Postgres migration')
        >>> event_named("How has he got to college since he passed his driving test?")
        Event(side='after', words='he passed his driving test')
        >>> event_named("What happened after that?") is None
        True
        >>> event_named("What does the following error mean?") is None
        True
    """
    for m in _DIRECTION.finditer(query):
        ahead = query[: m.start()].split()
        if ahead and ahead[-1].lower() in _NOT_TIME:
            continue
        rest = query[m.end() :]
        if (cut := _CLAUSE_END.search(rest)) is not None:
            rest = rest[: cut.start()]
        said = rest.split()[:_EVENT_WORDS]
        if not said or any(c.isdigit() for c in said[0]):
            continue  # "after 3 retries", "before 10am": no event
        named = [w for w in words(" ".join(said)) if w not in _NO_EVENT and w.isalpha()]
        # A step of a procedure ("right after placing it", "before deploying") is no event
        # the folder dates: a verb in -ing first must have something named after it.
        if named and said[0].lower().endswith("ing") and named[0] == said[0].lower():
            named = named[1:]
        if not any(len(w) > 1 for w in named):
            continue
        side = " ".join(m.group(1).lower().split())
        return Event(
            "before" if side in _BEFORE else "after",
            " ".join(said),
        )
    return None


async def search_windows(
    query: str,
    now: datetime | None,
    folder: tuple[IndexBackend, Table, RecordLog],
    dense: Vector,
    where: SearchFilter,
    floor: float,
    meaning: Sequence[Hit] | None = None,
) -> Windows:
    """Return the windows of the times ``query`` names (:func:`.when.query_windows`); when it
    names none, the window on the side of an event it names (:func:`event_named`), opened
    from the time of the event as the folder tells it (two more index calls and a log read,
    for such queries only); else none.

    The event's time is that of the live record that holds one of the event's words and
    best matches them and the query's meaning (``dense``, the query's vector: a second
    model run for the event's words alone found the same times, benchmarks/README.md),
    unless the sentence of its passage that names the event also names
    its time ("The Harbourside Half, on October 15th", written in January): a plan is
    written long before what it plans.
    """
    if (windows := query_windows(query, now)) or (event := event_named(query)) is None:
        return windows
    index, table, log = folder
    # Only the words that name the event are matched ("migration", not "the" or "we"), and
    # only a record holding one of them dates it: every folder has some record closest in
    # meaning to "the migration", and one that never names it would date nothing.
    named = [w for w in words(event.words) if w not in _NO_EVENT]
    terms = keyword_vector(" ".join(named))
    sparse = SparseVector(list(terms), list(terms.values()))
    if meaning is None:
        by_meaning, by_words = await index.candidates(dense, sparse, EVENT_CANDIDATES, where)
    else:
        # The same vector and filter as the search's own call: its first passages are the
        # ones a call of its own would find, and a dense scan of the folder is saved (at
        # 100k records, most of an event question's extra time; benchmarks/README.md).
        by_meaning = list(meaning[:EVENT_CANDIDATES])
        _, by_words = await index.candidates(None, sparse, EVENT_CANDIDATES, where)
    holding = {h.uid for h in by_words}
    ranked = rank_records(by_meaning, by_words, live=table.live_among(holding), floor=floor)
    best = next((r.hit for r in ranked if r.uid in holding), None)
    at = best.payload.get("at") if best is not None else None
    if best is None or not isinstance(at, int | float) or isinstance(at, bool):
        return ()
    told = await asyncio.to_thread(_told_time, best, table, log, set(named), int(at))
    # Else the record that tells of the event is often written the day it happens, beside
    # what came just before it (a chat's session, a day's notes): "before" keeps that time.
    start, end = told or (int(at), int(at) + 1)
    return ((start, LATEST),) if event.side == "after" else ((EARLIEST, end),)


# A sentence of a passage; one that says it is past ("was", "last", "ago") reads a month or
# a day without its year as the one before it was written, else as the next one.
_SENTENCE = re.compile(r"[^.!?\n]+")
_PAST = re.compile(r"\b(?:was|were|did|went|had|ago|last|yesterday)\b", re.IGNORECASE)
_YEAR_MS = 366 * 86_400_000


def _told_time(
    hit: Hit, table: Table, log: RecordLog, named: set[str], written: int
) -> tuple[int, int] | None:
    """Return the time the sentence of ``hit``'s passage that names the event gives it, read
    from when the record was written; None when that sentence names no time of its own."""
    record = live_record(hit.uid, table, log)
    if record is None:
        return None
    passage = passage_text(record, hit.payload)
    when = datetime.fromtimestamp(written / 1000, UTC)
    day = int(when.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)
    for sentence in _SENTENCE.findall(passage):
        if named.isdisjoint(words(sentence)):
            continue
        spans = sorted(w for w in query_windows(sentence, when) if EARLIEST < w[0] < w[1] < LATEST)
        if len(spans) > 1:  # a month or a day of every year: the one the sentence means
            if _PAST.search(sentence):
                spans = [w for w in spans if w[0] < day][-1:]
            else:
                spans = [w for w in spans if w[0] >= day][:1]
        if spans and abs(spans[0][0] - written) <= _YEAR_MS:
            return spans[0]
    return None


async def written_then(
    index: IndexBackend,
    dense: Vector,
    sparse: SparseVector,
    where: SearchFilter,
    windows: Windows,
) -> tuple[list[Hit], list[Hit]]:
    """Return the best WINDOW_CANDIDATES passages on each side written inside the one time
    the query names (none for no time, or a month without its year: a window each year)."""
    if len(windows) != 1 or WINDOW_CANDIDATES < 1:
        return [], []
    start, end = windows[0]
    since = start if where.since_ms is None else max(start, where.since_ms)
    until = end - 1 if where.until_ms is None else min(end - 1, where.until_ms)
    if since > until:
        return [], []
    inside = replace(where, since_ms=since, until_ms=until)
    return await index.candidates(dense, sparse, WINDOW_CANDIDATES, inside)
