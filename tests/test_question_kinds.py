"""What a question asks for, however it is put: a time (folder/when.py), an amount
(folder/answers.py)."""

from __future__ import annotations

import pytest

from memtrails.folder.answers import asks_how_many
from memtrails.folder.when import asks_when


@pytest.mark.parametrize(
    "question",
    [
        "In what year did Ann move to Leeds?",
        "In which month did Ann move?",
        "At what time does the bakery open?",
        "On what date did Ann sign the lease?",
        "Which week was the trip to Kyoto?",
        "How many days ago did Ann call the plumber?",
        "What was the date of the launch party?",
        "By when does Ann need the report?",
        "Until when is the studio closed?",
        "Do you remember when Ann moved?",
        "Can you tell me when the clinic reopens?",
        "Ann moved when?",
    ],
)
def test_a_question_asking_when_is_told(question: str) -> None:
    assert asks_when(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Ann say when she moved?",  # a time named, not asked
        "In which city did Ann grow up?",
        "What was the name of the bakery?",
        "How many days did the trip last?",
        "Who said the shop was closed?",
    ],
)
def test_a_question_asking_something_else_is_not(question: str) -> None:
    assert not asks_when(question)


@pytest.mark.parametrize(
    "question",
    [
        "How many jars of honey did Kofi get?",
        "And in the end, how much did the roof cost?",
        "What was the price of the used drum kit?",
        "What's the score after the first half?",
        "What distance did Ines run on Sunday?",
        "What did the new boiler cost?",
        "What is the rent on the flat in Leeds?",
    ],
)
def test_a_question_asking_an_amount_is_told(question: str) -> None:
    assert asks_how_many(question)


@pytest.mark.parametrize(
    "question",
    [
        "What did Kofi name the new hive?",
        "Which price tag did Ann lose?",  # a thing, not an amount
        "What was the name of the bakery?",
        "Who paid for the roof?",
    ],
)
def test_a_question_asking_something_else_asks_no_amount(question: str) -> None:
    assert not asks_how_many(question)
