"""A Slack export's progress total: what the import then reports it saw, run after run."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.add import add_part
from memtrails.cli._totals import part_count, part_total
from memtrails.importers.detect import plan
from memtrails.limits import Limits
from memtrails.pipeline import progress
from memtrails.records import ImportReport
from memtrails.testing import HashingEmbedder


def _day(path: Path, messages: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(messages), encoding="utf-8")


def _msg(ts: str, text: str, **extra: object) -> dict[str, object]:
    return {"type": "message", "user": "U0BMQB6JE", "ts": ts, "text": text, **extra}


@pytest.fixture
def mixed(corpora: Path, tmp_path: Path) -> Path:
    """A folder of notes holding a real export (grown with notices, edits, broken files) and
    another real export zipped."""
    root = tmp_path / "team"
    export = root / "slack"
    shutil.copytree(corpora / "slack" / "hfaran-testarchive", export)
    _day(
        export / "general" / "2016-04-01.json",
        [
            _msg("1459500000.000001", "joined", subtype="channel_join"),  # dropped silently
            _msg("1459500000.000002", "the launch moved to May"),
            {
                "subtype": "message_changed",
                "ts": "1459500000.000003",
                "message": _msg("1459500000.000002", "the launch moved to June"),
            },
            {"subtype": "message_changed", "message": {"subtype": "tombstone", "ts": "1.0"}},
            "not a message",  # an error in its place
            {"type": "message", "text": "a message without a ts"},  # an error too
        ],
    )
    _day(export / "general" / "2016-04-02.json", [_msg("1459600000.000001", "day two")])
    (export / "broken").mkdir()
    (export / "broken" / "2016-04-01.json").write_text("[{not json", encoding="utf-8")
    (root / "plans.md").write_text("# Plans\nShip the importer.\n", encoding="utf-8")
    zulip = corpora / "slack" / "zulip-test_slack_importer"
    with zipfile.ZipFile(root / "zulip.zip", "w") as archive:
        for path in sorted(zulip.rglob("*.json")):
            archive.write(path, path.relative_to(zulip).as_posix())
    return root


async def test_slack_totals_are_what_each_run_yields(mixed: Path, tmp_path: Path) -> None:
    """First run, a re-run that skips the unchanged day files, and a run after the export
    grew (a message in a channel's last day, a day file before another's last one)."""
    export = mixed / "slack"
    unread: list[int] = []
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        for run in ("first", "re-run", "grown"):
            if run == "grown":
                last = export / "general" / "2016-04-02.json"
                _day(last, [*json.loads(last.read_text()), _msg("1459600000.000002", "more")])
                _day(export / "enrique" / "2016-01-20.json", [_msg("1453300000.000001", "late")])
            parts = plan(mixed)
            assert sorted(p.kind for p in parts) == ["files", "slack", "slack"]
            for part in parts:
                state = memory.source_state(part.source)
                counted = part_count(part, state)
                report = await add_part(memory, part)
                assert counted is not None, (run, part.label)
                assert counted[0] == report.seen == part_total(part, state), (run, part.label)
                # What the count says is skipped unread is counted unchanged, not read.
                assert counted[1] <= report.unchanged, (run, part.label)
                if part.label == str(export):
                    unread.append(counted[1])
                    # The broken day file (each run: it is its channel's last), and the first
                    # run's two bad messages (the edited one is read once, as edited).
                    assert report.skipped == (3 if run == "first" else 1), run
                    if run == "grown":
                        assert report.added == 2, report  # "more" and "late"
    first, again, grown = unread
    # Re-runs skip all but each channel's last day file; "enrique" is read in full once a
    # day file appeared before its last one.
    assert first == 0 and again > grown > 0


def test_a_slack_export_that_cannot_be_read_has_no_total(tmp_path: Path) -> None:
    (tmp_path / "general").mkdir()
    (tmp_path / "general" / "2016-04-01.json").write_text("[]")
    (tmp_path / "users.json").write_text("[]")
    (part,) = plan(tmp_path)
    assert part.kind == "slack" and part_count(part, None) == (0, 0)
    shutil.rmtree(tmp_path)
    assert part_count(part, None) is None  # the import says what is wrong


def test_records_counted_unread_start_the_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The import adds a skipped day file's records to its report only at its end: the bar
    counts them from its start, so it ends at its total."""
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    with progress.progress_bar("export", total_records=10, unread=7) as update:
        update(ImportReport(unchanged=2, added=1, embedded=1))
    assert "export: 10/10 records, embedding, embedded 1" in capsys.readouterr().err


async def test_a_slack_total_counts_what_the_imports_limits_let_it_read(
    corpora: Path, tmp_path: Path
) -> None:
    # Day files over --max-file-bytes are one error each in the import, not their messages.
    export = tmp_path / "slack"
    shutil.copytree(corpora / "slack" / "hfaran-testarchive", export)
    limits = Limits(max_file_bytes=13_000)
    (part,) = plan(export)
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        report = await add_part(memory, part, limits=limits)
    assert report.skipped >= 3  # the three day files over 13,000 bytes, at least
    assert part_total(part, None, limits) == report.seen
    assert part_total(part, None) != report.seen  # what the count said before
