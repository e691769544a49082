"""Ranking of search candidates: fusion by score, dates in a query, ties, saturation, confidence."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np
import pytest

from memtrails.folder.confidence import confidence, word_weights, words_matched
from memtrails.folder.index._base import Hit
from memtrails.folder.ranking import (
    CONFIDENT_COSINE,
    DATE_BOOST,
    Ranked,
    date_window,
    diversify,
    normalise,
    rank_records,
)
from memtrails.words import keyword_vector, passage_keywords


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


def hit(uid: str, score: float, passage: int = 0, at: int | None = None) -> Hit:
    return Hit(uid, score, {"uid": uid, "passage": passage, "at": at})


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did Glyph say in April 2003?", "2003-04-01", "2003-05-01"),
        ("the Dec 2005 release notes", "2005-12-01", "2006-01-01"),
        ("meeting on 3 April 2003", "2003-04-03", "2003-04-04"),
        ("meeting on April 3rd, 2003", "2003-04-03", "2003-04-04"),
        ("log of 2004-02-29", "2004-02-29", "2004-03-01"),
        ("changes in 2004-02", "2004-02-01", "2004-03-01"),
        ("what happened during 2016", "2016-01-01", "2017-01-01"),
    ],
)
def test_date_window_reads_days_months_and_years(query: str, start: str, end: str) -> None:
    assert date_window(query) == (ms(start), ms(end))


@pytest.mark.parametrize(
    "query",
    ["listen on port 2003", "31 February 2003 deadline", "how much is 2003 dollars", "no date"],
)
def test_date_window_ignores_numbers_that_are_not_dates(query: str) -> None:
    assert date_window(query) is None


def test_normalise_keeps_order_within_zero_and_one() -> None:
    scores = [9.0, 5.0, 4.5, 1.0, 0.2]
    out = normalise(scores)
    assert out == sorted(out, reverse=True)
    assert all(0.0 <= s <= 1.0 for s in out)
    assert normalise([3.0, 3.0]) == [1.0, 1.0] and normalise([7.0]) == [1.0]
    assert normalise([]) == []


def test_strong_keyword_only_match_is_not_buried() -> None:
    # 40 passages close in meaning with flat cosines; the keyword side finds one record far
    # ahead of the rest (a rare id), which the dense side never offered.
    dense = [hit(f"d{i:02}", 0.60 - i * 0.002) for i in range(40)]
    keyword = [hit("rare", 25.0)] + [hit(f"d{i:02}", 3.0 - i * 0.05) for i in range(39, 20, -1)]
    ranked = rank_records(dense, keyword)
    assert [r.uid for r in ranked[:1]] == ["rare"]
    top = ranked[0]
    assert (top.dense, top.keyword) == (None, 25.0)


def test_the_one_record_holding_a_rare_word_ranks_first() -> None:
    # A query that is only a rare number: one keyword match, which the dense side ranks low.
    dense = [hit(f"d{i:02}", 0.5 - i * 0.005) for i in range(40)] + [hit("rare", 0.2)]
    ranked = rank_records(dense, [hit("rare", 9.1)])
    assert ranked[0].uid == "rare"


def test_record_appears_once_with_its_best_passage_and_raw_scores() -> None:
    dense = [hit("a", 0.9, passage=1), hit("b", 0.5), hit("a", 0.4, passage=0)]
    keyword = [hit("a", 2.0, passage=0), hit("b", 8.0)]
    ranked = rank_records(dense, keyword)
    assert sorted(r.uid for r in ranked) == ["a", "b"]
    a = next(r for r in ranked if r.uid == "a")
    assert (a.dense, a.keyword) == (0.9, 2.0)


def test_ties_come_out_in_the_same_order_whatever_the_input_order() -> None:
    hits = [hit(uid, 0.5) for uid in ("c", "a", "b")]
    first = [r.uid for r in rank_records(hits, [])]
    second = [r.uid for r in rank_records(list(reversed(hits)), [])]
    assert first == second == ["a", "b", "c"]


def test_a_date_in_the_query_lifts_records_written_then() -> None:
    april, june = ms("2003-04-10"), ms("2003-06-10")
    dense = [hit("june", 0.70, at=june), hit("april", 0.69, at=april), hit("x", 0.2)]
    assert rank_records(dense, [])[0].uid == "june"
    boosted = rank_records(dense, [], window=date_window("in April 2003"))
    assert boosted[0].uid == "april"
    assert boosted[0].score - DATE_BOOST == pytest.approx(rank_records(dense, [])[1].score)


def test_forgotten_records_are_left_out() -> None:
    ranked = rank_records([hit("a", 0.9), hit("b", 0.8)], [], live={"b"})
    assert [r.uid for r in ranked] == ["b"]


def test_passage_keywords_saturate_repeated_words() -> None:
    once = passage_keywords("deferred")
    many = passage_keywords("deferred " * 10)
    (term,) = once
    assert keyword_vector("deferred " * 10)[term] == 10.0
    assert once[term] < many[term] < 2.2  # k1 + 1 bounds a saturated weight
    # three different query words now outweigh one word said three times
    spread = passage_keywords("reactor deferred callback")
    assert sum(spread.values()) > sum(passage_keywords("reactor reactor reactor").values())


def test_a_flat_dense_side_does_not_outvote_the_record_holding_a_number() -> None:
    # A bare number means little to the model: cosines all within a few hundredths, one a bit
    # ahead. The one record holding the number (keyword side) still comes first.
    dense = [hit("guess", 0.27)] + [hit(f"d{i:02}", 0.21 - i * 0.0005) for i in range(39)]
    ranked = rank_records(dense, [hit("holder", 6.0)])
    assert ranked[0].uid == "holder"


def test_confidence_weighs_meaning_and_the_rare_words_held() -> None:
    # Half the meaning, half the share of the query's word weight the best record holds.
    weights = word_weights("zorblatt firmware rollback", {}, 100)
    held = words_matched(weights, ["Ticket QX-7731 Zorblatt firmware rollback"])
    assert held == pytest.approx(1.0)
    assert confidence(0.1, held) >= CONFIDENT_COSINE
    assert confidence(0.5, 0.0) < CONFIDENT_COSINE
    # Words in no script of the best records cannot tell: the meaning alone counts.
    assert words_matched(word_weights("보일러 점검", {}, 100), ["The boiler service"]) is None
    assert confidence(0.4, None) == pytest.approx(0.4)


def ranked_with(uid: str, score: float, direction: list[float]) -> Ranked:
    vector = np.array(direction, dtype=np.float32)
    return Ranked(uid, score, None, None, Hit(uid, score, {"uid": uid, "passage": 0}, vector))


def test_near_duplicates_do_not_fill_the_top() -> None:
    # Three copies of one quoted text (cosine ~1 to each other) just above two distinct
    # records: the copies after the first move below them, and they keep their order.
    ranked = [
        ranked_with("copy1", 1.60, [1, 0, 0]),
        ranked_with("copy2", 1.58, [1, 0.01, 0]),
        ranked_with("copy3", 1.57, [1, 0, 0.01]),
        ranked_with("other1", 1.52, [0.6, 0.8, 0]),
        ranked_with("other2", 1.50, [0.6, 0, 0.8]),
        ranked_with("far", 0.40, [0, 1, 0]),
    ]
    spread = [r.uid for r in diversify(ranked, 5)]
    assert spread[:3] == ["copy1", "other1", "other2"]
    assert spread[3:] == ["copy2", "copy3"]
    # A record far below is not lifted over a copy: redundancy costs a tenth of the score.
    assert [r.uid for r in diversify(ranked, 6)][5] == "far"
    assert [r.uid for r in diversify(ranked, 6, lam=1.0)] == [r.uid for r in ranked]
    assert len(diversify(ranked, 2)) == 2


def test_similar_but_distinct_records_keep_their_order() -> None:
    # Cosine 0.8 between them: the same topic, not a copy; nothing moves.
    ranked = [ranked_with("a", 1.5, [1, 0]), ranked_with("b", 1.49, [0.8, 0.6])]
    ranked.append(ranked_with("c", 1.48, [0, 1]))
    assert [r.uid for r in diversify(ranked, 3)] == ["a", "b", "c"]
    # Hits without a vector (a backend that gives none) are never penalised.
    plain = [Ranked(r.uid, r.score, None, None, Hit(r.uid, r.score, {})) for r in ranked]
    assert [r.uid for r in diversify(plain, 3)] == ["a", "b", "c"]


def test_a_passage_in_another_script_is_not_held_to_the_words_it_cannot_share() -> None:
    """A Korean question: a Korean note about something else matches a few of its words;
    the English note that answers it is closer in meaning but can match none. Marked as
    written in none of the query's scripts, it ranks first."""
    dense = [hit("en-answer", 0.60), hit("ko-other", 0.55), *(hit(f"n{i}", 0.3) for i in range(8))]
    keyword = [hit("ko-other", 3.0), hit("n0", 1.0)]
    assert rank_records(dense, keyword)[0].uid == "ko-other"
    ranked = rank_records(dense, keyword, cross_script={"en-answer"})
    assert ranked[0].uid == "en-answer"
    # Its raw scores are still its own: no keyword score was found.
    assert (ranked[0].dense, ranked[0].keyword) == (0.60, None)


def _first_of_two(
    same: tuple[str, float], other: tuple[str, float], keyword: list[Hit]
) -> Callable[[dict[str, float] | None], str]:
    """The first record's uid, as ``held`` varies: a record in the query's script and one in
    another (``other``, by meaning), among eight far ones."""
    dense = [hit(*same), hit(*other), *(hit(f"n{i}", 0.3) for i in range(8))]
    return lambda held: rank_records(dense, keyword, cross_script={other[0]}, held=held)[0].uid


def test_a_lone_common_word_does_not_outweigh_a_closer_meaning_in_another_script() -> None:
    """The keyword side rescales over its own candidates: in a small folder a note sharing a
    single common word with the question rescales to 1.0. With a note in another script in
    play, its keyword part counts by how much of the question it holds (``held``)."""
    first = _first_of_two(("ko-other", 0.62), ("en-answer", 0.60), [hit("ko-other", 3.0)])
    assert first(None) == "ko-other"
    # It holds a tenth of the question's word weight: the answer's meaning wins.
    assert first({"ko-other": 0.1}) == "en-answer"
    # Holding every word of the question, it keeps its whole keyword part and its place.
    assert first({"ko-other": 1.0}) == "ko-other"


def test_a_note_holding_the_question_by_its_stems_keeps_that_share_of_the_words() -> None:
    """A Korean question and the Korean note that answers it with other particles ("정산이",
    "정산"): the keyword side, matching whole words, finds nothing of it; the share of the
    question's words it holds by their stems (``held``) stands in for its keyword part."""
    first = _first_of_two(("ko-answer", 0.66), ("en-other", 0.60), [hit("n0", 1.0)])
    # With no keyword part, the answer loses to the note in another script, whose keyword
    # part is its meaning.
    assert first(None) == "en-other"
    assert first({"ko-answer": 0.8}) == "ko-answer"
    # Holding nothing of the question, it gains nothing.
    assert first({"ko-answer": 0.0}) == "en-other"
    # Its raw keyword score stays what the index found: none.
    dense = [hit("ko-answer", 0.66), hit("en-other", 0.60)]
    ranked = rank_records(dense, [], cross_script={"en-other"}, held={"ko-answer": 0.8})
    assert next(r for r in ranked if r.uid == "ko-answer").keyword is None


def test_a_models_cosines_are_mapped_onto_one_scale() -> None:
    from memtrails.folder.ranking import COSINE_FLOOR, calibrated

    assert calibrated(0.5, 0.0) == 0.5
    floor = COSINE_FLOOR["multilingual-e5-small"]
    assert calibrated(floor, floor) == 0.0 and calibrated(1.0, floor) == 1.0
