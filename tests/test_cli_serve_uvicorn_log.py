"""`memtrails serve`: what uvicorn logs (a bad request, an application's traceback, which may
quote a request) goes through the escaping handler the command's own warnings use, not
uvicorn's handler, which prints it as it is."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

pytestmark = pytest.mark.slow


def test_uvicorn_s_warnings_print_through_the_escaping_handler(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtrails", "serve", "--port", "0", "--home", str(tmp_path / "m")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        assert proc.stdout is not None
        found = None
        while found is None:
            line = proc.stdout.readline().decode()
            assert line, "serve ended before saying where it listens"
            found = re.search(r"http://127\.0\.0\.1:(\d+) \(API", line)
        with socket.create_connection(("127.0.0.1", int(found.group(1))), timeout=60) as conn:
            conn.sendall(b"GET /\x1b]0;owned\x07 \x1b[2J\r\n\r\n")  # no HTTP request at all
            assert conn.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=300)
    said = err.decode()
    # uvicorn's level prefix, as its own formatter writes it, through the escaping handler
    assert "WARNING:  Invalid HTTP request received.\n" in said.splitlines(keepends=True)
    assert "\x1b" not in said and "\x07" not in said


def test_mcp_http_prints_uvicorn_s_warnings_through_it_too(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a free port; the server binds it right after
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [sys.executable, "-m", "memtrails", "mcp", "--home", str(tmp_path / "h")]
    said = tmp_path / "stderr"
    with said.open("w") as stderr:
        server = subprocess.Popen([*argv, "--http", str(port)], stderr=stderr, env=ENV)
    try:
        for _ in range(600):  # until something listens
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert server.poll() is None, said.read_text()
            time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=60) as conn:
            conn.sendall(b"GET /\x1b]0;owned\x07 \x1b[2J\r\n\r\n")
            assert conn.recv(100).startswith(b"HTTP/1.1 400")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=120)
    lines = said.read_text().splitlines(keepends=True)
    assert "WARNING:  Invalid HTTP request received.\n" in lines  # the level kept
