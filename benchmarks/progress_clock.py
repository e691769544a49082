"""The progress bar's clock in a real terminal (tmux): how far it ticks while it is watched.

Usage (from the repository root; needs tmux, which scripts/install.sh installs):

    .venv/bin/python benchmarks/progress_clock.py [--messages 300]

Runs ``memtrails add`` on a generated mbox, then ``memtrails reindex`` on the folder it made,
each in a tmux terminal, reading the screen every 0.4 s. For each it prints the seconds in
which a screen showed the bar (counted from the first), how many different elapsed times
and times left those screens showed, and the ratio of elapsed times to seconds: a clock
that ticks every second while its bar is on screen shows one elapsed time a second (a
repaint may lag a second behind). How many a busy machine shows depends on the machine, so
tests/test_progress_tmux.py checks what the bar shows, and the ticking is measured here.
Prints a line per command, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import machine  # the benchmarks folder is not a package: sys.path above

ROOT = Path(__file__).resolve().parents[1]
# The bar of `memtrails add`, and the one of a reindex or a catch-up.
BAR = re.compile(
    r"(?P<pct>\d+)%\|.*\| (?P<n>\d+)/(?P<total>\d+) \[(?P<elapsed>[\d:]+)<(?P<left>[\d:?]+), "
    r"(?P<phase>starting|reading|embedding), embedded \d+"
)
STEP = re.compile(
    r"(?P<label>reindexing|catching up the index): +(?P<pct>\d+)%\|.*\| (?P<n>\d+)/(?P<total>\d+) "
    r"\[(?P<elapsed>[\d:]+)<(?P<left>[\d:?]+), (?P<phase>starting|embedding|indexing)\]"
)


def mbox_file(path: Path, n: int) -> Path:
    """Write an mbox of ``n`` short messages (50 words each) to ``path``; return it."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            body = " ".join(f"word{(i * 7 + j) % 97}" for j in range(50))
            f.write(
                f"From u{i}@example.com Mon Apr  1 10:00:00 2024\nFrom: U {i} <u{i}@example.com>\n"
                f"Subject: note {i}\nMessage-ID: <m{i}@example.com>\n"
                f"Date: Mon, 1 Apr 2024 10:00:00 +0000\n\n{body}\n\n"
            )
    return path


def memtrails_command() -> str:
    """The shell words that run this checkout's memtrails with this interpreter."""
    return (
        f"cd {shlex.quote(str(ROOT))} && PYTHONPATH={shlex.quote(str(ROOT))} "
        f"{shlex.quote(sys.executable)} -m memtrails"
    )


def screens(
    session: str, command: str, done: Path, bar: re.Pattern[str]
) -> tuple[list[re.Match[str]], int]:
    """Run ``command`` in a tmux terminal until it writes ``done``: the ``bar`` lines it drew,
    and in how many different seconds (counted from the first) a screen showed one."""
    # A tmux server of its own (-L): the default one is shared with whatever else runs tmux
    # (another test worker), and it exits when its last session is killed; a session started
    # as it exits fails with "server exited unexpectedly".
    tmux = ["tmux", "-L", session]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "140", "-y", "10", command], check=True
    )
    seen: list[re.Match[str]] = []
    shown: list[float] = []
    try:
        deadline = time.monotonic() + 300
        while not done.exists():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{command} did not finish in 300 s")
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True
            ).stdout
            found = [m for line in screen.splitlines() if (m := bar.search(line))]
            if found:
                seen.extend(found)
                shown.append(time.monotonic())
            time.sleep(0.4)
    finally:
        subprocess.run([*tmux, "kill-session", "-t", session], check=False)
    if done.read_text().strip() != "0":
        raise RuntimeError(f"{command} exited with {done.read_text().strip()}")
    if not seen:
        raise RuntimeError(f"{command} drew no progress bar")
    return seen, len({int(t - shown[0]) for t in shown})


def seconds_of(clock: str) -> int:
    """``1:02:03`` -> 3723."""
    seconds = 0
    for part in clock.split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def clock_figures(seen: list[re.Match[str]], seconds: int) -> dict[str, Any]:
    """How far the bar's clock and time left moved over the seconds it was watched."""
    elapsed = {seconds_of(m["elapsed"]) for m in seen}
    left = {m["left"] for m in seen if m["left"] != "?"}
    return {
        "seconds_seen": seconds,
        "elapsed_shown": len(elapsed),
        "left_shown": len(left),
        "elapsed_per_second": round(len(elapsed) / seconds, 2) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=300, help="messages in the mbox (300)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="memtrails-clock-") as work:
        tmp = Path(work)
        mbox = mbox_file(tmp / "list.mbox", args.messages)
        where = f"--home {shlex.quote(str(tmp / 'home'))} --threads 1"
        for name, args_, bar in [
            ("add", f"add {shlex.quote(str(mbox))} --batch 32", BAR),
            ("reindex", "reindex", STEP),
        ]:
            done = tmp / f"done-{name}"
            command = f"{memtrails_command()} {args_} {where}; echo $? > {done}; sleep 60"
            seen, seconds = screens(f"memtrails-clock-{os.getpid()}", command, done, bar)
            row = {"command": name, **clock_figures(seen, seconds)}
            rows.append(row)
            print(
                f"{name}: bar seen in {seconds} s, {row['elapsed_shown']} elapsed times "
                f"({row['elapsed_per_second']} a second), {row['left_shown']} times left"
            )
    print(json.dumps({"benchmark": "progress_clock", "rows": rows, "machine": machine()}))


if __name__ == "__main__":
    main()
