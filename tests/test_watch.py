"""Watched sources: a mail delivered, a line appended, a note edited, a commit made, found."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from gitrepos import git, linear
from helpers import eventually, until

from memtrails import Memory
from memtrails.service.discovery import find_service
from memtrails.service.jobs import Jobs
from memtrails.service.watch import Watch, Watched, WatchedPath, load_watched

pytestmark = pytest.mark.slow


def _imported_after(job: Any, when: float) -> Callable[[], Awaitable[bool]]:
    """A check that holds once the watch has finished an import later than ``when``."""

    async def check() -> bool:
        return float(job.detail.get("last_import") or 0) > when

    return check


async def _found(memory: Memory, query: str, id: str) -> bool:
    return any(hit.id == id for hit in await memory.search(query, k=5))


def _mail(n: int, subject: str, body: str) -> bytes:
    return (
        f"From: Ann <ann@example.org>\nTo: team@example.org\nSubject: {subject}\n"
        f"Message-ID: <m{n}@example.org>\nDate: Mon, 3 Nov 2025 09:0{n}:00 +0000\n\n{body}\n"
    ).encode()


@pytest.fixture(params=[False, True], ids=["events", "polling"])
def poll(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def test_a_mail_delivered_into_new_is_found(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    box = tmp_path / "Maildir"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.M1.host:2,S").write_bytes(_mail(1, "Lunch", "Pizza on Friday."))
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(Watch(WatchedPath(str(box), poll=poll), debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "pizza on friday", "m1@example.org"))
        # delivered as a mail server does: written into tmp/, then renamed into new/
        (box / "tmp" / "2.M2.host").write_bytes(
            _mail(2, "Backup failed", "The nightly restic backup stopped at the prune step.")
        )
        (box / "tmp" / "2.M2.host").rename(box / "new" / "2.M2.host")
        await until(lambda: _found(memory, "why did the backup stop", "m2@example.org"))
        assert job.state == "running" and job.detail["last_import"] is not None


async def test_a_mail_delivered_into_a_maildirplusplus_folder_is_found(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    """Maildir++ keeps its folders as hidden ones (``.Sent``, ``.Lists.python``): a watch
    of the Maildir follows them, though it passes over other hidden files."""
    box = tmp_path / "Maildir"
    for folder in (box, box / ".Sent"):
        for sub in ("cur", "new", "tmp"):
            (folder / sub).mkdir(parents=True)
    (box / "cur" / "1.M1.host:2,S").write_bytes(_mail(1, "Lunch", "Pizza on Friday."))
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(Watch(WatchedPath(str(box), poll=poll), debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "pizza on friday", "m1@example.org"))
        await until(_imported_after(job, 0))
        sent = box / ".Sent"
        (sent / "tmp" / "2.M2.host").write_bytes(
            _mail(2, "Re: invoice", "I sent the signed invoice to the accountant on Monday.")
        )
        (sent / "tmp" / "2.M2.host").rename(sent / "new" / "2.M2.host")
        await until(lambda: _found(memory, "who got the signed invoice", "m2@example.org"))


async def test_a_line_appended_to_a_growing_file_is_found(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    log = tmp_path / "notes.jsonl"
    log.write_text(json.dumps({"id": "a", "text": "The office moves to Leith in March."}) + "\n")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(Watch(WatchedPath(str(log), poll=poll), debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "where does the office move", "a"))
        line = json.dumps({"id": "b", "text": "The quarterly report is due on the 14th."})
        await until(_imported_after(job, 0))  # the first import has ended
        with log.open("a") as f:  # a writer part-way through its line: waited for, not reported
            f.write(line[:20])
        await until(_imported_after(job, time.time()))
        with log.open("a") as f:
            f.write(line[20:] + "\n")
        await until(lambda: _found(memory, "when is the quarterly report due", "b"))
        assert job.report.errors == [] and job.detail["last_error"] is None


async def test_a_note_edited_and_one_deleted(tmp_path: Path, embedder: Any, poll: bool) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text("# Garden\n\nPlant the tulips in October.\n")
    (notes / "old.md").write_text("# Old\n\nThe wifi password is on the fridge door.\n")
    watched = WatchedPath(str(notes), poll=poll, prune=True)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        jobs.start_live(Watch(watched, debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "when to plant tulips", "garden.md"))
        (notes / "garden.md").write_text("# Garden\n\nPrune the apple tree in February.\n")
        (notes / "old.md").unlink()

        async def edited() -> bool:
            record = await memory.get("garden.md")
            return record is not None and "apple tree" in record.text

        await until(edited)
        await until(lambda: _none(memory, "old.md"))


async def _none(memory: Memory, id: str) -> bool:
    return await memory.get(id) is None


async def test_a_commit_made_is_found(tmp_path: Path, embedder: Any, poll: bool) -> None:
    repo = linear(tmp_path / "repo", 2)
    watched = WatchedPath(str(repo.path), git=True, poll=poll)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(Watch(watched, debounce=0.2, poll_every=0.2))
        await until(lambda: _count(job, 2))
        sha = repo.commit("Retry the upload when the bucket times out", {"up.py": "retry()\n"})
        await until(lambda: _found(memory, "retry the upload on timeout", sha))


async def _count(job: Any, n: int) -> bool:
    return bool(job.report.added >= n)


async def test_the_watched_set_survives_a_restart_without_rereading(
    tmp_path: Path, embedder: Any
) -> None:
    log = tmp_path / "chat.jsonl"
    log.write_text(
        "".join(json.dumps({"id": str(n), "text": f"message {n}"}) + "\n" for n in range(20))
    )
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory, Jobs(memory) as jobs:
        watched = Watched(home, jobs, debounce=0.2)
        job = watched.add(WatchedPath(str(log)))
        await until(lambda: _count(job, 20))
    assert [w.path for w in load_watched(home)] == [str(log)]
    with log.open("a") as f:
        f.write(json.dumps({"id": "new", "text": "the new message"}) + "\n")
    async with Memory.open(home, embedder=embedder) as memory, Jobs(memory) as jobs:
        watched = Watched(home, jobs, debounce=0.2)
        watched.start_all()
        (job,) = jobs.all()
        await until(lambda: _count(job, 1))
        # it went on from where the last run stopped: the 20 earlier lines were not read
        assert job.report.added == 1 and job.report.sources[0].mode == "incremental"
        assert watched.to_json()[0]["state"] == "running"
        assert watched.remove(str(log)) and load_watched(home) == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtrails.cli", *args], capture_output=True, text=True, timeout=120
    )


def _serve(home: Path, *args: str) -> subprocess.Popen[bytes]:
    log = (home.parent / f"serve-{time.monotonic_ns()}.log").open("wb")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memtrails.cli",
            "serve",
            "--home",
            str(home),
            "--port",
            "0",
            "--threads",
            "2",
            *args,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    deadline = time.monotonic() + 120
    while find_service(home) is None:
        assert proc.poll() is None and time.monotonic() < deadline, "the service did not start"
        time.sleep(0.1)
    return proc


def test_serve_watch_follows_a_file_across_a_restart(tmp_path: Path) -> None:
    log = tmp_path / "journal.jsonl"
    log.write_text(json.dumps({"id": "j1", "text": "Booked the ferry to Orkney."}) + "\n")
    home = tmp_path / "memory"
    proc = _serve(home, "--watch", str(log))
    try:
        eventually(
            lambda: (
                '"j1"' in _cli("search", "ferry to Orkney", "--home", str(home), "--json").stdout
            )
        )
        with log.open("a") as f:
            f.write(json.dumps({"id": "j2", "text": "The dentist moved to Thursday."}) + "\n")
        eventually(
            lambda: (
                '"j2"'
                in _cli("search", "when is the dentist", "--home", str(home), "--json").stdout
            )
        )
        listed = json.loads(_cli("watch", "list", "--json", "--home", str(home)).stdout)
        assert [(w["path"], w["state"]) for w in listed] == [(str(log.resolve()), "running")]
        sources = json.loads(_cli("sources", "--json", "--home", str(home)).stdout)["sources"]
        (entry,) = [s for s in sources if s["source"] == str(log.resolve())]
        assert entry["records"] == 2 and entry["watched"]["state"] == "running"
        assert entry["watched"]["last_import"] is not None
    finally:
        proc.terminate()
        assert proc.wait(60) == 0
    # restarted without --watch: the watched set is the folder's, and nothing is read twice
    with log.open("a") as f:
        f.write(json.dumps({"id": "j3", "text": "Return the library books by Monday."}) + "\n")
    proc = _serve(home)
    try:
        eventually(
            lambda: '"j3"' in _cli("search", "library books", "--home", str(home), "--json").stdout
        )
        (row,) = json.loads(_cli("watch", "list", "--json", "--home", str(home)).stdout)
        assert row["added"] == 1
        removed = _cli("watch", "remove", str(log), "--home", str(home))
        assert removed.returncode == 0, removed.stderr
        assert json.loads(_cli("watch", "list", "--json", "--home", str(home)).stdout) == []
    finally:
        proc.terminate()
        assert proc.wait(60) == 0
    refused = _cli("watch", "list", "--home", str(home))
    assert refused.returncode == 1 and "no service holds" in refused.stderr


def _mbox_entry(n: int, subject: str, body: str) -> bytes:
    return f"From ann@example.org Mon Nov  3 09:0{n}:00 2025\n".encode() + _mail(n, subject, body)


async def test_a_message_appended_to_a_growing_mbox_is_found(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    box = tmp_path / "archive.mbox"
    box.write_bytes(_mbox_entry(1, "Lunch", "Pizza on Friday.") + b"\n")
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        job = jobs.start_live(Watch(WatchedPath(str(box), poll=poll), debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "pizza on friday", "m1@example.org"))
        with box.open("ab") as f:  # appended as a mail client or a fetchmail does
            f.write(_mbox_entry(2, "Boiler", "The boiler service is booked for Tuesday.") + b"\n")
        await until(lambda: _found(memory, "when is the boiler serviced", "m2@example.org"))
        await until(lambda: _count(job, 2))  # the report is published after the write
        assert job.report.errors == []


async def test_a_note_moved_is_found_under_its_new_path(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    notes = tmp_path / "notes"
    (notes / "archive").mkdir(parents=True)
    (notes / "visa.md").write_text("# Visa\n\nThe visa appointment is at the consulate at 10.\n")
    watched = WatchedPath(str(notes), poll=poll, prune=True)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        jobs.start_live(Watch(watched, debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "visa appointment", "visa.md"))
        (notes / "visa.md").rename(notes / "archive" / "visa-2025.md")
        await until(lambda: _found(memory, "visa appointment", "archive/visa-2025.md"))
        await until(lambda: _none(memory, "visa.md"))  # pruned: the old path is forgotten


@pytest.mark.parametrize("prune", [False, True], ids=["kept", "pruned"])
async def test_a_rewritten_branch_is_followed(
    tmp_path: Path, embedder: Any, poll: bool, prune: bool
) -> None:
    repo = linear(tmp_path / "repo", 2)
    dropped = repo.commit("Fix the typo in the README", {"README": "typo\n"})
    watched = WatchedPath(str(repo.path), git=True, poll=poll, prune=prune)
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        jobs.start_live(Watch(watched, debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "typo in the readme", dropped))
        # the last commit amended away: the branch is rewritten, not moved forward
        git(repo.path, "reset", "-q", "--hard", "HEAD~1")
        sha = repo.commit("Rotate the signing key before the release", {"key.txt": "new\n"})
        await until(lambda: _found(memory, "rotate the signing key", sha))
        # add_git with prune walks the whole history and forgets what is no longer reachable;
        # without it a dropped commit stays remembered.
        if prune:
            await until(lambda: _none(memory, dropped))
        else:
            assert await memory.get(dropped) is not None


def _slack_export(root: Path, messages: list[tuple[str, str]]) -> None:
    """Write a tiny Slack export: one user, one channel, one day file."""
    (root / "general").mkdir(parents=True)
    (root / "users.json").write_text(json.dumps([{"id": "U1", "name": "ada", "real_name": "Ada"}]))
    (root / "channels.json").write_text(json.dumps([{"id": "C1", "name": "general"}]))
    day = [{"type": "message", "user": "U1", "ts": ts, "text": text} for ts, text in messages]
    (root / "general" / "2024-01-01.json").write_text(json.dumps(day))


async def test_a_slack_export_replaced_wholesale_is_followed(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    export = tmp_path / "slack"
    first = ("1704067200.000001", "The standup moves to 9:30.")
    _slack_export(export, [first])
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory, Jobs(memory) as jobs:
        jobs.start_live(Watch(WatchedPath(str(export), poll=poll), debounce=0.2, poll_every=0.2))
        await until(lambda: _found(memory, "when is the standup", "general/1704067200.000001"))
        for n, text in enumerate(["The offsite is in Porto.", "Expenses are due Friday."], 2):
            # a newer export unzipped beside the old one, then swapped in for it
            messages = [first, (f"1704067200.00000{n}", text)]
            _slack_export(tmp_path / "slack.new", messages)
            export.rename(tmp_path / "slack.old")
            (tmp_path / "slack.new").rename(export)
            shutil.rmtree(tmp_path / "slack.old")
            await until(partial(_found, memory, text, f"general/1704067200.00000{n}"))


async def test_a_watched_path_that_disappears_is_reported_and_followed_again(
    tmp_path: Path, embedder: Any, poll: bool
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "ferry.md").write_text("# Ferry\n\nThe ferry to Orkney leaves at 7.\n")
    home = tmp_path / "m"
    async with Memory.open(home, embedder=embedder) as memory, Jobs(memory) as jobs:
        watched = Watched(home, jobs, debounce=0.2)
        job = watched.add(WatchedPath(str(notes), poll=poll))
        await until(lambda: _found(memory, "ferry to orkney", "ferry.md"))
        shutil.rmtree(notes)

        async def reported() -> bool:
            return "is gone" in str(job.detail.get("last_error"))

        await until(reported)
        (row,) = watched.to_json()
        assert (row["state"], row["exists"]) == ("running", False)
        notes.mkdir()  # back, with a new note: imported again
        (notes / "boiler.md").write_text("# Boiler\n\nThe boiler is serviced on Tuesday.\n")
        await until(lambda: _found(memory, "when is the boiler serviced", "boiler.md"))
        assert watched.to_json()[0]["exists"] is True
