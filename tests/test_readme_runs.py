"""Every command the README's first page shows runs, typed as it is there, and does what the
page says it does.

They run in order, as a reader would run them, through bash in a fresh ``HOME`` (so
``~/.memtrails`` is the default folder), from a small Git repository standing in for "the root
of this repository": its history is three commits, its ``docs/`` a folder of notes, and
``memtrails add PATH...`` gets real inputs from the shared corpora (an mbox, ``.eml`` files, a
Slack export, JSON Lines) and a single note. Placeholders (``OLD NEW``, ``ID``, ``PATH...``)
become real values; what is not run says why in :data:`NOT_RUN`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from helpers import first_messages
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from memtrails.service.discovery import find_service

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MEMTRAILS = Path(sys.executable).parent / "memtrails"  # the installed command

NOT_RUN = {
    "pipx install .": "installs this package; scripts/install.sh does, before CI runs this suite "
    "with the command it installed",
    "pipx install '.[mcp]'": "the same with the mcp extra, which scripts/install.sh installs too",
    "scripts/install.sh": "installs the system packages and .venv/: CI runs it before this suite",
    "scripts/test.sh": "the whole suite, this test among it: what CI runs (.ci/run)",
}
# Shown more than once, run once: the stdio server the JSON config launches.
SAME_AS = {"memtrails mcp": "memtrails mcp --home /home/me/.memtrails"}
# The order they run in; several are written twice on the page.
RUN = (
    "memtrails --version",
    ".venv/bin/memtrails add --git . --home ./demo-memory",
    'eval "$(_MEMTRAILS_COMPLETE=bash_source memtrails)"',
    "_MEMTRAILS_COMPLETE=fish_source memtrails | source",
    "memtrails add --git .",
    "memtrails add docs",
    "memtrails add docs",
    "memtrails sources",
    "memtrails add PATH...",
    "memtrails status",
    "memtrails add --help",
    "memtrails move OLD NEW",
    'memtrails search "what happens after a crash?"',
    'memtrails search "index flush" --kind commit --since 2026-01 --k 5',
    'memtrails search "pipeline stages" --json',
    "memtrails show ID",
    "memtrails serve --home ~/.memtrails &",
    "memtrails add docs",
    'memtrails search "launch date"',
    "memtrails mcp --home /home/me/.memtrails",
)


def shown(text: str) -> list[str]:
    """Every command the page shows: the lines of its ``sh`` blocks (each side of ``&&``),
    the commands in its inline code, and the servers its JSON configs launch."""
    found: list[str] = []
    for block in text.split("```sh\n")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            line = line.split("  #", 1)[0].strip()
            found.extend(part.strip() for part in line.split(" && ") if part.strip())
    starts = ("memtrails ", "eval ", "_MEMTRAILS_COMPLETE=", "pipx ", "scripts/")
    found.extend(span for span in re.findall(r"`([^`\n]+)`", text) if span.startswith(starts))
    for block in text.split("```json\n")[1:]:
        for server in json.loads(block.split("```", 1)[0])["mcpServers"].values():
            found.append(" ".join([Path(server["command"]).name, *server["args"]]))
    return found


def test_every_command_on_the_page_is_run_or_says_why_not() -> None:
    on_page = shown(README.read_text(encoding="utf-8"))
    assert len(on_page) > 20
    covered = {*RUN, *NOT_RUN, *SAME_AS}
    assert [c for c in on_page if c not in covered] == [], "a README command no test runs"
    assert {*RUN, *NOT_RUN, *SAME_AS} <= set(on_page), "a command the README no longer shows"


def _git(repo: Path, *args: str, when: str = "2026-02-01T10:00:00Z") -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada Lovelace",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada Lovelace",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def _note(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


class Reader:
    """Someone at a shell in the repository, with a fresh HOME and ``memtrails`` on PATH."""

    def __init__(self, root: Path) -> None:
        self.home = root / "home"
        self.repo = self.home / "memtrails"
        bin_dir = root / "bin"
        bin_dir.mkdir()
        (bin_dir / "memtrails").symlink_to(MEMTRAILS)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("MEMTRAILS_")}
        self.env.update(HOME=str(self.home), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    def run(self, line: str, code: int = 0) -> str:
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=self.repo,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == code, f"{line}: exit {done.returncode}\n{done.stderr}"
        return done.stdout


@pytest.fixture(scope="module")
def reader(corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Reader:
    you = Reader(tmp_path_factory.mktemp("readme"))
    repo = you.repo
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    history = [
        ("2025-11-03T09:00:00Z", "index: flush the index once, when an import ends", "a.py"),
        ("2026-02-01T10:00:00Z", "index: flush after every batch, so a crash loses less", "a.py"),
        ("2026-03-02T11:00:00Z", "docs: how the folder recovers after a crash", "docs/crash.md"),
    ]
    for when, message, name in history:
        _note(repo / name, f"{message}\n")
        _git(repo, "add", "-A", when=when)
        _git(repo, "commit", "-q", "-m", message, when=when)
    _note(
        repo / "docs" / "crash.md",
        "# Crash recovery\n\nWhat happens after a crash: the next command replays the log "
        "into the index, so nothing written is lost.\n",
    )
    _note(
        repo / "docs" / "pipeline.md",
        "# Pipeline stages\n\nRecords flow through the stages: scrub, dedup, embed, write.\n",
    )
    _note(repo / "docs" / "cron.md", "# Cron\n\nRun `memtrails add` every hour from cron.\n")
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "memtrails").symlink_to(MEMTRAILS)
    inputs = repo / "inputs"
    inputs.mkdir()
    mbox = corpora / "mbox" / "twisted-web-2005-December.mbox"
    (inputs / "twisted-web.mbox").write_bytes(first_messages(mbox, 4))
    (inputs / "eml").mkdir()
    for n in (1, 4, 5):  # three Message-IDs (msg_03 is msg_01 again)
        shutil.copy(corpora / "eml" / "cpython" / f"msg_0{n}.eml", inputs / "eml")
    shutil.copytree(corpora / "slack" / "zulip-test_slack_importer", inputs / "slack")
    with (corpora / "jsonl" / "gsm8k-test.jsonl").open("rb") as src:
        (inputs / "gsm8k.jsonl").write_bytes(b"".join(src.readline() for _ in range(6)))
    _note(inputs / "notes.md", "# Standup\n\nThe release train leaves on Thursdays.\n")
    return you


def _titles(out: str) -> list[str]:
    """The titles of the results ``memtrails search`` prints, best first."""
    return [
        line.split("  ")[-1].strip() for line in out.splitlines() if re.match(r"\d\.\d{3} ", line)
    ]


@contextmanager
def _served(reader: Reader) -> Iterator[subprocess.Popen[str]]:
    """``memtrails serve --home ~/.memtrails &`` as shown, on a free port (``--port 0``): 8765,
    the page's default, may be taken where the suite runs. It must stop cleanly."""
    server = subprocess.Popen(
        ["bash", "-c", "exec memtrails serve --home ~/.memtrails --port 0"],
        cwd=reader.repo,
        env=reader.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while find_service(reader.home / ".memtrails") is None:
            assert server.poll() is None and time.monotonic() < deadline, "no service started"
            time.sleep(0.1)
        yield server
    finally:
        server.terminate()
        out, _ = server.communicate(timeout=60)
    assert server.returncode == 0 and "Traceback" not in out, out


# Each command starts the real model (a few seconds each on 2 cores): about a minute in all.
@pytest.mark.slow
async def test_every_command_on_the_page_runs(reader: Reader, corpora: Path) -> None:
    run, repo = reader.run, reader.repo
    done: list[str] = []

    def step(line: str) -> str:
        done.append(line)
        return line

    # Install
    assert re.match(r"memtrails, version \d", run(step("memtrails --version")))
    out = run(step(".venv/bin/memtrails add --git . --home ./demo-memory"))
    assert out.startswith("added 3,") and (repo / "demo-memory" / "records.jsonl").is_file()
    completion = step('eval "$(_MEMTRAILS_COMPLETE=bash_source memtrails)"')
    assert "_memtrails_completion" in run(f"{completion}; complete -p memtrails")
    # `| source` is fish's; the script it would source is what memtrails prints.
    fish = step("_MEMTRAILS_COMPLETE=fish_source memtrails | source")
    assert "complete --no-files --command memtrails" in run(fish.removesuffix(" | source"))

    # Add what you want to remember
    assert run(step("memtrails add --git .")).startswith("added 3,")
    assert run(step("memtrails add docs")).startswith("added 3,")
    assert run(step("memtrails add docs")).startswith("added 0, updated 0, unchanged 3,")
    sources = run(step("memtrails sources"))
    assert f"git:{repo}" in sources and f"{repo}/docs" in sources and "3 files" in sources
    paths = "inputs/twisted-web.mbox inputs/eml inputs/slack inputs/gsm8k.jsonl inputs/notes.md"
    step("memtrails add PATH...")
    out = run(f"memtrails add {paths}")
    # 4 mails, 3 more, 9 Slack messages, 6 problems and the note, none skipped.
    assert out.startswith("added 23, updated 0, unchanged 0, skipped 0,"), out
    status = run(step("memtrails status"))
    assert re.search(r"^records:\s+29 ", status, re.M) and f"{repo}/inputs/slack" in status
    assert "Usage: memtrails add [OPTIONS]" in run(step("memtrails add --help"))
    (repo / "inputs" / "old").mkdir()
    (repo / "inputs" / "twisted-web.mbox").rename(repo / "inputs" / "old" / "twisted-web.mbox")
    old, new = "inputs/twisted-web.mbox", "inputs/old/twisted-web.mbox"
    step("memtrails move OLD NEW")
    run(f"memtrails move {old} {new}")
    again = run(f"memtrails add {new}")  # continues the moved source: nothing read again
    assert again.startswith("added 0, updated 0, unchanged 4, skipped 0, removed 0"), again

    # Search
    crash = _titles(run(step('memtrails search "what happens after a crash?"')))
    assert crash[0] == "Crash recovery", crash
    flush = run(step('memtrails search "index flush" --kind commit --since 2026-01 --k 5'))
    assert _titles(flush)[0] == "index: flush after every batch, so a crash loses less", flush
    assert "once, when an import ends" not in flush  # 2025: before --since
    assert all(" commit " in line for line in flush.splitlines() if re.match(r"\d\.\d{3} ", line))
    hits = json.loads(run(step('memtrails search "pipeline stages" --json')))
    assert hits[0]["title"] == "Pipeline stages" and "confident" in hits[0]
    step("memtrails show ID")
    whole = run(f"memtrails show {hits[0]['id']}")
    assert "scrub, dedup, embed, write" in whole

    # Use it from an agent: the service, then the stdio server (after the service stops:
    # one process owns the folder).
    _note(repo / "docs" / "launch.md", "# Launch\n\nThe launch date moved to 12 June.\n")
    step("memtrails serve --home ~/.memtrails &")
    with _served(reader) as server:
        # The service holds the folder: these work only through it.
        assert run(step("memtrails add docs")).startswith("added 1, updated 0, unchanged 3,")
        assert _titles(run(step('memtrails search "launch date"')))[0] == "Launch"
        assert server.poll() is None
    config = json.loads(README.read_text(encoding="utf-8").split("```json\n")[1].split("```")[0])
    launch = config["mcpServers"]["memtrails"]
    args = [a.replace("/home/me", str(reader.home)) for a in launch["args"]]
    step(" ".join(["memtrails", *launch["args"]]))
    params = StdioServerParameters(command=str(MEMTRAILS), args=args, env=reader.env)
    with (reader.home / "mcp-stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert {"search", "get", "status"} <= tools
            found = await client.call_tool("search", {"query": "launch date", "k": 3})
            assert not found.is_error and found.structured_content is not None
            assert found.structured_content["results"][0]["title"] == "Launch"

    assert done == list(RUN)  # each command the page shows, in the page's order of sections
