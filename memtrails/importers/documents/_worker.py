"""Run document extraction in a child process with a time and a memory limit."""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

__all__ = ["DocumentReader", "Extracted"]

_CHILD = Path(__file__).with_name("_child.py")
_HEADER = 8


@dataclass(frozen=True, slots=True)
class Extracted:
    """A document's text, and its metadata under memtrails' names (format, title, authors,
    created, modified, pages)."""

    text: str
    meta: dict[str, Any] = field(default_factory=dict)


class DocumentReader:
    """Extract documents one at a time in a worker process that cannot hang or balloon its caller.

    The worker starts on the first :meth:`read` and is reused; a document that takes longer
    than ``timeout_s`` gets the worker killed (and a new one next time), and the worker's
    address space is capped at ``memory_bytes``, so a hostile file costs at most that. Use it
    as a context manager, or call :meth:`close`.

    Args:
        timeout_s: seconds one document may take.
        memory_bytes: the worker's address-space limit (0: none).
        max_unpacked: the most bytes a zip container (DOCX, EPUB, ...) may declare unpacked.

    Raises:
        ValueError: an argument is out of range.
    """

    def __init__(
        self,
        *,
        timeout_s: float = 60.0,
        memory_bytes: int = 2 << 30,
        max_unpacked: int = 512 << 20,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"`timeout_s` must be positive, got {timeout_s}")
        if memory_bytes < 0:
            raise ValueError(f"`memory_bytes` must be 0 or more, got {memory_bytes}")
        if max_unpacked < 1:
            raise ValueError(f"`max_unpacked` must be positive, got {max_unpacked}")
        self.timeout_s = timeout_s
        self.memory_bytes = memory_bytes
        self.max_unpacked = max_unpacked
        self._proc: subprocess.Popen[bytes] | None = None
        self._closed = False

    def __enter__(self) -> DocumentReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker (it exits when its input closes; killed if it does not)."""
        self._closed = True
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _close(proc.stdin)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _close(proc.stdout)

    def _start(self) -> subprocess.Popen[bytes]:
        if self._closed:
            raise RuntimeError("the DocumentReader is closed: make a new one")
        if self._proc is None:
            self._proc = subprocess.Popen(
                [sys.executable, str(_CHILD), str(self.memory_bytes)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        return self._proc

    def _kill(self, proc: subprocess.Popen[bytes]) -> int | None:
        proc.kill()
        code = proc.wait()
        _close(proc.stdin)
        _close(proc.stdout)
        self._proc = None
        return code

    def _receive(self, proc: subprocess.Popen[bytes], deadline: float) -> bytes | None:
        """Read one answer, or None when the worker died or ran past the deadline."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        buf = bytearray()
        need = _HEADER
        got_header = False
        while len(buf) < need:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, max(need - len(buf), 1 << 16))
            if not chunk:
                return None
            buf += chunk
            if not got_header and len(buf) >= _HEADER:
                got_header = True
                need = _HEADER + int.from_bytes(buf[:_HEADER], "big")
        return bytes(buf[_HEADER:need])

    def read(self, data: bytes, suffix: str) -> Extracted | str:
        """Extract one document given as bytes and its file name ending (``.pdf``).

        Returns:
            The text and metadata, or a reason it cannot be read (for a RecordError):
            encrypted, corrupt, a zip bomb, a scanned PDF, over the time or memory limit.
        """
        proc = self._start()
        assert proc.stdin is not None
        request = pickle.dumps((suffix, data, self.max_unpacked), protocol=pickle.HIGHEST_PROTOCOL)
        deadline = time.monotonic() + self.timeout_s
        try:
            proc.stdin.write(len(request).to_bytes(_HEADER, "big") + request)
            proc.stdin.flush()
            answer = self._receive(proc, deadline)
        except (BrokenPipeError, OSError):
            answer = None
        if answer is None:
            timed_out = proc.poll() is None and time.monotonic() >= deadline
            code = self._kill(proc)
            if timed_out:
                return f"took longer than {self.timeout_s:g} s to read: stopped (a pathological document?)"
            return self._death(code)
        kind, value = pickle.loads(answer)
        if kind == "ok":
            return Extracted(value["text"], value["meta"])
        return str(value)

    def _death(self, code: int | None) -> str:
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return (
                f"the document reader died ({name}) on this file: it needs more than "
                f"{self.memory_bytes >> 20} MiB or is hostile"
            )
        return f"the document reader exited ({code}) on this file: it needs more than {self.memory_bytes >> 20} MiB or is hostile"


def _close(pipe: IO[bytes] | None) -> None:
    """Close one end of the worker's pipes, even when the worker is gone.

    A request cut short by the worker's death leaves bytes in the input's buffer;
    closing flushes them into a pipe nobody reads, and that BrokenPipeError says
    nothing the caller does not already know (the descriptor is closed all the same).
    """
    if pipe is not None:
        with contextlib.suppress(OSError):
            pipe.close()
