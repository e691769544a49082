"""`memtrails add`, `reindex` and the catch-up in `search` in a real terminal (tmux): a
total, a phase, a clock and a time left, from the first second to the last. How far the clock
ticks while it is watched depends on how busy the machine is: benchmarks/progress_clock.py
measures it (its figures are in benchmarks/README.md); it also drives the terminal here."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import benchmark

clock = benchmark("progress_clock")


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_the_bar_shows_total_phase_and_a_time_left(tmp_path: Path) -> None:
    mbox = clock.mbox_file(tmp_path / "list.mbox", 300)
    done = tmp_path / "done"
    session = f"memtrails-test-{os.getpid()}"
    command = (
        f"{clock.memtrails_command()} add {shlex.quote(str(mbox))} "
        f"--home {shlex.quote(str(tmp_path / 'home'))} --threads 1 --batch 32; "
        f"echo $? > {shlex.quote(str(done))}; sleep 60"
    )
    seen, _ = clock.screens(session, command, done, clock.BAR)
    assert {m["total"] for m in seen} == {"300"}  # the messages, counted before reading
    _assert_the_clock_shows(seen)
    assert {"reading", "embedding"} & {m["phase"] for m in seen}
    assert max(int(m["n"]) for m in seen) > min(int(m["n"]) for m in seen)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_reindex_and_the_catch_up_show_counts_phase_and_time_left(tmp_path: Path) -> None:
    mbox = clock.mbox_file(tmp_path / "list.mbox", 300)
    home = tmp_path / "home"
    run = clock.memtrails_command()
    where = f"--home {shlex.quote(str(home))} --threads 1"
    subprocess.run(f"{run} add {shlex.quote(str(mbox))} {where} --quiet", shell=True, check=True)
    for label, args in [
        ("reindexing", "reindex"),
        ("catching up the index", "search 'note 7' --k 1"),  # after a crash, as it were
    ]:
        (home / "index.json").write_text('{"log_offset": 0}')
        done = tmp_path / f"done-{args.split()[0]}"
        command = f"{run} {args} {where}; echo $? > {shlex.quote(str(done))}; sleep 60"
        seen, _ = clock.screens(f"memtrails-{os.getpid()}", command, done, clock.STEP)
        assert {m["label"] for m in seen} == {label}
        assert {m["total"] for m in seen} == {"300"}  # the records to index, known at once
        assert "embedding" in {m["phase"] for m in seen}
        _assert_the_clock_shows(seen)
        assert max(int(m["n"]) for m in seen) > min(int(m["n"]) for m in seen)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_ctrl_c_stops_mcp_on_a_terminal(tmp_path: Path) -> None:
    done = tmp_path / "done"
    session = f"memtrails-mcp-{os.getpid()}"
    tmux = ["tmux", "-L", session]  # a server of its own (see progress_clock.screens)
    command = (
        f"{clock.memtrails_command()} mcp --home {shlex.quote(str(tmp_path / 'h'))}; "
        f"echo $? > {shlex.quote(str(done))}; sleep 60"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "140", "-y", "10", command], check=True
    )
    try:
        screen = ""
        deadline = time.monotonic() + 60
        while "an MCP client starts it" not in screen:  # the hint a terminal gets
            assert time.monotonic() < deadline, screen
            time.sleep(0.3)
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-J", "-t", session], capture_output=True, text=True
            ).stdout
        subprocess.run([*tmux, "send-keys", "-t", session, "C-c"], check=True)
        deadline = time.monotonic() + 20
        while not done.exists():
            assert time.monotonic() < deadline, "Ctrl-C did not stop memtrails mcp"
            time.sleep(0.2)
    finally:
        subprocess.run([*tmux, "kill-session", "-t", session], check=False)
    assert done.read_text().strip() == "130"


def _assert_the_clock_shows(seen: list[re.Match[str]]) -> None:
    """The elapsed time shown never goes back, and a time left is shown as a time once the
    work has a rate (how often they change is measured in benchmarks/progress_clock.py)."""
    elapsed = [clock.seconds_of(m["elapsed"]) for m in seen]
    assert elapsed == sorted(elapsed), elapsed
    assert any(m["left"] != "?" for m in seen), [m["left"] for m in seen]
