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
    # Before: "WARNING:  Invalid HTTP request received." from uvicorn's own formatter
    assert "Invalid HTTP request received.\n" in said.splitlines(keepends=True)
    assert "\x1b" not in said and "\x07" not in said
