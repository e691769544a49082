"""An import's own bookkeeping stays exact past the size where it turns compact."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memtrails.folder.log import RecordLog
from memtrails.folder.run import ImportRun
from memtrails.folder.table import Table
from memtrails.folder.uids import UidSet
from memtrails.folder.writer import Writer
from memtrails.keys import record_uid
from memtrails.testing import MemoryIndex

FP1, FP2 = ("a" * 64, "b" * 64)


def _writer(folder: Path, table: Table) -> Writer:
    """A writer over an empty log and an in-memory index: the run's claims go through it."""
    return Writer(folder, RecordLog(folder / "records.jsonl"), table, MemoryIndex(), 0)


def test_uid_set_is_exact_past_the_spill_size() -> None:
    rng = random.Random(7)
    members = [f"{rng.getrandbits(128):032x}" for _ in range(5000)]
    # Uids that differ from a member in one bit of either half, and ones sharing the whole
    # high half: a set keyed by a prefix or a hash would take them for members.
    near = [f"{int(u, 16) ^ (1 << rng.randrange(128)):032x}" for u in members[:500]]
    twins = [u[:16] + f"{rng.getrandbits(64):016x}" for u in members[:500]]
    uids = UidSet(spill=64)
    assert all(uids.add(u) for u in members)
    assert not any(uids.add(u) for u in members[::7])  # already there
    assert len(uids) == len(members)
    assert uids.nbytes >= 16 * (len(members) - 64)  # most of them left the Python set
    assert all(u in uids for u in members)
    assert not any(u in uids for u in near + twins)
    assert all(uids.add(u) for u in twins)  # same high half, still told apart
    assert all(u in uids for u in members + twins)
    assert len(uids) == len(members) + len(twins)


def test_uid_set_keeps_uids_of_other_shapes_as_written() -> None:
    uids = UidSet(spill=2)
    lower = "ab" * 16
    for uid in (lower, "x", "0x" + "1" * 30, " " + "1" * 31):
        assert uids.add(uid)
    # int(..., 16) would read these as the same numbers as members: they are not members.
    assert lower.upper() not in uids and "1" * 32 not in uids and "0" * 32 not in uids
    assert lower in uids and "x" in uids and 5 not in uids
    with pytest.raises(ValueError):
        UidSet(spill=0)


def test_a_run_keeps_the_first_of_each_uid_past_the_spill_size(tmp_path: Path) -> None:
    table = Table()
    run = ImportRun(_writer(tmp_path, table), passed=UidSet(spill=16))
    uids = [record_uid("s", str(i)) for i in range(300)]
    assert [run.claim(u, FP1, "s") for u in uids] == ["new"] * 300
    # Each again in the same run, with another fingerprint: a later copy, not a change.
    assert {run.claim(u, FP2, "s") for u in uids} == {"duplicate"}


def test_pruning_past_the_spill_size_removes_exactly_the_unseen(tmp_path: Path) -> None:
    table = Table()
    uids = [record_uid("s", str(i)) for i in range(500)]
    for i, uid in enumerate(uids):
        table.set(uid, FP1, i, "s")
    run = ImportRun(_writer(tmp_path, table), prune=True, seen=UidSet(spill=16))
    kept = uids[::3]
    for uid in kept:
        run.saw("s", uid)
    assert sorted(run.gone()) == sorted(set(uids) - set(kept))


@pytest.mark.slow
def test_claims_of_written_records_are_dropped_and_rollback_still_undoes_the_rest(
    tmp_path: Path,
) -> None:
    table = Table()
    old = [record_uid("s", f"old{i}") for i in range(10)]
    for i, uid in enumerate(old):
        table.set(uid, FP1, i, "s")
    run = ImportRun(_writer(tmp_path, table))
    new = [record_uid("s", str(i)) for i in range(20_000)]
    for i, uid in enumerate(new):
        assert run.claim(uid, FP1, "s") == "new"
        table.set(uid, FP1, 100 + i, "s")  # written, as the writer does batch by batch
    assert len(run.claimed) < 4096  # not one entry per record of the run
    changed = [run.claim(uid, FP2, "s") for uid in old]  # claimed, never written
    assert changed == ["changed"] * 10
    run.rollback()
    assert all(table.get(uid) == (FP1, i, "s") for i, uid in enumerate(old))
    assert all(table.get(uid) is not None for uid in new)
