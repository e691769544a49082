"""Ranking of search candidates: score fusion, dates in the query, ties, near-duplicates."""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..items import SHORT_TURN_CHARS
from .index._base import Hit
from .when import Windows, date_window

__all__ = [
    "ALONE_MARGIN",
    "ANSWER_BOOST",
    "ANSWER_POOL",
    "ASKING_PENALTY",
    "AUTHOR_BOOST",
    "CONFIDENCE_FLOOR",
    "CONFIDENT_COSINE",
    "COSINE_FLOOR",
    "CROSS_SCRIPT_WORDS",
    "DATE_BOOST",
    "FOLLOW_WEIGHT",
    "LANGUAGE_PULL",
    "MMR_LAMBDA",
    "NEAR_DUPLICATE",
    "NEIGHBOUR_DECAY",
    "NEIGHBOUR_POOL",
    "NEIGHBOUR_REACH",
    "NEIGHBOUR_WEIGHT",
    "REPLY_WEIGHT",
    "SHORT_TURN_CHARS",
    "STATS_OVER",
    "WINDOW_CANDIDATES",
    "WORDS_HELD",
    "Ranked",
    "author_named",
    "author_words",
    "calibrated",
    "date_window",
    "diversify",
    "lift",
    "normalise",
    "rank_records",
    "reads_across",
]

# Each side's raw scores become 0..1 over that side's own candidates (mean +- 3 standard
# deviations, clipped, as Qdrant's distribution-based fusion does) and are added: a record
# found strongly by one side is no longer buried under ones found weakly by both, as it
# was with rank-only fusion. Measured on the dev set (benchmarks/README.md).
_SPREAD = 3.0
# The mean and deviation come from each side's best 40 candidates whatever k is, so asking
# for more results does not reorder the first ones (more candidates flatten the spread).
STATS_OVER = 40
# Cosines closer than this are noise for the model: on a query with no meaning to match (a
# bare number) the dense side's spread is tiny, and rescaling it would blow noise up to the
# full 0..1 and outvote the one record that holds the number.
DENSE_MIN_SD = 0.05
# A record written inside a window the query names ("in April 2003") gains this much, about
# a tenth of the fused range (0..2): enough to order near-equals, not to lift the unrelated.
DATE_BOOST = 0.2
# The lift reaches only the candidates, and in a long chat the turn that answers "How far
# was Ines's longest run in April 2023?" may share too little with it to be one (its words
# are said again in other months). So a query that names one time ("in April 2023", "last
# week"; not "in May", a window each year) asks the index once more for the best passages
# on each side written then, this many. On the dev set's long chats the questions that name
# a time went from .312 / .688 / .875 to .375 / .812 / .938 (hit@1/5/10), nothing else moved
# (benchmarks/README.md, issue 32).
WINDOW_CANDIDATES = 5
# A record whose author the query names ("what did Maya buy?") gains this much: the name
# is often only in the record's author field, which neither side of the search reads.
AUTHOR_BOOST = 0.2
# A passage written in none of the query's scripts (an English question, a Korean note) can
# share no word with it, so the keyword side, which it cannot reach, is not held against it:
# its keyword part counts as this share of its meaning part (when higher than its own). Without
# it a same-script passage about something else, matched by a few common words, outranks the
# passage that answers in another language. Measured on the dev set's cross-language
# questions (benchmarks/README.md).
CROSS_SCRIPT_WORDS = 1.0
# When records in another script compete, the keyword part of a record in the query's own
# script is scaled by this plus the rest times the share of the question's word weight it
# holds (confidence.word_share). The keyword side's scores are rescaled over its own
# candidates, so in a small folder one record sharing a single common word with the
# question ("같은", "the cause") rescales to the side's best, 1.0, and beats the note in
# another language that answers, whose keyword part is its meaning (CROSS_SCRIPT_WORDS).
# At 0.5 such a record keeps half; one holding every word keeps all. Measured on the coding
# notes of benchmarks/coding_memory.py (benchmarks/README.md, issue 32); capping the part
# at the share alone (0.0) cost same-language first places. The part is never less than the
# share (which holds a Korean word by its stem, confidence.word_share): a Korean note that
# answers a Korean question with other particles went from none to some keyword part there
# (coding dev first 34 -> 35 of 40; check: first 31 of 36, first 5 35 -> 36).
WORDS_HELD = 0.5
# The cosine a model gives text about something else, by model id: MiniLM's unrelated pairs
# meet cosines near 0, multilingual-e5-small's near 0.7 (its whole range is squeezed into
# 0.7..1). Every cosine threshold below (DENSE_MIN_SD, CONFIDENT_COSINE, NEAR_DUPLICATE) is
# set on MiniLM's scale; a model's cosines are mapped onto it as (cos - floor) / (1 - floor).
# Measured on the dev set (benchmarks/README.md); a model not listed keeps its cosines.
COSINE_FLOOR: dict[str, float] = {"multilingual-e5-small": 0.7}
# The floor the search's confidence maps a model's best cosine with (see `confidence.py`): e5's
# best cosines for answered and unanswered dev questions overlap (0.75-0.9), and at 0.7 the
# default threshold flagged 15 answered questions for 4 unanswered ones; at 0.65 it flags 1
# answered and no unanswered one (benchmarks/README.md, issue 32): a flag that rarely hides
# an answer, and seldom fires.
CONFIDENCE_FLOOR: dict[str, float] = {"multilingual-e5-small": 0.65}
# How much closer, in a multilingual model's raw cosine, two texts about different things are
# when written in one script than in two: multilingual-e5-small's unrelated pairs meet 0.785
# within a script and 0.746 across (the dev set's multilingual notes and their questions), so
# a note in the query's own language about something else outranks the answer in another
# language. A candidate in none of the query's scripts gains it back. Models not listed
# (MiniLM: it cannot match across languages at all) gain nothing.
LANGUAGE_PULL: dict[str, float] = {"multilingual-e5-small": 0.04}


def reads_across(model_id: object) -> bool:
    """Whether the model reads across languages (it has a LANGUAGE_PULL), so that the search
    weighs records in other scripts than the question's as such."""
    return LANGUAGE_PULL.get(str(model_id), 0.0) > 0


# A search is "confident" when its confidence (see `confidence.confidence`) reaches this value:
# the best cosine (on MiniLM's scale) and the share of the query's rare words the best records
# hold, weighed half and half. Kept from the cosine-only rule it replaced; on the dev set it
# flags 13 of 52 no-answer queries with multilingual-e5-small (with ALONE_MARGIN below; 3
# without it, 0 before) and 26 with MiniLM (8 before), at 8 and 13 answered ones lost, nearly
# all short chat turns (benchmarks/README.md).
CONFIDENT_COSINE = 0.35
# A model's confidence is taken down by this much when the best record stands alone (its
# passage longer than a short turn: a mail, a note). A chat turn says little by itself: its
# cosine and its words stay low even when it answers, while a mail or a note that answers
# comes closer. With multilingual-e5-small, searches over whole folders that find a mail or a
# note flagged 2 of 40 no-answer questions at 0.35, and 12 of 40 with this margin (the
# threshold 0.40 for them; the chats keep 0.35) at one more answered question flagged of 350
# (benchmarks/README.md, issue 32; both halves of a 2-fold split gain). MiniLM needs none: its
# cosines for unrelated text are near 0. A short note is judged as a turn: length is what
# tells them apart, since chat exports in JSON Lines arrive as notes.
ALONE_MARGIN: dict[str, float] = {"multilingual-e5-small": 0.05}

# Near-duplicates (the same text quoted in many replies) are spread by maximal marginal
# relevance: a record's relevance (its score over the best one) weighs MMR_LAMBDA, its
# cosine to a record already placed above it 1 - MMR_LAMBDA, but only from NEAR_DUPLICATE
# up: distinct records on the same topic keep their order. On the dev set this halves the
# near-duplicates in the first 10 without moving any other query's answer; the textbook
# lambda 0.5 over every pair cost a fifth of the first-place answers (benchmarks/README.md).
MMR_LAMBDA = 0.9
NEAR_DUPLICATE = 0.95
# MMR re-orders only the best candidates: past them nothing a reader looks at changes.
_MMR_POOL = 40

# Neighbour context: in a conversation the answer often sits in the turn next to the one
# holding the question's words ("What did you get her?" / "A teapot"). The best
# NEIGHBOUR_POOL records bring in the records just before and after them in the same
# conversation, and every record so linked gains NEIGHBOUR_WEIGHT times its best
# neighbour's score. Measured on the dev set's conversations (benchmarks/README.md). In a
# conversation of a thousand turns the turn that asks is often below the first 10 (the same
# topic comes back in many sessions): over the first 20 the long chats went from .786 / .843
# to .814 / .871 at hit@5 / hit@10, the short ones .561 -> .576 at hit@1 (issue 32).
NEIGHBOUR_POOL = 20
NEIGHBOUR_WEIGHT = 0.3
# How many turns away a neighbour may be, and what each turn farther keeps of the lift: an
# answer often comes after an interjection ("Why?", "Oh no!").
NEIGHBOUR_REACH = 1
NEIGHBOUR_DECAY = 0.5
# Only short turns take part (SHORT_TURN_CHARS, memtrails.items: what a turn is).
# A turn that asks ("What did you get her?") shares the question's words but is seldom its
# answer: among linked turns it loses this much.
ASKING_PENALTY = 0.2
# A turn that asks ("What's bolo rei?") and the turn right after it ("King cake. A round
# bread with candied fruit...") are one exchange: when a question matches the turn that
# asks, the reply is the answer sought, though it shares few of its words. So a reply gains
# this share of the asking turn's score (when more than its neighbour lift): with 1.0 it
# ranks just above the turn it answers, which loses ASKING_PENALTY. On the dev set's chats
# (benchmarks/README.md, issue 32) hit@1 .489 -> .525 on the short ones and .343 -> .443
# on the long ones (0.7 and 0.9 gained less on the long ones, 1.2 lost some of it).
REPLY_WEIGHT = 1.0
# A turn that asks often follows up the turn before it ("Deborah asked me to be the
# volunteer coordinator." / "Congratulations! What does that involve?" / "Rotas, training
# new people..."): when a question matches the first turn, the reply to the follow-up
# answers about it. So the reply gains this share of the first turn's score; under 1.0, so
# that the first turn, which matched, stays above a reply that matches nothing itself. On
# the dev set's chats (benchmarks/README.md, issue 32): 0 / 0.5 / 0.7 / 0.9 gave the long
# ones hit@1 .464 / .479 / .486 / .479 and MRR .585 / .598 / .609 / .602, the short ones
# hit@5 .885 / .899 / .921 / .906. When the follow-up holds words of the question the first
# turn lacks ("I came third at the bouldering competition!" / "Third! What did you win?",
# for "What did Noor win at the bouldering competition?"), the question asks what the reply
# says, and the reply gains this share of both turns' scores (turns.follow_ups_adding).
# With the follow-up's score counted at 0.6 / 0.7 / 0.8 for every follow-up, all hit@1 went
# .681 -> .688 / .692 / .685 but 31 questions fell; only where it adds the question's words,
# .692 with 7 falling, each by one place (issue 32, ninth pass).
FOLLOW_WEIGHT = 0.7
# A question that asks when ("When do you leave?") is answered by a passage that names a
# time ("June 9th."), one that asks how many by a passage that holds a number ("Four
# now"), while the turns around it that share its words often hold neither: of the first
# ANSWER_POOL records, the short turns (SHORT_TURN_CHARS) whose passage is of the kind asked
# for gain this much (answers.py). Longer passages are left out: nearly all of them name a
# time or hold a number, and reading them cost up to 12 ms a search at 100k records.
ANSWER_BOOST = 0.2
ANSWER_POOL = 20


@dataclass(frozen=True, slots=True)
class Ranked:
    """A record's place in the results: its best passage and the scores behind it."""

    uid: str
    score: float
    dense: float | None
    keyword: float | None
    hit: Hit


def calibrated(cosine: float, floor: float) -> float:
    """Return a model's cosine on MiniLM's scale, given the model's COSINE_FLOOR.

    Example:
        >>> round(calibrated(0.85, 0.7), 3)
        0.5
    """
    return (cosine - floor) / (1.0 - floor)


def _scale(scores: Sequence[float], min_sd: float) -> tuple[float, float] | None:
    """Return ``(low, span)`` mapping a side's scores to 0..1, None when all map to 1.0."""
    if len(scores) <= 1:
        return None
    head = scores[:STATS_OVER]
    mean = statistics.fmean(head)
    sd = statistics.pstdev(head)
    if sd == 0 and min_sd == 0:
        return None
    sd = max(sd, min_sd)
    return mean - _SPREAD * sd, 2 * _SPREAD * sd


def _mapped(scores: Sequence[float], scale: tuple[float, float] | None) -> list[float]:
    if scale is None:
        return [1.0] * len(scores)
    low, span = scale
    return [min(1.0, max(0.0, (s - low) / span)) for s in scores]


def _name_words(author: object) -> frozenset[str]:
    """Return the words of an author's name (before any address) that can name them: three
    letters or more, lower case."""
    return _words_naming(author) if isinstance(author, str) else frozenset()


# A search asks this of every candidate passage's author, and a folder has few authors.
@functools.lru_cache(maxsize=4096)
def _words_naming(author: str) -> frozenset[str]:
    name = re.split(r"[<(@\[]", author, maxsplit=1)[0]
    return frozenset(
        w.lower() for w in re.split(r"[\s,.'\"]+", name) if len(w) >= 3 and w.isalpha()
    )


def author_named(author: object, query_words: Container[str]) -> bool:
    """Tell whether the query names the author: a word of the author's name (before any
    address), of three letters or more, is among ``query_words`` (lower case).

    Example:
        >>> author_named("Maya Lind <maya@example.com>", {"what", "did", "maya", "buy"})
        True
    """
    return any(w in query_words for w in _name_words(author))


def author_words(query_words: Container[str], hits: Iterable[Hit]) -> set[str]:
    """Return the words of ``query_words`` that name the author of one of ``hits``.

    Example:
        >>> author_words({"what", "did", "kofi", "catch"}, [Hit("u", 1.0, {"author": "Kofi"})])
        {'kofi'}
    """
    authors = {h.payload.get("author") for h in hits}
    return {w for author in authors for w in _name_words(author) if w in query_words}


def normalise(scores: Sequence[float], min_sd: float = 0.0) -> list[float]:
    """Return best-first scores mapped to 0..1 by the mean +- 3 standard deviations of the
    first ``STATS_OVER`` of them, clipped.

    One score, or all equal, maps to 1.0: each is as good as that side's best (the one
    record holding a rare number must not rank under the other side's best guess).
    """
    return _mapped(scores, _scale(scores, min_sd))


def rank_records(
    dense: Sequence[Hit],
    keyword: Sequence[Hit],
    *,
    window: tuple[int, int] | None = None,
    windows: Windows = (),
    live: Container[str] | None = None,
    extra: tuple[Sequence[Hit], Sequence[Hit]] = ((), ()),
    neighbours: Mapping[str, Mapping[str, int]] | None = None,
    asking: Container[str] = (),
    replies: Mapping[str, str] | None = None,
    followed: Mapping[str, str] | None = None,
    query_words: Container[str] | None = None,
    cross_script: Container[str] = (),
    floor: float = 0.0,
    pull: float = 0.0,
    held: Mapping[str, float] | None = None,
    adding: Container[str] = (),
) -> list[Ranked]:
    """Fuse the dense and keyword candidate passages into records, best first.

    Args:
        dense: passages found by meaning, with their raw cosine as ``score``.
        keyword: passages found by words, with their raw keyword score as ``score``.
        window: a date window the query names; records written inside it gain DATE_BOOST.
        windows: more such windows (``when.query_windows``: "in May" is one a year); a
            record inside any of them gains DATE_BOOST once.
        live: when given, only records whose uid is in it (the others were forgotten); a set
            (`Table.live_among`) is asked once a passage, cheaply.
        extra: more dense and keyword passages (the neighbours of the best records, scored
            apart), rescaled as their side's candidates are, without moving that scale.
        neighbours: uid -> {the uids around it in its conversation: how many turns away}; a
            record gains NEIGHBOUR_WEIGHT times its best neighbour's score, times
            NEIGHBOUR_DECAY for each turn past the first.
        asking: turns that ask a question; they lose ASKING_PENALTY (after the lift).
        replies: uid -> the turn that asks just before it; a reply gains REPLY_WEIGHT
            times that turn's score when more than its neighbour lift (when the query names
            the authors of some records, only a reply by one of them).
        followed: a reply's uid -> the turn its question followed up; the reply gains
            FOLLOW_WEIGHT times that turn's score when more than its other lifts (the same
            rule for named authors).
        adding: replies in ``followed`` whose question holds words of the query that the
            turn it followed up lacks: such a reply gains FOLLOW_WEIGHT times the two
            turns' scores together.
        query_words: the query's words, lower case; a record whose author they name gains
            AUTHOR_BOOST.
        cross_script: records written in none of the query's scripts: their keyword part
            counts as at least CROSS_SCRIPT_WORDS times their meaning part.
        floor: the model's COSINE_FLOOR (DENSE_MIN_SD is on MiniLM's scale).
        pull: the model's LANGUAGE_PULL, added to the cosine of the ``cross_script`` records
            before their side is rescaled.
        held: when records in another script compete, each record in the query's script
            with the share of the query's word weight it holds: its keyword part is scaled
            by ``WORDS_HELD + (1 - WORDS_HELD) * share``, and is at least ``share``.

    Returns:
        One entry per record (its best passage), by fused score, then by uid so that equal
        scores come out in the same order on every run.
    """
    parts: tuple[dict[str, float], dict[str, float]] = ({}, {})
    payloads: dict[str, Hit] = {}
    # A record's raw scores are those of its best passage on each side: a user reading
    # "dense" wants the closest meaning the record has, whichever passage won the fusion.
    raw: tuple[dict[str, float], dict[str, float]] = ({}, {})
    for hits, more, side, part, min_sd in (
        (dense, extra[0], raw[0], parts[0], DENSE_MIN_SD * (1.0 - floor)),
        (keyword, extra[1], raw[1], parts[1], 0.0),
    ):
        lift = pull if part is parts[0] else 0.0
        every = [*hits, *more]
        # The pull is a correction of the cosine: the scale is taken over corrected cosines,
        # so that a search whose candidates are all in another script (one filtered to a
        # Korean source) ranks as it would without it.
        scores = [h.score + lift * (h.uid in cross_script) for h in every]
        scale = _scale(scores[: len(hits)], min_sd)
        for hit, norm in zip(every, _mapped(scores, scale), strict=True):
            point = f"{hit.uid}:{hit.payload.get('passage', 0)}"
            part[point] = max(part.get(point, 0.0), norm)
            payloads.setdefault(point, hit)
            side[hit.uid] = max(side.get(hit.uid, float("-inf")), hit.score)
    every_window = (*((window,) if window else ()), *windows)
    best: dict[str, Ranked] = {}
    # The records by an author the query names (see `replies` below).
    speakers: set[str] = set()
    for point, hit in payloads.items():
        if live is not None and hit.uid not in live:
            continue
        meaning, words_part = parts[0].get(point, 0.0), parts[1].get(point, 0.0)
        if hit.uid in cross_script:
            words_part = max(words_part, CROSS_SCRIPT_WORDS * meaning)
        elif held and hit.uid in held:
            share = held[hit.uid]
            # Never below the share itself: the keyword side matches whole words, and a
            # Korean word with another particle ("정산이" for "정산") is missed there.
            words_part = max(words_part * (WORDS_HELD + (1.0 - WORDS_HELD) * share), share)
        score = meaning + words_part
        if every_window:
            at = hit.payload.get("at")
            if isinstance(at, int | float) and any(a <= at < b for a, b in every_window):
                score += DATE_BOOST
        if query_words is not None and author_named(hit.payload.get("author"), query_words):
            score += AUTHOR_BOOST
            speakers.add(hit.uid)
        current = best.get(hit.uid)
        if current is None or score > current.score:
            best[hit.uid] = Ranked(hit.uid, score, raw[0].get(hit.uid), raw[1].get(hit.uid), hit)
    if neighbours:
        own = {uid: r.score for uid, r in best.items()}
        # A question that names a speaker ("How much did Ines pay for her trainers?") asks
        # for that speaker's facts: the other speaker's replies tell their own ("They sold
        # me some for £95"), so only the named speaker's turns gain as replies. On the dev
        # set's long chats: person questions hit@1 .438 -> .625, all .507 -> .543; over the
        # whole dev set 20 questions up, 3 down (benchmarks/README.md, issue 32).
        for uid, near in neighbours.items():
            lift = NEIGHBOUR_WEIGHT * max(
                (own[n] * NEIGHBOUR_DECAY ** (d - 1) for n, d in near.items() if n in own),
                default=0.0,
            )
            answers = not speakers or uid in speakers
            asked = replies.get(uid) if replies and answers else None
            if asked is not None and asked in own:
                lift = max(lift, REPLY_WEIGHT * own[asked])
            topic = followed.get(uid) if followed and answers else None
            if topic is not None and topic in own:
                # The exchange as one where the follow-up asks what the question does: what
                # the question matched in the turn it followed up, and in the follow-up.
                both = own[topic]
                if asked is not None and uid in adding:
                    both += own.get(asked, 0.0)
                lift = max(lift, FOLLOW_WEIGHT * both)
            if uid in best and lift > 0:
                best[uid] = replace(best[uid], score=own[uid] + lift)
        for uid in neighbours:
            if uid in asking and uid in best:
                best[uid] = replace(best[uid], score=best[uid].score - ASKING_PENALTY)
    return sorted(best.values(), key=_best_first)


def diversify(
    ranked: Sequence[Ranked],
    k: int,
    *,
    lam: float = MMR_LAMBDA,
    near: float = NEAR_DUPLICATE,
) -> list[Ranked]:
    """Return the first ``k`` of ``ranked`` re-ordered so near-duplicates do not crowd the top.

    Greedy maximal marginal relevance over the best passages' dense vectors: each place goes
    to the record with the highest ``lam * score / best score - (1 - lam) * similarity``, the
    similarity being its highest cosine to a record already placed when that is at least
    ``near``, else 0. Records without a vector are never penalised.

    Args:
        ranked: records best first, as :func:`rank_records` returns them.
        k: how many to return.
        lam: weight of relevance against redundancy (1.0 keeps the order as it is).
        near: the cosine from which two passages count as near-duplicates.

    Returns:
        At most ``k`` records; the first is always ``ranked[0]``.
    """
    pool = list(ranked[: max(k, _MMR_POOL)])
    if lam >= 1.0 or len(pool) < 2:
        return pool[:k]
    best = pool[0].score if pool[0].score > 0 else 1.0
    vectors = [r.hit.vector for r in pool]
    dims = next((len(v) for v in vectors if v is not None), 0)
    unit = np.zeros((len(pool), dims), dtype=np.float32)
    for i, v in enumerate(vectors):
        if v is not None and len(v) == dims:
            norm = float(np.linalg.norm(v))
            if norm > 0:
                unit[i] = v / norm
    # closest[i]: record i's highest cosine to any record placed so far.
    closest = unit @ unit[0]
    chosen = [0]
    left = list(range(1, len(pool)))
    while left and len(chosen) < k:
        penalty = np.where(closest >= near, closest, 0.0)
        # Ties keep the fused order (-i), so equal scores stay deterministic.
        pick = max(left, key=lambda i: (lam * pool[i].score / best - (1 - lam) * penalty[i], -i))
        chosen.append(pick)
        left.remove(pick)
        closest = np.maximum(closest, unit @ unit[pick])
    return [pool[i] for i in chosen]


def lift(ranked: Sequence[Ranked], uids: Container[str], by: float) -> list[Ranked]:
    """Return ``ranked`` with ``by`` added to the score of each record in ``uids``, sorted
    again as :func:`rank_records` sorts."""
    out = [replace(r, score=r.score + by) if r.uid in uids else r for r in ranked]
    return sorted(out, key=_best_first)


def _best_first(r: Ranked) -> tuple[float, str]:
    # Highest score first, ties by uid: the same order for the same scores on every run.
    return (-r.score, r.uid)
