"""`memtrails add`'s report of a source read part-way points at an error only when one exists."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtrails.cli._add import _print_report
from memtrails.records import ImportReport, RecordError, SourceReport


def test_a_source_stopped_part_way_without_an_error_does_not_point_at_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A custom importer that reports complete=False and raises nothing (its own choice).
    report = ImportReport(added=3, sources=[SourceReport("todo", read=3, complete=False)])
    _print_report(report, quiet=False, home=tmp_path)
    out = capsys.readouterr().out
    assert "todo: stopped part-way" in out and "the error below" not in out
    assert "gave no error" in out


def test_a_source_stopped_by_an_error_points_at_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = ImportReport(sources=[SourceReport("a.mbox", read=2, complete=False)])
    report.add_error(RecordError("a.mbox", "byte 900", "cannot read further: cut short"))
    _print_report(report, quiet=False, home=tmp_path)
    captured = capsys.readouterr()
    assert "a.mbox: stopped part-way (the error below says where)" in captured.out
    assert "cannot read further" in captured.err
