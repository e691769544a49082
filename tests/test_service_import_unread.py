"""An import through the service (``POST /v1/imports``, and ``memtrails add`` while a service
holds the folder) given several paths, some it cannot read: each of those is one error in
the import's report, naming the path and why, and the others are imported, as a local
``memtrails add`` does."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gitrepos import Repo

from memtrails import Memory
from memtrails._exceptions import SourceError
from memtrails.service.discovery import find_service
from memtrails.service.imports import ImportRequest, plan_import
from memtrails.service.jobs import Jobs


def _inputs(root: Path) -> dict[str, Path]:
    """One readable input, and one of each kind of path an import cannot read."""
    root.mkdir(parents=True, exist_ok=True)
    good = root / "good.jsonl"
    good.write_text('{"id": "g", "text": "the harbour crane"}\n', encoding="utf-8")
    photos = root / "photos.gz"  # binary inside gzip: of no kind memtrails reads
    photos.write_bytes(gzip.compress(bytes(range(256)) * 64))
    fifo = root / "a-pipe"
    os.mkfifo(fifo)
    loop = root / "loop"
    loop.symlink_to(loop)
    return {
        "good": good,
        "missing": root / "missing.mbox",
        "photos": photos,
        "fifo": fifo,
        "loop": loop,
    }


async def _imported(memory: Memory, request: ImportRequest) -> dict[str, Any]:
    async with Jobs(memory) as jobs:
        what, sources, runner = await plan_import(memory, request)
        job = jobs.start("import", what, sources, runner)
        await jobs.wait(job, timeout=120)
        answer = job.to_json()
    assert answer["state"] == "done", answer
    return answer


async def test_each_unreadable_path_is_its_error_and_the_others_are_imported(
    tmp_path: Path, embedder: Any
) -> None:
    paths = _inputs(tmp_path / "in")
    home = tmp_path / "home"
    async with Memory.open(home, embedder=embedder) as memory:
        (home / "notes.md").write_text("# in the memory folder\n", encoding="utf-8")
        given = [*map(str, paths.values()), str(home / "notes.md")]
        answer = await _imported(memory, ImportRequest(paths=given))
        found = await memory.get("g")
    report = answer["report"]
    reasons = {e["where"]: e["reason"] for e in report["errors"]}
    assert (report["added"], report["skipped"]) == (1, 5), report
    assert set(reasons) == set(given) - {str(paths["good"])}
    assert "no such file" in reasons[str(paths["missing"])]
    assert "not a kind memtrails reads" in reasons[str(paths["photos"])]
    assert "a pipe" in reasons[str(paths["fifo"])]
    assert "loop" in reasons[str(paths["loop"])]
    assert "memory folder" in reasons[str(home / "notes.md")]
    assert found is not None and found.text == "the harbour crane"
    # each error's source is the path as a read would have named it
    errors = {e["where"]: e["source"] for e in report["errors"]}
    assert errors[str(paths["photos"])] == str(paths["photos"].resolve())


async def test_a_path_given_twice_or_by_two_names_is_read_once(
    tmp_path: Path, embedder: Any
) -> None:
    paths = _inputs(tmp_path / "in")
    other = tmp_path / "other-name.jsonl"
    other.symlink_to(paths["good"])
    given = [str(paths["good"]), str(other), str(paths["good"]), str(paths["missing"])]
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        answer = await _imported(memory, ImportRequest(paths=given))
    report = answer["report"]
    assert (report["added"], report["skipped"]) == (1, 1)
    assert len(report["sources"]) == 1


async def test_an_archive_given_with_the_folder_holding_it_is_read_once(
    tmp_path: Path, embedder: Any
) -> None:
    # The folder's plan reads the mbox as a part of its own (its own source): it was read
    # twice, listed twice among the sources, and its message counted once more as unchanged.
    folder = tmp_path / "mail"
    folder.mkdir()
    mbox = folder / "list.mbox"
    mbox.write_text(
        "From a@example.com Tue Apr  1 12:21:37 2003\nFrom: a@example.com\nSubject: tides\n"
        "Message-ID: <tides@example.com>\n\nthe tides table\n\n",
        encoding="utf-8",
    )
    (folder / "note.md").write_text("# Note\n\nthe regatta\n", encoding="utf-8")
    request = ImportRequest(paths=[str(folder), str(mbox)])
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        answer = await _imported(memory, request)
    report = answer["report"]
    read = [s["source"] for s in report["sources"]]
    assert sorted(read) == sorted({str(folder), str(mbox)}), read
    assert (report["added"], report["unchanged"], report["skipped"]) == (2, 0, 0)


async def test_when_no_path_can_be_read_the_request_fails_naming_each(
    tmp_path: Path, embedder: Any
) -> None:
    paths = _inputs(tmp_path / "in")
    bad = [str(paths[k]) for k in ("missing", "photos", "fifo", "loop")]
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        with pytest.raises(Exception) as caught:
            await plan_import(memory, ImportRequest(paths=bad))
    said = str(caught.value)
    assert "(and 3 more: " in said and "\n" not in said
    for name in ("missing.mbox", "photos.gz", "a-pipe", "loop"):
        assert name in said


async def test_a_repository_deleted_before_its_turn_is_its_error(
    tmp_path: Path, embedder: Any
) -> None:
    # Checked when the import was asked for, gone when the job came to it: the whole job
    # failed ("no such folder") and the report of what it had read was lost.
    paths = _inputs(tmp_path / "in")
    repo = Repo(tmp_path / "repo")
    repo.commit("first", {"f.txt": "1"})
    request = ImportRequest(paths=[str(paths["good"])], git=[str(repo.path)])
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory, Jobs(memory) as jobs:
        what, sources, runner = await plan_import(memory, request)
        shutil.rmtree(repo.path)
        job = jobs.start("import", what, sources, runner)
        await jobs.wait(job, timeout=120)
        answer = job.to_json()
    assert answer["state"] == "done", answer
    report = answer["report"]
    assert (report["added"], report["skipped"]) == (1, 1)
    (error,) = report["errors"]
    assert error["where"] == str(repo.path) and error["reason"] == "no such folder"
    assert error["source"] == f"git:{repo.path.resolve()}"


# -- through a running service and `memtrails add` ----------------------------------------

_MEMTRAILS = [sys.executable, "-m", "memtrails.cli"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, httpx.Client]]:
    home = tmp_path / "memory"
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [*_MEMTRAILS, "serve", "--home", str(home), "--port", "0", "--threads", "1"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    try:
        deadline = time.monotonic() + 120
        while (info := find_service(home)) is None:
            assert proc.poll() is None and time.monotonic() < deadline, "not started"
            time.sleep(0.1)
        headers = {"Authorization": f"Bearer {info.token}"}
        with httpx.Client(base_url=info.url, headers=headers, timeout=60) as http:
            yield home, http
    finally:
        proc.terminate()
        assert proc.wait(60) == 0
    assert "Traceback" not in (tmp_path / "serve.log").read_text()


@pytest.mark.slow
def test_add_through_the_service_reports_each_unreadable_input(
    served: tuple[Path, httpx.Client], tmp_path: Path
) -> None:
    home, http = served
    paths = _inputs(tmp_path / "in")
    # (a file of no kind, such as photos.gz, is read here as a lone note would be)
    args = [str(paths[k]) for k in ("good", "missing", "loop")]
    done = subprocess.run(
        [*_MEMTRAILS, "add", *args, "--home", str(home), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert (report["added"], report["skipped"]) == (1, 2), report
    assert {e["where"] for e in report["errors"]} == {args[1], args[2]}
    # it ran as the service's import
    (job,) = http.get("/v1/imports").json()["imports"]
    assert job["state"] == "done" and job["report"]["skipped"] == 2
    summary = subprocess.run(
        [*_MEMTRAILS, "add", *args, "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert summary.returncode == 0, summary.stderr
    assert summary.stdout.startswith("added 0, updated 0, unchanged 1, skipped 2, ")
    assert f"({args[1]}): no such file or folder" in summary.stderr
    # none readable: the command fails, naming each
    failed = subprocess.run(
        [*_MEMTRAILS, "add", args[1], args[2], "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert failed.returncode == 1
    assert "missing.mbox" in failed.stderr and "loop" in failed.stderr


@pytest.mark.slow
def test_add_of_a_pipe_while_a_service_runs_reads_it_here(
    served: tuple[Path, httpx.Client], tmp_path: Path
) -> None:
    # `memtrails add <(zcat list.jsonl.gz) more.jsonl` names /dev/fd/63, a pipe: the service
    # refused it ("a pipe or a device"), and counting its records here waited for a writer.
    home, _ = served
    paths = _inputs(tmp_path / "in")
    line = b'{"id": "p", "text": "the ferry timetable"}\n'

    def feed() -> None:
        with open(paths["fifo"], "wb") as pipe:
            pipe.write(line)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    done = subprocess.run(
        [*_MEMTRAILS, "add", str(paths["fifo"]), str(paths["good"]), "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    writer.join(5)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("added 2, updated 0, unchanged 0, skipped 0, "), done.stdout
    found = subprocess.run(
        [*_MEMTRAILS, "search", "ferry timetable", "--home", str(home), "--json", "--k", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(found.stdout)[0]["id"] == "p"


async def test_a_git_path_that_is_no_repository_is_its_error(tmp_path: Path, embedder: Any) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text('{"id": "n", "text": "the harbour crane"}\n', encoding="utf-8")
    plain = tmp_path / "plain"
    plain.mkdir()
    request = ImportRequest(paths=[str(notes)], git=[str(plain)])
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        answer = await _imported(memory, request)
        report = answer["report"]
        (error,) = report["errors"]
        assert error["source"] == f"git:{plain}" and error["where"] == str(plain)
        assert "not a git repository" in error["reason"]
        assert (report["added"], report["skipped"]) == (1, 1)
        with pytest.raises(SourceError, match="not a git repository"):  # nothing else: refused
            await plan_import(memory, ImportRequest(paths=[], git=[str(plain)]))


async def test_a_lone_text_file_is_one_note_as_memtrails_add_reads_it(
    tmp_path: Path, embedder: Any
) -> None:
    note = tmp_path / "plan.md"
    note.write_text("# Harbour plan\n\nThe crane moves to pier 4 in May.\n", encoding="utf-8")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(bytes(range(256)) * 8)  # of no kind, and no text: still an error
    request = ImportRequest(paths=[str(note), str(blob)])
    async with Memory.open(tmp_path / "home", embedder=embedder) as memory:
        report = (await _imported(memory, request))["report"]
        assert (report["added"], report["skipped"]) == (1, 1)
        assert [e["where"] for e in report["errors"]] == [str(blob)]
        record = await memory.get("plan.md", source=str(note))
        assert record is not None and record.title == "Harbour plan"
