"""`mcp` and `serve` given a folder that holds no memory (a typo'd --home): mcp creates
nothing and says so on stderr (before, it served the empty path without a word); serve
creates the folder, as a service that imports must, and says that it does."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.slow


def test_mcp_on_a_typo_d_folder_says_so_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "memroy"
    done = subprocess.run(
        [sys.executable, "-m", "memtrails", "mcp", "--home", str(typo)],
        stdin=subprocess.DEVNULL,  # the client went away at once: the server ends
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    assert f"no memory folder at {typo} yet" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not typo.exists()


def test_serve_on_a_new_folder_says_it_creates_one(tmp_path: Path) -> None:
    new = tmp_path / "memory"
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtrails", "serve", "--port", "0", "--home", str(new)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=300)
    assert first == f"no memory folder at {new}: creating a new one\n"


def test_mcp_http_on_a_port_in_use_says_so_in_one_line(tmp_path: Path) -> None:
    """Before, it said it was serving, then uvicorn's error twice, and exit code 3."""
    import socket

    from click.testing import CliRunner

    from memtrails.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ["mcp", "--home", str(tmp_path / "m"), "--http", str(port)]
        result = CliRunner().invoke(main, argv)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == (
        f"Error: cannot listen on 127.0.0.1:{port} (Address already in use); "
        "choose another --http port"
    ), result.output
    assert "serving" not in result.output and "Traceback" not in result.output
    assert not (tmp_path / "m").exists()


HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, f"{os.getpid()} memtrails serve\\n".encode())
print("held", flush=True)
sys.stdin.read()
"""


def test_a_second_serve_of_a_folder_names_the_service_that_holds_it(tmp_path: Path) -> None:
    """Before: 'in use by process N (memtrails serve); wait for it to finish', which a
    service never does."""
    import asyncio
    import json

    from click.testing import CliRunner

    from memtrails import Memory
    from memtrails.cli import main
    from memtrails.testing import HashingEmbedder

    home = tmp_path / "m"

    async def build() -> None:
        async with Memory.open(home, embedder=HashingEmbedder()):
            pass

    asyncio.run(build())
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(home / "memory.lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        info = {"pid": holder.pid, "host": "127.0.0.1", "port": 45678}
        (home / "service.json").write_text(json.dumps(info), encoding="utf-8")
        (home / "service.token").write_text("t" * 43, encoding="utf-8")
        result = CliRunner().invoke(main, ["serve", "--home", str(home), "--port", "0"])
    finally:
        holder.kill()
        holder.communicate()
    assert result.exit_code == 1, result.output
    error = result.output.strip().splitlines()[-1]
    assert error.startswith(f"Error: memtrails serve (pid {holder.pid}) already serves "), error
    assert "http://127.0.0.1:45678" in error and f"kill {holder.pid}" in error, error
    assert "Traceback" not in result.output
