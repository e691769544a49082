"""A progress bar for long imports on a terminal, and nothing anywhere else."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tqdm import tqdm

from ..records import ImportReport

__all__ = ["progress_bar"]


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[ImportReport], None]]:
    """Yield an ``on_progress`` callback that draws a bar on stderr when it is a terminal."""
    show = enabled and sys.stderr.isatty()
    if not show:
        yield lambda _report: None
        return
    bar = tqdm(desc=label, unit=" rec", file=sys.stderr, dynamic_ncols=True, leave=False)

    def update(report: ImportReport) -> None:
        bar.update(report.seen - bar.n)
        bar.set_postfix(
            added=report.added, unchanged=report.unchanged, skipped=report.skipped, refresh=False
        )

    try:
        yield update
    finally:
        bar.close()
