"""`memtrails add`, `reindex` and the catch-up in `search` in a real terminal (tmux): a
total, a phase, a ticking clock and a moving time left, from the first second to the last."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BAR = re.compile(
    r"(?P<pct>\d+)%\|.*\| (?P<n>\d+)/(?P<total>\d+) \[(?P<elapsed>[\d:]+)<(?P<left>[\d:?]+), "
    r"(?P<phase>starting|reading|embedding), embedded \d+"
)


def _mbox(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            body = " ".join(f"word{(i * 7 + j) % 97}" for j in range(50))
            f.write(
                f"From u{i}@example.com Mon Apr  1 10:00:00 2024\nFrom: U {i} <u{i}@example.com>\n"
                f"Subject: note {i}\nMessage-ID: <m{i}@example.com>\n"
                f"Date: Mon, 1 Apr 2024 10:00:00 +0000\n\n{body}\n\n"
            )
    return path


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_the_bar_shows_total_phase_and_a_moving_eta(tmp_path: Path) -> None:
    mbox = _mbox(tmp_path / "list.mbox", 300)
    done = tmp_path / "done"
    session = f"memtrails-test-{os.getpid()}"
    command = (
        f"cd {shlex.quote(str(ROOT))} && PYTHONPATH={shlex.quote(str(ROOT))} "
        f"{shlex.quote(sys.executable)} -m memtrails add {shlex.quote(str(mbox))} "
        f"--home {shlex.quote(str(tmp_path / 'home'))} --threads 1 --batch 32; "
        f"echo $? > {shlex.quote(str(done))}; sleep 60"
    )
    seen, seconds = _screens(session, command, done, BAR)
    assert {m["total"] for m in seen} == {"300"}  # the messages, counted before reading
    _assert_the_clock_ticks(seen, seconds, moves=3)
    assert {"reading", "embedding"} & {m["phase"] for m in seen}
    assert max(int(m["n"]) for m in seen) > min(int(m["n"]) for m in seen)


STEP = re.compile(
    r"(?P<label>reindexing|catching up the index): +(?P<pct>\d+)%\|.*\| (?P<n>\d+)/(?P<total>\d+) "
    r"\[(?P<elapsed>[\d:]+)<(?P<left>[\d:?]+), (?P<phase>starting|embedding|indexing)\]"
)


def _screens(
    session: str, command: str, done: Path, bar: re.Pattern[str]
) -> tuple[list[re.Match[str]], int]:
    """Run ``command`` in a tmux terminal until it writes ``done``: the ``bar`` lines it drew,
    and in how many different seconds (counted from the first) a screen showed one."""
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "140", "-y", "10", command], check=True
    )
    seen: list[re.Match[str]] = []
    shown: list[float] = []
    try:
        deadline = time.monotonic() + 300
        while not done.exists():
            assert time.monotonic() < deadline, "the command did not finish"
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            found = [m for line in screen.splitlines() if (m := bar.search(line))]
            if found:
                seen.extend(found)
                shown.append(time.monotonic())
            time.sleep(0.4)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    assert done.read_text().strip() == "0"
    assert seen, "no progress bar was drawn"
    return seen, len({int(t - shown[0]) for t in shown})


def _assert_the_clock_ticks(seen: list[re.Match[str]], seconds: int, *, moves: int) -> None:
    """The elapsed time shown never goes back and follows the seconds the bar was seen on
    screen, whether or not a batch ended, and the time left moves with the work. The bounds
    come from the seconds in which a screen was read, not from the time between the first
    and the last: a busy machine reads fewer screens, and the clock can only be seen to move
    between screens read in different seconds (a repaint may lag a second behind, hence the
    one less). ``_ticking`` itself is tested in test_progress.py."""
    elapsed = [_seconds(m["elapsed"]) for m in seen]
    assert elapsed == sorted(elapsed), elapsed
    assert len(set(elapsed)) >= min(4, seconds - 1), (seconds, elapsed)
    left = [m["left"] for m in seen if m["left"] != "?"]
    assert len(set(left)) >= min(moves, seconds - 2), (seconds, left)


def _seconds(clock: str) -> int:
    seconds = 0
    for part in clock.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_reindex_and_the_catch_up_show_counts_phase_and_time_left(tmp_path: Path) -> None:
    mbox = _mbox(tmp_path / "list.mbox", 300)
    home = tmp_path / "home"
    run = (
        f"cd {shlex.quote(str(ROOT))} && PYTHONPATH={shlex.quote(str(ROOT))} "
        f"{shlex.quote(sys.executable)} -m memtrails"
    )
    where = f"--home {shlex.quote(str(home))} --threads 1"
    subprocess.run(f"{run} add {shlex.quote(str(mbox))} {where} --quiet", shell=True, check=True)
    for label, args in [
        ("reindexing", "reindex"),
        ("catching up the index", "search 'note 7' --k 1"),  # after a crash, as it were
    ]:
        (home / "index.json").write_text('{"log_offset": 0}')
        done = tmp_path / f"done-{args.split()[0]}"
        command = f"{run} {args} {where}; echo $? > {shlex.quote(str(done))}; sleep 60"
        seen, seconds = _screens(f"memtrails-{os.getpid()}", command, done, STEP)
        assert {m["label"] for m in seen} == {label}
        assert {m["total"] for m in seen} == {"300"}  # the records to index, known at once
        assert "embedding" in {m["phase"] for m in seen}
        _assert_the_clock_ticks(seen, seconds, moves=2)
        assert max(int(m["n"]) for m in seen) > min(int(m["n"]) for m in seen)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (scripts/install.sh)"
)
def test_ctrl_c_stops_mcp_on_a_terminal(tmp_path: Path) -> None:
    done = tmp_path / "done"
    session = f"memtrails-mcp-{os.getpid()}"
    command = (
        f"cd {shlex.quote(str(ROOT))} && PYTHONPATH={shlex.quote(str(ROOT))} "
        f"{shlex.quote(sys.executable)} -m memtrails mcp --home {shlex.quote(str(tmp_path / 'h'))}; "
        f"echo $? > {shlex.quote(str(done))}; sleep 60"
    )
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session, "-x", "140", "-y", "10", command], check=True
    )
    try:
        screen = ""
        deadline = time.monotonic() + 60
        while "an MCP client starts it" not in screen:  # the hint a terminal gets
            assert time.monotonic() < deadline, screen
            time.sleep(0.3)
            screen = subprocess.run(
                ["tmux", "capture-pane", "-p", "-J", "-t", session], capture_output=True, text=True
            ).stdout
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        deadline = time.monotonic() + 20
        while not done.exists():
            assert time.monotonic() < deadline, "Ctrl-C did not stop memtrails mcp"
            time.sleep(0.2)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    assert done.read_text().strip() == "130"
