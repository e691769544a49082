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
from ._events import os_events
from ._overlap import WatchConflict, overlap
from ._paths import fs_type, pseudo_fs
from ._poll import poll_changes
from ._repeats import Repeats
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
    /dev/null "changes" at every write anyone makes to it. /proc, /sys and /dev (and a
    folder holding them, such as /) are the kernel's: files that never end or never answer.
    """
    if home is not None and _inside(path, home):
        return _in_home(path)
    kind = _kind(path)
    if kind == "other":
        return (
            f"{path} is a pipe or a device, not a file or folder: watch the file or folder "
            "it is written to, or send what it holds through the ingest endpoint"
        )
    return pseudo_fs(path.resolve(), folder=kind != "file")


def _in_home(path: Path) -> str:
    return (
        f"{path} is the memory folder or inside it: the service writes there, so watching "
        "it would import its own writes again and again; watch the files and folders its "
        "records come from"
    )


def _inside(path: Path, home: Path) -> bool:
    # realpath, not resolve: a loop of symbolic links is a path like any other here
    resolved, folder = Path(os.path.realpath(path)), Path(os.path.realpath(home))
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


def needs_polling(path: Path) -> bool:
    """Tell whether ``path`` is on a file system that sends no change events."""
    kind = fs_type(path)
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
        self._repeats = Repeats()

    def _source(self) -> str:
        if self.watched.git:
            from ..importers.git import git_source

            try:
                return git_source(self.path)
            except Exception:  # gone when the service starts: its job says so, and waits
                return f"git:{self.path}"
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
        kernel = await asyncio.to_thread(pseudo_fs, Path(os.path.realpath(self.path)))
        if kernel is not None:  # /proc, /sys, /dev: given to `serve --watch`
            raise ValueError(kernel)
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

        Nothing there, a pipe or device there, or (``git``) no repository there (removed,
        being cloned again) is reported in the job and looked at again every poll interval:
        a FIFO is never opened (that waits for a writer, and the service's stop with it).
        """
        said: str | None = None
        while True:
            kind = _kind(self.path)
            why: str | None = (
                f"{self.path} is gone; waiting for it"
                if kind is None
                else f"{self.path} is a pipe or a device, not a file or folder; waiting for "
                "a file or folder there"
            )
            if kind is not None and kind != "other":
                why = await asyncio.to_thread(self._no_repository) if self.watched.git else None
                if why is None:
                    return kind
            if why != said:
                job.progress(self.total, last_error=why)
                said = why
            await asyncio.sleep(self.poll_every)

    def _no_repository(self) -> str | None:
        """Return why git reads no repository at the path now (blocking), or None."""
        try:
            self._git_dir()
        except Exception as exc:  # removed, or a folder being cloned into: waited for
            return f"{self.path} is no Git repository now ({exc}); waiting for one"
        return None

    async def _listen(self, changed: asyncio.Event, ready: asyncio.Event) -> None:
        async with aclosing(self._changes(ready)) as changes:
            async for _ in changes:
                changed.set()

    async def _import(self, memory: Memory, job: Job, why: str) -> None:
        from ..add import add_git, add_path

        job.detail["last_event"] = time.time()
        if _kind(self.path) in (None, "other"):
            # Gone or replaced by a pipe since the change was seen: opening a FIFO would
            # wait for a writer; the watch loop sees it and waits for a file or folder.
            return

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
        # A file skipped at the last look is skipped again: counted once until it changes.
        report = await asyncio.to_thread(self._repeats.fresh, report)
        self.total.merge(report)
        # What the latest look found unchanged, not the sum over every look.
        self.total.unchanged = report.unchanged
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
        return os_events(self._roots(), wanted, self.debounce, ready, polled, recursive)

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
        # Maildir++ keeps a Maildir's folders as hidden ones (.Sent, .Lists.python), which
        # the importer reads: in a Maildir those are followed, other hidden paths are not.
        maildir = (self.path / "cur").is_dir() or (self.path / "new").is_dir()

        def wanted(p: str) -> bool:
            if home is not None and (p + os.sep).startswith(home):
                return False
            parts = p[len(root) :].lstrip(os.sep).split(os.sep)
            if maildir and parts[0].startswith(".") and parts[0] not in (".", ".."):
                parts = parts[1:]
            return not any(part.startswith(".") for part in parts)

        return wanted


class Watched:
    """The service's watched set: kept in the folder, each path followed by a live job.

    No file is imported by two watches: a path inside a watched folder, a folder holding a
    watched path, and one path under two names are refused (:func:`._overlap.overlap`). A
    set kept by an older version that holds such a pair follows the first of the two and
    lists the other as ``not followed``, saying why.
    """

    def __init__(self, home: Path, jobs: Jobs, *, debounce: float = 1.0) -> None:
        self.home = home
        self.jobs = jobs
        self.debounce = debounce
        self.paths: dict[str, WatchedPath] = {w.path: w for w in load_watched(home)}
        self.running: dict[str, Job] = {}
        self.refused: dict[str, str] = {}  # kept, but not followed: why

    def add(self, watched: WatchedPath) -> Job:
        """Watch a path (kept in the folder) and start following it; return its job.

        Watching a path again as it is watched returns its job.

        Raises:
            ValueError: the path is the memory folder or inside it, a pipe, a device, or on
                a file system of the kernel (/proc, /sys, /dev).
            WatchConflict: another watch imports it already (see :class:`Watched`), or it
                is watched with other options.
            JobConflictError: an import of the same source runs now.
        """
        why = refusal(Path(watched.path), self.home)
        if why is not None:
            raise ValueError(why)
        kept = self.paths.get(watched.path)
        if kept is not None and kept != watched:
            raise WatchConflict(
                f"{watched.path} is watched already ({_options(kept)}); to follow it "
                f"{_options(watched)}, remove its watch first"
            )
        if kept is None:
            why = overlap(watched, [w for w in self.paths.values() if w.path not in self.refused])
            if why is not None:
                raise WatchConflict(why)
        job = self._start(watched)  # kept only once it runs: a refused start keeps nothing
        self.refused.pop(watched.path, None)
        if kept is None:
            self.paths[watched.path] = watched
            save_watched(self.home, list(self.paths.values()))
        return job

    def remove(self, path: str) -> bool:
        """Stop watching ``path`` and forget it from the watched set; return whether it was."""
        watched = self.paths.pop(path, None)
        if watched is None:
            return False
        save_watched(self.home, list(self.paths.values()))
        self.refused.pop(path, None)
        job = self.running.pop(path, None)
        if job is not None:
            self.jobs.cancel(job)
        return True

    def start_all(self) -> None:
        """Follow every path of the watched set (the service starting).

        One that cannot start (another of the set imports it already, an import of its
        source runs) is listed with why, and the others start: the service starts anyway.
        """
        started: list[WatchedPath] = []
        for watched in self.paths.values():
            why = overlap(watched, started)
            if why is None:
                try:
                    self._start(watched)
                except Exception as exc:  # never the service's start: listed with the path
                    why = str(exc)
            if why is not None:
                _log.warning("not watching %s: %s", watched.path, why)
                self.refused[watched.path] = why
            else:
                started.append(watched)

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
            if path in self.refused:
                row.update(state="not followed", last_error=self.refused[path])
            elif job is not None:
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


def _options(watched: WatchedPath) -> str:
    poll = {None: "where needed", True: "true", False: "false"}[watched.poll]
    return f"git {str(watched.git).lower()}, poll {poll}, prune {str(watched.prune).lower()}"
