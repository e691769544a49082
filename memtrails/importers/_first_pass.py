"""How far an importer's first pass (a mail folder's thread headers, or a compressed mbox's,
read before its first record) has gone, for the progress display to show while no record has come yet.

The pass runs in the importer's worker thread; the display's clock thread asks
:func:`scanned` for the source it shows. Only plain integers are shared: a read sees one
whole value, old or new, which is all a progress line needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["FirstPass", "first_pass", "scanned"]


class FirstPass:
    """How far a first pass is: ``done`` of ``total`` (files), or, while it follows a
    stream (:meth:`follow`), where that stream is (a compressed mbox's bytes, of its size)."""

    def __init__(self, total: int, begun: bool = True) -> None:
        self.total = total
        self.done = 0  # set by the pass as it goes; ``total`` once it is over
        self.begun = begun  # nothing is shown before (a pass that may not run at all)
        self._at: Callable[[], int] | None = None

    def follow(self, at: Callable[[], int] | None) -> None:
        """Take ``done`` from ``at()`` (callable from another thread), or stop (None)."""
        self._at = at
        self.begun = True

    def where(self) -> int:
        at = self._at
        # Read ahead of the pass, a stream may be at its end before the pass is over.
        return min(at(), self.total - 1) if at is not None else self.done


_running: dict[str, FirstPass] = {}
_lock = threading.Lock()


@contextmanager
def first_pass(source: str, total: int, begun: bool = True) -> Iterator[FirstPass]:
    """Publish the first pass over ``total`` files of ``source`` for as long as the block
    runs: the pass, then the reading after it (``done == total``: the pass is over).

    Run the reading inside the block too (a generator's ``yield from``): the display then
    tells the reading that follows the pass from a pass not begun. ``begun=False``: nothing
    is shown until the pass follows a stream (:meth:`FirstPass.follow`), for a pass that
    may not run at all (a compressed mbox unchanged since the last run is not read)."""
    shown = FirstPass(total, begun)
    with _lock:
        _running[source] = shown
    try:
        yield shown
    finally:
        with _lock:
            if _running.get(source) is shown:
                del _running[source]


def scanned(source: str) -> tuple[int, int] | None:
    """Return (done, total) of ``source``'s first pass while it runs (``done == total``
    once it is over and reading has begun), or None."""
    with _lock:
        shown = _running.get(source)
    return None if shown is None or not shown.begun else (shown.where(), shown.total)
