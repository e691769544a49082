"""One process at a time per memory folder: an flock on ``memory.lock`` naming its holder."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from .._exceptions import MemoryLockedError
from .next_in_line import Claim, claimed

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "KEEPS_OPEN",
    "LENDER",
    "LENDER_WAIT",
    "READER",
    "SERVING_IMPORT",
    "FolderLock",
    "acquire_lock",
    "describe",
    "holding_as",
    "is_lender",
    "keeps_open",
    "lender",
]

READER = "reader"
"""The role of a short holder (one request of ``memtrails mcp``): others wait for it."""

SERVING_IMPORT = "import serving reads"
"""The role of an import that answers other processes' reads while it runs (``memtrails
add``: ``service.during_import``). :func:`acquire_lock` gives up on it at once, whatever the
wait: its ``service.json`` is what to wait for, and its opener looks for it."""

LENDER = "holder that serves reads while it imports"
"""The role of a holder whose imports answer reads, between them (``service.during_import``):
a script's ``Memory.open``, from its open on, and any import once its server has stopped,
until its process lets go. The lock says ``LENDER: its command`` (:func:`lender`). Readers
that come within :data:`LENDER_WAIT` s of its last change of role wait for the folder or its
next import's service; past that it is idle (an agent that keeps the memory open to read),
and they are refused at once, told :data:`KEEPS_OPEN`, its command and what to do."""

LENDER_WAIT = 10.0
"""Seconds a :data:`LENDER` is waited for after it became one (opened, or its import ended)."""

KEEPS_OPEN = "keeps it open"
"""What an opener is told of a holder that keeps the folder open and is not importing: an
idle :data:`LENDER`, or a reader whose import's service ended and that reads the folder
itself (``service.client.handed_over``). Nobody waits for it: it may never let go."""


def _kept_open_hint(folder: Path) -> str:
    return (
        "it answers other processes' reads only while it imports: close the memory there or "
        "stop it (or wait for it to end), then try again. To share a memory with a program "
        f"that keeps it open, start `memtrails serve --home {folder}` before it: the "
        "program's Memory.open and the memtrails commands then all go through that service"
    )


def describe(argv: list[str]) -> str:
    """A command as readers are told it: ``memtrails add ~/mail ...`` for the CLI, ``python
    sync.py --full`` for a script; a secret in it (a password in a database URL) is
    scrubbed, and a long one cut."""
    argv = argv or [""]
    program = Path(argv[0]).name
    package = Path(__file__).resolve().parents[1]
    if program == "memtrails" or Path(argv[0]).resolve().is_relative_to(package):
        head = ["memtrails"]  # the CLI, or `python -m memtrails`
    elif program.endswith(".py") or program in ("-c", "-m", ""):
        head = ["python", program or "-c"]
    else:
        head = [program]  # an entry point of its own (pytest, a tool's script)
    from ..secrets import scrub_text  # a DSN's password in a script's arguments stays home

    text = " ".join(scrub_text(" ".join([*head, *argv[1:]]))[0].split())
    return text if len(text) <= 160 else text[:157] + "..."


def _holder_command(pid: int | None) -> str:
    """The command of process ``pid`` (Linux's /proc), as :func:`describe` says it."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes() if pid else b""
    except OSError:
        return ""
    args = [a.decode("utf-8", "replace") for a in raw.split(b"\0") if a]
    if args and "python" in Path(args[0]).name:
        args = args[1:]  # the interpreter: sys.argv starts after it
    if args[:1] == ["-c"]:
        args = ["-c", *args[2:]]  # its code is not in its sys.argv either
    return describe(args) if args else ""


def lender(command: str) -> str:
    """The lock's role of a :data:`LENDER` that runs ``command``."""
    return f"{LENDER}: {command}" if command else LENDER


def is_lender(role: str | None) -> bool:
    """Whether ``role`` is a :data:`LENDER`'s (with or without its command)."""
    return bool(role) and (role == LENDER or str(role).startswith(LENDER + ": "))


def keeps_open(command: str) -> str:
    """The lock's role of a holder that keeps the folder open running ``command``."""
    return f"{KEEPS_OPEN}: {command}" if command else KEEPS_OPEN


def _kept_open(role: str | None) -> bool:
    return bool(role) and (role == KEEPS_OPEN or str(role).startswith(KEEPS_OPEN + ": "))


_ROLE: ContextVar[str] = ContextVar("memtrails_lock_role", default="")

_POLL = 0.05


class FolderLock:
    """An exclusive, non-blocking lock on ``folder/memory.lock``, released on close or exit.

    The kernel drops an flock when its holder dies, so a crashed import never leaves a
    folder locked; the pid and role written inside are only there to name the holder.
    """

    def __init__(self, folder: Path, role: str = "") -> None:
        self.path = folder / "memory.lock"
        self._fd: int | None = None
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid, held_as = _read_holder(fd)
            held_as = _as_seen(fd, held_as)
            os.close(fd)
            if held_as == KEEPS_OPEN:
                held_as = keeps_open(_holder_command(pid))
            hint = _kept_open_hint(folder) if _kept_open(held_as) else None
            raise MemoryLockedError(folder, pid, held_as, hint=hint) from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        self.name(role)

    def name(self, role: str) -> None:
        """Write this process's pid and ``role`` into the lock file (what others are told)."""
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        line = f"{os.getpid()} {' '.join(role.split())}".rstrip().encode() + b"\n"
        os.pwrite(self._fd, line, 0)

    def release(self) -> None:
        """Release the lock; safe to call twice."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


async def acquire_lock(
    folder: Path, *, role: str = "", wait: float = 30.0, wait_writer: float = 0.0
) -> FolderLock:
    """Take the folder's lock, waiting a bounded time for the holder to let go.

    Args:
        folder: the memory folder.
        role: what this holder does, written beside its pid (:data:`READER` for a short one;
            by default the role :func:`holding_as` set, else none).
        wait: seconds to keep trying while the holder is a :data:`READER`.
        wait_writer: seconds to keep trying while the holder is anything else (an import),
            but a :data:`SERVING_IMPORT` or one that :data:`KEEPS_OPEN`, which fail at once.

    Raises:
        MemoryLockedError: the folder was still held when the wait ran out.
    """
    import asyncio  # here: `memtrails status` takes the lock without an event loop

    role = role or _ROLE.get()
    start = time.monotonic()
    # A short reader lets a writer that waits go first (next_in_line), for as long as it
    # would wait itself; a writer that waits says so.
    defer_until = start + max(wait, wait_writer) if role == READER else start
    claim: Claim | None = None
    try:
        while True:
            if time.monotonic() < defer_until and await asyncio.to_thread(claimed, folder):
                await asyncio.sleep(_POLL)
                continue
            attempt = asyncio.ensure_future(asyncio.to_thread(FolderLock, folder, role))
            try:
                return await asyncio.shield(attempt)
            except asyncio.CancelledError:
                # The thread cannot be stopped: release what it takes, or this process
                # would hold the folder until it exits (a cancelled MCP request, a timeout).
                attempt.add_done_callback(_release_orphan)
                raise
            except MemoryLockedError as exc:
                patience = wait if exc.role == READER else wait_writer
                if exc.role == SERVING_IMPORT or _kept_open(exc.role):
                    raise  # its opener waits for its service instead (service.during_import),
                    # or it may never let go
                if exc.pid is None:
                    # An empty lock file: its holder is taking or releasing the lock this
                    # very moment; the next try sees who it is (or finds the folder free).
                    patience = max(wait, wait_writer)
                if time.monotonic() - start + _POLL > patience:
                    raise
                if role != READER:
                    claim = claim or Claim(folder)
                    await asyncio.to_thread(claim.stake)
            await asyncio.sleep(_POLL)
    finally:
        if claim is not None:
            claim.drop()


@contextlib.contextmanager
def holding_as(role: str) -> Iterator[None]:
    """Within this block (of this task), an opener that names no role of its own takes the
    lock as ``role`` (``memtrails add`` opens as :data:`SERVING_IMPORT`)."""
    token = _ROLE.set(role)
    try:
        yield
    finally:
        _ROLE.reset(token)


def _release_orphan(attempt: asyncio.Future[FolderLock]) -> None:
    if not attempt.cancelled() and attempt.exception() is None:
        attempt.result().release()


def _as_seen(fd: int, role: str | None) -> str | None:
    """A :data:`LENDER` idle for :data:`LENDER_WAIT` s is seen as one that :data:`KEEPS_OPEN`
    (the lock file changes when its holder's role does, so its age is the role's)."""
    if not is_lender(role):
        return role
    try:
        idle = time.time() - os.fstat(fd).st_mtime
    except OSError:
        return role
    assert role is not None
    return KEEPS_OPEN + role[len(LENDER) :] if idle >= LENDER_WAIT else role


def _read_holder(fd: int) -> tuple[int | None, str | None]:
    try:
        text = os.pread(fd, 256, 0).decode("utf-8", "replace").strip()
    except OSError:
        return None, None
    pid, _, role = text.partition(" ")
    try:
        return (int(pid) if pid else None), (role or None)
    except ValueError:
        return None, None
