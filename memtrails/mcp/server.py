"""The MCP server: tool and resource definitions over a memory folder, served on stdio or HTTP."""

from __future__ import annotations

import functools
import importlib.metadata
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, BinaryIO, Literal, ParamSpec, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, JSONRPCError, JSONRPCResponse, ToolAnnotations
from pydantic import Field, ValidationError

from .._exceptions import MemtrailsError, said_at_the_command_line
from .access import FolderAccess
from .schemas import (
    AddResult,
    ForgetResult,
    RecordResult,
    SearchResult,
    StatusResult,
    add_result,
    forget_result,
    record_result,
    search_result,
    status_result,
)
from .tools import (
    RECORD_URI,
    add_tool,
    argument_errors,
    forget_tool,
    get_tool,
    record_json,
    scrubbed,
    search_tool,
    status_tool,
)
from .wire import MAX_REQUEST_BYTES, RequestLines

__all__ = ["build_server", "http_app", "run_stdio", "serve"]

_SESSION_IDLE_S = 300.0
_MAX_SESSIONS = 1000

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = """\
A personal memory: mail, chat, Git commits, notes and documents imported by memtrails.
Use `search` to find records by meaning and exact words, then `get` (or read the record's
`uri` resource) for the full text. Imports may run beside this server; a record added by
one shows up in the next search."""

SEARCH = """\
Search the memory by meaning and by exact words; returns the best records first.

Each result: id, uid, uri (memtrails://record/<uid>, readable as a resource), title, kind,
author, at (ISO 8601 date or null), source, score (higher is better; only for ranking),
snippet (the best matching passage, up to 300 characters). Pass a result's uid or id to
`get` for the whole text. confidence (0..1) says how close the best match came;
confident false means nothing here is likely relevant. kind and source match exactly,
author by its words (an address or a name); all filters combine with AND."""

GET = """\
Return one record by its id or uid (from `search` results): id, uid, uri, source, kind,
title, author, at, thread, text, meta, text_chars; `truncated: true` when text was cut
at max_chars."""

STATUS = """\
Describe the memory: records, indexed records, index points, records per source, the
embedding model, the index, disk use, and whether this server accepts writes
(writes_allowed)."""

ADD = """\
Import a file or folder on this machine into the memory: JSON Lines (.jsonl), mbox, .eml
files, a Slack export (folder or .zip), a folder of notes and documents, or a Git
repository's commit history (git: true). Re-running reads only what is new. Secrets are
scrubbed before anything is stored. Returns counts: added, updated, unchanged, skipped
(with reasons), removed, secrets scrubbed per kind, seconds."""

FORGET = """\
Forget a record by id or uid: it leaves search results at once; the log keeps a tombstone.
Returns how many records were forgotten (several when sources share the id and no
source is given)."""

Query = Annotated[str, Field(description="Words or a question, in plain language.")]
K = Annotated[int, Field(ge=1, le=50, description="How many records to return (1-50).")]
Kind = Annotated[
    Literal["mail", "chat", "commit", "note", "file", "document"] | None,
    Field(description="Only records of this kind (as in results)."),
]
MinConfidence = Annotated[
    float | None,
    Field(
        ge=0,
        le=1,
        description="Return nothing when the search's confidence (0..1) is below this: "
        "0.35 is calibrated (below it, nothing came close in meaning or in words).",
    ),
]
Author = Annotated[
    str | None,
    Field(description="Only records by this author: an address, a name or part of one (any case)."),
]
Source = Annotated[
    str | None,
    Field(description="Only records from this source, exactly as results show it."),
]
Since = Annotated[
    str | None,
    Field(
        description="Only records written on or after this date: 2024-03-01, 2024-03, 2024, "
        "yesterday, '2 weeks ago' (a date is its whole day, a month the whole month).",
    ),
]
Until = Annotated[
    str | None,
    Field(
        description="Only records written up to this date, its whole day included: 2024-03-31, "
        "2024-03 (to the month's end), yesterday, or an instant like 2024-03-31T12:00:00Z.",
    ),
]
RecordId = Annotated[
    str,
    Field(min_length=1, description="A record's uid (32 hex digits) or id, from search results."),
]
GetSource = Annotated[
    str | None,
    Field(description="The record's source, when several sources hold the same id."),
]
MaxChars = Annotated[
    int,
    Field(ge=100, le=1_000_000, description="Return at most this many characters of text."),
]
AddPath = Annotated[
    str,
    Field(min_length=1, description="Absolute path of a file or folder on this machine."),
]
Git = Annotated[bool, Field(description="The path is a Git repository: import its commits.")]
Full = Annotated[
    bool, Field(description="Read everything again, not only what is new since the last run.")
]

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def _errors_as_tool_errors(
    fn: Callable[P, Awaitable[R]],
) -> Callable[P, Awaitable[R]]:
    """Turn memtrails errors into MCP tool errors the model can read (scrubbed)."""

    @functools.wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except (MemtrailsError, ValueError) as exc:
            raise ToolError(scrubbed(said_at_the_command_line(exc))) from exc
        except OSError as exc:
            raise ToolError(
                scrubbed(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
            ) from exc

    return call


class _Server(MCPServer):
    """The SDK's server, whose resource errors carry no secret of the URI they name, and
    whose answer to bad arguments says what is wrong in plain words."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            said = scrubbed(argument_errors(exc.__cause__))
            raise ToolError(f"Error executing tool {name}: {said}") from exc.__cause__

    async def _handle_read_resource(self, ctx: Any, params: Any) -> Any:
        # The SDK answers a failed read with the URI, whole, in its error (its data, and its
        # message for an unexpected failure): a token pasted into a URI came back unscrubbed.
        try:
            return await super()._handle_read_resource(ctx, params)
        except MCPError as err:
            uri = scrubbed(str(params.uri))
            raise MCPError(err.code, scrubbed(err.message), {"uri": uri}) from None


def build_server(access: FolderAccess, *, allow_writes: bool = False) -> MCPServer:
    """Return an MCP server answering over the memory folder ``access`` opens.

    Args:
        access: opens the folder per request and holds the model.
        allow_writes: also offer the ``add`` and ``forget`` tools.

    Returns:
        The server, not yet running (see :func:`serve`).
    """
    server: MCPServer = _Server(
        "memtrails",
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
    )

    @_errors_as_tool_errors
    async def search(
        query: Query,
        k: K = 10,
        kind: Kind = None,
        author: Author = None,
        source: Source = None,
        since: Since = None,
        until: Until = None,
        min_confidence: MinConfidence = None,
    ) -> Annotated[CallToolResult, SearchResult]:
        return search_result(
            await search_tool(
                access,
                query,
                k,
                kind=kind,
                author=author,
                source=source,
                since=since,
                until=until,
                min_confidence=min_confidence,
            )
        )

    @_errors_as_tool_errors
    async def get(
        id: RecordId, source: GetSource = None, max_chars: MaxChars = 20000
    ) -> Annotated[CallToolResult, RecordResult]:
        return record_result(await get_tool(access, id, source, max_chars))

    @_errors_as_tool_errors
    async def status() -> Annotated[CallToolResult, StatusResult]:
        return status_result(await status_tool(access, writes=allow_writes))

    server.add_tool(search, name="search", description=SEARCH, annotations=_READ_ONLY)
    server.add_tool(get, name="get", description=GET, annotations=_READ_ONLY)
    server.add_tool(status, name="status", description=STATUS, annotations=_READ_ONLY)

    if allow_writes:

        @_errors_as_tool_errors
        async def add(
            path: AddPath, git: Git = False, full: Full = False, kind: str | None = None
        ) -> Annotated[CallToolResult, AddResult]:
            return add_result(await add_tool(access, path, git=git, full=full, kind=kind))

        # The schema's enum is the importer registry's kinds, read as the server is built.
        add.__annotations__["kind"] = _import_kind()

        @_errors_as_tool_errors
        async def forget(
            id: RecordId, source: GetSource = None
        ) -> Annotated[CallToolResult, ForgetResult]:
            return forget_result(await forget_tool(access, id, source))

        server.add_tool(
            add,
            name="add",
            description=ADD,
            annotations=ToolAnnotations(
                destructive_hint=False, idempotent_hint=True, open_world_hint=False
            ),
        )
        server.add_tool(
            forget,
            name="forget",
            description=FORGET,
            annotations=ToolAnnotations(
                destructive_hint=True, idempotent_hint=True, open_world_hint=False
            ),
        )

    # Ids are Message-IDs, paths and shas: nothing here touches the file system with them.
    @server.resource(
        RECORD_URI,
        name="record",
        description="One record as JSON (the get tool's fields), by uid or id.",
        mime_type="application/json",
        security=ResourceSecurity(exempt_params={"id"}),
    )
    async def record(id: str) -> str:
        try:
            async with access.open() as memory:
                found = await memory.get(id)
        except MemtrailsError as exc:
            raise ResourceError(scrubbed(said_at_the_command_line(exc))) from exc
        if found is None:
            raise ResourceNotFoundError(scrubbed(f"no record with id {id!r}"))
        return json.dumps(record_json(found), ensure_ascii=False)

    return server


def _import_kind() -> Any:
    """The add tool's ``kind``: an enum of the kinds the importer registry knows now."""
    from ..importers.registry import importers

    specs = importers()
    names: Any = Literal.__getitem__(tuple(spec.kind for spec in specs))
    kinds = "; ".join(f"{spec.kind}: {spec.summary}" for spec in specs)
    return Annotated[
        names | None,
        Field(description=f"Read the path as this kind instead of recognising it ({kinds})."),
    ]


async def run_stdio(server: MCPServer, stdin: BinaryIO | None = None, stdout: Any = None) -> None:
    """Serve on stdio as the SDK does, reading requests through :class:`RequestLines`: a line
    the SDK would drop unanswered (not JSON, no request, over 1 MiB) is answered with an error.

    ``stdin`` and ``stdout`` (an ``anyio.AsyncFile`` of text) replace the process's own.
    """
    lines = RequestLines(stdin or sys.stdin.buffer)
    # The SDK's answers pass through here on their way to stdout, so that the input's end
    # waits for those still being worked on (RequestLines) instead of cancelling them.
    answers, sdk_answers = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        # stdout's stream (write) closes once both writers have passed on what they hold:
        # the SDK has closed its answers, and the input's end has closed the refusals.
        async with (
            stdio_server(stdin=lines, stdout=stdout) as (read, write),  # type: ignore[arg-type]
            write,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(_answer, lines.replies, write)
            tasks.start_soon(_forward, sdk_answers, write, lines)
            low = server._lowlevel_server  # what run_stdio_async runs, given our input
            await low.run(read, answers, low.create_initialization_options())
    except* (BrokenPipeError, ConnectionResetError):
        # The client closed its end of stdout: no answer can reach it, so the server stops
        # (the requests it was answering are cancelled), without a traceback. stdin may
        # still be open, its reading thread blocked: `memtrails mcp` then exits at once.
        pass
    finally:
        lines.close()
        answers.close()


async def _forward(
    sdk_answers: MemoryObjectReceiveStream[SessionMessage],
    write: MemoryObjectSendStream[SessionMessage],
    lines: RequestLines,
) -> None:
    """Pass the SDK's messages on to stdout, telling ``lines`` which requests are answered."""
    try:
        async with sdk_answers:
            async for message in sdk_answers:
                await write.send(message)
                if isinstance(message.message, JSONRPCResponse | JSONRPCError):
                    lines.answered(message.message.id)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # stdout is gone: there is no one left to answer


async def _answer(
    replies: MemoryObjectReceiveStream[JSONRPCError],
    write: MemoryObjectSendStream[SessionMessage],
) -> None:
    """Write the reader's answers to refused lines, beside the SDK's own answers."""
    try:
        async with replies:
            async for reply in replies:
                await write.send(SessionMessage(reply))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass  # the server has stopped: there is no one left to answer


def http_app(server: MCPServer, **options: Any) -> Any:
    """Return ``server``'s Streamable HTTP application (``options``: the SDK's), bounded.

    Bounded memory, whatever clients do: a body over 1 MiB is refused (413) before it is
    parsed, and each session (~40 KiB) ends after 5 idle minutes, 1,000 at most at once
    (the SDK's defaults: 4 MiB, 30 minutes, 10,000). `memtrails mcp --http` and the
    service's ``/mcp`` both serve through it.
    """
    return server.streamable_http_app(
        max_request_body_size=MAX_REQUEST_BYTES,
        session_idle_timeout=_SESSION_IDLE_S,
        max_sessions=_MAX_SESSIONS,
        **options,
    )


def _version() -> str:
    try:
        return importlib.metadata.version("memtrails")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - a source checkout
        return ""


async def serve(
    home: Path,
    *,
    allow_writes: bool = False,
    http_port: int | None = None,
    threads: int | None = None,
    wait: float = 10.0,
    listening: Callable[[int], object] = lambda port: None,
) -> None:
    """Serve the memory folder ``home`` over MCP until the client goes away.

    Args:
        home: the memory folder.
        allow_writes: also offer ``add`` and ``forget``.
        http_port: serve Streamable HTTP on ``127.0.0.1:http_port`` (path ``/mcp``) instead
            of stdio.
        threads: model threads.
        wait: seconds a request waits for an import holding the folder.
        listening: called with the port once HTTP is listened on (``http_port`` 0 picks
            a free one).

    Raises:
        OSError: ``http_port`` cannot be listened on (in use, not allowed).
    """
    access = FolderAccess(home, threads=threads, wait=wait)
    server = build_server(access, allow_writes=allow_writes)
    try:
        if http_port is None:
            await run_stdio(server)
        else:
            # Loopback only: the memory is personal and the server has no authentication.
            import uvicorn

            app = http_app(server, host="127.0.0.1")
            from ..service._http import head_deadline_protocol, listening_socket

            # Bound before anything is said: a port in use is one line (uvicorn logged it
            # twice after 'serving on', and exited 3). As the SDK's run_streamable_http_async,
            # but uvicorn's loggers keep the handlers the command gave them (escaping), and
            # a connection must send its request head in time, as serve's must.
            sock = listening_socket("127.0.0.1", http_port, "--http port", listen=False)
            try:
                listening(sock.getsockname()[1])
                config = uvicorn.Config(
                    app, log_level="warning", log_config=None, http=head_deadline_protocol()
                )
                await uvicorn.Server(config).serve(sockets=[sock])
            finally:
                sock.close()
    finally:
        await access.aclose()
