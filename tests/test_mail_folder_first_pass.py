"""The first pass over a Maildir or a folder of .eml files (every message's thread headers,
read before any record) is shown by the progress display: ``scanning N%`` of the files as
it goes, then ``reading``, where it said ``starting`` with nothing moving for minutes on a
large Maildir."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Protocol

import pytest

from memtrails.importers import eml, maildir
from memtrails.importers._first_pass import FirstPasses
from memtrails.pipeline.progress import _Progress
from memtrails.records import ImportReport, MemoryRecord

COUNT = 200


def _mail(n: int) -> str:
    reply = f"In-Reply-To: <{n - 1}@example.com>\n" if n % 3 else ""
    return (
        f"From: a@example.com\nSubject: mail {n}\nMessage-ID: <{n}@example.com>\n{reply}\n"
        "words of a mail body line\n"
    )


def _display(source: str, total: int, passes: FirstPasses) -> _Progress:
    """The display ``memtrails add`` shows for a folder: records counted, no bytes."""
    scan = lambda: passes.scanned(source)  # noqa: E731
    return _Progress(source, io.StringIO(), False, total, None, None, scan=scan)


class _Shown(Protocol):
    def phase(self) -> str: ...


def _phases_while_reading_files(
    monkeypatch: pytest.MonkeyPatch, module: object, progress: _Shown
) -> list[str]:
    phases: list[str] = []
    read = module.message_file  # type: ignore[attr-defined]

    def message_file(path: Path) -> bytes | str:
        phases.append(progress.phase())
        return read(path)

    monkeypatch.setattr(module, "message_file", message_file)
    return phases


def _check(phases: list[str], first: object) -> None:
    assert isinstance(first, MemoryRecord)
    planning = phases[:COUNT]  # the first pass: one read of every file
    assert planning[0] == "scanning 0%"
    assert planning[COUNT // 2] == "scanning 50%"
    assert planning[-1] == f"scanning {(COUNT - 1) * 100 // COUNT}%"
    shown = [int(p.split()[1][:-1]) for p in planning]
    assert shown == sorted(shown)  # it moves forward only
    assert phases[COUNT] == "reading"  # the pass is over: the first message is read


def test_a_maildir_first_pass_is_shown_as_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for box in ("cur", "new", "tmp"):
        (tmp_path / box).mkdir()
    for n in range(COUNT):
        (tmp_path / "cur" / f"{n}.M1.host:2,S").write_text(_mail(n))
    passes = FirstPasses()
    progress = _display("box", maildir.message_count(tmp_path), passes)
    assert progress.phase() == "starting"  # nothing begun yet
    phases = _phases_while_reading_files(monkeypatch, maildir, progress)
    with passes.watching():
        items = maildir._read(tmp_path, "box", None, 500)
        _check(phases, next(items))
        rest = list(items)
    assert len([i for i in rest if isinstance(i, MemoryRecord)]) == COUNT - 1
    assert passes.scanned("box") is None  # the import is over: nothing is shown for it any more
    assert progress.phase() == "starting"


def test_a_folder_of_eml_first_pass_is_shown_as_a_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(COUNT):
        (tmp_path / f"{n:04}.eml").write_text(_mail(n))
    passes = FirstPasses()
    progress = _display("saved", eml.eml_count(tmp_path), passes)
    phases = _phases_while_reading_files(monkeypatch, eml, progress)
    listed, unlisted, special = eml._list(tmp_path, "saved")
    with passes.watching():
        items = eml._read_eml("saved", listed, None, unlisted, special=special)
        _check(phases, next(items))
        items.close()  # stopped early: nothing is left shown either
    assert passes.scanned("saved") is None


def test_the_display_of_a_first_pass_over_files() -> None:
    at: list[tuple[int, int] | None] = [None]
    progress = _Progress("box", io.StringIO(), False, 20_000, None, None, scan=lambda: at[0])
    assert progress.phase() == "starting"
    at[0] = (7_400, 20_000)
    assert progress.phase() == "scanning 37%"
    at[0] = (20_000, 20_000)
    assert progress.phase() == "reading"
    progress.update(ImportReport(added=64))
    assert progress.phase() == "reading"  # records counted from here, as before


def test_memtrails_add_shows_a_maildir_first_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from memtrails.cli import _add, main

    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    for n in range(5):
        (box / "cur" / f"{n}.M1.host:2,S").write_text(_mail(n))
    bars: list[_Progress] = []
    real = _add.progress_bar

    def progress_bar(label: str, enabled: bool = True, **kw: object) -> object:
        scan = kw.get("scan")
        assert callable(scan)
        bars.append(_Progress(label, io.StringIO(), False, 5, None, None, scan=scan))
        return real(label, enabled, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(_add, "progress_bar", progress_bar)
    phases = _phases_while_reading_files(monkeypatch, maildir, _Lazy(bars))
    result = CliRunner().invoke(
        main, ["add", str(box), "--home", str(tmp_path / "home")], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert phases == [*(f"scanning {n * 20}%" for n in range(5)), *["reading"] * 5]


class _Lazy:
    """The phase of the bar ``memtrails add`` made last (made once the import begins)."""

    def __init__(self, bars: list[_Progress]) -> None:
        self.bars = bars

    def phase(self) -> str:
        return self.bars[-1].phase()
