"""The service's jobs: imports (a path, a Git repository, a streamed body) and, later, live
sources, each run in the service's own task group, with progress that clients can follow."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .._exceptions import JobConflictError, MemtrailsError
from ..memory import Memory
from ..records import ImportReport

__all__ = ["Job", "JobConflictError", "Jobs", "LiveSource", "Runner"]

State = Literal["running", "done", "failed", "cancelled"]
Runner = Callable[["Job"], Awaitable[ImportReport]]
"""What a job runs: given its job (to report progress on), returns the import's report."""

_KEEP_FINISHED = 100  # finished jobs listed before the oldest are dropped
_SHOWN_ERRORS = 20  # skipped records listed in a running job's progress


class LiveSource(Protocol):
    """A source registered with the service and run by it until the service stops.

    The seam for watched sources (a Maildir's new/, a growing file): ``run`` imports what
    arrives, calling ``job.progress`` after each batch; its progress and a failure are
    visible through ``/v1/imports`` like an import's.
    """

    name: str
    sources: tuple[str, ...]

    async def run(self, memory: Memory, job: Job) -> ImportReport:
        """Import until cancelled; return what was imported."""
        ...


@dataclass(slots=True)
class Job:
    """One job: what it imports, its state, its running report and its final one."""

    id: str
    kind: str  # "import", "ingest", "live"
    what: str
    sources: tuple[str, ...]
    state: State = "running"
    report: ImportReport = field(default_factory=ImportReport)
    detail: dict[str, Any] = field(default_factory=dict)  # the part now read, bytes read
    error: str | None = None
    started: float = field(default_factory=time.time)
    finished: float | None = None
    version: int = 0
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None

    def progress(self, report: ImportReport, **detail: Any) -> None:
        """Publish the running report (and what is being read) to followers."""
        self.report = report
        self.detail.update(detail)
        self._bump()

    def _bump(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    def to_json(self, errors: int | None = None) -> dict[str, Any]:
        """Return the job as the API shows it, with the first ``errors`` skipped records
        (all when None; ``report.errors_not_shown`` counts the rest)."""
        report = self.report.to_json()
        if errors is not None and len(report["errors"]) > errors:
            report["errors_not_shown"] = len(report["errors"]) - errors
            report["errors"] = report["errors"][:errors]
        return {
            "id": self.id,
            "kind": self.kind,
            "what": self.what,
            "sources": list(self.sources),
            "state": self.state,
            "report": report,
            "detail": dict(self.detail),
            "error": self.error,
            "started": self.started,
            "finished": self.finished,
        }

    async def follow(self, stopping: asyncio.Event) -> AsyncIterator[dict[str, Any]]:
        """Yield the job's state now and after each change (coalesced), until it ends."""
        seen = -1
        while True:
            if self.version != seen:
                seen = self.version
                yield self.to_json(errors=None if self.state != "running" else _SHOWN_ERRORS)
            if self.state != "running":
                return
            changed = self._changed
            waiter = asyncio.ensure_future(changed.wait())
            stop = asyncio.ensure_future(stopping.wait())
            try:
                await asyncio.wait([waiter, stop], return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
                stop.cancel()
            if stopping.is_set() and self.state == "running":
                # The service is stopping: the job ends with it; say so and stop following.
                stopped = self.to_json(errors=_SHOWN_ERRORS)
                yield {**stopped, "state": "cancelled", "error": "the service is stopping"}
                return


class Jobs:
    """Runs jobs in one task group owned by the service; at most one job per source.

    Use ``async with Jobs(memory) as jobs``: leaving cancels what still runs and waits for
    it (an import cancelled mid-batch rolls its unwritten claims back; what it wrote is in
    the log and stays).
    """

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._group: asyncio.TaskGroup | None = None

    async def __aenter__(self) -> Jobs:
        self._group = asyncio.TaskGroup()
        await self._group.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.cancel_all()
        group, self._group = self._group, None
        if group is not None:
            await group.__aexit__(*exc_info)

    def start(self, kind: str, what: str, sources: tuple[str, ...], runner: Runner) -> Job:
        """Start a job; return it at once.

        Raises:
            JobConflictError: a running job imports one of ``sources`` already.
        """
        if self._group is None:
            raise MemtrailsError("the service is not running jobs (it is stopping)")
        for job in self._jobs.values():
            busy = set(job.sources) & set(sources)
            if job.state == "running" and busy:
                raise JobConflictError(
                    f"import {job.id} is importing {sorted(busy)[0]} now; follow it or cancel "
                    "it first (one import per source at a time)"
                )
        job = Job(f"{kind}-{next(self._ids)}", kind, what, sources)
        self._jobs[job.id] = job
        job._task = self._group.create_task(self._run(job, runner))
        self._forget_old()
        return job

    def start_live(self, source: LiveSource) -> Job:
        """Run a live source until it ends, fails or the service stops."""

        async def run(job: Job) -> ImportReport:
            return await source.run(self.memory, job)

        return self.start("live", source.name, source.sources, run)

    def get(self, job_id: str) -> Job | None:
        """Return the job with this id, or None."""
        return self._jobs.get(job_id)

    def all(self) -> list[Job]:
        """Return every job still listed, oldest first."""
        return list(self._jobs.values())

    def cancel(self, job: Job) -> bool:
        """Cancel a running job; return whether it was running."""
        if job.state != "running" or job._task is None:
            return False
        job._task.cancel()
        return True

    def cancel_all(self) -> None:
        """Cancel every running job (the service is stopping)."""
        for job in self._jobs.values():
            self.cancel(job)

    async def wait(self, job: Job, timeout: float | None = None) -> None:
        """Wait until ``job`` has ended, or ``timeout`` seconds have passed."""
        if job._task is not None:
            await asyncio.wait([job._task], timeout=timeout)

    async def _run(self, job: Job, runner: Runner) -> None:
        try:
            job.report = await runner(job)
            job.state = "done"
        except asyncio.CancelledError:
            job.state = "cancelled"
            job.error = "cancelled"
            raise
        except Exception as exc:  # a job's failure is its own, never the service's
            job.state = "failed"
            job.error = (
                str(exc)
                if isinstance(exc, MemtrailsError | OSError | ValueError)
                else (f"{type(exc).__name__}: {exc}")
            )
        finally:
            job.finished = time.time()
            job._bump()

    def _forget_old(self) -> None:
        finished = [j for j in self._jobs.values() if j.state != "running"]
        for job in finished[: max(0, len(finished) - _KEEP_FINISHED)]:
            del self._jobs[job.id]
