"""What an import did: its report, and how each source was read."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .records import RecordError

__all__ = ["KEPT_ERRORS", "ImportReport", "SourceReport"]

#: How many errors a report keeps whole; the rest are counted, by reason.
KEPT_ERRORS = 1000
# How many reasons the summary of the errors not kept names; the rest count as one.
_SUMMARY_REASONS = 100
_OTHER_REASONS = "(other reasons)"
# Reasons differ by the numbers in them (a line's length, a column): one summary entry each.
_NUMBER = re.compile(r"\d+")
_REASON_UNITS = 200


@dataclass(slots=True)
class SourceReport:
    """How one source was read: in full or from where the last run stopped."""

    source: str
    mode: str = "full"  # "full" or "incremental"
    read: int = 0
    why: str | None = None
    # False when a run meant to read the source whole stopped part-way (damaged data, a
    # read error, a folder that could not be listed): its errors say where.
    complete: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "mode": self.mode,
            "read": self.read,
            "why": self.why,
            "complete": self.complete,
        }


@dataclass(slots=True)
class ImportReport:
    """What an import did: counts, the records it skipped and why, secrets scrubbed, records cut.

    ``cut`` counts the records added or updated that were cut to fit the import's limits
    (text or title shortened, meta entries left out); each one's ``meta["_cut"]`` says what.
    ``duplicates`` counts copies of a record read again in the same source (a mail archived
    twice, byte for byte or but for a list footer) that were folded into it, not errors.

    Errors are counted all, but only the first :data:`KEPT_ERRORS` are kept whole (in
    ``errors``, through :meth:`add_error`); the others are summed up by reason (numbers in
    a reason read as ``N``, at most 100 reasons) in ``errors_left_out``, so a source of
    millions of bad lines costs bounded memory and a bounded ``--json`` report.

    Example::

        report = await memory.ingest(from_mbox("archive.mbox"))
        print(report.added, report.updated, report.unchanged, report.skipped)
        for error in report.errors:  # the first KEPT_ERRORS, each naming where and why
            print("skipped:", error)
        for source in report.sources:  # read in full, or from where the last run stopped
            print(source.source, source.mode, source.read)
    """

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    errors: list[RecordError] = field(default_factory=list)
    secrets: Counter[str] = field(default_factory=Counter)
    embedded: int = 0
    elapsed: float = 0.0
    sources: list[SourceReport] = field(default_factory=list)
    cut: int = 0
    duplicates: int = 0
    errors_left_out: Counter[str] = field(default_factory=Counter)

    @property
    def skipped(self) -> int:
        """How many records were skipped because they could not be read."""
        return len(self.errors) + self.errors_left_out.total()

    def add_error(self, error: RecordError) -> None:
        """Count a record that could not be read, keeping it whole if fewer are kept yet."""
        if len(self.errors) < KEPT_ERRORS:
            self.errors.append(error)
            return
        self._left_out(_NUMBER.sub("N", error.reason[:_REASON_UNITS]), 1)

    def _left_out(self, reason: str, n: int) -> None:
        if reason not in self.errors_left_out and len(self.errors_left_out) >= _SUMMARY_REASONS:
            reason = _OTHER_REASONS
        self.errors_left_out[reason] += n

    @property
    def seen(self) -> int:
        """How many items the sources yielded (copies folded into an earlier one too)."""
        return self.added + self.updated + self.unchanged + self.skipped + self.duplicates

    def merge(self, other: ImportReport) -> None:
        """Add another report's counts to this one."""
        self.added += other.added
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.removed += other.removed
        for error in other.errors:
            self.add_error(error)
        for reason, n in other.errors_left_out.items():
            self._left_out(reason, n)
        self.secrets.update(other.secrets)
        self.embedded += other.embedded
        self.elapsed += other.elapsed
        self.sources.extend(other.sources)
        self.cut += other.cut
        self.duplicates += other.duplicates

    def to_json(self) -> dict[str, Any]:
        """Return the report as ``memtrails add --json`` prints it."""
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "removed": self.removed,
            "cut": self.cut,
            "duplicates": self.duplicates,
            "errors": [e.to_json() for e in self.errors],
            "errors_left_out": dict(self.errors_left_out.most_common()),
            "secrets": dict(sorted(self.secrets.items())),
            "embedded": self.embedded,
            "sources": [s.to_json() for s in self.sources],
            "seconds": round(self.elapsed, 3),
        }
