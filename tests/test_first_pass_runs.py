"""Each run's progress display sees its own first passes only: two imports in one process
(two ``memtrails add`` in tests, a library user's two imports at once) of sources of the
same name no longer share one process-wide table, where the second run's pass replaced the
first's and, once over, left the first run's display saying ``starting`` mid-pass."""

from __future__ import annotations

import asyncio
import threading
from contextlib import aclosing
from pathlib import Path

import pytest

from memtrails.importers import maildir
from memtrails.importers._first_pass import FirstPasses, first_pass
from memtrails.records import MemoryRecord


def _maildir(root: Path, count: int) -> Path:
    for sub in ("cur", "new", "tmp"):
        (root / sub).mkdir(parents=True)
    for n in range(count):
        mail = f"From: a@example.com\nSubject: {root.name} {n}\nMessage-ID: <{root.name}{n}@x>\n\nbody\n"
        (root / "cur" / f"{n}.M1.host:2,S").write_text(mail)
    return root


def test_two_runs_first_passes_of_one_source_name_do_not_clobber(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one, two = _maildir(tmp_path / "one", 6), _maildir(tmp_path / "two", 3)
    passes = {one: FirstPasses(), two: FirstPasses()}
    one_paused, two_over = threading.Event(), threading.Event()
    seen: dict[Path, list[tuple[object, object]]] = {one: [], two: []}
    read = maildir.message_file

    def message_file(path: Path) -> bytes | str:
        box = path.parent.parent
        if box == one and not seen[one]:
            # Run one's pass is under way: run two reads all of its own meanwhile.
            one_paused.set()
            assert two_over.wait(60), "the second run did not finish"
        elif box == two:
            # Whichever thread the scheduler starts first, run two reads once one's pauses.
            assert one_paused.wait(60), "the first run's pass did not begin"
        seen[box].append((passes[one].scanned("box"), passes[two].scanned("box")))
        return read(path)

    monkeypatch.setattr(maildir, "message_file", message_file)

    async def run(root: Path) -> int:
        with passes[root].watching():  # as memtrails add watches its imports
            async with aclosing(maildir.from_maildir(root, source="box")) as items:
                got = len([i async for i in items if isinstance(i, MemoryRecord)])
        if root == two:
            two_over.set()
        return got

    async def both() -> list[int]:
        return list(await asyncio.gather(run(one), run(two)))

    assert asyncio.run(both()) == [6, 3]
    # Run two's pass, while run one's was paused at its first file: each display shows its
    # own run's pass (3 files for two, 6 for one).
    assert seen[two][:3] == [((0, 6), (n, 3)) for n in range(3)]
    # Run two is over: run one's display still shows its pass, then its reading.
    assert [a for a, _ in seen[one][:6]] == [(n, 6) for n in range(6)]
    assert [a for a, _ in seen[one][6:]] == [(6, 6)] * 6
    assert all(b is None for _, b in seen[one])  # run two's display shows nothing of it
    assert passes[one].scanned("box") is None and passes[two].scanned("box") is None


def test_a_first_pass_outside_any_watching_run_is_shown_nowhere() -> None:
    passes = FirstPasses()
    with first_pass("box", 10) as shown:
        shown.done = 4
        assert passes.scanned("box") is None
    with passes.watching(), first_pass("box", 10) as shown:
        shown.done = 4
        assert passes.scanned("box") == (4, 10)
    assert passes.scanned("box") is None
