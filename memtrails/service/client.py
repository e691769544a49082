"""A client of a running service with :class:`memtrails.Memory`'s API (``Memory.open`` returns
one when a service holds the folder)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import asdict, fields, is_dataclass
from datetime import date, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import httpx

from .._exceptions import MemoryLockedError, ServiceError
from .._measure import well_formed_value
from ..folder.search import SearchHit
from ..folder.status import MemoryStatus
from ..importers.cursor import Fetch
from ..ingest import ProgressCallback
from ..limits import Limits
from ..memory import Memory
from ..records import At, AtLike, ImportReport, MemoryRecord, RecordError, SourceReport
from .discovery import ServiceInfo, find_service

__all__ = [
    "ERROR_KEY",
    "RemoteMemory",
    "ServiceError",
    "connect",
    "handed_over",
    "imported_through",
    "report_from_json",
]

_TIMEOUT = httpx.Timeout(60.0, connect=5.0)

T = TypeVar("T")
Reopen = Callable[[], Awaitable[Memory]]

ERROR_KEY = "__record_error__"
"""A streamed line ``{"__record_error__": {"source", "where", "reason"}}`` is a RecordError
the client's own importer yielded: it is counted and listed like any other."""


async def connect(home: Path) -> RemoteMemory | None:
    """Return a client of the service that holds ``home``, or None when none answers."""
    info = find_service(home)
    if info is None:
        return None
    remote = RemoteMemory(info)
    try:
        await remote.call("GET", "/v1/health", timeout=httpx.Timeout(5.0))
    except ServiceError as exc:
        await remote.aclose()
        if exc.status is None:
            return None  # not listening (yet, or any more): open the folder as before
        raise
    return remote


class RemoteMemory(Memory):
    """The memory of a running ``memtrails serve``, through its HTTP API.

    Search, get, records, status, forget, forget_source, source_state and ingest (records are sent
    as JSON Lines, read by the service as fast as it embeds them) work as on a local
    Memory. Not available remotely: ``reindex``, ``check``, ``optimize`` and ``catch_up``
    (stop the service to run them), an ``ingest`` with ``cursor=`` (run it in the service's
    process instead), and ``on_progress`` during an ingest (it is called once, at the end).
    ``remote`` is True on this class.

    The service of an import that answers reads (``info.importing``) goes away when the
    import ends. A read it no longer answers (refused connection, connection dropped) is then
    read from the folder itself, once the import has let go of it (:func:`handed_over`, or
    ``reopen``), and so is every later read of this client: the reader sees the answer, not
    the import's end. Writes are not handed over.
    """

    remote = True

    def __init__(self, info: ServiceInfo, reopen: Reopen | None = None) -> None:
        self.info = info
        self.http = httpx.AsyncClient(
            base_url=info.url,
            headers={"Authorization": f"Bearer {info.token}"},
            timeout=_TIMEOUT,
        )
        self._closed = False
        #: opens the folder for this client's reads once its import's service is gone
        self.reopen: Reopen = reopen or partial(handed_over, info.home)
        self._local: Memory | None = None
        self._handing = asyncio.Lock()

    @property
    def path(self) -> Path:
        """The memory folder."""
        return self.info.home

    @property
    def repairs(self) -> list[str]:
        """Always empty: the service repaired the folder when it opened it."""
        return []

    async def aclose(self) -> None:
        """Close the connection (the service keeps running), and the folder if its reads
        were handed over to it; safe to call twice."""
        self._closed = True
        try:
            await self.http.aclose()
        finally:
            local, self._local = self._local, None
            if local is not None:
                await local.aclose()

    @property
    def handed_over(self) -> bool:
        """True once this client reads the folder itself: its import's service ended."""
        return self._local is not None

    async def _read(
        self, remotely: Callable[[], Awaitable[T]], locally: Callable[[Memory], Awaitable[T]]
    ) -> T:
        """Return ``remotely()``; where an import's service no longer answers, ``locally``
        of the folder, opened once the import lets go of it."""
        if self._local is None:
            try:
                return await remotely()
            except ServiceError as exc:
                await self._hand_over(exc)
        assert self._local is not None
        return await locally(self._local)

    async def _hand_over(self, exc: ServiceError) -> None:
        """Open the folder for this client's reads, or raise ``exc``: the service answered
        (an error of its own), it is no import's, or this client was closed."""
        if exc.status is not None or self.info.importing is None or self._closed:
            raise exc
        async with self._handing:  # two reads that fail at once open the folder once
            if self._local is None:
                try:
                    self._local = await self.reopen()
                except MemoryLockedError as locked:
                    raise ServiceError(
                        f"{exc}; the import ended its service, and the folder is still held "
                        f"({locked})"
                    ) from locked

    close = aclose

    async def call(self, method: str, url: str, **kwargs: Any) -> Any:
        """Send one request; return its JSON answer.

        Raises:
            ServiceError: the service answered with an error, or could not be reached.
        """
        if self._closed:
            raise ServiceError(f"the client of the service for {self.path} was closed")
        for part in ("params", "json"):
            # Half of a surrogate pair (a command-line word of bytes that are not UTF-8, as
            # Python reads argv) cannot be sent as UTF-8: httpx raised UnicodeEncodeError.
            # It becomes U+FFFD, as the folder reads it opened here.
            if kwargs.get(part) is not None:
                kwargs[part] = well_formed_value(kwargs[part])
        try:
            response = await self.http.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            raise ServiceError(
                f"the service of {self.path} at {self.info.url} did not answer: {exc}"
            ) from exc
        return answer(response)

    # ----------------------------------------------------------------- Memory's API

    async def search(
        self,
        query: str,
        k: int = 10,
        *,
        kind: str | None = None,
        author: str | None = None,
        source: str | None = None,
        since: AtLike | None = None,
        until: AtLike | None = None,
        min_confidence: float | None = None,
        now: AtLike | None = None,
    ) -> list[SearchHit]:
        """Search through the service; see :meth:`Memory.search`."""
        body = {
            "query": query,
            "k": k,
            "kind": kind,
            "author": author,
            "source": source,
            "since": None if since is None else At.of(since).iso(),
            "until": None if until is None else At.of(until).iso(),
            "min_confidence": min_confidence,
            "now": None if now is None else At.of(now).iso(),
        }

        async def remotely() -> list[SearchHit]:
            found = await self.call("POST", "/v1/search", json=body)
            return [_hit(row) for row in found["results"]]

        def locally(local: Memory) -> Awaitable[list[SearchHit]]:
            return local.search(
                query,
                k,
                kind=kind,
                author=author,
                source=source,
                since=since,
                until=until,
                min_confidence=min_confidence,
                now=now,
            )

        return await self._read(remotely, locally)

    async def get(self, id: str, *, source: str | None = None) -> MemoryRecord | None:
        """Return a record through the service; see :meth:`Memory.get`."""
        params = {"id": id, **({"source": source} if source is not None else {})}

        async def remotely() -> MemoryRecord | None:
            try:
                found = await self.call("GET", "/v1/get", params=params)
            except ServiceError as exc:
                if exc.status == 404:
                    return None
                raise
            return MemoryRecord.from_json(found)

        return await self._read(remotely, lambda local: local.get(id, source=source))

    async def status(self) -> MemoryStatus:
        """Return the folder's status through the service; see :meth:`Memory.status`."""

        async def remotely() -> MemoryStatus:
            found = await self.call("GET", "/v1/status")
            names = {f.name for f in fields(MemoryStatus)}
            values = {k: v for k, v in found.items() if k in names}
            values["path"] = Path(values["path"])
            return MemoryStatus(**values)

        return await self._read(remotely, lambda local: local.status())

    async def records(self, *, source: str | None = None) -> AsyncIterator[MemoryRecord]:
        """Yield the folder's live records through the service; see :meth:`Memory.records`."""
        if self._closed:
            raise ServiceError(f"the client of the service for {self.path} was closed")
        params = {} if source is None else {"source": source}
        yielded = False
        try:
            if self._local is None:
                async with self.http.stream("GET", "/v1/records", params=params) as response:
                    if response.is_error:
                        await response.aread()
                        answer(response)
                    async for line in response.aiter_lines():
                        if line:
                            yielded = True
                            yield MemoryRecord.from_json(json.loads(line))
                return
        except httpx.HTTPError as exc:
            failed = ServiceError(
                f"the service of {self.path} at {self.info.url} stopped answering: {exc}"
            )
            if yielded:  # part-way: read again from the start, or the caller counts twice
                raise failed from exc
            await self._hand_over(failed)
        assert self._local is not None
        async for record in self._local.records(source=source):
            yield record

    async def forget(self, id: str, *, source: str | None = None) -> int:
        """Forget a record through the service; see :meth:`Memory.forget`."""
        found = await self.call("POST", "/v1/forget", json={"id": id, "source": source})
        return int(found["forgotten"])

    async def forget_source(self, source: str) -> int:
        """Forget every record of ``source`` through the service."""
        found = await self.call("POST", "/v1/forget", json={"source": source, "all": True})
        return int(found["forgotten"])

    def source_state(self, source: str) -> dict[str, Any] | None:
        """Not known to a client without asking: incremental reads need the service's
        positions, so this returns None (the client's import reads its source in full)."""
        return None

    async def ingest(
        self,
        source: AsyncIterable[Any] | Iterable[Any] | Fetch,
        *,
        batch: int = 64,
        idle: float | None = 1.0,
        name: str = "custom",
        on_progress: ProgressCallback | None = None,
        strict: bool = False,
        prune: bool = False,
        cursor: str | None = None,
        lag: timedelta | float | None = None,
        full: bool = False,
        limits: Limits | None = None,
    ) -> ImportReport:
        """Send ``source``'s records to the service as JSON Lines; see :meth:`Memory.ingest`.

        Raises:
            ServiceError: the service refused the import, or ``cursor``/``strict`` was asked.
        """
        if cursor is not None or strict or not isinstance(source, AsyncIterable | Iterable):
            raise ServiceError(
                "`cursor` and `strict` are not available through the service: run that import "
                "in the service's process, or stop the service"
            )
        params = {"name": name, "batch": str(batch), "prune": "1" if prune else "0"}
        default = Limits()
        for key, value in asdict(limits or default).items():
            if value != getattr(default, key):
                params[key] = str(value)
        found = await self.call(
            "POST",
            "/v1/ingest",
            params=params,
            content=_lines(source),
            headers={"Content-Type": "application/x-ndjson"},
            timeout=httpx.Timeout(None, connect=5.0),
        )
        report = report_from_json(found["report"])
        if on_progress is not None:
            on_progress(report)
        return report

    async def catch_up(self, batch: int = 64, **_: Any) -> int:
        """Not available remotely: the service catches up when it opens the folder."""
        _not_remote("catch_up", self.info)

    async def reindex(self, batch: int = 64, **_: Any) -> int:
        """Not available remotely."""
        _not_remote("reindex", self.info)

    async def check(self, **_: Any) -> Any:
        """Not available remotely."""
        _not_remote("check", self.info)

    async def optimize(self) -> None:
        """Not available remotely."""
        _not_remote("optimize", self.info)


def answer(response: httpx.Response) -> Any:
    """Return a response's JSON, or raise :class:`ServiceError` with the service's message."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.is_error:
        message = body.get("error") if isinstance(body, dict) else None
        if isinstance(body, dict) and body.get("importing") and message:
            # An import that answers reads refused a write: its line says it all.
            raise ServiceError(str(message), response.status_code)
        raise ServiceError(
            f"the service refused the request ({response.status_code}): "
            f"{message or response.text[:200]}",
            response.status_code,
        )
    return body


def report_from_json(data: Mapping[str, Any]) -> ImportReport:
    """Rebuild an :class:`ImportReport` from its JSON form."""
    report = ImportReport(
        added=int(data.get("added", 0)),
        updated=int(data.get("updated", 0)),
        unchanged=int(data.get("unchanged", 0)),
        removed=int(data.get("removed", 0)),
        embedded=int(data.get("embedded", 0)),
        elapsed=float(data.get("seconds", 0.0)),
        cut=int(data.get("cut", 0)),
        duplicates=int(data.get("duplicates", 0)),
    )
    report.errors = [
        RecordError(str(e.get("source")), str(e.get("where")), str(e.get("reason")))
        for e in data.get("errors", [])
    ]
    report.secrets.update({str(k): int(v) for k, v in (data.get("secrets") or {}).items()})
    left_out = data.get("errors_left_out") or {}
    report.errors_left_out.update({str(k): int(v) for k, v in left_out.items()})
    report.sources = [
        SourceReport(
            str(s["source"]),
            mode=str(s["mode"]),
            read=int(s["read"]),
            why=s.get("why"),
            complete=s.get("complete") is not False,
        )
        for s in data.get("sources", [])
    ]
    return report


def _hit(row: Mapping[str, Any]) -> SearchHit:
    return SearchHit(
        score=float(row["score"]),
        id=row["id"],
        uid=row["uid"],
        title=row.get("title"),
        kind=row["kind"],
        author=row.get("author"),
        at=At.of(row["at"]) if row.get("at") else None,
        source=row["source"],
        snippet=row["snippet"],
        dense=row.get("dense"),
        keyword=row.get("keyword"),
        confident=bool(row.get("confident", True)),
        confidence=row.get("confidence"),
    )


async def _lines(source: AsyncIterable[Any] | Iterable[Any]) -> AsyncIterator[bytes]:
    """Yield the items of ``source`` as JSON Lines, as fast as the request body is sent."""
    if isinstance(source, AsyncIterable):
        async for item in source:
            line = _line(item)
            if line is not None:
                yield line
    else:
        for item in source:
            line = _line(item)
            if line is not None:
                yield line


def _line(item: Any) -> bytes | None:
    if isinstance(item, MemoryRecord):
        obj: Any = item.to_json()
    elif isinstance(item, RecordError):
        obj = {ERROR_KEY: {"source": item.source, "where": item.where, "reason": item.reason}}
    elif isinstance(item, Mapping):
        obj = dict(item)
    elif is_dataclass(item):
        return None  # an importer's position or a proof of an unchanged record: local only
    else:
        raise TypeError(f"cannot send {type(item).__name__} as a record; give mappings or records")
    return json.dumps(obj, ensure_ascii=False, default=_jsonable).encode() + b"\n"


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, At):
        return value.iso()
    raise TypeError(f"cannot send {type(value).__name__} as JSON")


def imported_through(memory: Memory) -> dict[str, Any] | None:
    """Return the import whose reads ``memory`` (a client of it) goes through, as a status
    says it: ``{"pid", "command"}``; None for any other memory (a ``memtrails serve``'s
    client, a folder held open)."""
    if not isinstance(memory, RemoteMemory) or memory.info.importing is None:
        return None
    if memory.handed_over:  # the import ended: the counts are the folder's own
        return None
    return {"pid": memory.info.pid, "command": memory.info.importing}


async def handed_over(home: Path) -> Memory:
    """Open ``home`` for a reader whose import's service stopped answering: wait for the
    import to let go of the folder (up to ``during_import.LENDER_WAIT`` s, or
    ``SERVING_WAIT`` while its lock still says it serves), or for the service of whatever
    holds it next.

    Raises:
        MemoryLockedError: the folder was still held when the wait ran out.
    """
    from ..folder.lock import READER
    from ..folder.opening import open_folder
    from .during_import import LENDER_WAIT, command_line, folder_or_service, keeps_open

    opening = partial(open_folder, home, create=False, role=READER, wait_writer=LENDER_WAIT)
    found = await folder_or_service(home, opening)
    if isinstance(found, Memory):
        return found
    # Kept open for this client's reads from now on: others are told so, and do not wait.
    found.lock.name(keeps_open(command_line()))
    return Memory(found, serve_reads=False)


def _not_remote(what: str, info: ServiceInfo) -> NoReturn:
    if info.importing is not None:
        raise ServiceError(
            f"`{what}` cannot run now: an import is running (pid {info.pid}: {info.importing}) "
            "and holds the memory folder; try again when it ends"
        )
    raise ServiceError(
        f"`{what}` is not available through the running service; stop the service "
        "(SIGTERM, or `systemctl --user stop memtrails`) and run it on the folder"
    )
