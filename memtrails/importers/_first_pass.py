"""How far an importer's first pass (a mail folder's thread headers, read before its first
record) has gone, for the progress display to show while no record has come yet.

The pass runs in the importer's worker thread; the display's clock thread asks
:func:`scanned` for the source it shows. Only plain integers are shared: a read sees one
whole value, old or new, which is all a progress line needs.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FirstPass", "first_pass", "scanned"]


class FirstPass:
    """The files a first pass has read (``done``) of those it reads (``total``)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0  # set by the pass as it goes; ``total`` once it is over


_running: dict[str, FirstPass] = {}
_lock = threading.Lock()


@contextmanager
def first_pass(source: str, total: int) -> Iterator[FirstPass]:
    """Publish the first pass over ``total`` files of ``source`` for as long as the block
    runs: the pass, then the reading after it (``done == total``: the pass is over).

    Run the reading inside the block too (a generator's ``yield from``): the display then
    tells the reading that follows the pass from a pass not begun."""
    shown = FirstPass(total)
    with _lock:
        _running[source] = shown
    try:
        yield shown
    finally:
        with _lock:
            if _running.get(source) is shown:
                del _running[source]


def scanned(source: str) -> tuple[int, int] | None:
    """Return (files read, files to read) of ``source``'s first pass while it runs, or None."""
    with _lock:
        shown = _running.get(source)
    return None if shown is None else (shown.done, shown.total)
