"""What kind of answer a question asks for, and whether a passage holds one.

A question that asks when is answered by a passage that names a time, one that asks how
many or how much by a passage that holds a number ("380 dollars though", "Four now"), while
the turns around the answer that share the question's words often hold neither. The search
lifts the passages of the kind asked for (``ranking.ANSWER_BOOST``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .when import asks_when, names_a_time

__all__ = ["asks_how_many", "holds_a_number", "wanted_answer"]

_HOW_MANY = re.compile(
    r"\bhow\s+(?:much|many|long|far|old|often|big|tall|fast|heavy|deep|wide)\b"
    # "What was the price of...?", "What's the score?"
    r"|^\W*(?:(?:and|so|but|then|ok|okay)\W+)?what(?:\s+(?:was|is|were|are)"
    r"|['\u2019]s)?\s+(?:the\s+)?(?:price|cost|total|number|amount|score|percentage|distance"
    r"|age|height|weight|temperature|speed|budget|salary|fee|rent|balance|count)s?\b"
    r"|^\W*what\s+did\s+(?:\w+\s+){1,6}?cost\b"
    # Korean, Russian, Chinese, Japanese, Arabic, Hindi; German, French, Spanish,
    # Portuguese, Italian
    r"|얼마|몇|(?<![\u0400-\u04ff])сколько(?![\u0400-\u04ff])|多少|几[个次天年岁]|いくら|いくつ"
    r"|何[人回個歳年日]|كم|(?<![\u0900-\u097f])कितन"
    r"|\bwie\s+(?:viel|viele|lange|weit|alt|oft)\b|\bcombien\b|\bcu[aá]nt[oa]s?\b"
    r"|\bquant[oa]s?\b|\bquanti\b|\bquante\b",
    re.I,
)
_NUMBER_WORDS = (
    "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    "|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    "|eighty|ninety|hundred|thousand|million|dozen|half|once|twice"
    "|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
)
_HOLDS_A_NUMBER = re.compile(rf"\d|\b(?:{_NUMBER_WORDS})\b", re.I)


def asks_how_many(query: str) -> bool:
    """Return whether ``query`` asks for an amount ("How many kids ...?", "얼마", "сколько").

    Example:
        >>> asks_how_many("How much did the vet cost?"), asks_how_many("Who paid?")
        (True, False)
    """
    return _HOW_MANY.search(query) is not None


def holds_a_number(text: str) -> bool:
    """Return whether ``text`` holds a number: digits, or one written as an English word.

    Example:
        >>> holds_a_number("Four now, for the summer."), holds_a_number("Nice!")
        (True, False)
    """
    return _HOLDS_A_NUMBER.search(text) is not None


def wanted_answer(query: str) -> Callable[[str], bool] | None:
    """Return the test a passage of the kind ``query`` asks for passes, or None when it asks
    for no kind in particular (a time for a question that asks when, a number for one that
    asks how many)."""
    if asks_when(query):
        return names_a_time
    if asks_how_many(query):
        return holds_a_number
    return None
