"""What a watch's rescan skips again: counted once, not at every change it imports."""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from pathlib import Path

from ..records import ImportReport, RecordError

__all__ = ["Repeats"]

_Key = tuple[str, str, str]
_State = tuple[int, int, int, int] | None


def _state(error: RecordError) -> _State:
    """Return what identifies the state of the file ``error`` is about (None: nothing).

    A file skipped in a folder is named by its path in it (``where``); a line skipped in
    a file by its number, the file being the source.
    """
    for path in (Path(error.source, error.where), Path(error.source)):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
    return None


class Repeats:
    """The records a watch's last import skipped, each with the state of its file.

    A watched folder is imported again at each change in it, and its importer reports
    again every file it cannot read (a binary file, one too large, a pipe, a link): the
    watch's count of skipped records grew at every change, without end. A skip counts
    once until its file changes (or goes and comes back); only the last import's skips
    are remembered, so memory stays that of one report.
    """

    def __init__(self) -> None:
        self._seen: dict[_Key, _State] = {}
        self._left_out: Counter[str] = Counter()

    def fresh(self, report: ImportReport) -> ImportReport:
        """Return ``report`` with only the skips not reported before (blocking: a ``stat``
        per skipped record kept whole)."""
        seen: dict[_Key, _State] = {}
        errors = []
        for error in report.errors:
            key = (error.source, error.where, error.reason)
            state = seen[key] = _state(error)
            if key not in self._seen or self._seen[key] != state:
                errors.append(error)
        self._seen = seen
        # The skips summed up by reason (past the first 1,000): only what grew is new.
        left_out = Counter(
            {reason: n - self._left_out[reason] for reason, n in report.errors_left_out.items()}
        )
        self._left_out = Counter(report.errors_left_out)
        return dataclasses.replace(report, errors=errors, errors_left_out=+left_out)
