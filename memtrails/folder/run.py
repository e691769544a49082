"""One import's bookkeeping against the folder: claims for dedup, what it read, what to prune."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from ..records import SourceState
from .table import IN_FLIGHT, Row, Table
from .uids import UidSet
from .writer import Writer

__all__ = ["ImportRun"]

_SWEEP_FROM = 4096  # claims held before those already written are dropped


@dataclass(slots=True)
class ImportRun:
    """One import: its claims (undone if it fails before writing them), what it read per
    source, the uids it saw (for pruning) and the last position each importer reported.

    It answers the dedup stage's questions (``claim``, ``holds``: the ``Claims`` protocol);
    its claims are the folder writer's (``writer``), its reads the writer's table.
    """

    writer: Writer
    prune: bool = False
    claimed: dict[str, Row | None] = field(default_factory=dict)
    read: Counter[str] = field(default_factory=Counter)
    # One entry per record of the run: exact, and 16 bytes a uid once past a few thousand.
    seen: UidSet = field(default_factory=UidSet)
    passed: UidSet = field(default_factory=UidSet)
    states: dict[str, SourceState] = field(default_factory=dict)
    _sweep_at: int = _SWEEP_FROM
    _digests: bool | None = None  # whether the table held any input digest when first asked

    @property
    def table(self) -> Table:
        """The folder's table (to read)."""
        return self.writer.table

    def claim(
        self, uid: str, fp: str, source: str, raw: bytes | None = None
    ) -> Literal["new", "changed", "unchanged", "duplicate"]:
        """Say how this version relates to the folder's, and mark a new one as on its way.

        ``raw``: the digest of the input the version was made from, kept beside it.
        """
        # The first record with a uid in a run is the one kept.
        if not self.passed.add(uid):
            row = self.table.raw(uid)
            return "unchanged" if row is not None and row.fp == fp else "duplicate"
        verdict, previous = self.writer.claim(uid, fp, source, raw)
        if verdict != "unchanged" and uid not in self.claimed:
            self.claimed[uid] = previous
            if len(self.claimed) >= self._sweep_at:
                self._sweep()
        return verdict

    def known(self, digests: list[bytes]) -> dict[bytes, tuple[str, str]]:
        """Return ``(uid, source)`` of stored records made from inputs with these digests."""
        if self._digests is None:
            # Asked once: a folder without any (a first import) is not asked per chunk. A
            # digest written during this run could only match a uid already passed.
            self._digests = self.table.has_digests()
        return self.table.known(digests) if self._digests else {}

    def first(self, uid: str) -> bool:
        """Tell whether ``uid`` is new to this run, and count it as passed."""
        return self.passed.add(uid)

    def holds(self, uid: str) -> bool:
        """Tell whether the folder holds a live record with this uid."""
        return uid in self.table

    def saw(self, source: str, uid: str | None) -> None:
        """Count an item read from ``source`` (and remember its uid when pruning)."""
        self.read[source] += 1
        if self.prune and uid is not None:
            self.seen.add(uid)

    def saw_all(self, source: str, uids: list[str]) -> None:
        """Count items read from ``source`` with these uids (as :meth:`saw` does one by one)."""
        self.read[source] += len(uids)
        if self.prune:
            for uid in uids:
                self.seen.add(uid)

    def gone(self) -> list[str]:
        """Return the uids to prune: records of each source read completely that it lacked.

        A source is read completely when it yielded at least one item and its importer did
        not report an incremental read; absence proves nothing otherwise.
        """
        gone: list[str] = []
        for source, n in self.read.items():
            state = self.states.get(source)
            if n == 0 or (state is not None and not state.complete):
                continue
            gone.extend(uid for uid in self.table.uids_of(source) if uid not in self.seen)
        return gone

    def _sweep(self) -> None:
        """Drop the claims whose records reached the log: only in-flight ones can be undone.

        Without this a run would hold every new record's uid to its end (~120 bytes each).
        Runs when the claims double, so each costs one table lookup, once.
        """
        self.claimed = {
            uid: previous
            for uid, previous in self.claimed.items()
            if (row := self.table.raw(uid)) is not None and row.offset == IN_FLIGHT
        }
        self._sweep_at = max(_SWEEP_FROM, 2 * len(self.claimed))

    def rollback(self) -> None:
        """Undo the claims of records that never reached the log."""
        for uid, previous in self.claimed.items():
            row = self.table.raw(uid)
            if row is not None and row.offset == IN_FLIGHT:
                self.writer.restore(uid, previous)
        self.claimed.clear()
