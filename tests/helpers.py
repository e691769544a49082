"""Small helpers several test modules share: draining importers, picking items, a time zone,
loading a benchmark script, the labelled secrets, a running service, the web pages served
in-process, an MCP server over HTTP, waiting for a condition and the records the framework
adapters are tested on."""

from __future__ import annotations

import asyncio
import errno
import importlib.util
import io
import json
import os
import subprocess
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from contextlib import aclosing, asynccontextmanager, contextmanager
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from memtrails.importers._input import Input
from memtrails.importers.slack import _export as slack_reader
from memtrails.records import MemoryRecord, RecordError

if TYPE_CHECKING:
    import httpx
    import pytest

    from memtrails import Memory
    from memtrails.service.jobs import Jobs


async def collect(items: AsyncGenerator[Any, None]) -> list[Any]:
    """Drain an importer, closing it even when a test fails half-way."""
    async with aclosing(items) as it:
        return [item async for item in it]


async def jsonl_items(
    path: Path, rows: list[dict[str, Any]], **options: Any
) -> list[MemoryRecord | RecordError]:
    """Write ``rows`` as JSON Lines at ``path``; return what ``from_jsonl`` reads of them
    (its records and errors, not its positions)."""
    from memtrails import from_jsonl

    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return [
        item
        async for item in from_jsonl(path, **options)
        if isinstance(item, MemoryRecord | RecordError)
    ]


def one_page_pdf(line: str) -> bytes:
    """Return a real one-page PDF (reportlab) whose page says ``line``."""
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out)
    page.drawString(72, 720, line)
    page.save()
    return out.getvalue()


def mail(*headers: str, body: str = "hello") -> bytes:
    """A small mail from Jo with ``headers`` added (the mail date tests' input)."""
    lines = ["From: Jo <jo@example.com>", "Subject: hi", "Message-ID: <m@example.com>", *headers]
    return ("\n".join(lines) + "\n\n" + body + "\n").encode()


def multipart_mail(*parts: Message, body: str, subject: str, message_id: str) -> bytes:
    """A multipart/mixed mail from Jane: the text ``body``, then ``parts`` (the attachment
    tests' input)."""
    from email.mime.multipart import MIMEMultipart
    from email.mime.text import MIMEText

    msg = MIMEMultipart("mixed")
    msg["From"] = "Jane <jane@example.com>"
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg.attach(MIMEText(body, "plain"))
    for part in parts:
        msg.attach(part)
    return msg.as_bytes()


def mail_record(raw: bytes) -> MemoryRecord:
    """The record of one raw mail (the test fails when it is an error)."""
    from memtrails.importers.mail import message_to_item

    rec = message_to_item(raw, source="test", where="m.eml")
    assert isinstance(rec, MemoryRecord), rec
    return rec


def mail_at(raw: bytes) -> str | None:
    """The time a mail's record is given, as ISO 8601 (None when it has none)."""
    rec = mail_record(raw)
    return rec.at.iso() if rec.at is not None else None


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path``, making its folder (an export's files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def slack_export(
    root: Path, days: dict[str, list[dict[str, Any]]], users: list[dict[str, Any]], **names: Any
) -> Path:
    """Write a Slack export at ``root``: ``users.json``, name files (``channels=[...]``) and
    day files (``{"general/2024-01-01": [messages]}``); return ``root``."""
    write_json(root / "users.json", users)
    for member, data in names.items():
        write_json(root / f"{member}.json", data)
    for where, messages in days.items():
        write_json(root / f"{where}.json", messages)
    return root


def slack_message(ts: str, text: str, user: str = "U1", **extra: Any) -> dict[str, Any]:
    """A Slack export's message as a day file holds it."""
    return {"type": "message", "user": user, "ts": ts, "text": text, **extra}


def slack_titles(items: list[Any]) -> dict[str, set[str]]:
    """Each channel's (``meta["channel"]``) titles among the records of ``items``."""
    titles: dict[str, set[str]] = {}
    for r in records(items):
        titles.setdefault(r.meta["channel"], set()).add(r.title)
    return titles


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    """Write each ``{relative path: content}`` of ``files`` below ``root``, making folders."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def records(items: list[Any]) -> list[MemoryRecord]:
    return [i for i in items if isinstance(i, MemoryRecord)]


def notes(texts: dict[str, str], source: str = "notes") -> list[MemoryRecord]:
    """One note record per ``{id: text}`` entry, as a notes folder imports them."""
    return [
        MemoryRecord(id=key, text=text, kind="note", source=source) for key, text in texts.items()
    ]


def errors(items: list[Any]) -> list[RecordError]:
    return [i for i in items if isinstance(i, RecordError)]


@contextmanager
def in_tz(name: str) -> Iterator[None]:
    """Run in the time zone ``name`` (TZ + tzset), restoring the caller's zone afterwards."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = name
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


def pg_dsn() -> str:
    """The test PostgreSQL's DSN (scripts/postgres.sh); skip locally without one, fail in CI."""
    import pytest

    dsn = os.environ.get("MEMTRAILS_TEST_PG_DSN")
    if not dsn:
        if os.environ.get("CI"):
            pytest.fail("MEMTRAILS_TEST_PG_DSN is not set: .ci/run starts PostgreSQL and sets it")
        pytest.skip('no PostgreSQL: run eval "$(scripts/postgres.sh)" first')
    return dsn


def readme_recipe(name: str) -> str:
    """Return the Python block of docs/sources.md that starts ``# recipe: <name>``, as written there."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "sources.md").read_text(encoding="utf-8")
    for block in text.split("```python\n")[1:]:
        code = block.split("```", 1)[0]
        if code.startswith(f"# recipe: {name}\n"):
            return code
    raise LookupError(f"docs/sources.md has no recipe {name!r}")


async def mbox_positions(path: Any, **kwargs: Any) -> list[Any]:
    """The positions ``from_mbox`` yields while reading ``path``."""
    from memtrails.importers.mbox import from_mbox
    from memtrails.records import SourceState

    async with aclosing(from_mbox(path, **kwargs)) as items:
        return [item async for item in items if isinstance(item, SourceState)]


async def message_starts(path: Any) -> list[int]:
    """Byte offsets where messages start, from the positions yielded after each message."""
    states = await mbox_positions(path, checkpoint_every=1)
    # After message k: where message k+1 starts; the last state: where the last one starts.
    return [0, *(s.state["offset"] for s in states[:-1])]


def benchmark(name: str) -> ModuleType:
    """Load ``benchmarks/NAME.py`` as the module ``name`` (once; the tests use its inputs)."""
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass in it looks its module up there
    spec.loader.exec_module(module)
    return module


def labelled_secrets() -> list[dict[str, Any]]:
    """Return the rows of tests/data/secrets_labelled.jsonl: a text, the kinds expected in it,
    the secrets that must go and the parts that must stay."""
    path = Path(__file__).parent / "data" / "secrets_labelled.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def gsm8k_lines(corpora: Path, start: int, stop: int, out: Path) -> Path:
    """Write lines ``start`` to ``stop`` of the real GSM8K test set to ``out``; return it."""
    with (corpora / "jsonl" / "gsm8k-test.jsonl").open("rb") as src:
        out.write_bytes(b"".join(line for i, line in enumerate(src) if start <= i < stop))
    return out


def first_messages(mbox: Path, n: int) -> bytes:
    """The first ``n`` messages of an mbox file, as its bytes (a small real archive)."""
    kept: list[bytes] = []
    with mbox.open("rb") as f:
        for line in f:
            if line.startswith(b"From ") and sum(k.startswith(b"From ") for k in kept) == n:
                break
            kept.append(line)
    return b"".join(kept)


def claude_session_lines(*texts: str, session: str, cwd: str) -> list[str]:
    """A Claude Code session's JSON Lines: one user turn per text, a second apart."""
    lines = []
    for k, text in enumerate(texts, 1):
        line = {
            "sessionId": session,
            "type": "user",
            "uuid": f"u{k}",
            "timestamp": f"2025-11-03T09:14:0{k}.000Z",
            "cwd": cwd,
            "message": {"role": "user", "content": text},
        }
        lines.append(json.dumps(line, ensure_ascii=False) + "\n")
    return lines


@contextmanager
def serving(home: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``memtrails serve`` on ``home`` until the block ends (it must then stop cleanly)."""
    from memtrails.service.discovery import find_service

    argv = ["serve", "--home", str(home), "--port", "0", "--threads", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "memtrails.cli", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while find_service(home) is None:
            assert proc.poll() is None and time.monotonic() < deadline, "no service started"
            time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        assert proc.wait(60) == 0


@dataclass
class Served:
    """The web pages of ``memtrails serve`` on an open folder, and a client of them."""

    http: httpx.AsyncClient
    memory: Memory
    jobs: Jobs


@asynccontextmanager
async def web_app(
    memory: Memory, token: str, port: int, *, session: bool = False
) -> AsyncIterator[Served]:
    """Serve ``memory``'s web pages in this process (ASGI, as if at 127.0.0.1:``port``, with
    the API token ``token``) until the block ends; ``session``: the client holds the login
    cookie from the start."""
    import httpx

    from memtrails.service.app import build_app
    from memtrails.service.auth import cookie_name, session_value
    from memtrails.service.jobs import Jobs

    async with Jobs(memory) as jobs:
        app = build_app(memory, jobs, asyncio.Event(), token=token, host="127.0.0.1", port=port)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url=f"http://127.0.0.1:{port}",
            cookies={cookie_name(port): session_value(token)} if session else None,
        ) as http:
            yield Served(http, memory, jobs)


@asynccontextmanager
async def mcp_http(home: Path, *memtrails: str) -> AsyncIterator[int]:
    """Run ``memtrails mcp --http`` on ``home`` (``memtrails``: the command that starts it)
    on a free loopback port until the block ends; yield the port once it listens. The
    server must not print a traceback."""
    import socket

    with socket.socket() as probe:  # a free port; the server binds it right after
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    server = await asyncio.create_subprocess_exec(
        *memtrails, "mcp", "--home", str(home), "--http", str(port),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        for _ in range(300):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await asyncio.sleep(0.1)
        yield port
    finally:
        server.terminate()
        _, err = await server.communicate()
    assert "Traceback" not in err.decode()


async def memtrails_cli(*args: str) -> tuple[int, str, str]:
    """Run the ``memtrails`` command in another process: its exit code, stdout and stderr."""
    proc = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "memtrails"),
        *args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def until(check: Callable[[], bool | Awaitable[bool]], seconds: float = 60.0) -> None:
    """Wait until ``check`` holds (it may be a coroutine function); fail past ``seconds``."""
    start = time.monotonic()
    while True:
        held = check()
        if held if isinstance(held, bool) else await held:
            return
        assert time.monotonic() - start < seconds, f"not within {seconds} s"
        await asyncio.sleep(0.1)


def eventually(check: Callable[[], bool], seconds: float = 60.0) -> None:
    """Wait, blocking, until ``check`` holds; fail past ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time"
        time.sleep(0.2)


#: three records the adapters search and read (a note with a title and meta, a mail in a thread)
ERRANDS = [
    MemoryRecord(
        id="ferry",
        text="The ferry to Orkney leaves Scrabster at 08:45.",
        kind="note",
        author="ann",
        at="2025-06-01",
        title="Ferry",
        meta={"port": "Scrabster"},
    ),
    MemoryRecord(
        id="boiler",
        text="The boiler service is booked for the 14th.",
        kind="note",
        author="bob",
        at="2025-07-02",
    ),
    MemoryRecord(
        id="visa",
        text="Renew the visa before the trip in September.",
        kind="mail",
        author="ann",
        at="2025-08-03",
        thread="travel",
    ),
]


def deny(monkeypatch: Any, locked: Path) -> None:
    """Refuse listing ``locked``, looking inside it and opening what is in it, as a folder
    of another user refuses (root cannot be refused by chmod, so the refusal is faked at the
    calls the walks make). ``monkeypatch``: pytest's."""
    import io

    real_scandir, real_stat, real_open, real_io_open = os.scandir, os.stat, os.open, io.open
    inside = str(locked) + os.sep

    def refuse(path: Any) -> None:
        text = os.fsdecode(path)
        if text == str(locked) or text.startswith(inside):
            raise PermissionError(13, "Permission denied", text)

    def scandir(path: Any = ".") -> Any:
        refuse(path)
        return real_scandir(path)

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(path, int) and os.fsdecode(path).startswith(inside):
            refuse(path)  # the folder itself is seen, as a locked folder is
        return real_stat(path, *args, **kwargs)

    def open_(path: Any, *args: Any, **kwargs: Any) -> Any:
        refuse(path)
        return real_open(path, *args, **kwargs)

    def io_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(path, int):
            refuse(path)
        return real_io_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "open", open_)
    monkeypatch.setattr(io, "open", io_open)  # Path.read_bytes opens with it


class FailingDisk(io.BufferedReader):
    """A file whose disk gives a read error (EIO) once ``good`` lines have been read; a
    ``dead`` one then fails every read (the marks of a position cannot be read either)."""

    def __init__(self, path: Path, good: int, dead: bool = False) -> None:
        super().__init__(io.FileIO(path, "rb"))
        self._good = good
        self._dead = dead

    def readline(self, size: int | None = -1, /) -> bytes:
        if self._good == 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        self._good -= 1
        return super().readline(size)

    def read(self, size: int | None = -1, /) -> bytes:
        if self._dead and self._good == 0:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return super().read(size)


def failing_disk(path: Path, good: int, dead: bool = False) -> Input:
    """``path`` as an importer's input, read from a :class:`FailingDisk`."""
    file: Any = FailingDisk(path, good, dead)
    return Input(
        str(path),
        file,
        fd=file.fileno(),
        regular=True,
        size=path.stat().st_size,
        compression=None,
        counted=None,
        replay=None,
    )


def spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every member of the export the importer reads for its records (read whole,
    or held from the look for a channel's edits and deletions, then counted)."""
    reads: list[str] = []
    real, real_charge = slack_reader.Export.read, slack_reader.Export.charge

    def read(self: Any, member: str) -> bytes:
        reads.append(member)
        return real(self, member)

    def charge(self: Any, member: str, got: int) -> None:
        reads.append(member)
        real_charge(self, member, got)

    monkeypatch.setattr(slack_reader.Export, "read", read)
    monkeypatch.setattr(slack_reader.Export, "charge", charge)
    return reads
