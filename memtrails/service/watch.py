"""Watched sources: the service follows a path as it grows and imports what changed.

A watched path is imported as ``memtrails add`` imports it (incremental, the same
importers), once when watching starts (what arrived while the service was down) and again
after each burst of file events, debounced. Events come from the OS through ``watchfiles``
(inotify, FSEvents, ...); on file systems without them (NFS, SMB, sshfs and other FUSE
mounts, 9p) and when the OS's watcher cannot start, the same code polls. The watched set is
kept in the folder (``watched.json``, 0600) so a restarted service watches again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..memory import Memory
from ..records import ImportReport
from ._poll import poll_changes
from .jobs import Job, Jobs

__all__ = [
    "WATCHED_FILE",
    "Watch",
    "Watched",
    "WatchedPath",
    "load_watched",
    "refusal",
    "save_watched",
]

WATCHED_FILE = "watched.json"
_log = logging.getLogger("memtrails.service")
_SETTLE = 0.2  # seconds for the watcher to start before the first look
_NO_EVENTS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "fuse.sshfs", "fuse.rclone", "afs")


@dataclass(frozen=True, slots=True)
class WatchedPath:
    """One watched path and how to follow it.

    Args:
        path: the file or folder (resolved), or a Git repository with ``git``.
        git: import the repository's history (new commits, rewritten branches).
        poll: poll instead of waiting for the OS's events (None: poll only where the file
            system sends none).
        prune: forget what vanished from the path (a deleted note, a deleted mail).
    """

    path: str
    git: bool = False
    poll: bool | None = None
    prune: bool = False


def load_watched(home: Path) -> list[WatchedPath]:
    """Return the watched set kept in the folder (empty when there is none or it is unreadable)."""
    try:
        data = json.loads((home / WATCHED_FILE).read_text(encoding="utf-8"))
        return [WatchedPath(**row) for row in data["watched"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def save_watched(home: Path, watched: list[WatchedPath]) -> None:
    """Write the watched set into the folder (owner-only, replaced whole)."""
    path = home / WATCHED_FILE
    tmp = path.with_name(f".{WATCHED_FILE}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({"watched": [asdict(w) for w in watched]}, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def refusal(path: Path, home: Path | None) -> str | None:
    """Return why ``path`` cannot be watched, or None (blocking: a ``stat``).

    The memory folder, or anything in it, would import the service's own writes, which
    change it again: a loop that grows the log without end. A pipe or a device is no file
    that grows: opening a FIFO waits for a writer (and the service's stop with it), and
    /dev/null "changes" at every write anyone makes to it.
    """
    if home is not None and _inside(path, home):
        return _in_home(path)
    if _kind(path) == "other":
        return (
            f"{path} is a pipe or a device, not a file or folder: watch the file or folder "
            "it is written to, or send what it holds through the ingest endpoint"
        )
    return None


def _in_home(path: Path) -> str:
    return (
        f"{path} is the memory folder or inside it: the service writes there, so watching "
        "it would import its own writes again and again; watch the files and folders its "
        "records come from"
    )


def _inside(path: Path, home: Path) -> bool:
    resolved, folder = path.resolve(), home.resolve()
    return resolved == folder or folder in resolved.parents


def _kind(path: Path) -> str | None:
    """Return ``file``, ``folder``, ``other`` (a pipe, a device, a socket) or None (nothing)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return "file"
    return "folder" if stat.S_ISDIR(mode) else "other"


def _identity(path: Path) -> tuple[int, int] | None:
    """Return the device and inode at ``path`` (None when nothing is there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _fs_type(path: Path) -> str | None:
    """Return the file system type of the mount holding ``path`` (Linux), or None."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    best, kind = "", None
    target = str(path)
    for line in mounts:
        parts = line.split()
        if len(parts) < 3 or len(parts[1]) < len(best):
            continue
        if target == parts[1] or target.startswith(parts[1].rstrip("/") + "/"):
            best, kind = parts[1], parts[2]
    return kind


def needs_polling(path: Path) -> bool:
    """Tell whether ``path`` is on a file system that sends no change events."""
    kind = _fs_type(path)
    return kind is not None and (kind in _NO_EVENTS or kind.startswith("fuse."))


class Watch:
    """A :class:`~memtrails.service.jobs.LiveSource`: imports a path now, then on every change.

    Args:
        watched: what to watch.
        debounce: the longest a burst of changes is grouped before importing (a burst
            ends at the first quiet moment: 50 ms without an event, or a poll that finds
            nothing new; a mail client writes a message in several steps).
        poll_every: seconds between two looks when polling.
        home: the memory folder, never watched as a source of itself.
    """

    def __init__(
        self,
        watched: WatchedPath,
        *,
        debounce: float = 1.0,
        poll_every: float = 1.0,
        home: Path | None = None,
    ) -> None:
        self.watched = watched
        self.path = Path(watched.path)
        self.name = ("git " if watched.git else "watch ") + watched.path
        self.sources: tuple[str, ...] = (self._source(),)
        self.debounce = debounce
        self.poll_every = poll_every
        self.home = home
        self.total = ImportReport()

    def _source(self) -> str:
        if self.watched.git:
            from ..importers.git import git_source

            return git_source(self.path)
        from ..importers._shared import default_source

        return default_source(self.path)

    async def run(self, memory: Memory, job: Job) -> ImportReport:
        """Import what is there, then what changes, until cancelled (the service stopping).

        The watcher starts before the first look, so nothing written in between is missed;
        a path that goes away is reported in the job and watched for until it is back. A
        folder replaced by another of the same name (a Slack export unzipped beside the old
        one and renamed over it) is a new folder to the OS: the watcher, which followed the
        old one, starts again on the new one.
        """
        if self.home is not None and _inside(self.path, self.home):
            # Kept from an older watched set, or given to `serve --watch`: never followed.
            raise ValueError(_in_home(self.path))
        while True:
            kind = await self._until_readable(job)
            root = self._roots()[0]
            followed = _identity(root)
            changed, ready = asyncio.Event(), asyncio.Event()
            async with asyncio.TaskGroup() as group:
                listener = group.create_task(self._listen(changed, ready))
                await ready.wait()
                await self._import(memory, job, "started")
                # Looked at every poll interval too: a folder removed or replaced may send
                # no event the old watcher sees, and a file that became a folder (or the
                # reverse) needs another watcher and filter: the old ones see none of it.
                while _kind(self.path) == kind and _identity(root) == followed:
                    try:
                        # Not wait_for: in Python 3.11 it can swallow a stop that comes as
                        # a change does (pipeline/_pump.next_queued says more).
                        async with asyncio.timeout(self.poll_every):
                            await changed.wait()
                    except TimeoutError:
                        continue
                    changed.clear()
                    await self._import(memory, job, "changed")
                listener.cancel()

    async def _until_readable(self, job: Job) -> str:
        """Wait until the path is a file or a folder; return which.

        Nothing there, or a pipe or device there, is reported in the job and looked at
        again every poll interval: a FIFO is never opened (that waits for a writer, and the
        service's stop would wait with it).
        """
        said: str | None = None
        while True:
            kind = _kind(self.path)
            if kind is not None and kind != "other":
                return kind
            why = (
                f"{self.path} is gone; waiting for it"
                if kind is None
                else f"{self.path} is a pipe or a device, not a file or folder; waiting for "
                "a file or folder there"
            )
            if why != said:
                job.progress(self.total, last_error=why)
                said = why
            await asyncio.sleep(self.poll_every)

    async def _listen(self, changed: asyncio.Event, ready: asyncio.Event) -> None:
        async with aclosing(self._changes(ready)) as changes:
            async for _ in changes:
                changed.set()

    async def _import(self, memory: Memory, job: Job, why: str) -> None:
        from ..add import add_git, add_path

        job.detail["last_event"] = time.time()

        def on_progress(report: ImportReport) -> None:
            # A long import (a log that grew by 100,000 lines while the service was down)
            # shows its records as its batches land, not only once it has read them all;
            # the job's report stays the total of the imports that finished.
            job.progress(self.total, importing=report.added + report.updated)

        try:
            if self.watched.git:
                report = await add_git(
                    memory, self.path, prune=self.watched.prune, on_progress=on_progress
                )
            else:
                # following: a line part-way written when the change was seen is read
                # whole after the next one, not reported as truncated.
                report = await add_path(
                    memory,
                    self.path,
                    prune=self.watched.prune,
                    following=True,
                    on_progress=on_progress,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the watch goes on: the next change may be readable
            _log.debug("watched %s: import failed", self.path, exc_info=True)
            job.progress(
                self.total, importing=None, last_error=f"{why}: {exc}", last_import=time.time()
            )
            return
        self.total.merge(report)
        # One line per source, its latest read: a watch runs for months, one import a
        # change, and the total's list of reads would grow with every one of them.
        latest = {read.source: read for read in self.total.sources}
        self.total.sources[:] = latest.values()
        job.progress(
            self.total,
            importing=None,
            last_import=time.time(),
            last_error=(str(report.errors[-1]) if report.errors else None),
            last_added=report.added + report.updated,
        )

    def _changes(self, ready: asyncio.Event) -> AsyncGenerator[set[str], None]:
        poll = self.watched.poll
        if poll is None:
            poll = needs_polling(self.path)
        wanted = self._wanted()

        def polled() -> AsyncGenerator[set[str], None]:
            return poll_changes(
                self._poll_targets(),
                wanted,
                every=self.poll_every,
                debounce=self.debounce,
                ready=ready,
            )

        if poll:
            return polled()
        # A file is followed through its folder, whose subfolders are none of its business:
        # a recursive watch of ~ for ~/mail.mbox would take one OS watch per folder in it.
        recursive = self.watched.git or not self.path.is_file()
        return _events(self._roots(), wanted, self.debounce, ready, polled, recursive)

    def _roots(self) -> list[Path]:
        """Return what the OS's watcher watches (a file's folder: editors replace files)."""
        if self.watched.git:
            return [self._git_dir()]
        return [self.path.parent if self.path.is_file() else self.path]

    def _git_dir(self) -> Path:
        from ..importers.git._repo import locate

        return Path(locate(self.path).common_dir)

    def _poll_targets(self) -> list[str]:
        """Return what a poll looks at: the file itself, the folder, or a repository's refs."""
        if self.watched.git:
            common = self._git_dir()
            return [str(common / name) for name in ("HEAD", "packed-refs", "refs")]
        return [str(self.path)]

    def _wanted(self) -> Callable[[str], bool]:
        home = str(self.home.resolve()) + os.sep if self.home is not None else None
        if self.watched.git:
            return lambda p: "/refs/" in p or p.endswith(("HEAD", "packed-refs"))
        if self.path.is_file():
            target = str(self.path)
            return lambda p: p == target
        root = str(self.path)

        def wanted(p: str) -> bool:
            if home is not None and (p + os.sep).startswith(home):
                return False
            rel = p[len(root) :].lstrip(os.sep)
            return not any(part.startswith(".") for part in rel.split(os.sep))

        return wanted


async def _events(
    roots: list[Path],
    wanted: Callable[[str], bool],
    debounce: float,
    ready: asyncio.Event,
    fallback: Callable[[], AsyncGenerator[set[str], None]],
    recursive: bool = True,
) -> AsyncGenerator[set[str], None]:
    """Yield the changed paths (those ``wanted``) after each debounced burst of OS events.

    When the OS's watcher cannot start (a limit on inotify watches, say), the paths from
    ``fallback`` (a poll) are yielded instead. ``recursive``: watch the roots' subfolders too.
    """
    import watchfiles

    stop = asyncio.Event()

    def keep(change: Any, path: str) -> bool:
        return wanted(path)

    # watchfiles starts its watcher on the first iteration and does not say when it is up.
    settle = asyncio.get_running_loop().call_later(_SETTLE, ready.set)
    try:
        async for changes in watchfiles.awatch(
            *roots,
            watch_filter=keep,
            debounce=int(debounce * 1000),
            step=50,
            stop_event=stop,
            rust_timeout=500,  # how soon a cancellation is seen
            recursive=recursive,
        ):
            yield {path for _, path in changes}
    except (OSError, RuntimeError) as exc:
        _log.warning("watching %s: %s; polling instead", roots[0], exc)
        settle.cancel()
        async with aclosing(fallback()) as polled:
            async for changed in polled:
                yield changed
    finally:
        settle.cancel()
        stop.set()


class Watched:
    """The service's watched set: kept in the folder, each path followed by a live job."""

    def __init__(self, home: Path, jobs: Jobs, *, debounce: float = 1.0) -> None:
        self.home = home
        self.jobs = jobs
        self.debounce = debounce
        self.paths: dict[str, WatchedPath] = {w.path: w for w in load_watched(home)}
        self.running: dict[str, Job] = {}

    def add(self, watched: WatchedPath) -> Job:
        """Watch a path (kept in the folder) and start following it; return its job.

        Raises:
            ValueError: the path is the memory folder or inside it, or a pipe or a device.
        """
        why = refusal(Path(watched.path), self.home)
        if why is not None:
            raise ValueError(why)
        self.paths[watched.path] = watched
        save_watched(self.home, list(self.paths.values()))
        return self._start(watched)

    def remove(self, path: str) -> bool:
        """Stop watching ``path`` and forget it from the watched set; return whether it was."""
        watched = self.paths.pop(path, None)
        if watched is None:
            return False
        save_watched(self.home, list(self.paths.values()))
        job = self.running.pop(path, None)
        if job is not None:
            self.jobs.cancel(job)
        return True

    def start_all(self) -> None:
        """Follow every path of the watched set (the service starting)."""
        for watched in self.paths.values():
            self._start(watched)

    def _start(self, watched: WatchedPath) -> Job:
        old = self.running.get(watched.path)
        if old is not None and old.state == "running":
            return old
        job = self.jobs.start_live(Watch(watched, debounce=self.debounce, home=self.home))
        self.running[watched.path] = job
        return job

    def to_json(self) -> list[dict[str, Any]]:
        """Return each watched path with its job's state, last event, last import, last error."""
        out = []
        for path, watched in self.paths.items():
            job = self.running.get(path)
            row: dict[str, Any] = asdict(watched)
            if job is not None:
                importing = job.detail.get("importing")
                row.update(
                    job=job.id,
                    state=job.state,
                    # with the records of the import running now, as they land
                    added=job.report.added + job.report.updated + (importing or 0),
                    last_event=job.detail.get("last_event"),
                    last_import=job.detail.get("last_import"),
                    last_error=job.detail.get("last_error") or job.error,
                    exists=Path(path).exists(),
                )
            out.append(row)
        return out
