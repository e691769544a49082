"""A question that asks when, or how many: the passages of that kind gain (ranking.ANSWER_BOOST)."""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path

import pytest

from memtrails import Memory, MemoryRecord
from memtrails.folder import search
from memtrails.folder.answers import asks_how_many, holds_a_number, wanted_answer
from memtrails.folder.when import asks_when, names_a_time
from memtrails.testing import HashingEmbedder


@pytest.mark.parametrize(
    "query",
    [
        "When is Tom leaving for Portugal?",
        "And when does the exhibition open?",
        "what time does the shop open",
        "On which day does Marco bake the loaves?",
        "How long ago did we move?",
        "톰은 언제 떠나나요?",
        "Когда Майя переезжает?",
        "玛雅什么时候搬家？",  # noqa: RUF001 (its own question mark)
        "マヤはいつ引っ越しますか",
        "متى تنتقل مايا؟",
        "माया कब जा रही है?",
        "Wann zieht Maya um?",
        "¿Cuándo se muda Maya?",
        "Quand est-ce que Maya déménage ?",
    ],
)
def test_questions_that_ask_when(query: str) -> None:
    assert asks_when(query)


@pytest.mark.parametrize(
    "query",
    [
        "Who is going to Portugal with Tom?",
        "What did Maya buy?",
        "whenever you like, where?",
        "언제나 무엇을 먹나요?",  # "always"
        "いつも何を食べますか",  # "always"
        "¿Qué hiciste cuando llegaste?",  # "when" as a conjunction
    ],
)
def test_questions_that_do_not_ask_when(query: str) -> None:
    assert not asks_when(query)


@pytest.mark.parametrize(
    "text",
    [
        "June 9th. My brother Sam is coming along.",
        "At the studio near the library, Thursday evenings.",
        "We present to them in July, so we'll see.",
        "We launched on Monday.",
        "I'll be back at 7pm",
        "the train leaves at 19:30",
        "See you tomorrow!",
        "next spring, probably",
        "It was in 2019, I think",
        "지난주에 끝났어요",
        # What chats say of the past and the near future.
        "We went camping two weekends ago!",
        "I started pottery a few days ago",
        "a while ago, actually",
        "We painted it over the summer.",
        "I haven't run since March",
        "Back in mid-June",
        "I saw her the other day",
        "We did that over the weekend",
        "the week before last",
        "at noon, by the fountain",
        "We met at Christmas",
        "The results come in two weeks",
    ],
)
def test_passages_that_name_a_time(text: str) -> None:
    assert names_a_time(text)


@pytest.mark.parametrize(
    "text",
    [
        "Nice, Lena will love that.",
        "It cost 380 dollars",
        "we may go, march on",
        "OK!",
        "Fall in love with the summery colours",
        "In a few words: great",
    ],
)
def test_passages_that_name_no_time(text: str) -> None:
    assert not names_a_time(text)


@pytest.mark.parametrize(
    "query",
    [
        "How many kids are in Jonas's class?",
        "how much did the vet cost",
        "So how many kids are there?",
        "How long did the flight take?",
        "톰은 몇 킬로미터를 탔나요?",
        "Сколько стоил ремонт?",
        "她卖了多少个羊角面包？",  # noqa: RUF001 (its own question mark)
        "いくらでしたか",
        "كم طفلا في الصف؟",
        "कितने बच्चे हैं?",
        "Wie viele Kinder sind es?",
        "Combien d'enfants ?",
        "¿Cuántos niños hay?",
    ],
)
def test_questions_that_ask_how_many(query: str) -> None:
    assert asks_how_many(query)
    assert wanted_answer(query) is holds_a_number


def test_a_question_that_asks_for_neither_wants_no_kind() -> None:
    assert not asks_how_many("Who is going to Portugal with Tom?")
    assert wanted_answer("Who is going to Portugal with Tom?") is None
    assert wanted_answer("When is Tom leaving?") is names_a_time


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("She's fine now. 380 dollars though.", True),
        ("Four now, for the summer.", True),
        ("We mapped twelve hectares", True),
        ("Second place in the wedding category!", True),
        ("Nice, Lena will love that.", False),
        ("Someone left the door open", False),  # "one" inside a word is no number
    ],
)
def test_passages_that_hold_a_number(text: str, holds: bool) -> None:
    assert holds_a_number(text) is holds


async def _scores(
    home: Path, monkeypatch: pytest.MonkeyPatch, turns: list[str], query: str, lift: float
) -> dict[str, float]:
    """Each turn's score for ``query`` (turns t1, t2, ... of one chat), with the answer-kind
    boost set to ``lift``."""
    monkeypatch.setattr(search, "ANSWER_BOOST", lift)
    records = [
        MemoryRecord(id=f"t{n}", text=text, author="Maya", kind="chat", source="chat", thread="s")
        for n, text in enumerate(turns, 1)
    ]
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(records)
        return {h.id: h.score for h in await memory.search(query, k=len(turns))}


async def test_a_when_question_lifts_the_turns_that_name_a_time_and_no_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [
        "Also, I signed up for a pottery class at the studio!",
        "Oh nice, which studio?",
        "The studio by the library, on Thursday evenings.",
        "Send me pictures of your first bowl.",
    ]
    boost = search.ANSWER_BOOST
    assert boost > 0

    def scores(query: str, lift: float) -> Awaitable[dict[str, float]]:
        return _scores(tmp_path / "m", monkeypatch, turns, query, lift)

    when = "When is Maya's pottery class at the studio?"
    plain, lifted = await scores(when, 0.0), await scores(when, boost)
    assert lifted["t3"] == pytest.approx(plain["t3"] + boost)
    assert {i: lifted[i] for i in ("t1", "t2", "t4")} == {i: plain[i] for i in ("t1", "t2", "t4")}
    # A question that does not ask when lifts nothing.
    where = "Where is Maya's pottery class?"
    assert await scores(where, boost) == await scores(where, 0.0)


async def test_a_how_many_question_lifts_the_turns_that_hold_a_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    turns = [
        "Pepper ate half a sock and we went to the emergency vet.",
        "Oh no! Is she okay? What did the vet say?",
        "She's fine now, 380 dollars though.",
    ]
    boost = search.ANSWER_BOOST
    query = "How much was the vet?"
    plain = await _scores(tmp_path / "m", monkeypatch, turns, query, 0.0)
    lifted = await _scores(tmp_path / "m", monkeypatch, turns, query, boost)
    # "half a sock" holds a number word too: both lift, the turn without one does not
    assert lifted["t3"] == pytest.approx(plain["t3"] + boost)
    assert lifted["t1"] == pytest.approx(plain["t1"] + boost)
    assert lifted["t2"] == plain["t2"]
