"""A value memtrails shows quoted as Python writes it ('…'), in a line whose words hold an
apostrophe or that shows an escape elsewhere: a real ESC in the value and the four
characters backslash-x-1-b still print differently, each as it reads."""

from __future__ import annotations

import pytest

from memtrails.cli._terminal import for_terminal

ESC, LOOKALIKE = "name\x1b[2J", "name\\x1b[2J"  # a real ESC; the four characters \x1b

LINES = [
    "can't open {}: it's gone",  # apostrophes before and after the value
    "the source's file {}",
    "{} isn't there",
    "skipped {} and <\x07>",  # the line shows an escape elsewhere
    "the users' file {}, can't read it \x1b",
]


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_a_quoted_escape_and_its_lookalike_print_apart(line: str) -> None:
    # Before: with an apostrophe before it, 'name\x1b[2J' (a real ESC, as repr writes
    # it) printed as 'name\\x1b[2J', the very line its four-character lookalike prints
    real = for_terminal(line.format(repr(ESC)), quoted=True)
    lookalike = for_terminal(line.format(repr(LOOKALIKE)), quoted=True)
    assert real != lookalike
    assert "'name\\x1b[2J'" in real  # an escaped ESC, as repr writes it
    assert "'name\\\\x1b[2J'" in lookalike  # a backslash, doubled
    for shown in (real, lookalike):
        assert "\x1b" not in shown and "\x07" not in shown
