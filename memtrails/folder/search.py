"""Search a folder: dense and keyword candidates fused by score, one result per record."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from ..embedding._base import Embedder, Vector
from ..embedding.pieces import QueryPieces, piece_ids, query_pieces
from ..portable import fnv1a32
from ..records import At, AtLike
from ..words import keyword_vector, question_terms, words
from .answers import wanted_answer
from .confidence import (
    SCOPE_OVER,
    WORDS_OVER,
    across,
    asked_names,
    confidence,
    names_unknown,
    spell_names_alike,
    spell_names_each,
    word_share,
    word_weights,
    words_matched,
)
from .foreign import foreign_candidates, grouped_by_script
from .hits import SNIPPET_CHARS, SearchHit, search_hit, snippet_of
from .idf import IdfCache
from .index._base import Hit, IndexBackend, SearchFilter, SparseVector
from .lines import live_line, live_record
from .log import RecordLog
from .points import passage_text
from .ranking import (
    ALONE_MARGIN,
    ANSWER_BOOST,
    ANSWER_POOL,
    CONFIDENCE_FLOOR,
    CONFIDENT_COSINE,
    COSINE_FLOOR,
    LANGUAGE_PULL,
    NEAR_DUPLICATE,
    NEIGHBOUR_POOL,
    NEIGHBOUR_REACH,
    SHORT_TURN_CHARS,
    STATS_OVER,
    Ranked,
    author_words,
    calibrated,
    diversify,
    lift,
    rank_records,
)
from .reorder import PASSAGE_CHARS, REORDER_WEIGHT, TOP, PieceCache, maxsim, reorder
from .scripts import prose_scripts
from .table import Table
from .turns import follow_ups_adding, neighbours
from .windows import search_windows, written_then

__all__ = [
    "SNIPPET_CHARS",
    "SearchHit",
    "record_texts",
    "search",
    "search_hit",
    "snippet_of",
]

# Only the best dense candidates are checked for their script (a log read each, in a folder
# indexed before points kept their scripts); one far down that side's list in another script
# is checked when the search for passages in other scripts finds it (foreign.py), so that how
# deep the side reads (4 x k) does not decide whether it is weighed as one.
CROSS_SCRIPT_POOL = 20


# How many passages of each side the ranking reads, whatever k: a search for 50 results gives
# first the ones a search for 10 gives (on the dev long chats, ranking 200 a side took hit@1
# from .520 to .498: more far candidates for the lifts to raise). The passages past them
# follow, by their fused score alone.
HEAD = STATS_OVER


# How much of a record's text the confidence reads for the query's words: enough for a note or
# a mail's body, not a whole archive read into one record.
WORDS_CHARS = 6000


def record_texts(uids: Sequence[str], table: Table, log: RecordLog) -> list[str]:
    """Return each record's author, title and text (its first WORDS_CHARS characters), for
    the words the confidence looks for. Blocking: one log read a record."""
    out = []
    for uid in uids:
        if (found := live_line(uid, table, log)) is not None:
            line = found[1]
            text = str(line.get("text") or "")[:WORDS_CHARS]
            out.append(f"{line.get('author') or ''}\n{line.get('title') or ''}\n{text}")
    return out


def of_the_kind(
    wanted: Callable[[str], bool], hits: Sequence[Hit], table: Table, log: RecordLog
) -> set[str]:
    """Return the records among ``hits`` whose matched passage passes ``wanted``
    (:func:`.answers.wanted_answer`: names a time, holds a number). Blocking: one log read
    a record."""
    out = set()
    for hit in hits:
        record = live_record(hit.uid, table, log)
        if record is not None and wanted(passage_text(record, hit.payload)):
            out.add(hit.uid)
    return out


async def search(
    index: IndexBackend,
    table: Table,
    log: RecordLog,
    embedder: Embedder,
    query: str,
    k: int,
    *,
    kind: str | None = None,
    author: str | None = None,
    source: str | None = None,
    since: AtLike | None = None,
    until: AtLike | None = None,
    min_confidence: float | None = None,
    now: AtLike | None = None,
    pieces: PieceCache | None = None,
    idf_cache: IdfCache | None = None,
    index_state: Callable[[], object] | None = None,
    blank: Callable[[], Awaitable[Vector]] | None = None,
) -> list[SearchHit]:
    """Return the ``k`` live records that best match ``query``; see :meth:`Memory.search`.

    ``pieces``: the folder's word-piece cache; with it (and a model in
    ``reorder.REORDER_WEIGHT``) the first results are reordered word by word (reorder.py).
    ``idf_cache``: the folder's IDF of words already asked, valid while ``index_state()`` stays
    the same (idf.py). ``blank``: gives the model's vector for a question saying nothing; with
    it (and a model in ``ranking.LANGUAGE_PULL``) the closest records in other scripts than
    the query's are asked for too (foreign.py).
    """
    if k < 1:
        raise ValueError("`k` must be at least 1")
    if not query.strip():  # no words: every record would score alike, an arbitrary k
        raise ValueError("`query` is empty; give words or a question")
    # NaN fails both comparisons, so it is refused too (it filtered nothing).
    if min_confidence is not None and not 0.0 <= min_confidence <= 1.0:
        raise ValueError(
            f"`min_confidence` must be a number from 0 to 1 (0.35 is calibrated), "
            f"not {min_confidence!r}"
        )
    weight = REORDER_WEIGHT.get(embedder.model_id, 0.0) if pieces is not None else 0.0
    terms = keyword_vector(query)

    async def meaning() -> tuple[QueryPieces | None, Vector]:
        # The query's word pieces come from the same model run as its vector.
        asked = await query_pieces(embedder, query) if weight else None
        return asked, asked.vector if asked is not None else await embedder.embed_query(query)

    known: list[dict[int, float]] = []  # the words' IDF, asked once a search

    async def rarity() -> dict[int, float]:
        # Of the question's words, their bare words ("Biscuit's": "biscuit") and its names.
        if not known:
            ids = list(dict.fromkeys([*question_terms(query), *map(fnv1a32, asked_names(query))]))
            if idf_cache is not None and index_state is not None:
                known.append(await idf_cache.get(index, ids, index_state))
            else:
                known.append(await index.term_idf(ids))
        return known[0]

    where = SearchFilter(
        kind=kind,
        author=author,
        source=source,
        since_ms=At.of(since).ms if since is not None else None,
        until_ms=At.of(until).ms if until is not None else None,
    )
    sparse = SparseVector(list(terms), list(terms.values()))
    # Each side offers a few times k passages: a record may own several.
    limit = max(4 * k, HEAD)
    # The model runs first, alone: on two cores the index's calls taken beside it (the words
    # side, the words' IDF) slowed its run more than they saved (100k records, the words'
    # IDF asked anew: e2e p95 55.0 against 52.5 ms; benchmarks/README.md).
    asked, dense = await meaning()
    by_meaning, by_words = await index.candidates(dense, sparse, limit, where)
    deep = (by_meaning[HEAD:], by_words[HEAD:])
    by_meaning, by_words = by_meaning[:HEAD], by_words[:HEAD]
    # The words' weights (their IDF: one more index call, for the words no search asked
    # since the index last changed, idf.py) are asked for only where a step needs them
    # before the results are read; else while they are read (see below).
    weights: dict[str, float] | None = None

    async def weighed() -> dict[str, float]:
        return word_weights(query, await rarity(), len(table))

    pull = LANGUAGE_PULL.get(embedder.model_id, 0.0)
    scripts = prose_scripts(query, least=1) if pull > 0 else frozenset()
    # Passages in other scripts that the dense side's own few dozen left out (foreign.py);
    # they join the ranking as extra candidates, on the scale of the side's own.
    far: list[Hit] = []
    first = list(dict.fromkeys(h.uid for h in by_meaning))[:CROSS_SCRIPT_POOL]
    if pull > 0 and blank is not None:
        far = await foreign_candidates(index, dense, await blank(), scripts, where, first)
    # "Maya's" names Maya.
    named = {w.removesuffix("'s").removesuffix("\u2019s") for w in words(query)}
    # A speaker the question names ("What did Kofi catch?") is found by the author lift in
    # the turns they wrote; as a word, the name matches the other speaker's turns that
    # address them ("Hi Kofi! How was the fete?"), where it is rare and so weighs most.
    # When the candidates show a query word to be an author's name, the words side is asked
    # again without it (one more index call, words only, for such questions). Only the
    # authors of short passages count (turns): in mail a name is as often what a message is
    # about.
    turns = [h for h in (*by_meaning, *by_words) if _passage_chars(h) <= SHORT_TURN_CHARS]
    if by_words and (authors := author_words(named, turns)):
        ids = set(keyword_vector(" ".join(authors)))
        if kept := {t: v for t, v in terms.items() if t not in ids}:
            sparse = SparseVector(list(kept), list(kept.values()))
            _, again = await index.candidates(None, sparse, limit, where)
            by_words, deep = again[:HEAD], (deep[0], again[HEAD:])
    floor = COSINE_FLOOR.get(embedder.model_id, 0.0)
    # How close the folder comes to the query in meaning, and which of its words it holds
    # (weighed by rarity: a rare word matched is evidence, a common one is not); see
    # confidence.py.
    sure_floor = CONFIDENCE_FLOOR.get(embedder.model_id, floor)
    closest = calibrated(max((h.score for h in by_meaning), default=-1.0), sure_floor)
    when = At.of(now).ms if now is not None else None
    asked_at = datetime.fromtimestamp(when / 1000, UTC) if when is not None else None
    windows = await search_windows(
        query, asked_at, (index, table, log), dense, where, floor, by_meaning
    )
    inside = await written_then(index, dense, sparse, where, windows)
    # Records whose prose is in no script of the query's: the keyword side can reach at most
    # the names they share with it ("Redis", "pg_dump"), never the question's own words
    # (ranking.CROSS_SCRIPT_WORDS). Only for a model that reads across languages
    # (ranking.LANGUAGE_PULL): MiniLM's cosine across scripts means nothing. The points keep
    # their scripts: a log read only where a record in another script is found (foreign.py).
    foreign, kin, heads, held = set[str](), set[str](), dict[str, str](), dict[str, float]()
    if pull > 0:
        checked = first + list(dict.fromkeys(h.uid for h in far))
        foreign, kin, heads = await grouped_by_script(
            checked, [*by_meaning, *far], [h.uid for h in far], scripts, table, log
        )
        if foreign - {h.uid for h in far}:
            # How much of the question each record in its script holds (ranking.WORDS_HELD):
            # only when the dense side's own candidates hold one in another script.
            weights = await weighed()
            held = {uid: word_share(weights, heads[uid]) for uid in kin}
    # The candidates that are live records, asked of the table at once.
    live = table.live_among(h.uid for h in (*by_meaning, *by_words, *inside[0], *inside[1], *far))
    ranked = rank_records(
        by_meaning,
        by_words,
        windows=windows,
        live=live,
        extra=(inside[0] + far, inside[1]),
        query_words=named,
        cross_script=foreign,
        held=held,
        floor=floor,
        pull=pull,
    )
    # Only a short passage can be a turn: mails and notes are not read from the log for this.
    pool = [r.uid for r in ranked[:NEIGHBOUR_POOL] if _passage_chars(r.hit) <= SHORT_TURN_CHARS]
    links, asking, replies, followed, said = await asyncio.to_thread(
        neighbours, pool, table, log, NEIGHBOUR_REACH
    )
    if links:
        found = {h.uid for h in (*by_meaning, *by_words)}
        new = sorted({n for near in links.values() for n in near} - found)
        extra: tuple[list[Hit], list[Hit]] = ([], [])
        if new:
            extra = await index.candidates(dense, sparse, 4 * len(new), replace(where, uids=new))
        if followed and weights is None:
            weights = await weighed()
        live |= table.live_among(h.uid for h in (*extra[0], *extra[1]))
        ranked = rank_records(
            by_meaning,
            by_words,
            windows=windows,
            live=live,
            extra=(inside[0] + far + extra[0], inside[1] + extra[1]),
            neighbours=links,
            asking=asking,
            replies=replies,
            followed=followed,
            adding=follow_ups_adding(weights or {}, followed, replies, said),
            query_words=named,
            cross_script=foreign,
            held=held,
            floor=floor,
            pull=pull,
        )
    if (wanted := wanted_answer(query)) is not None:
        # A question that asks when, or how many: the turns of that kind gain. Only short
        # passages are read: a mail or a page nearly always names some time and holds some
        # number, so the lift would sort none of them, at a log read and a scan each.
        head = ranked[:ANSWER_POOL]
        turns = [r.hit for r in head if _passage_chars(r.hit) <= SHORT_TURN_CHARS]
        fit = await asyncio.to_thread(of_the_kind, wanted, turns, table, log)
        ranked = lift(head, fit, ANSWER_BOOST) + ranked[ANSWER_POOL:]
    if deep[0] or deep[1]:
        ranked += _deeper(ranked, deep, (by_meaning, by_words), table, foreign, floor, pull)
    # The reordering sorts the first TOP results again: that many are read, then k kept.
    # The cache is read on first use (a whole file: off the loop).
    ordered = (
        asked is not None
        and pieces is not None
        and await asyncio.to_thread(lambda: pieces.pieces > 0)
    )
    shown = diversify(
        ranked, max(k, TOP) if ordered else k, near=floor + NEAR_DUPLICATE * (1.0 - floor)
    )

    def read() -> list[SearchHit]:
        out, texts = [], []
        for r in shown:
            # A damaged line leaves its record out (said in the log), not the search.
            record = live_record(r.uid, table, log, warn=True)
            if record is not None:
                out.append(search_hit(r.hit, record, r, query_words=named))
                # The words of the passage that matched, not of the record's head.
                texts.append(passage_text(record, r.hit.payload)[:PASSAGE_CHARS])
        if ordered and asked is not None and pieces is not None:
            ids = piece_ids(embedder, texts[:TOP]) or []
            scores = [maxsim(asked.tokens, pieces.vectors(p)) for p in ids]
            out = reorder(out, scores, weight)
        return out[:k]

    # The meaning alone decides when a candidate of the dense side's own in another script
    # comes as close as the best in the query's; the added ones change what can be found, not
    # how sure the search is (a question nothing answers meets some note in another script).
    # Over the records checked first alone: one past them is in another script as far as the
    # search knows only because the search in other scripts found it, an added one.
    farthest = across(_cosines([h for h in by_meaning if h.uid in first]), foreign, kin, pull)
    if weights is None and farthest is None:
        # The results are read (log lines, the reordering's word pieces: Python) while the
        # index weighs the query's words in its thread (benchmarks/README.md, issue 32, tenth
        # pass). A task group: one failing cancels the other, none outlives the search.
        try:
            async with asyncio.TaskGroup() as group:
                rare = group.create_task(weighed())
                # A folder closed while this thread reads is an error the thread meets,
                # which a cancelled search never sees (the table's connection, _connection.py).
                reading = group.create_task(asyncio.to_thread(read))
        except ExceptionGroup as failed:
            # Callers expect the error itself (the index's, the log's), as before.
            raise failed.exceptions[0] from None
        weights, hits = rare.result(), reading.result()
    else:
        hits = await asyncio.to_thread(read)
    # The first results in another script: one that writes no word in Latin letters may
    # answer the question naming its things its own way (confidence.spell_names_each).
    strangers = [heads.get(h.uid, "") for h in hits[:SCOPE_OVER] if h.uid in foreign]
    if farthest is not None:
        # A record in another script comes closest: the words cannot tell, the meaning must,
        # save the names the question gives where the best records in the other script
        # would write them as they are (confidence.spell_names_alike): when the best records
        # hold none of them, the folder likely does not know what the question names.
        sure = confidence(calibrated(farthest, sure_floor), None)
        best = [r.uid for r in ranked[:WORDS_OVER]]
        alike = spell_names_alike(heads[u] for u in best if u in foreign)
        alike = alike and spell_names_each(strangers)
        # Each name weighs alike: "Redis's" is the word the IDF knows, "redis" the name.
        names = dict.fromkeys(asked_names(query), 1.0) if alike else {}
        if names:
            texts = await asyncio.to_thread(record_texts, best, table, log)
            share = max((word_share(names, t) for t in texts), default=0.0)
            sure = min(sure, confidence(sure, share))
    else:
        # The words the best records in the query's script hold, weighed by rarity (a record
        # in another script can hold none of them, and comes no closer in meaning).
        best = [r.uid for r in ranked if r.uid not in foreign][:WORDS_OVER]
        texts = await asyncio.to_thread(record_texts, best, table, log)
        matched = words_matched(weights if weights is not None else await weighed(), texts)
        # The question names things the folder never writes: the words it holds say nothing.
        if names_unknown(query, await rarity()) and spell_names_each(strangers):
            matched = 0.0
        sure = confidence(closest, matched)
    # A best record that stands alone (a mail, a page) must come closer than a turn must.
    if ranked and _passage_chars(ranked[0].hit) > SHORT_TURN_CHARS:
        sure = max(0.0, sure - ALONE_MARGIN.get(embedder.model_id, 0.0))
    if min_confidence is not None and sure < min_confidence:
        return []
    confident = sure >= CONFIDENT_COSINE
    return [replace(hit, confident=confident, confidence=sure) for hit in hits]


def _deeper(
    ranked: Sequence[Ranked],
    deep: tuple[Sequence[Hit], Sequence[Hit]],
    head: tuple[Sequence[Hit], Sequence[Hit]],
    table: Table,
    foreign: set[str],
    floor: float,
    pull: float,
) -> list[Ranked]:
    """The records only the passages past each side's first HEAD found, by fused score on
    the scale of the first ones (``ranking.STATS_OVER``), for a search asking for many."""
    placed = {r.uid for r in ranked}
    live = table.live_among(h.uid for h in (*deep[0], *deep[1]) if h.uid not in placed)
    # The deeper passages as extra candidates: scored on the first ones' scale, not moving it.
    tail = rank_records(*head, extra=deep, live=live, cross_script=foreign, floor=floor, pull=pull)
    return [r for r in tail if r.uid not in placed]


def _cosines(hits: Sequence[Hit]) -> dict[str, float]:
    """Each record's best cosine among the dense side's passages."""
    out: dict[str, float] = {}
    for h in hits:
        out[h.uid] = max(out.get(h.uid, h.score), h.score)
    return out


def _passage_chars(hit: Hit) -> int:
    """The length in characters of the passage a hit found."""
    return int(hit.payload.get("end", 0)) - int(hit.payload.get("start", 0))
