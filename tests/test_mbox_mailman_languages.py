"""A Mailman (pipermail) month archive in any of its languages splits into its messages,
whether or not a blank line ends each message: the sender of its ``From `` lines hides the
``@`` behind the list language's translation of `` at `` (two words in Basque, none in
Portuguese, glued to the host in Estonian), and a date in the list's language and order
(``i18n.ctime``) is told by the ``From:`` header after it naming the same sender.

The translations and date orders are Mailman 2.1's message catalogs (messages/*/mailman.po:
msgid " at " and the ctime format), see docs/sources.md."""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

import io

import pytest

from memtrails.importers.mbox_lines import is_loose_separator, is_separator
from memtrails.importers.mbox_split import split
from memtrails.records import MemoryRecord

_ASCTIME = "Mon Jan  5 10:04:05 2004"
# (language, the sender as the archive writes it, the date of its From_ line)
FORMS = [
    ("eu", "ann a bildua example.org", _ASCTIME),
    ("pt", "ann  example.org", _ASCTIME),
    ("et", "ann atexample.org", _ASCTIME),
    ("fr", "ann at example.org", "Lun  5 Jan  10:04:05 CET 2004"),
    ("hu", "ann at example.org", "2004. Jan.  5., H, 10:04:05 CET"),
    ("pl", "ann w example.org", "Pon,  5 Sty 2004, 10:04:05 CET"),
    ("pt-date", "ann  example.org", "Segunda-Feira,  5 de Janeiro de 2004 - 10:04:05 CET"),
    ("tr", "ann at example.org", " 5 Oca 2004 Pzt 10:04:05 CET"),
    ("ja", "ann ＠ example.org", "2004年 1月  5日 (月) 10:04:05 CET"),
    ("uk", "ann на example.org", "Пнд  5 Січ 2004 10:04:05 CET"),
]


def _archive(sender: str, date: str) -> bytes:
    """Three messages as pipermail writes them; the second's text ends with no blank line."""
    messages = []
    for k in range(3):
        ending = "\n" if k == 1 else "\n\n"
        messages.append(
            f"From {sender}  {date}\nFrom: {sender} (Ann)\nDate: Mon, 5 Jan 2004 10:04:05 +0100\n"
            f"Subject: [list] topic {k}\nMessage-ID: <{k}@example.org>\n\nbody {k}\nmore{ending}"
        )
    return "".join(messages).encode("utf-8")


@pytest.mark.parametrize(("language", "sender", "date"), FORMS, ids=[f[0] for f in FORMS])
def test_a_translated_month_archive_splits_into_its_messages(
    language: str, sender: str, date: str
) -> None:
    items = list(split(io.BytesIO(_archive(sender, date)), "list"))
    titles = [item.title for item in items if isinstance(item, MemoryRecord)]
    assert titles == [f"[list] topic {k}" for k in range(3)], language


def test_a_body_line_that_names_another_sender_does_not_split() -> None:
    """Quoted text after a line of text is not a separator: the sender differs."""
    line = b"From ann at example.org  Lun  5 Jan  10:04:05 CET 2004\n"
    assert not is_loose_separator(line, b"From: bob at example.org (Bob)\n", after_text=True)
    assert is_loose_separator(line, b"From: ann at example.org (Ann)\n", after_text=True)
    assert not is_separator(b"From Russia with love\n")
