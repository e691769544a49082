"""The first pass over a folder of .eml files: the thread headers of every mail, and which
files are read before the mail that keeps their Message-ID.

The reader goes by the sorted relative paths, and the first mail read with a Message-ID
kept it (:class:`~.mail.MailBook`, and its thread plan): a new file whose name sorted first
took the plain id, and a stored mail moved to ``<id>#hex`` (the memory said "updated 1,
added 1", and a search result's id changed). Now, among the files that hold one Message-ID,
the mail whose Date is earliest keeps it (no Date: after those with one; a tie: path
order): it is planned first, and a file read before it is placed aside, under its own
``#hex`` id. The mail that was there first keeps the id whatever the files are named,
and a re-run or a rename gives the same ids.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ._eml_several import holds_several, read_several
from ._first_pass import FirstPass
from .mail import MailBook, strip_unixfrom
from .mail.threads import raw_id_and_date, raw_named_ids

__all__ = ["plan_files"]

_Files = list[tuple[str, Path]]

_Found = tuple[str, list[str], str]


class _Noted(MailBook):
    """A book that only keeps the thread headers it is shown, to plan them later."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[_Found] = []

    def plan(self, raw: bytes) -> None:
        found = raw_named_ids(raw)
        if found is not None:
            self.found.append(found)


def plan_files(
    files: _Files, source: str, book: MailBook, shown: FirstPass, read: Callable[[Path], bytes]
) -> dict[str, str]:
    """Show ``book`` the thread headers of every mail of ``files`` (sorted by path; each read
    by ``read``), the earliest-dated mail of a Message-ID first, and return the files that
    come before that mail: path -> the Message-ID they are to be placed aside from
    (:meth:`~.mail.MailBook.place`'s ``aside``). ``shown`` has ``done`` set as files pass."""
    found: dict[str, list[_Found]] = {}
    dated: dict[str, list[tuple[bool, int, str]]] = {}  # Message-ID -> (no date, ms, path)
    for done, (rel, file) in enumerate(files):
        shown.done = done  # the files passed before this one
        try:
            head = read(file)
        except OSError:
            continue  # said when it is read
        if holds_several(head):
            noted = _Noted()
            for _ in read_several(head, source, "", noted, planning=True):
                pass
            found[rel] = noted.found
            continue
        one = strip_unixfrom(head)
        named = raw_named_ids(one)
        found[rel] = [named] if named is not None else []
        own, when = raw_id_and_date(one)
        if own:
            dated.setdefault(own, []).append((when is None, when or 0, rel))
    aside: dict[str, str] = {}
    for own, met in dated.items():
        if len(met) > 1:
            first = min(met)[2]
            aside.update((rel, own) for _, _, rel in met if rel < first)
    later = [f for f in files if f[0] in aside]  # planned after the mail that keeps the id
    for rel, _ in [f for f in files if f[0] not in aside] + later:
        for each in found.get(rel, ()):
            book.plan_found(each)
    return aside
