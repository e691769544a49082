"""`memtrails add -` says it reads standard input when that is a terminal, and only then."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HINT = "reading standard input"


def _add_stdin(home: Path, stdin: int, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memtrails", "add", "-", "--home", str(home), "--name", "typed"],
        stdin=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_add_dash_on_a_terminal_says_how_to_end_the_input(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        os.write(leader, b'{"id": "t1", "text": "a typed note"}\n\x04')  # then Ctrl-D
        done = _add_stdin(tmp_path / "home", follower, timeout=30)
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    assert HINT in done.stderr and "Ctrl-D" in done.stderr
    assert "added 1," in done.stdout


def test_ctrl_c_while_typing_ends_add_dash_and_says_nothing_was_added(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    home = tmp_path / "home"
    try:
        os.write(leader, b'{"id": "t1", "text": "half typed"}\n')  # no Ctrl-D yet
        proc = subprocess.Popen(
            [sys.executable, "-m", "memtrails", "add", "-", "--home", str(home)],
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert proc.stderr is not None
        assert HINT in proc.stderr.readline()  # waiting for the rest of the input
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        os.close(follower)
        os.close(leader)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "nothing was added" in err
    assert "Traceback" not in err
    assert not home.exists()  # nothing was read to its end, so no folder was made


def test_add_dash_from_a_pipe_gives_no_hint(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.write(write, b'{"id": "n1", "text": "a note piped in"}\n')
    os.close(write)
    try:
        done = _add_stdin(tmp_path / "home", read)
    finally:
        os.close(read)
    assert done.returncode == 0, done.stderr
    assert HINT not in done.stderr
    assert "added 1," in done.stdout
