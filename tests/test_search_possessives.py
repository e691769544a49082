"""A question's possessive ("Biscuit's dose") is weighed as the name the answer writes.

Passages are indexed by their words as written, the same in every language of memtrails, so
"biscuit's" is another word than the "biscuit" of the turn that answers. The confidence reads
a possessive as its bare word: its rarity is the name's, and a record holding the name holds
it, so a question asked with one is not flagged for a word nobody writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.folder.confidence import word_share, word_weights
from memtrails.portable import fnv1a32
from memtrails.records import MemoryRecord

# A chat, written for this test.
TURNS = [
    ("Kofi", "The vet says Biscuit needs two units of insulin twice a day now, with breakfast."),
    ("Ines", "Keep the spare insulin pens in the fridge door, not at the back."),
    ("Kofi", "Ama painted the kitchen a pale green over the weekend."),
    ("Ines", "Rui starts his drum lessons on Tuesday with a teacher called Marcus."),
    ("Kofi", "The roofer, Gareth, wants to look at the slates in March."),
    ("Ines", "I ran 14 km along the canal on Saturday, my longest run yet."),
    ("Kofi", "The bees came through the winter, both hives are busy."),
    ("Ines", "Mum turns seventy in June and wants a party in the garden."),
]
ASKED = [
    ("What is Biscuit's insulin dose?", "t0"),
    ("Who is Rui\u2019s drum teacher?", "t3"),
    ("When is Mum's party?", "t7"),
]


def test_a_possessive_weighs_and_is_held_as_its_bare_word() -> None:
    idf = {fnv1a32("biscuit"): 2.0, fnv1a32("dose"): 3.0, fnv1a32("what"): 0.5}
    weights = word_weights("What is Biscuit's dose?", idf, records=1000)
    assert weights["biscuit"] == 2.0 and "biscuit's" not in weights
    # "is" is held by neither text: what each holds of the rest is the share.
    assert word_share(weights, "Biscuit needs a smaller dose") == pytest.approx(
        5.0 / sum(weights.values())
    )
    assert word_share(weights, "Biscuit's dose went down") == word_share(weights, "Biscuit dose")


@pytest.mark.slow
async def test_questions_asked_with_a_possessive_are_answered_and_confident(
    tmp_path: Path,
) -> None:
    records = [
        MemoryRecord(id=f"t{i}", text=t, author=a, kind="chat", source="chat", thread="c1")
        for i, (a, t) in enumerate(TURNS)
    ]
    async with Memory.open(tmp_path / "m") as memory:
        await memory.ingest(records)
        wrong = []
        for question, turn in ASKED:
            (hit,) = await memory.search(question, k=1)
            if hit.id != turn or not hit.confident:
                wrong.append(f"{question} -> {hit.id} {hit.confidence:.3f}")
    assert not wrong, f"answered wrongly or flagged: {wrong}"
