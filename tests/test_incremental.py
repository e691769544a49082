"""Cron re-runs through a real Memory: notes folders, Git repositories, Slack exports."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from gitrepos import Repo, git, linear
from helpers import spy_reads, write_json

from memtrails import Memory
from memtrails.add import add_git, add_path, source_name
from memtrails.importers.files import _walk as files_walk
from memtrails.importers.files import from_files
from memtrails.importers.slack import from_slack_export
from memtrails.records import ImportReport

OLD_NS = 1_600_000_000_000_000_000  # an mtime well past the racy window


def notes(root: Path, n: int) -> Path:
    """A folder of ``n`` short notes, each with an old mtime (so their stat is trusted)."""
    root.mkdir(parents=True, exist_ok=True)
    for k in range(n):
        path = root / f"note-{k}.md"
        path.write_text(f"# Note {k}\n\nThe {k}th thing to remember about the harbour.\n")
        os.utime(path, ns=(OLD_NS + k, OLD_NS + k))
    return root


def spy_file_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    real = files_walk._read_bytes

    def reading(path: Path, limit: int) -> bytes:
        reads.append(path.name)
        return real(path, limit)

    monkeypatch.setattr(files_walk, "_read_bytes", reading)
    return reads


def counts(report: ImportReport) -> tuple[int, int, int, int]:
    return report.added, report.updated, report.unchanged, report.embedded


def modes(report: ImportReport) -> list[tuple[str, str | None]]:
    return [(s.mode, s.why) for s in report.sources]


async def import_notes(memory: Memory, folder: Path, **kwargs: Any) -> ImportReport:
    state = memory.source_state(source_name(folder))
    return await memory.ingest(from_files(folder, state=state), **kwargs)


# -- a notes folder -----------------------------------------------------------------------


async def test_notes_rerun_reads_and_embeds_only_what_changed(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = notes(tmp_path / "notes", 6)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await import_notes(memory, folder)
        assert counts(first) == (6, 0, 0, 6)
        assert modes(first) == [("full", None)]

        reads = spy_file_reads(monkeypatch)
        second = await import_notes(memory, folder)
        assert reads == []  # nothing read: every file proven unchanged by its stat
        assert counts(second) == (0, 0, 6, 0)
        assert modes(second) == [("incremental", None)]

        os.utime(folder / "note-1.md", ns=(OLD_NS - 5, OLD_NS - 5))  # touched, not edited
        (folder / "note-2.md").write_text("# Note 2\n\nThe harbour moved to the east pier.\n")
        os.utime(folder / "note-2.md", ns=(OLD_NS - 9, OLD_NS - 9))
        reads.clear()
        third = await import_notes(memory, folder)
        assert sorted(reads) == ["note-1.md", "note-2.md"]
        assert counts(third) == (0, 1, 5, 1)
        record = await memory.get("note-2.md", source=source_name(folder))
        assert record is not None and "east pier" in record.text


@pytest.mark.slow
async def test_deleted_note_and_prune_remove_exactly_its_record(
    tmp_path: Path, embedder: Any
) -> None:
    folder = notes(tmp_path / "notes", 5)
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "keep", "text": "a note from another source"}\n')
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await add_path(memory, folder, kind="files")
        await add_path(memory, other)
        (folder / "note-3.md").unlink()
        pruned = await add_path(memory, folder, kind="files", prune=True)
        assert (pruned.removed, pruned.added, pruned.embedded) == (1, 0, 0)
        status = await memory.status()
        assert status.sources == {source_name(folder): 4, source_name(other): 1}
        assert await memory.get("note-3.md", source=source_name(folder)) is None
        assert await memory.get("note-4.md", source=source_name(folder)) is not None


async def test_incremental_notes_run_may_prune(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files importer walks the whole tree even with a state, so its run is complete."""
    folder = notes(tmp_path / "notes", 5)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        await import_notes(memory, folder)
        (folder / "note-0.md").unlink()
        # A file that cannot be read keeps its record: its error names it.
        os.utime(folder / "note-4.md", ns=(OLD_NS - 1, OLD_NS - 1))
        real = files_walk._read_bytes

        def refuse(path: Path, limit: int) -> bytes:
            if path.name == "note-4.md":
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, limit)

        monkeypatch.setattr(files_walk, "_read_bytes", refuse)
        report = await import_notes(memory, folder, prune=True)
        assert report.removed == 1 and report.embedded == 0
        assert [e.where for e in report.errors] == ["note-4.md"]
        assert modes(report) == [("incremental", None)]
        assert (await memory.status()).sources == {source_name(folder): 4}


@pytest.mark.slow
async def test_killed_notes_import_resumes_where_it_stopped(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = notes(tmp_path / "notes", 8)

    def stop_after_two_batches(report: ImportReport) -> None:
        if report.added >= 4:
            raise KeyboardInterrupt  # what a kill looks like to the import

    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        source = source_name(folder)
        with pytest.raises(KeyboardInterrupt):
            await memory.ingest(
                from_files(folder, checkpoint_every=2),
                batch=2,
                idle=None,
                on_progress=stop_after_two_batches,
            )
        saved = memory.source_state(source)
        assert saved is not None and len(saved["files"]) == 4
        reads = spy_file_reads(monkeypatch)
        resumed = await import_notes(memory, folder)
        # What the first run finished is proven by its position, not read again.
        assert sorted(reads) == [f"note-{k}.md" for k in range(4, 8)]
        assert counts(resumed) == (4, 0, 4, 4)
        assert (await memory.status()).records == 8
        end = memory.source_state(source)
    async with Memory.open(tmp_path / "m2", embedder=embedder) as fresh:
        await import_notes(fresh, folder)
        assert fresh.source_state(source) == end  # the same state as an uninterrupted run


# -- a Git repository ---------------------------------------------------------------------


async def test_git_rerun_embeds_only_new_commits(tmp_path: Path, embedder: Any) -> None:
    repo = linear(tmp_path / "r", 5)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await add_git(memory, repo.path)
        assert counts(first) == (5, 0, 0, 5)
        for k in range(3):
            repo.commit(f"new work {k}", {"new.txt": f"{k}\n"})
        second = await add_git(memory, repo.path)
        # the 5 commits of the first run are left out of the walk and counted unchanged
        assert counts(second) == (3, 0, 5, 3)
        assert [(s.mode, s.read, s.why) for s in second.sources] == [("incremental", 3, None)]
        third = await add_git(memory, repo.path)
        assert counts(third) == (0, 0, 8, 0)
        assert [(s.mode, s.read) for s in third.sources] == [("incremental", 0)]

        old_head = repo.rev_list("HEAD")[0]
        repo.clock += 1
        git(repo.path, "commit", "-q", "--amend", "-m", "new work 2, reworded", i=repo.clock)
        rewritten = await add_git(memory, repo.path)
        # A full walk: the amended commit is new, the seven others are unchanged.
        assert counts(rewritten) == (1, 0, 7, 1)
        ((mode, why),) = modes(rewritten)
        assert mode == "full" and why is not None
        assert why.startswith(f"HEAD: {old_head[:12]} is no longer in its history")
        # Pruning after the rewrite forgets the commit that left the history.
        pruned = await add_git(memory, repo.path, prune=True)
        assert (pruned.removed, pruned.embedded) == (1, 0)
        assert (await memory.status()).records == 8


async def test_git_all_branches_rerun(tmp_path: Path, embedder: Any) -> None:
    repo = Repo(tmp_path / "r")
    repo.commit("start", {"a.txt": "a\n"})
    git(repo.path, "checkout", "-q", "-b", "side")
    repo.commit("side work", {"s.txt": "s\n"})
    git(repo.path, "checkout", "-q", "main")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        assert (await add_git(memory, repo.path, all_branches=True)).added == 2
        repo.commit("main work", {"m.txt": "m\n"})
        again = await add_git(memory, repo.path, all_branches=True)
        assert counts(again) == (1, 0, 2, 1)
        assert modes(again) == [("incremental", None)]


# -- a Slack export -----------------------------------------------------------------------


def day(ts0: int, texts: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "message", "user": "U1", "ts": f"{ts0 + k}.000001", "text": text}
        for k, text in enumerate(texts)
    ]


async def import_slack(memory: Memory, export: Path) -> ImportReport:
    state = memory.source_state(source_name(export))
    return await memory.ingest(from_slack_export(export, state=state))


@pytest.mark.slow
async def test_slack_rerun_reads_new_days_and_reports_how(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = tmp_path / "export"
    write_json(export / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(export / "channels.json", [{"id": "C1", "name": "ops"}])
    write_json(
        export / "ops" / "2024-03-01.json", day(1709251200, ["boiler serviced", "pump noisy"])
    )
    write_json(export / "ops" / "2024-03-02.json", day(1709337600, ["pump replaced"]))
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await import_slack(memory, export)
        assert counts(first) == (3, 0, 0, 3)
        assert modes(first) == [("full", None)]

        write_json(
            export / "ops" / "2024-03-03.json", day(1709424000, ["valve stuck", "valve freed"])
        )
        reads = spy_reads(monkeypatch)
        second = await import_slack(memory, export)
        assert [m for m in reads if "/" in m] == ["ops/2024-03-02.json", "ops/2024-03-03.json"]
        # The new day's two messages; the re-read last day is unchanged, and so are the two
        # messages of the skipped first day, counted without being read.
        assert counts(second) == (2, 0, 3, 2)
        assert [(s.mode, s.read, s.why) for s in second.sources] == [("incremental", 3, None)]

        write_json(export / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada King"}])
        renamed = await import_slack(memory, export)
        assert counts(renamed) == (0, 5, 0, 5)  # every author changed
        assert modes(renamed) == [
            ("full", "users.json changed since the last run (the names in every record may differ)")
        ]


@pytest.mark.slow
async def test_real_slack_export_second_run_embeds_nothing(
    corpora: Path, tmp_path: Path, embedder: Any
) -> None:
    export = corpora / "slack" / "hfaran-testarchive"
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        first = await import_slack(memory, export)
        assert first.added == 147
        second = await import_slack(memory, export)
        # Only each channel's last day is read again, and it comes out exactly as before
        # (bots named in skipped days keep their names).
        assert (second.added, second.updated, second.embedded) == (0, 0, 0)
        assert second.unchanged == 147  # read again or vouched for by the skipped days
        assert 0 < second.sources[0].read < 147
        assert modes(second) == [("incremental", None)]


@pytest.mark.slow
async def test_killed_slack_import_resumes_after_the_last_finished_channel(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = tmp_path / "export"
    write_json(export / "users.json", [{"id": "U1", "name": "ada", "real_name": "Ada Lovelace"}])
    write_json(export / "alpha" / "2024-03-01.json", day(1709251200, ["a1", "a2"]))
    write_json(export / "alpha" / "2024-03-02.json", day(1709337600, ["a3"]))
    write_json(export / "beta" / "2024-03-01.json", day(1709251300, ["b1", "b2"]))
    write_json(export / "beta" / "2024-03-02.json", day(1709337700, ["b3"]))

    def stop_after_alpha(report: ImportReport) -> None:
        if report.added >= 4:
            raise KeyboardInterrupt  # what a kill looks like to the import

    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:
        source = source_name(export)
        with pytest.raises(KeyboardInterrupt):
            await memory.ingest(
                from_slack_export(export), batch=2, idle=None, on_progress=stop_after_alpha
            )
        saved = memory.source_state(source)
        assert saved is not None and list(saved["channels"]) == ["alpha"]
        written = (await memory.status()).records  # alpha's 3, and maybe some of beta's
        assert 4 <= written < 6
        reads = spy_reads(monkeypatch)
        resumed = await import_slack(memory, export)
        # alpha's finished days are not read again; beta is read from its start.
        assert [m for m in reads if "/" in m] == [
            "alpha/2024-03-02.json",
            "beta/2024-03-01.json",
            "beta/2024-03-02.json",
        ]
        # Only what the killed run had not written is embedded.
        assert (resumed.added, resumed.embedded) == (6 - written, 6 - written)
        assert (await memory.status()).records == 6
        end = memory.source_state(source)
    async with Memory.open(tmp_path / "m2", embedder=embedder) as fresh:
        await import_slack(fresh, export)
        assert fresh.source_state(source) == end  # the same state as an uninterrupted run
