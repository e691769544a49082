"""A progress bar for long imports on a terminal, and nothing anywhere else."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm

from ..records import ImportReport

__all__ = ["progress_bar"]


@contextmanager
def progress_bar(
    label: str,
    enabled: bool = True,
    *,
    total_bytes: int | None = None,
    position: Callable[[], int] | None = None,
) -> Iterator[Callable[[ImportReport], None]]:
    """Yield an ``on_progress`` callback that draws a bar on stderr when it is a terminal.

    With ``position`` (bytes of the input read so far: compressed bytes for a compressed
    file), the bar counts bytes, and with ``total_bytes`` it shows a percentage and the time
    left, so a user can plan by it; without, it counts records.

    Args:
        label: what is being imported (one bar per source).
        enabled: False for no bar at all (``--json``).
        total_bytes: the input's size on disk, when known.
        position: returns the bytes read so far.
    """
    show = enabled and sys.stderr.isatty()
    if not show:
        yield lambda _report: None
        return
    by_bytes = position is not None
    bar = tqdm(
        desc=label,
        total=total_bytes if by_bytes else None,
        unit="B" if by_bytes else " rec",
        unit_scale=by_bytes,
        unit_divisor=1024 if by_bytes else 1000,
        file=sys.stderr,
        dynamic_ncols=True,
        leave=False,
    )

    def update(report: ImportReport) -> None:
        done = position() if position is not None else report.seen
        if bar.total is not None:
            done = min(done, int(bar.total))
        bar.update(done - bar.n)
        bar.set_postfix(
            records=report.seen,
            added=report.added,
            unchanged=report.unchanged,
            skipped=report.skipped,
            refresh=False,
        )

    try:
        yield update
    finally:
        bar.close()
