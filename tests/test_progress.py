"""Progress off a terminal, and the counts that give the bar its total."""

from __future__ import annotations

import gzip
import io
import itertools
import subprocess
import sys
import threading
import time
from collections import Counter
from email.parser import BytesParser
from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.add import add_part
from memtrails.cli._totals import commit_total, part_total, record_total
from memtrails.importers.detect import plan
from memtrails.pipeline import progress
from memtrails.records import ImportReport
from memtrails.testing import HashingEmbedder


def test_messages_and_lines_are_counted_from_where_the_last_run_stopped(tmp_path: Path) -> None:
    mbox = tmp_path / "a.mbox"
    one = "From x Mon Apr  1 10:00:00 2024\nSubject: s\n\n>From the start, a body line.\n\n"
    mbox.write_text(one * 5)
    assert record_total("mbox", mbox, None) == 5
    assert record_total("mbox", mbox, {"offset": len(one) * 3}) == 2
    lines = tmp_path / "a.jsonl"
    lines.write_text('{"id": 1, "text": "a"}\n{"id": 2, "text": "b"}\n{"id": 3, "text": "c"}')
    assert record_total("jsonl", lines, None) == 3  # the last line has no newline
    packed = tmp_path / "a.mbox.gz"
    packed.write_bytes(gzip.compress(mbox.read_bytes()))
    assert record_total("mbox", packed, None) is None  # not unpacked to be counted
    assert record_total("files", tmp_path, None) is None


def test_commits_are_counted_by_git(tmp_path: Path) -> None:
    run = ["git", "-C", str(tmp_path), "-c", "user.name=A", "-c", "user.email=a@x"]
    subprocess.run([*run[:3], "init", "-q"], check=True)
    for i in range(3):
        subprocess.run([*run, "commit", "-q", "--allow-empty", "-m", f"c{i}"], check=True)
    assert commit_total(tmp_path, all_branches=False) == 3
    assert commit_total(tmp_path / "nope", all_branches=False) is None


def test_off_a_terminal_progress_is_plain_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    report = ImportReport(added=40, embedded=40)
    with progress.progress_bar("list.mbox", total_records=100) as update:
        update(report)
        time.sleep(0.7)  # the clock draws too, not only a report
    err = capsys.readouterr().err
    assert "list.mbox: 40/100 records, reading, embedded 40" in err
    assert "\r" not in err and "|" not in err  # no bar drawn into a log
    with progress.progress_bar("quiet", enabled=False) as update:
        update(report)
    assert capsys.readouterr().err == ""


def test_steps_off_a_terminal_say_each_phase_its_counts_and_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = itertools.count(0.0, 1.0)  # a second per look: the time left is worked out
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    with progress.steps("reindexing") as say:
        say("rebuilding the table", 0, None)
        say("embedding", 0, 300)
        say("embedding", 100, 300)  # within PLAIN_EVERY of the last line: not printed now
        say("embedding", 200, 300)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("reindexing: rebuilding the table, ")
    assert lines[1].startswith("reindexing: embedding, 0/300 records, ")
    # The end is said, with the time left at the rate of this phase.
    assert lines[-1].startswith("reindexing: embedding, 200/300 records, about ")
    assert "s left" in lines[-1] and "\r" not in "".join(lines)
    with progress.steps("quiet", enabled=False) as say:
        say("embedding", 1, 2)
    with progress.steps("nothing to do"):
        pass
    assert capsys.readouterr().err == ""


async def test_folder_totals_are_what_each_run_yields(tmp_path: Path, corpora: Path) -> None:
    """A folder of .eml, a Maildir and a notes folder (beside an mbox it must not count)
    get a total equal to what the import then reports it saw, first run and re-run."""
    # Distinct mail: a copy kept twice folds into one record (the bar then ends one short).
    ids: dict[str | None, Path] = {}
    for path in sorted((corpora / "eml" / "cpython").rglob("*.eml")):
        ids.setdefault(
            BytesParser().parsebytes(path.read_bytes(), headersonly=True)["message-id"], path
        )
    mail = [p for key, p in ids.items() if key][:12]
    eml = tmp_path / "eml"
    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp", ".Lists/cur"):
        (box / sub).mkdir(parents=True)
    eml.mkdir()
    for n, path in enumerate(mail):
        (eml / f"{n}.eml").write_bytes(path.read_bytes())
        (box / ("new" if n % 3 else ".Lists/cur") / f"{n}.M{n}.host").write_bytes(path.read_bytes())
    notes = tmp_path / "notes"
    (notes / "deep" / "er").mkdir(parents=True)
    (notes / "a.md").write_text("# A\nOne note.")
    (notes / "deep" / "b.txt").write_text("Another.")
    (notes / "deep" / "er" / "c.md").write_text("A third.")
    (notes / "build.log").write_text("ignored")
    (notes / ".gitignore").write_text("*.log\n")
    (notes / "list.mbox").write_bytes(
        (corpora / "mbox" / "mimekit-content-length.mbox").read_bytes()
    )
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        for run in ("first", "re-run"):
            for target in (eml, box, notes):
                for part in plan(target):
                    if part.kind == "mbox":  # counted from its saved offset: see above
                        continue
                    state = memory.source_state(part.source)
                    expected = part_total(part, state)
                    report = await add_part(memory, part)
                    assert expected == report.seen, (run, part.label, part.kind)
                    assert expected is not None and expected > 0
    kinds = {p.kind for t in (eml, box, notes) for p in plan(t)}
    assert {"eml", "maildir", "files", "mbox"} <= kinds


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal, so the overall line is drawn into it."""

    def isatty(self) -> bool:
        return True


def test_several_sources_get_one_overall_line_of_sources_and_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    with progress.overall_bar(3) as finished:
        finished(ImportReport(added=20, unchanged=5))
        finished(ImportReport(added=7))
    drawn = screen.getvalue()
    assert "all sources: 2/3 sources" in drawn and "32 records, added 27" in drawn
    for one in (progress.overall_bar(1), progress.overall_bar(3, enabled=False)):
        screen.truncate(0)
        with one as finished:
            finished(ImportReport(added=1))
        assert screen.getvalue() == ""  # one source, or --json/--quiet: no overall line


def test_a_long_name_gives_way_to_the_bar_on_an_80_column_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    screen = open(follower, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    monkeypatch.setattr(sys, "stderr", screen)
    label = "/home/someone/mail/lists/python/twisted-web-2005-December.mbox"
    try:
        with progress.progress_bar(label, total_records=3000) as on_progress:
            on_progress(ImportReport(added=1230, errors_left_out=Counter(bad=3), embedded=1100))
        screen.flush()
        # A pty hands over what it holds in pieces: read until it has nothing more, or a
        # busy machine shows only the first frame.
        chunks = []
        while select.select([leader], [], [], 0.5)[0]:
            chunks.append(os.read(leader, 1 << 16))
        drawn = b"".join(chunks).decode()
    finally:
        screen.close()
        os.close(follower)
        os.close(leader)
    lines = [line.strip() for line in drawn.replace("\r", "\n").split("\n") if "%|" in line]
    assert lines, drawn
    line = lines[-1]
    assert len(line) <= 80
    assert progress.fit_label(label, 30) == "/home/som\u2026b-2005-December.mbox"
    assert "\u2026" in line and ".mbox: " in line  # the name, shortened, its end kept
    assert len(line.split("|")[1]) >= 10  # the bar keeps its cells
    # the phase and the embedded count stay whole; the skipped count gives way (the summary
    # at the end says it) only where the name would shrink past 12 characters
    assert line.endswith("reading, embedded 1100]")


def test_the_clock_redraws_while_nothing_is_reported_and_stops_with_its_block() -> None:
    """A bar's elapsed time moves on while a long batch runs: its own thread redraws it."""
    drawn = threading.Semaphore(0)
    calls: list[float] = []

    def draw() -> None:
        calls.append(time.monotonic())
        drawn.release()

    before = {t.name for t in threading.enumerate()}
    with progress._ticking(draw, "progress test"):
        # three redraws with no update at all, however slow the machine
        assert all(drawn.acquire(timeout=30) for _ in range(3))
        assert "progress test" in {t.name for t in threading.enumerate()}
    stopped = len(calls)
    time.sleep(progress._TICK * 2)
    assert len(calls) == stopped  # no redraw once the block is left
    assert {t.name for t in threading.enumerate()} == before  # its thread was joined
    assert all(b - a >= progress._TICK * 0.9 for a, b in itertools.pairwise(calls))
