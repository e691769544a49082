"""One reading of a terminal's escape sequences for every importer: a CI log attached to a
mail and a commit message pasted from a terminal lose the same sequences."""

from __future__ import annotations

import pytest

from memtrails.importers._shared import without_controls, without_escapes
from memtrails.importers.mail.attach_plain import plain_text

# Sequences a terminal acts on that the mail reader left a piece of: a colour in the colon
# form (ITU T.416), a private CSI (`ESC [ > c`), the character set (`ESC ( B`, after every
# `tput sgr0`), a reset (`ESC c`), a link's OSC longer than 512 characters.
LINK = "\x1b]8;;https://ci.example.org/" + "x" * 600 + "\x1b\\"
SEQUENCES = [
    "\x1b[38:5:196m",
    "\x1b[>0c",
    "\x1b(B",
    "\x1bc",
    LINK,
]


@pytest.mark.parametrize("sequence", SEQUENCES, ids=["colon", "private", "charset", "reset", "osc"])
def test_a_log_attached_to_a_mail_loses_each_sequence_whole(sequence: str) -> None:
    log = f"build {sequence}passed\x1b[0m in 3s\n".encode()
    assert plain_text(log, "utf-8") == "build passed in 3s"


@pytest.mark.parametrize("sequence", SEQUENCES, ids=["colon", "private", "charset", "reset", "osc"])
def test_the_shared_reading_is_the_one_commits_use(sequence: str) -> None:
    from memtrails.importers.git._text import without_controls as in_git

    text = f"fix {sequence}the\x9b build\x07\n"
    assert without_controls(text) == in_git(text) == "fix the build\n"
    assert without_escapes(text) == "fix the\x9b build\x07\n"
