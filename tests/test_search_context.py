"""Search in conversations: neighbour context, turns that ask, speakers named in the query."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import memtrails.folder.ranking as ranking
import memtrails.pipeline.turn_context as turn_context
from memtrails import Memory, from_jsonl
from memtrails.folder.index._base import Hit
from memtrails.folder.ranking import AUTHOR_BOOST, author_named, author_words, rank_records
from memtrails.folder.turns import follow_ups_adding, neighbours
from memtrails.keys import record_uid
from memtrails.records import MemoryRecord
from memtrails.words import words

# A chat written for these tests in the shape of the dev set's conversations
# (benchmarks/data/conversations.txt): the answer sits in the turn after the one that holds
# the question's words, and the other speaker talks about the same things.
SESSIONS = [
    (
        "2023-04-16T10:05:00Z",
        [
            ("Tom", "Morning! Guess what, I booked the Portugal trip."),
            ("Maya", "Finally! Where are you going?"),
            ("Tom", "Lisbon for four days, then a train down to Lagos."),
            ("Maya", "Lovely. My sister's birthday was on Friday, we went out for dinner."),
            ("Tom", "What did you get your sister in the end?"),
            ("Maya", "A handmade ceramic teapot from the Saturday market. She collects them."),
            ("Tom", "Nice, Lena will love that."),
            ("Maya", "Also, I signed up for a pottery class near the library."),
        ],
    ),
    (
        "2023-05-21T21:47:00Z",
        [
            ("Tom", "My brother got me a birthday present: a bike computer."),
            ("Maya", "Fancy! My dog ate half a sock on Tuesday."),
            ("Tom", "Oh no! Is she okay?"),
            ("Maya", "She's fine now. 380 dollars at the emergency vet though."),
            ("Tom", "For my birthday I want a quiet week, honestly."),
        ],
    ),
]
SOURCE = "conversation/maya-tom"


def turns(
    source: str = SOURCE, sessions: list[tuple[str, list[tuple[str, str]]]] = SESSIONS
) -> list[MemoryRecord]:
    out = []
    for n, (at, lines) in enumerate(sessions, 1):
        for i, (speaker, text) in enumerate(lines, 1):
            out.append(
                MemoryRecord(
                    id=f"s{n}:t{i}",
                    text=text,
                    kind="chat",
                    author=speaker,
                    at=at,
                    source=source,
                    thread=f"s{n}",
                )
            )
    return out


def hit(uid: str, score: float, author: str | None = None) -> Hit:
    return Hit(uid, score, {"uid": uid, "passage": 0, "author": author})


def order(ranked: list[Any]) -> list[str]:
    return [r.uid for r in ranked]


def test_a_record_gains_from_its_best_neighbour() -> None:
    dense = [hit("ask", 0.6), hit("other", 0.45), hit("answer", 0.3), hit("far", 0.1)]
    plain = order(rank_records(dense, []))
    assert plain.index("other") < plain.index("answer")
    linked = {"ask": {"answer": 1}, "answer": {"ask": 1}}
    lifted = order(rank_records(dense, [], neighbours=linked))
    assert lifted.index("answer") < lifted.index("other")
    # The one asking keeps its own place among the unlinked: the lift adds, it never takes.
    assert lifted[0] == "ask"


def test_a_linked_turn_that_asks_gives_way_to_its_answer() -> None:
    dense = [hit("ask", 0.6), hit("answer", 0.55), hit("x", 0.2), hit("y", 0.1)]
    linked = {"ask": {"answer": 1}, "answer": {"ask": 1}}
    assert order(rank_records(dense, [], neighbours=linked))[0] == "ask"
    assert order(rank_records(dense, [], neighbours=linked, asking={"ask"}))[0] == "answer"


def test_the_reply_to_a_matching_question_ranks_above_it() -> None:
    # "What's bolo rei?" matches the question best; the turn after it is the answer.
    dense = [hit("ask", 0.9), hit("mention", 0.7), hit("reply", 0.3), hit("far", 0.1)]
    linked = {"ask": {"reply": 1, "mention": 1}, "reply": {"ask": 1}, "mention": {"ask": 1}}
    plain = order(rank_records(dense, [], neighbours=linked, asking={"ask"}))
    assert plain.index("reply") > plain.index("mention")
    ranked = rank_records(dense, [], neighbours=linked, asking={"ask"}, replies={"reply": "ask"})
    assert order(ranked)[0] == "reply"
    own = {r.uid: r.score for r in rank_records(dense, [])}
    assert ranked[0].score == pytest.approx(own["reply"] + ranking.REPLY_WEIGHT * own["ask"])
    # The turn before a question does not reply to it: it keeps the neighbour lift only.
    mention = next(r for r in ranked if r.uid == "mention")
    assert mention.score == pytest.approx(own["mention"] + ranking.NEIGHBOUR_WEIGHT * own["ask"])


def test_the_reply_to_a_follow_up_question_gains_from_the_turn_it_follows_up() -> None:
    # "Deborah asked me to be the volunteer coordinator." / "What does that involve?" /
    # "Rotas, training new people...": the question matched the first turn only.
    dense = [hit("news", 0.9), hit("other", 0.6), hit("ask", 0.4), hit("reply", 0.3)]
    linked = {"news": {"ask": 1}, "ask": {"news": 1, "reply": 1}, "reply": {"ask": 1}}
    ranked = rank_records(
        dense,
        [],
        neighbours=linked,
        asking={"ask"},
        replies={"reply": "ask"},
        followed={"reply": "news"},
    )
    own = {r.uid: r.score for r in rank_records(dense, [])}
    score = {r.uid: r.score for r in ranked}
    assert score["reply"] == pytest.approx(own["reply"] + ranking.FOLLOW_WEIGHT * own["news"])
    # Above the other turns, under the turn that matched.
    assert order(ranked)[:2] == ["news", "reply"]


def test_the_reply_to_a_follow_up_asking_the_questions_own_words_comes_first() -> None:
    # "I entered the bouldering competition and came third!" / "Third! What did you win?" /
    # "A chalk bag and a voucher": "What did Noor win at the bouldering competition?"
    # matches the news most; the follow-up holds "win", which the news lacks.
    texts = {
        "news": "I entered the bouldering competition at the Crux Shed and came third!",
        "ask": "Third! Congratulations! What did you win?",
        "reply": "A chalk bag and a voucher for a pair of climbing shoes.",
    }
    question = "What did Noor win at the bouldering competition?"
    weights = {w: 0.2 if w in ("what", "did", "at", "the") else 2.0 for w in words(question)}
    followed, replies = {"reply": "news"}, {"reply": "ask"}
    assert follow_ups_adding(weights, followed, replies, texts) == {"reply"}
    # "What did" is no question of its own: a follow-up holding only it adds nothing.
    asks_nothing = {**texts, "ask": "Third! What did they say?"}
    assert follow_ups_adding(weights, followed, replies, asks_nothing) == set()

    dense = [hit("news", 0.9), hit("other", 0.6), hit("ask", 0.4), hit("reply", 0.3)]
    linked = {"news": {"ask": 1}, "ask": {"news": 1, "reply": 1}, "reply": {"ask": 1}}
    context = {"neighbours": linked, "asking": {"ask"}, "replies": replies, "followed": followed}
    ranked = rank_records(dense, [], **context, adding={"reply"})
    own = {r.uid: r.score for r in rank_records(dense, [])}
    exchange = own["news"] + own["ask"]
    assert ranked[0].uid == "reply"
    assert ranked[0].score == pytest.approx(own["reply"] + ranking.FOLLOW_WEIGHT * exchange)
    assert order(rank_records(dense, [], **context))[:2] == ["news", "reply"]


def test_a_question_about_one_speaker_lifts_only_their_replies() -> None:
    # Ines: "Did you go to the running shop?" / Kofi: "They sold me some trainers for £95."
    dense = [
        hit("ask", 0.9, "Ines"),
        hit("hers", 0.6, "Ines"),
        hit("his", 0.45, "Kofi"),
        hit("far", 0.1, "Kofi"),
    ]
    linked = {"ask": {"his": 1}, "his": {"ask": 1}}
    about_ines = {"how", "much", "did", "ines", "pay", "for", "trainers"}
    ranked = rank_records(
        dense, [], neighbours=linked, replies={"his": "ask"}, query_words=about_ines
    )
    assert order(ranked).index("hers") < order(ranked).index("his")
    own = {r.uid: r.score for r in rank_records(dense, [], query_words=about_ines)}
    score = {r.uid: r.score for r in ranked}
    # Kofi's reply keeps the neighbour lift only; asked about Kofi, it is the answer.
    assert score["his"] == pytest.approx(own["his"] + ranking.NEIGHBOUR_WEIGHT * own["ask"])
    about_kofi = {"how", "much", "did", "kofi", "pay", "for", "trainers"}
    ranked = rank_records(
        dense, [], neighbours=linked, replies={"his": "ask"}, query_words=about_kofi
    )
    assert order(ranked)[0] == "his"


def test_query_words_that_name_an_author_of_the_candidates() -> None:
    hits = [hit("a", 0.5, "Kofi Mensah"), hit("b", 0.4, "Ines <ines@example.com>"), hit("c", 0.3)]
    words = {"what", "did", "kofi", "say", "to", "hannah", "example"}
    assert author_words(words, hits) == {"kofi"}
    assert author_words({"hannah", "bees"}, hits) == set()


def test_extra_neighbour_passages_do_not_move_the_scale_of_the_candidates() -> None:
    dense = [hit("a", 0.8), hit("b", 0.6), hit("c", 0.4)]
    alone = {r.uid: r.score for r in rank_records(dense, [])}
    more = {r.uid: r.score for r in rank_records(dense, [], extra=([hit("n", 0.1)], []))}
    assert {u: more[u] for u in alone} == alone
    assert more["n"] < alone["c"]


def test_a_record_whose_author_the_query_names_is_lifted() -> None:
    dense = [hit("tom", 0.6, "Tom"), hit("maya", 0.55, "Maya <maya@example.com>")]
    assert order(rank_records(dense, []))[0] == "tom"
    ranked = rank_records(dense, [], query_words={"what", "did", "maya", "buy"})
    assert order(ranked)[0] == "maya"
    plain = {r.uid: r.score for r in rank_records(dense, [])}
    assert ranked[0].score == pytest.approx(plain["maya"] + AUTHOR_BOOST)


@pytest.mark.parametrize(
    ("author", "named"),
    [
        ("Maya", True),
        ("maya lind", True),
        ("Glyph Lefkowitz <glyph@example.com>", False),  # "example" is the address
        ("Al", False),  # too short to tell from a word
        (None, False),
    ],
)
def test_author_named(author: str | None, named: bool) -> None:
    assert author_named(author, {"what", "did", "maya", "al", "example"}) is named


@pytest.mark.slow
async def test_neighbours_are_the_turns_around_a_record_in_its_own_session(
    tmp_path: Path,
) -> None:
    from memtrails.testing import HashingEmbedder

    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(turns())
        # A mail and a note beside the chat: they stand alone, never neighbours.
        await memory.ingest(
            [
                MemoryRecord(
                    id="m1",
                    text="Re: birthday",
                    title="Re: birthday",
                    kind="mail",
                    author="Tom",
                    source=SOURCE,
                    thread="s2",
                ),
            ]
        )
        folder = memory._open_folder()
        uid = {r.id: record_uid(SOURCE, r.id) for r in turns()}

        links, asking, replies, followed, _ = neighbours([uid["s1:t5"]], folder.table, folder.log)
        assert links[uid["s1:t5"]] == {uid["s1:t4"]: 1, uid["s1:t6"]: 1}
        assert asking == {uid["s1:t5"]}  # "What did you get your sister in the end?"
        # The turn after it replies to it; the one before asks nothing, and is what the
        # question followed up ("My sister's birthday was on Friday").
        assert replies == {uid["s1:t6"]: uid["s1:t5"]}
        assert followed == {uid["s1:t6"]: uid["s1:t4"]}
        # From the turn the question follows up, the reply is linked through the question.
        context = neighbours([uid["s1:t4"]], folder.table, folder.log)
        assert context.links[uid["s1:t4"]] == {uid["s1:t3"]: 1, uid["s1:t5"]: 1}
        assert context.links[uid["s1:t6"]] == {uid["s1:t5"]: 1}
        assert (context.replies, context.followed) == (replies, followed)
        # Found from the reply's side too.
        assert neighbours([uid["s1:t6"]], folder.table, folder.log).replies == replies
        # "Oh no! Is she okay?" / "She's fine now. 380 dollars at the emergency vet though."
        assert neighbours([uid["s2:t3"]], folder.table, folder.log).replies == {
            uid["s2:t4"]: uid["s2:t3"]
        }

        # The first turn of a session is not linked to the last turn of the one before.
        links = neighbours([uid["s2:t1"]], folder.table, folder.log).links
        assert links[uid["s2:t1"]] == {uid["s2:t2"]: 1}

        # The last turn is followed by the mail of the same thread: a mail is not a turn.
        links = neighbours([uid["s2:t5"]], folder.table, folder.log).links
        assert links[uid["s2:t5"]] == {uid["s2:t4"]: 1}

        # Rows without a thread: chat turns are one conversation, other rows stand alone.
        for kind in ("chat", "note"):
            rows = [
                MemoryRecord(
                    id=f"{kind}{i}", text=f"row {i}", kind=kind, author="Ann", source=f"rows/{kind}"
                )
                for i in range(3)
            ]
            await memory.ingest(rows)
            middle = record_uid(f"rows/{kind}", f"{kind}1")
            links = neighbours([middle], folder.table, folder.log).links
            expected = {record_uid(f"rows/{kind}", f"{kind}{i}") for i in (0, 2)}
            assert set(links.get(middle, {})) == (expected if kind == "chat" else set())

        # A forgotten turn is no one's neighbour.
        await memory.forget("s1:t6", source=SOURCE)
        links = neighbours([uid["s1:t5"]], folder.table, folder.log).links
        assert links[uid["s1:t5"]] == {uid["s1:t4"]: 1}


async def test_the_answer_next_to_the_turn_holding_the_words_is_found(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "What did Maya give her sister for her birthday?"
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(turns())
        await memory.ingest(turns("conversation/other"))

        async def answer_rank() -> int:
            hits = await memory.search(question, k=5, source=SOURCE)
            assert {h.source for h in hits} == {SOURCE}
            ids = [h.id for h in hits]
            if "s1:t6" in ids:
                assert "teapot" in hits[ids.index("s1:t6")].snippet
                return ids.index("s1:t6")
            return len(ids)

        with_context = await answer_rank()
        # The same search without neighbour context, turns that ask or named speakers: the
        # answer falls behind turns that share the question's words.
        monkeypatch.setattr(ranking, "NEIGHBOUR_WEIGHT", 0.0)
        monkeypatch.setattr(ranking, "REPLY_WEIGHT", 0.0)
        monkeypatch.setattr(ranking, "FOLLOW_WEIGHT", 0.0)
        monkeypatch.setattr(ranking, "ASKING_PENALTY", 0.0)
        monkeypatch.setattr(ranking, "AUTHOR_BOOST", 0.0)
        without = await answer_rank()
        assert with_context < 3 and with_context < without, (with_context, without)


# Two speakers who address each other by name, as people do in long chats: "Hi Kofi!".
FARM_CHAT = [
    (
        "2024-05-04T18:00:00Z",
        [
            ("Ines", "Hi Kofi! How was your Saturday? Did the band play at the wedding?"),
            ("Kofi", "We did, three sets. My amp died in the last one, so I finished unplugged."),
            ("Ines", "Ha, nobody noticed I bet."),
            ("Kofi", "Ama noticed. Anyway, how was the race?"),
            ("Ines", "I did my first parkrun this morning!"),
            ("Kofi", "What's parkrun?"),
            ("Ines", "A free 5K every Saturday morning in the park, timed by volunteers."),
            ("Kofi", "Maybe once the farmhouse roof is done."),
        ],
    ),
    (
        "2024-05-12T09:30:00Z",
        [
            ("Ines", "Kofi, any news from the farm this week?"),
            (
                "Kofi",
                "Loads. A swarm of bees landed in the neighbour's plum tree, I shook it into a box.",
            ),
            ("Ines", "Brave! Rui wants to see the hives."),
            ("Kofi", "Bring him over. Ama is making honey cake."),
            ("Ines", "Big news at the food bank: Deborah asked me to run the Saturday volunteers."),
            ("Kofi", "Congratulations! What does that involve?"),
            ("Ines", "Rotas, training the new people, and far too many phone calls."),
            ("Kofi", "You'll be brilliant at it."),
        ],
    ),
]


def farm_turns() -> list[MemoryRecord]:
    return turns("chat/farm", FARM_CHAT)


async def test_the_reply_to_the_turn_that_asks_the_question_is_found_first(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(farm_turns())
        hits = await memory.search("What is parkrun?", k=3)
        assert hits[0].id == "s1:t7", [(h.id, h.snippet) for h in hits]
        assert "5K every Saturday" in hits[0].snippet
        # Without the replies' lifts the turn that asks, which holds the question's words,
        # comes first, and the one that only mentions parkrun before the answer. (In a chat
        # this small "what" is a rare word, and "What does that involve?" adds it to the
        # food bank's news: without these lifts that exchange's reply would come first.)
        monkeypatch.setattr(ranking, "REPLY_WEIGHT", 0.0)
        monkeypatch.setattr(ranking, "FOLLOW_WEIGHT", 0.0)
        plain = [h.id for h in await memory.search("What is parkrun?", k=3)]
        assert "s1:t7" not in plain[:2], plain


async def test_a_chat_exported_as_json_lines_without_sessions_is_searched_as_turns(
    tmp_path: Path, embedder: Any
) -> None:
    # A chat export of one turn a line, its speaker and no session: the lines are turns of
    # one conversation, so the reply to the turn that asks is found as in a chat.
    path = tmp_path / "farm.jsonl"
    lines = [
        {"speaker": speaker, "text": text, "at": at}
        for at, session in FARM_CHAT
        for speaker, text in session
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    answer = "A free 5K every Saturday morning in the park, timed by volunteers."
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(from_jsonl(path))
        hits = await memory.search("What is parkrun?", k=3)
        assert (hits[0].kind, hits[0].snippet) == ("chat", answer), [h.snippet for h in hits]
    # Read as notes, the same lines are records on their own: the turn that asks comes first.
    async with Memory.open(tmp_path / "notes", embedder=embedder) as memory:
        await memory.ingest(from_jsonl(path, kind="note"))
        hits = await memory.search("What is parkrun?", k=3)
        assert hits[0].snippet != answer, [h.snippet for h in hits]


async def test_a_speaker_named_in_the_question_is_not_a_keyword(
    tmp_path: Path, embedder: Any
) -> None:
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(farm_turns())
        named = await memory.search("What did Kofi catch in the plum tree?", k=20)
        unnamed = await memory.search("What did he catch in the plum tree?", k=20)
        assert named[0].id == "s2:t2" and named[0].author == "Kofi"
        # "Hi Kofi!", "Kofi, any news...": Ines's turns that address him score by words as
        # if the question did not name him; his own turns are found by the author lift.
        words = {h.id: h.keyword for h in named}
        without = {h.id: h.keyword for h in unnamed}
        for greeting in ("s1:t1", "s2:t1"):
            assert words[greeting] is not None  # found by its other words ("did", "the")
            assert words[greeting] == pytest.approx(without[greeting]), greeting


async def test_the_reply_to_a_follow_up_question_is_found(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = "What will Ines have to do for the food bank volunteers?"
    # The follow-up rule alone: a turn's stored vector holding the turns before it (the
    # question and the news, pipeline/turn_context.py) would find the reply without it.
    monkeypatch.setattr(turn_context, "CONTEXT_WEIGHTS", ())
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await memory.ingest(farm_turns())
        # What it involves, asked and answered in the two turns after the news.
        hits = await memory.search(question, k=5)
        assert hits[0].id == "s2:t7" and "Rotas" in hits[0].snippet, [h.id for h in hits]
        assert hits[1].id == "s2:t5"  # the news the question matched
        monkeypatch.setattr(ranking, "FOLLOW_WEIGHT", 0.0)
        plain = [h.id for h in await memory.search(question, k=5)]
        assert plain[0] == "s2:t5", plain


@pytest.mark.slow
async def test_a_turn_that_asks_anywhere_in_it_is_replied_to(tmp_path: Path) -> None:
    from memtrails.testing import HashingEmbedder

    lines = [
        ("Felix", "So?? How did the first driving lesson go? I've been waiting all week."),
        ("Noor", "I stalled six times. Six."),
        ("Felix", "你们什么时候出发\uff1f"),
        ("Noor", "六月九号。"),
        ("Felix", "متى تبدأ الدروس؟"),
        ("Noor", "يوم الاثنين."),
    ]
    rows = [
        MemoryRecord(id=f"t{i}", text=text, kind="chat", author=who, source="chat/d", thread="s1")
        for i, (who, text) in enumerate(lines, 1)
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(rows)
        folder = memory._open_folder()
        uid = {r.id: record_uid("chat/d", r.id) for r in rows}
        first = neighbours([uid["t1"]], folder.table, folder.log)
        assert first.replies == {uid["t2"]: uid["t1"]}
        # It asks, but does not end asking: it keeps its score (no penalty).
        assert uid["t1"] not in first.asking
        for ask, reply in (("t3", "t4"), ("t5", "t6")):  # the full-width and Arabic marks
            context = neighbours([uid[ask]], folder.table, folder.log)
            assert context.replies[uid[reply]] == uid[ask]
            assert uid[ask] in context.asking


@pytest.mark.slow
async def test_in_mail_a_name_stays_a_word_even_when_it_names_an_author(tmp_path: Path) -> None:
    from memtrails.testing import HashingEmbedder

    body = "I went through the whole thing line by line and ran the suite twice on Linux. " * 6
    mails = [
        MemoryRecord(
            id=who.split()[0].lower(),
            title=title,
            text=first + body,
            kind="mail",
            author=f"{who} <{who.split()[0].lower()}@example.org>",
            source="list",
            thread="t1",
        )
        for who, title, first in (
            ("Tom Baker", "Reactor patch", "Here is my patch for the reactor shutdown hang. "),
            ("Ann Lee", "Re: Reactor patch", "The patch from Tom fixes the shutdown hang for me. "),
        )
    ]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(mails)
        hits = await memory.search("What did Ann think of the patch Tom sent?")
        words = {h.id: h.keyword for h in hits}
        # A mail is not a turn: "Tom", which names an author, still counts as a word, and
        # Ann's reply about his patch holds it.
        plain = {h.id: h.keyword for h in await memory.search("What did Ann think of the patch?")}
        assert words["ann"] is not None and plain["ann"] is not None
        assert words["ann"] > plain["ann"]
