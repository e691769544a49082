"""The first pass over a folder of .eml files: the thread headers of every mail, and which
files are read before the mail that keeps their Message-ID.

The reader goes by the sorted relative paths, and the first mail read with a Message-ID
kept it (:class:`~.mail.MailBook`, and its thread plan): a new file whose name sorted first
took the plain id, and a stored mail moved to ``<id>#hex`` (the memory said "updated 1,
added 1", and a search result's id changed). Now, among the files that hold one Message-ID,
the mail whose Date is earliest keeps it (no Date: after those with one; a tie: path
order): the thread plan ranks it first, and a file read before it is placed aside, its own
``#hex`` id. The mail that was there first keeps the id whatever the files are named,
and a re-run or a rename gives the same ids.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ._eml_several import holds_several, read_several
from ._first_pass import FirstPass
from .mail import MailBook, strip_unixfrom
from .mail.threads import raw_id_and_date

__all__ = ["plan_files"]

_Files = list[tuple[str, Path]]


def plan_files(
    files: _Files, source: str, book: MailBook, shown: FirstPass, read: Callable[[Path], bytes]
) -> dict[str, str]:
    """Show ``book`` the thread headers of every mail of ``files`` (sorted by path; each read
    by ``read``), ranked so that the earliest-dated mail of a Message-ID is the id's own,
    and return the files that come before that mail: path -> the Message-ID they are to be
    placed aside from (:meth:`~.mail.MailBook.place`'s ``aside``). ``shown`` has ``done``
    set as files pass."""
    dated: dict[str, list[tuple[bool, int, str]]] = {}  # Message-ID -> (no date, ms, path)
    for done, (rel, file) in enumerate(files):
        shown.done = done  # the files passed before this one
        try:
            head = read(file)
        except OSError:
            continue  # said when it is read
        if holds_several(head):
            for _ in read_several(head, source, "", book, planning=True):
                pass
            continue
        one = strip_unixfrom(head)
        own, when = raw_id_and_date(one)
        rank = (when is None, when or 0, rel)
        book.plan(one, rank=rank)
        if own:
            dated.setdefault(own, []).append(rank)
    aside: dict[str, str] = {}
    for own, met in dated.items():
        if len(met) > 1:
            first = min(met)[2]
            aside.update((rel, own) for _, _, rel in met if rel < first)
    return aside
