"""A named pipe (FIFO) given to ``memtrails add`` on its own: one nothing writes to is refused,
naming it, instead of waiting for a writer forever; one with a writer is still read."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from memtrails.importers import _fifo
from memtrails.importers._fifo import NO_WRITER, open_fifo
from memtrails.importers._input import open_input
from memtrails.importers.plan import plan_inputs

_LINE = b'{"id": "p1", "text": "otters hold hands"}\n'


@pytest.mark.timeout(60)  # before the fix, the open waited for a writer that never came
def test_a_fifo_nothing_writes_to_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_fifo, "WAIT_S", 0.05)  # no writer is coming: do not wait for one
    fifo = tmp_path / "notes.md"
    os.mkfifo(fifo)
    planned = plan_inputs([str(fifo)])
    assert planned.parts == () and planned.notes == ()
    ((given, why),) = planned.unread
    assert given == str(fifo)
    assert "named pipe (FIFO)" in str(why) and "nothing writes to" in str(why)
    assert NO_WRITER in str(why)


@pytest.mark.parametrize("closed", [False, True], ids=["writer-open", "writer-done"])
def test_a_pipe_with_a_writer_is_read_whole(tmp_path: Path, closed: bool) -> None:
    """``<(zcat a.jsonl.gz)``: a pipe opened through /dev/fd, written to (and its writer
    finished, or still running): the bytes taken to tell it has a writer are not lost."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, _LINE * 3)
        if closed:
            os.close(write_end)
        with open_input(f"/proc/self/fd/{read_end}") as stream:
            if not closed:
                os.close(write_end)
            assert stream.head(8) == _LINE[:8]
            assert stream.file.read() == _LINE * 3
    finally:
        os.close(read_end)
        if not closed:
            with contextlib.suppress(OSError):  # closed above unless an assert failed first
                os.close(write_end)


def test_a_pipe_with_a_writer_that_wrote_nothing_yet_is_read() -> None:
    read_end, write_end = os.pipe()
    try:
        pipe = open_fifo(Path(f"/proc/self/fd/{read_end}"), "piped")
        with pipe:
            os.write(write_end, _LINE)
            os.close(write_end)
            assert pipe.read() == _LINE
    finally:
        os.close(read_end)


@pytest.mark.timeout(120)
def test_a_writer_that_opens_the_fifo_just_after_is_waited_for(tmp_path: Path) -> None:
    """``mkfifo p; producer > p & memtrails add p``: the producer may open the pipe only
    after the import looked; it is waited for, and what it writes is read whole."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    opened = threading.Event()

    def write() -> None:
        opened.wait()  # only once the reader has the pipe open, with no writer yet
        with open(fifo, "wb") as f:
            f.write(_LINE * 2)

    writer = threading.Thread(target=write)
    real_open = os.open

    def open_then_let_the_writer_go(*args: Any, **kwargs: Any) -> int:
        fd = real_open(*args, **kwargs)
        opened.set()
        return fd

    writer.start()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_fifo.os, "open", open_then_let_the_writer_go)
            pipe = open_fifo(fifo, "pipe")
        with pipe:
            assert pipe.read() == _LINE * 2
    finally:
        opened.set()
        spare = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a writer never waits forever
        writer.join()
        os.close(spare)


def test_a_socket_given_alone_is_named(tmp_path: Path) -> None:
    path = tmp_path / "notes.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        planned = plan_inputs([str(path)])
    ((given, why),) = planned.unread
    assert given == str(path) and "a socket, not a file" in str(why)
