"""Polling a watched path: a walk of ``stat`` results compared with the walk before.

Used where the OS sends no change events (NFS, SMB, FUSE mounts) or its watcher cannot
start. A file counts as changed when its modification time (nanoseconds), change time,
size or inode differ, so an append or a replacement made within the same second as the
last look is still seen (a poller that compares whole-second times misses those).
"""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import AsyncGenerator, Callable, Iterable

__all__ = ["poll_changes", "snapshot"]

Snapshot = dict[str, tuple[int, int, int, int]]


def snapshot(targets: Iterable[str], wanted: Callable[[str], bool]) -> Snapshot:
    """Return each file under ``targets`` (files, or folders walked) with what identifies its state.

    A folder's entries that ``wanted`` refuses are not descended into; a target that does
    not exist (yet) is simply absent.
    """
    out: Snapshot = {}
    stack: list[str] = []
    for target in targets:
        try:
            st = os.stat(target)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            stack.append(target)
        else:
            out[target] = _state(st)
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:  # removed or unreadable between two looks
            continue
        for entry in entries:
            if not wanted(entry.path):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    out[entry.path] = _state(entry.stat())
            except OSError:
                continue
    return out


def _state(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _changed(before: Snapshot, after: Snapshot) -> set[str]:
    gone = before.keys() - after.keys()
    return gone | {path for path, state in after.items() if before.get(path) != state}


async def poll_changes(
    targets: list[str],
    wanted: Callable[[str], bool],
    *,
    every: float,
    debounce: float,
    ready: asyncio.Event | None = None,
) -> AsyncGenerator[set[str], None]:
    """Yield the changed paths after each burst of changes: once a look finds nothing new,
    or every ``debounce`` seconds while they go on changing.

    The first walk is the baseline (``ready`` is set once it is taken): what changes after
    it is reported. Walks run in a worker thread so a large folder never stalls the event
    loop.
    """
    last = await asyncio.to_thread(snapshot, targets, wanted)
    if ready is not None:
        ready.set()
    pending: set[str] = set()
    burst_since = 0.0
    while True:
        # While a burst is open, look again soon: one quiet look ends it (as watchfiles'
        # step does for events), so a change waits a poll interval plus a quarter of it.
        await asyncio.sleep(min(every, debounce) / 4 if pending else every)
        now = await asyncio.to_thread(snapshot, targets, wanted)
        changed = _changed(last, now)
        last = now
        if changed and not pending:
            burst_since = time.monotonic()
        pending |= changed
        # A path that keeps changing (a log written all the time) is still reported every
        # ``debounce`` seconds.
        if pending and (not changed or time.monotonic() - burst_since >= debounce):
            yield pending
            pending = set()
