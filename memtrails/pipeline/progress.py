"""Progress of long imports: a tqdm bar on a terminal, plain lines elsewhere, nothing when quiet.

The bar counts records written against the records the input holds when that is known
(a quick count before the import: messages of an mbox, lines of JSON Lines, commits), so
its rate and time left follow the embedding, which is the slow part, not the reading,
which runs ahead. Without a count it estimates one from the bytes read, or just counts.
A clock thread redraws it twice a second, so the elapsed time ticks while the model loads
and between batches, and it names the phase: starting (the model loads), scanning N% (bytes
read before the first record: an mbox's first pass, over its threads; or how far the
importer's own first pass is, given by ``scan``: the files of a Maildir or a folder of .eml,
the compressed bytes of an .mbox.gz read anew), reading, embedding
(reading done, batches still in the model). :func:`steps` shows the maintenance
steps (reindex, check --repair, the catch-up after a crash) through the same clock: records
done against the records to do, the phase and the time left.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from tqdm import tqdm

from ..records import ImportReport

__all__ = ["PLAIN_EVERY", "overall_bar", "progress_bar", "steps"]

PLAIN_EVERY = 10.0
"""Seconds between two plain progress lines when stderr is not a terminal (a log, cron)."""
_TICK = 0.5
_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]"
_COUNT_FORMAT = "{desc}: {n_fmt} records [{elapsed}, {rate_fmt}{postfix}]"
_PHASE_FORMAT = "{desc}: [{elapsed}{postfix}]"


_MIN_BAR = 10  # cells the bar keeps on a narrow terminal: a long file name gives way first
_MIN_LABEL = 12  # then the skipped count (the summary repeats it), then the label's end only


def _fixed_width(total: object, tail: str) -> int:
    """The columns a bar line takes besides its label, keeping :data:`_MIN_BAR` for the bar."""
    digits = len(str(total)) if total else 1
    # ": 100%|" "| " n "/" total " [" elapsed (an hour-long "1:00:00") "<" left ", " tail "]"
    return 7 + 2 + 2 * digits + 1 + 2 + 7 + 1 + 5 + 2 + len(tail) + 1 + _MIN_BAR


def fit_label(label: str, room: int) -> str:
    """Shorten ``label`` to ``room`` characters: by its middle, or keep its end when short
    (the end of a path names the file)."""
    if len(label) <= room:
        return label
    room = max(room, 2)
    head = (room - 1) // 3 if room >= 24 else 0
    return f"{label[:head]}\u2026{label[len(label) - (room - 1 - head) :]}"


class _Progress:
    """One source's display: the numbers of the last report, drawn by the clock or a report."""

    def __init__(
        self,
        label: str,
        stream: TextIO,
        terminal: bool,
        total_records: int | None,
        total_bytes: int | None,
        position: Callable[[], int] | None,
        unread: int = 0,
        scan: Callable[[], tuple[int, int] | None] | None = None,
    ) -> None:
        self.label = label
        self.stream = stream
        self.terminal = terminal
        self.total_records = total_records
        self.total_bytes = total_bytes
        self.position = position
        self.unread = unread
        self.scan = scan
        self.report: ImportReport | None = None
        self.first_read: int | None = None  # the bytes read when reading was first seen
        self.started = time.monotonic()
        self.printed = self.started
        self.lock = threading.Lock()
        guess = total_records is not None or (total_bytes is not None and position is not None)
        self.bar: Any = None
        if terminal:
            self.bar = tqdm(
                desc=label,
                total=total_records if total_records is not None else (1 if guess else None),
                unit=" rec",
                file=stream,
                dynamic_ncols=True,
                leave=False,
                bar_format=_FORMAT if guess else _COUNT_FORMAT,
                mininterval=0,
                initial=unread,  # counted as done from the start, not as this run's rate
            )

    def phase(self) -> str:
        if self.report is None:
            scanned = self.scan() if self.scan is not None else None
            if scanned is not None:  # the importer's own first pass, then its reading
                done, total = scanned
                return f"scanning {done * 100 // total}%" if done < total else "reading"
            # Reading that moves on before any record (past the first bytes read to tell
            # the file's kind): a first pass over the file, an mbox's over its threads
            read = self.position() if self.position is not None and self.total_bytes else 0
            if self.first_read is None and read > 0:
                self.first_read = read
            elif self.first_read is not None and read > self.first_read and self.total_bytes:
                return f"scanning {min(read * 100 // self.total_bytes, 100)}%"
            return "starting"
        if self.position is not None and self.total_bytes:
            if self.position() < self.total_bytes:
                return "reading"
            return "embedding"
        if self.total_records is not None and self.seen() < self.total_records:
            return "reading"
        return "embedding"

    def seen(self) -> int:
        # The import adds the records it proved unchanged unread only to its final report.
        return (self.report.seen if self.report else 0) + self.unread

    def total(self) -> int | None:
        seen = self.seen()
        if self.total_records is not None:
            return max(self.total_records, seen)
        if self.total_bytes and self.position is not None:
            read = self.position()
            if read <= 0 or seen == 0:
                return None
            # Records per byte so far, over the whole input: an estimate until reading ends.
            return max(seen, round(seen * self.total_bytes / min(read, self.total_bytes)))
        return None

    def draw(self) -> None:
        with self.lock:
            report = self.report
            seen = self.seen()
            total = self.total()
            short = f"{self.phase()}, embedded {report.embedded if report else 0}"
            tail = f"{short}, skipped {report.skipped}" if report and report.skipped else short
            if self.bar is not None:
                if total is not None and self.bar.total != total:
                    self.bar.total = total
                self.bar.n = seen
                if self.bar.ncols:  # known only on a terminal, and followed as it is resized
                    room = self.bar.ncols - _fixed_width(self.bar.total, tail)
                    if room < _MIN_LABEL:
                        room += len(tail) - len(short)
                        tail = short
                    self.bar.set_description_str(fit_label(self.label, room), refresh=False)
                self.bar.set_postfix_str(tail, refresh=False)
                self.bar.refresh()
                return
            now = time.monotonic()
            if now - self.printed >= PLAIN_EVERY:
                self.printed = now
                of = f"/{total}" if total is not None else ""
                print(
                    f"{self.label}: {seen}{of} records, {tail}, {now - self.started:.0f} s",
                    file=self.stream,
                    flush=True,
                )

    def update(self, report: ImportReport) -> None:
        self.report = report
        self.draw()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextmanager
def _ticking(draw: Callable[[], object], name: str) -> Iterator[None]:
    """Call ``draw`` every half second from a thread this block owns and joins."""
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(_TICK):
            draw()

    clock = threading.Thread(target=tick, name=name, daemon=True)
    clock.start()
    try:
        yield
    finally:
        stop.set()
        clock.join()


@contextmanager
def progress_bar(
    label: str,
    enabled: bool = True,
    *,
    total_bytes: int | None = None,
    position: Callable[[], int] | None = None,
    total_records: int | None = None,
    unread: int = 0,
    scan: Callable[[], tuple[int, int] | None] | None = None,
) -> Iterator[Callable[[ImportReport], None]]:
    """Yield an ``on_progress`` callback that shows one source's import on stderr.

    On a terminal, a bar; elsewhere a plain line every :data:`PLAIN_EVERY` seconds.

    Args:
        label: what is being imported (one bar per source).
        enabled: False for no display at all (``--json``, ``--quiet``).
        total_bytes: the input's size on disk, when known.
        position: returns the bytes read so far (compressed bytes for a compressed file).
        total_records: how many records the import will read, when counted beforehand.
        unread: how many of those the import proves unchanged without reading them and
            adds only to its final report (a Slack export's skipped day files): the bar
            starts there.
        scan: returns (done, total) of the importer's first pass before any record (a
            Maildir's thread headers: files; a compressed mbox's: compressed bytes) while
            the import runs (``done == total`` once the pass is over), else None.
    """
    if not enabled:
        yield lambda _report: None
        return
    stream = sys.stderr
    progress = _Progress(
        label, stream, stream.isatty(), total_records, total_bytes, position, unread, scan
    )
    try:
        with _ticking(progress.draw, f"progress {progress.label}"):
            yield progress.update
    finally:
        progress.close()


@contextmanager
def overall_bar(count: int, enabled: bool = True) -> Iterator[Callable[[ImportReport], None]]:
    """Yield a callback that counts finished sources of a multi-source import on one line.

    Nothing is shown for a single source, off a terminal, or when not ``enabled``.
    """
    if not enabled or count < 2 or not sys.stderr.isatty():
        yield lambda _report: None
        return
    bar = tqdm(
        desc="all sources",
        total=count,
        unit=" source",
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
        position=1,
        bar_format="{desc}: {n_fmt}/{total_fmt} sources [{elapsed}{postfix}]",
        mininterval=0,  # one update per finished source: each is worth drawing
    )
    done = ImportReport()

    def finished(report: ImportReport) -> None:
        done.merge(report)
        bar.set_postfix_str(f"{done.seen} records, added {done.added}", refresh=False)
        bar.update(1)

    try:
        yield finished
    finally:
        bar.close()


_StepReport = Callable[[str, int, int | None], None]  # memtrails.ingest.StepProgress


class _Steps:
    """The display of a step in phases (reindex, check --repair, the catch-up on open).

    A phase with a total is a bar whose rate and time left are this phase's own; one
    without is its name and a ticking clock.
    """

    def __init__(self, label: str, stream: TextIO, terminal: bool) -> None:
        self.label = label
        self.stream = stream
        self.terminal = terminal
        self.phase = ""  # nothing shown until the step reports (a catch-up with nothing to do)
        self.done = 0
        self.total: int | None = None
        self.started = self.since = self.printed = time.monotonic()
        self.lock = threading.Lock()
        self.bar: Any = None
        self.unsaid = False  # off a terminal: reported since the last line printed

    def update(self, phase: str, done: int, total: int | None) -> None:
        with self.lock:
            changed = phase != self.phase or total != self.total
            counted = total != self.total
            self.phase, self.done, self.total = phase, done, total
            if self.terminal and self.bar is None:
                self.bar = tqdm(
                    desc=self.label,
                    total=total,
                    unit=" rec",
                    file=self.stream,
                    dynamic_ncols=True,
                    leave=False,
                    bar_format=_PHASE_FORMAT,
                    mininterval=0,
                )
            if self.bar is not None:
                if counted:
                    # A phase's own clock: the rate and time left of the table rebuild
                    # before it say nothing about the embedding.
                    self.bar.reset(total=total)
                    self.bar.bar_format = _FORMAT if total is not None else _PHASE_FORMAT
                self.bar.n = done
                self.bar.set_postfix_str(phase, refresh=False)
                self.bar.refresh()
                return
            self.unsaid = True
            if changed:
                self.since = time.monotonic()
                self._line()

    def draw(self) -> None:
        with self.lock:
            if self.bar is not None:
                self.bar.refresh()
            elif (
                self.phase and not self.terminal and time.monotonic() - self.printed >= PLAIN_EVERY
            ):
                self._line()

    def _line(self) -> None:
        now = time.monotonic()
        self.printed, self.unsaid = now, False
        count = ""
        if self.total is not None:
            count = f", {self.done}/{self.total} records"
            spent = now - self.since
            if self.done and self.done < self.total and spent > 0:
                count += f", about {(self.total - self.done) * spent / self.done:.0f} s left"
        print(
            f"{self.label}: {self.phase}{count}, {now - self.started:.0f} s",
            file=self.stream,
            flush=True,
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.unsaid:
            self._line()  # where it ended, for a log


@contextmanager
def steps(label: str, enabled: bool = True) -> Iterator[_StepReport]:
    """Yield a ``StepProgress`` callback (``memtrails.ingest``) that shows a maintenance step on stderr.

    On a terminal a bar (records done against the phase's records, its phase, elapsed and
    time left), redrawn twice a second; elsewhere a line at each new phase, every
    :data:`PLAIN_EVERY` seconds, and at the end. Nothing when not ``enabled`` (``--quiet``).
    """
    if not enabled:
        yield lambda _phase, _done, _total: None
        return
    stream = sys.stderr
    shown = _Steps(label, stream, stream.isatty())
    try:
        with _ticking(shown.draw, f"steps {label}"):
            yield shown.update
    finally:
        shown.close()
