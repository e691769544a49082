"""How far an importer's first pass (a mail folder's thread headers, or a compressed mbox's,
read before its first record) has gone, for the progress display to show while no record has come yet.

The run that shows a display owns what it shows: it makes a :class:`FirstPasses` and
watches with it (:meth:`FirstPasses.watching`) around its imports; an importer's pass,
run in that run's worker threads (``asyncio.to_thread`` carries the caller's context
there), is published to it, and to nothing else. Two runs in one process (two
``memtrails add`` in tests, a library user's two imports at once) each see their own
passes, even of sources of the same name; a pass outside any watching run is shown nowhere.

The pass runs in the importer's worker thread; the display's clock thread asks
:meth:`FirstPasses.scanned` for the source it shows. Only plain integers are shared: a
read sees one whole value, old or new, which is all a progress line needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["FirstPass", "FirstPasses", "first_pass"]


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


class FirstPasses:
    """The first passes of one run's imports, by source, while they run: what its progress
    display shows. Made by the run, and handed to its importers by :meth:`watching`."""

    def __init__(self) -> None:
        self._running: dict[str, FirstPass] = {}
        self._lock = threading.Lock()

    @contextmanager
    def watching(self) -> Iterator[FirstPasses]:
        """Publish here the first passes of the imports this block runs (in this context,
        and the tasks and worker threads it starts)."""
        token = _WATCHING.set(self)
        try:
            yield self
        finally:
            _WATCHING.reset(token)

    def scanned(self, source: str) -> tuple[int, int] | None:
        """Return (done, total) of ``source``'s first pass while it runs (``done == total``
        once it is over and reading has begun), or None."""
        with self._lock:
            shown = self._running.get(source)
        return None if shown is None or not shown.begun else (shown.where(), shown.total)

    def _publish(self, source: str, shown: FirstPass) -> None:
        with self._lock:
            self._running[source] = shown

    def _withdraw(self, source: str, shown: FirstPass) -> None:
        with self._lock:
            if self._running.get(source) is shown:
                del self._running[source]


# Which run's display the current context's imports are shown by (none: shown nowhere).
# It holds no pass itself: each run's FirstPasses does.
_WATCHING: ContextVar[FirstPasses | None] = ContextVar("memtrails_first_passes", default=None)


@contextmanager
def first_pass(source: str, total: int, begun: bool = True) -> Iterator[FirstPass]:
    """Publish the first pass over ``total`` files of ``source`` for as long as the block
    runs, to the run watching this context (if any): the pass, then the reading after it
    (``done == total``: the pass is over).

    Run the reading inside the block too (a generator's ``yield from``): the display then
    tells the reading that follows the pass from a pass not begun. ``begun=False``: nothing
    is shown until the pass follows a stream (:meth:`FirstPass.follow`), for a pass that
    may not run at all (a compressed mbox unchanged since the last run is not read)."""
    shown = FirstPass(total, begun)
    passes = _WATCHING.get()
    if passes is None:  # no display watches this run
        yield shown
        return
    passes._publish(source, shown)
    try:
        yield shown
    finally:
        passes._withdraw(source, shown)
