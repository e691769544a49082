"""Peak RSS and seconds of memtrails on the red team's hostile inputs, each in its own process.

Usage: python benchmarks/hostile_rss.py [CASE ...] [--bad-lines 2000000] [--values-mib 60]
    [--mail-mib 60] [--query-mib 8] [--sessions 3000] [--idle-wait 320]
    [--model minilm]

Cases, all without a name (the target is under 600 MB each):
- ``bad_lines``: a JSON Lines file of N lines that are not JSON (2M lines = 4 MB), through
  ``memtrails add --json`` (the report keeps 1,000 errors and counts the rest);
- ``values_line``: one line of ``[{},{},...]`` of the given size through ``from_jsonl``
  (refused before parsing: more than 2,000,000 values);
- ``notes_folder``: a notes folder with a ``.gitignore`` rule ``a*a*...a*b`` (12 stars) and
  long names, a FIFO, symbolic links out of it and its own ``--home`` inside, through
  ``add_path`` (hashing embedder: the walk is measured, not the model);
- ``mail_eml``: one mail of N MiB of tiny MIME parts (``--b``, a header, ``x``), as an ``.eml``
  file, through ``memtrails add`` (the default model, or ``--model``; cut at MAX_PARTS, named
  ``TooManyPartsDefect``); ``mail_mbox``: the same mail between two small ones in an mbox;
  ``mail_mbox_cl``: the same with a ``Content-Length`` header and a separator-like first body
  line (mboxcl2: the body is read ahead to the length's end before it is believed);
  ``mail_cr``: the same mail with lone CRs for line ends (the parser ends lines at them too);
  ``mail_line``: an mbox of one N MiB mail whose text body is one line of 8-bit (Latin-1)
  words between two small mails (cut before parsing to 8 bytes a unit of the text limit,
  named ``TooLargeDefect``);
  ``mail_small``: a one-line mail, the same command: the model's own share of those peaks;
- ``mcp_stdio``: ``memtrails mcp --home`` on a 3-record folder (the same model): after one
  search, a search of an N MiB query on one line, then another search; the server's RSS and
  peak (``VmHWM``) before and after the big one; ``mcp_http``: the same over ``--http`` (the
  big body is answered 413);
- ``mcp_sessions``: ``memtrails mcp --http`` opened N times (``initialize``, no ``DELETE``,
  left idle): how many were let in, and the server's RSS at start and after; with
  ``--idle-wait S``, again S seconds later (past the 5-minute idle timeout), and whether an
  ended session answers 404 and a new one is let in.

The last line of output is one JSON object with every figure (and the machine's load).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

# the benchmarks folder is not a package: sys.path above
from _common import machine, run_measured

CASES = (
    "bad_lines",
    "values_line",
    "notes_folder",
    "mail_eml",
    "mail_mbox",
    "mail_mbox_cl",
    "mail_cr",
    "mail_line",
    "mail_small",
    "mcp_stdio",
    "mcp_http",
    "mcp_sessions",
)
Figures = dict[str, Any]

_VALUES = """
import asyncio, json, sys
from memtrails.importers.jsonl import from_jsonl
async def main():
    kinds = {}
    async for item in from_jsonl(sys.argv[1]):
        kinds[type(item).__name__] = kinds.get(type(item).__name__, 0) + 1
    print(json.dumps(kinds))
asyncio.run(main())
"""

_NOTES = """
import asyncio, json, sys
from memtrails import Memory
from memtrails.add import add_path
from memtrails.testing import HashingEmbedder
async def main():
    root = sys.argv[1]
    async with Memory.open(root + "/home", embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, root)
    print(json.dumps({"added": report.added, "skipped": report.skipped}))
asyncio.run(main())
"""


def _notes_folder(root: Path) -> None:
    root.mkdir()
    (root / ".gitignore").write_text("a*" * 12 + "b\n", encoding="utf-8")
    for n in range(200):
        (root / (f"{n:03d}" + "a" * 200 + ".md")).write_text(f"# note {n}\n", encoding="utf-8")
    os.mkfifo(root / "pipe.txt")
    os.symlink("/etc/passwd", root / "x.eml")
    os.symlink(root.parent, root / "up")


def _many_parts(mib: int, eol: bytes = b"\n") -> bytes:
    """Return a mail of about ``mib`` MiB of tiny MIME parts, its lines ended by ``eol``."""
    head = (
        b"From: a@example.org\nSubject: many parts\nMessage-ID: <many@example.org>\n"
        b"Content-Type: multipart/mixed; boundary=b\n\n"
    )
    part = b"--b\nContent-Type: text/plain\n\nx\n"
    count = (mib * 1024 * 1024 - len(head)) // len(part)
    return (head + part * count + b"--b--\n").replace(b"\n", eol)


def _small_mail(n: int) -> bytes:
    return f"From: b@example.org\nSubject: small {n}\nMessage-ID: <s{n}@example.org>\n\nhi {n}\n".encode()


def _model(model: str | None) -> list[str]:
    return [] if model is None else ["--model", model]


def _add(work: Path, name: str, path: Path, model: str | None) -> Figures:
    """``memtrails add --home ... PATH --json`` in its own process (``--model``, else the default)."""
    argv = [sys.executable, "-m", "memtrails", "add", "--home", str(work / name), str(path)]
    argv += _model(model)
    run = run_measured([*argv, "--json"])
    report = run.result
    return {
        "mib": round(path.stat().st_size / 2**20, 1),
        "peak_rss_mib": round(run.peak_rss_mib, 1),
        "seconds": round(run.seconds, 1),
        "added": report["added"],
        "errors": len(report["errors"]),
    }


def _mail_case(work: Path, case: str, mib: int, model: str | None) -> Figures:
    if case == "mail_small":
        path = work / "small.eml"
        path.write_bytes(_small_mail(0))
    elif case == "mail_line":
        path = work / "line.mbox"
        sep = b"From a@example.org Mon Jan  1 00:00:00 2024\n"
        head = b"From: a@example.org\nSubject: one line\nMessage-ID: <line@example.org>\n"
        head += b"Content-Type: text/plain; charset=latin-1\n\nfirst words "
        body = head + b"caf\xe9 abcdefg " * (mib * 1024 * 1024 // 15) + b"\n"
        parts = [_small_mail(1), body, _small_mail(2)]
        path.write_bytes(b"".join(sep + p + b"\n" for p in parts))
    elif case.startswith("mail_mbox"):
        path = work / "many.mbox"
        sep = b"From a@example.org Mon Jan  1 00:00:00 2024\n"
        many = _many_parts(mib)
        if case == "mail_mbox_cl":
            head, _, body = many.partition(b"\n\n")
            body = sep + body
            many = head + b"\nContent-Length: %d\n\n" % len(body) + body
        parts = [_small_mail(1), many, _small_mail(2)]
        path.write_bytes(b"".join(sep + p + b"\n" for p in parts))
    else:
        path = work / f"{case}.eml"
        path.write_bytes(_many_parts(mib, b"\r" if case == "mail_cr" else b"\n"))
    figures = _add(work, f"h-{case}", path, model)
    path.unlink()
    return figures


# -- the MCP server, driven from here: its own process, measured from /proc -----------------


def _status_mib(pid: int) -> dict[str, float]:
    """Return a process's RSS now and its peak so far (VmRSS, VmHWM), in MiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024, 1)
    return {"rss_mib": fields["VmRSS"], "peak_mib": fields["VmHWM"]}


def _folder(work: Path, model: str | None) -> Path:
    """A 3-record memory folder made by ``memtrails add`` (its manifest names the model)."""
    home = work / "served"
    if not home.exists():
        rows = [{"id": str(n), "text": t} for n, t in enumerate(["apples", "pears", "plums"])]
        source = work / "three.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        cli = [sys.executable, "-m", "memtrails", "add", "--home", str(home), str(source)]
        cli += _model(model)
        subprocess.run(cli, check=True, capture_output=True)
    return home


def _search(request_id: int, query: str) -> dict[str, Any]:
    params = {"name": "search", "arguments": {"query": query}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


_INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "hostile_rss", "version": "1"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


async def _mcp_stdio(home: Path, query_mib: int) -> Figures:
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "memtrails", "mcp", "--home", str(home),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, limit=1 << 24,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None

    async def ask(request: dict[str, Any]) -> dict[str, Any]:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps(request).encode() + b"\n")
        await server.stdin.drain()
        while True:
            reply = json.loads(await asyncio.wait_for(server.stdout.readline(), 300))
            if reply.get("id") == request["id"]:
                return reply

    try:
        await ask(_INIT)
        server.stdin.write(json.dumps(_INITIALIZED).encode() + b"\n")
        started = _status_mib(server.pid)
        await ask(_search(2, "apples"))  # loads the model: the server as it is when in use
        before = _status_mib(server.pid)
        t = time.perf_counter()
        big = await ask(_search(3, "x" * (query_mib * 2**20)))
        seconds = time.perf_counter() - t
        after = _status_mib(server.pid)
        last = await ask(_search(4, "pears"))
    finally:
        server.stdin.close()
        await asyncio.wait_for(server.wait(), 60)
    return {
        **_query_figures(query_mib, started, before, after, seconds),
        "answer": json.dumps(big.get("error") or big.get("result"))[:120],
        "next_search_answered": "result" in last,
    }


def _query_figures(
    query_mib: int,
    started: dict[str, float],
    before: dict[str, float],
    after: dict[str, float],
    seconds: float,
) -> Figures:
    """The server's memory around one oversized query, as both MCP transports report it."""
    return {
        "query_mib": query_mib,
        "rss_at_start_mib": started["rss_mib"],
        "rss_before_mib": before["rss_mib"],
        "peak_before_mib": before["peak_mib"],
        "rss_after_mib": after["rss_mib"],
        "peak_rss_mib": after["peak_mib"],
        "seconds": round(seconds, 2),
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


async def _http_server(home: Path) -> tuple[asyncio.subprocess.Process, str]:
    port = _free_port()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "memtrails", "mcp", "--home", str(home), "--http", str(port),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(600):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return server, f"http://127.0.0.1:{port}/mcp"
        await asyncio.sleep(0.1)
    server.kill()
    raise RuntimeError("the MCP HTTP server did not start")


async def _open_session(http: httpx.AsyncClient, url: str) -> str | None:
    """Initialize one session; return its id, or None when the server refused it."""
    answer = await http.post(url, headers=_HEADERS, json=_INIT)
    if answer.status_code != 200:
        return None
    session = answer.headers["mcp-session-id"]
    headers = {**_HEADERS, "mcp-session-id": session}
    await http.post(url, headers=headers, json=_INITIALIZED)
    return session


async def _stopped(server: asyncio.subprocess.Process) -> None:
    server.terminate()
    await asyncio.wait_for(server.wait(), 60)


async def _mcp_http(home: Path, query_mib: int) -> Figures:
    server, url = await _http_server(home)
    try:
        async with httpx.AsyncClient(timeout=300) as http:
            session = await _open_session(http, url)
            assert session is not None
            headers = {**_HEADERS, "mcp-session-id": session}
            started = _status_mib(server.pid)
            warm = await http.post(url, headers=headers, json=_search(2, "apples"))
            before = _status_mib(server.pid)
            body = json.dumps(_search(3, "x" * (query_mib * 2**20))).encode()
            t = time.perf_counter()
            big = await http.post(url, headers=headers, content=body)
            seconds = time.perf_counter() - t
            after = _status_mib(server.pid)
            last = await http.post(url, headers=headers, json=_search(4, "pears"))
    finally:
        await _stopped(server)
    return {
        **_query_figures(query_mib, started, before, after, seconds),
        "status": big.status_code,
        "searches_answered": warm.status_code == 200 and last.status_code == 200,
    }


async def _mcp_sessions(home: Path, sessions: int, idle_wait: float) -> Figures:
    server, url = await _http_server(home)
    idle: Figures = {}
    try:
        async with httpx.AsyncClient(timeout=60) as http:
            first = await _open_session(http, url)  # the server as it is once serving
            started = _status_mib(server.pid)
            t = time.perf_counter()
            opened = [await _open_session(http, url) for _ in range(sessions - 1)]
            seconds = time.perf_counter() - t
            after = _status_mib(server.pid)
            if idle_wait > 0:  # past the idle timeout: the sessions ended, room for new ones
                await asyncio.sleep(idle_wait)
                rss = _status_mib(server.pid)["rss_mib"]
                headers = {**_HEADERS, "mcp-session-id": first or ""}
                ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
                gone = await http.post(url, headers=headers, json=ping)
                idle = {
                    "idle_wait_s": idle_wait,
                    "rss_after_idle_mib": rss,
                    "old_session_answers": gone.status_code,
                    "new_session_let_in": await _open_session(http, url) is not None,
                }
    finally:
        await _stopped(server)
    let_in = (first is not None) + sum(s is not None for s in opened)
    return {
        "sessions": sessions,
        "let_in": let_in,
        "refused_503": sessions - let_in,
        "rss_at_start_mib": started["rss_mib"],
        "rss_after_mib": after["rss_mib"],
        "peak_rss_mib": after["peak_mib"],
        "seconds": round(seconds, 1),
        **idle,
    }


def _run_case(case: str, work: Path, args: argparse.Namespace) -> Figures:
    if case.startswith("mail_"):
        return _mail_case(work, case, args.mail_mib, args.model)
    cases: dict[str, Callable[[], Figures]] = {
        "bad_lines": lambda: _bad_lines(work, args.bad_lines),
        "values_line": lambda: _values_line(work, args.values_mib),
        "notes_folder": lambda: _notes(work),
        "mcp_stdio": lambda: asyncio.run(_mcp_stdio(_folder(work, args.model), args.query_mib)),
        "mcp_http": lambda: asyncio.run(_mcp_http(_folder(work, args.model), args.query_mib)),
        "mcp_sessions": lambda: asyncio.run(
            _mcp_sessions(_folder(work, args.model), args.sessions, args.idle_wait)
        ),
    }
    return cases[case]()


def _bad_lines(work: Path, lines: int) -> Figures:
    bad = work / "bad.jsonl"
    bad.write_bytes(b"x\n" * lines)
    run = run_measured(
        [sys.executable, "-m", "memtrails", "add", "--home", str(work / "h1"), str(bad), "--json"]
    )
    bad.unlink()
    return {
        "lines": lines,
        "peak_rss_mib": round(run.peak_rss_mib, 1),
        "seconds": round(run.seconds, 1),
        "json_report_bytes": len(json.dumps(run.result)),
    }


def _values_line(work: Path, mib: int) -> Figures:
    values = work / "values.jsonl"
    count = mib * 1024 * 1024 // 3
    values.write_bytes(b'{"text": "x", "v": [' + b"{}," * count + b"{}]}\n")
    run = run_measured([sys.executable, "-c", _VALUES, str(values)])
    values.unlink()
    return {
        "mib": mib,
        "peak_rss_mib": round(run.peak_rss_mib, 1),
        "seconds": round(run.seconds, 1),
    }


def _notes(work: Path) -> Figures:
    _notes_folder(work / "notes")
    run = run_measured([sys.executable, "-c", _NOTES, str(work / "notes")])
    return {
        "peak_rss_mib": round(run.peak_rss_mib, 1),
        "seconds": round(run.seconds, 1),
        **run.result,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"any of {', '.join(CASES)}")
    parser.add_argument("--bad-lines", type=int, default=2_000_000)
    parser.add_argument("--values-mib", type=int, default=60)
    parser.add_argument("--mail-mib", type=int, default=60)
    parser.add_argument("--query-mib", type=int, default=8)
    parser.add_argument("--sessions", type=int, default=3000)
    parser.add_argument(
        "--idle-wait", type=float, default=0, help="mcp_sessions: then wait this long (s)"
    )
    parser.add_argument(
        "--model", default=None, help="the mail and MCP folders' model (default: the default)"
    )
    args = parser.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error(f"no such case: {', '.join(unknown)} (cases: {', '.join(CASES)})")
    out: dict[str, Any] = {}
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases or CASES:
            out[case] = _run_case(case, Path(tmp), args)
            load.append(os.getloadavg()[0])
    for name, figures in out.items():
        print(f"{name:13} " + ", ".join(f"{k} {v}" for k, v in figures.items()))
    out["machine"] = {**machine(), "load_1min_during": [round(x, 2) for x in load]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
