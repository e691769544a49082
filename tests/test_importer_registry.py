"""The importer registry: a kind declared once is found by detection, the CLI and the MCP tool."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from memtrails import Memory
from memtrails.cli import main
from memtrails.importers.contract import Importer
from memtrails.importers.detect import detect_kind, plan
from memtrails.importers.registry import BUILTIN, importer, kinds, markdown_table, refresh
from memtrails.mcp.access import FolderAccess
from memtrails.mcp.server import build_server

# A whole importer in a package of its own: one module and one entry point.
TOY_MODULE = '''
from memtrails import MemoryRecord, SourceState
from memtrails.importers.contract import Importer, resumable_importer


@resumable_importer()
async def from_toy(path, *, source=None, state=None):
    """One record per line after the TOY header; resumes after the lines it read."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    done = (state or {}).get("lines", 0)
    for n, line in enumerate(lines[done:], start=done + 1):
        yield MemoryRecord(id=f"toy-{n}", text=line, source=source, kind="note")
    yield SourceState(source, {"lines": len(lines)}, mode="incremental" if done else "full",
                      complete=not done, skipped=done)


IMPORTER = Importer(
    "toy",
    "toy files: a TOY line, then one note per line",
    lambda o: from_toy(o.target, source=o.source, state=o.state),
    suffixes=frozenset({".toy"}),
    sniff=lambda head: head.startswith(b"TOY\\n"),
    state=dict,
)
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Install the toy importer as another package would: a module and its entry point."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "memtrails_toy.py").write_text(TOY_MODULE)
    info = site / "memtrails_toy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: memtrails-toy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[memtrails.importers]\ntoy = memtrails_toy:IMPORTER\n")
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    refresh()  # installed into this running process: read the entry points again
    yield site
    sys.modules.pop("memtrails_toy", None)
    monkeypatch.undo()
    refresh()


def _toy_file(folder: Path, name: str, lines: list[str]) -> Path:
    path = folder / name
    path.write_text("TOY\n" + "".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_builtin_kinds_and_the_docs_table() -> None:
    assert kinds() == ("jsonl", "json", "mbox", "eml", "maildir", "slack", "transcripts", "files")
    table = markdown_table()
    for spec in BUILTIN:
        assert f"| `{spec.kind}` | {spec.summary} |" in table
    docs = Path(__file__).resolve().parents[1].glob("**/*.md")
    assert any(table in p.read_text(encoding="utf-8") for p in docs if ".venv" not in p.parts), (
        "the docs' table of kinds is out of date: paste `python -m memtrails.importers.registry`"
    )


def test_a_kind_needs_a_proper_name() -> None:
    with pytest.raises(ValueError, match="`kind`"):
        Importer("Toy Files", "x", lambda o: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="`suffixes`"):
        Importer("toy", "x", lambda o: None, suffixes=frozenset({"toy"}))  # type: ignore[arg-type,return-value]


def test_a_registered_importer_is_detected(toy: Path, tmp_path: Path) -> None:
    assert "toy" in kinds()
    assert importer("toy").summary.startswith("toy files")
    assert detect_kind(_toy_file(tmp_path, "a.toy", ["one"])) == "toy"
    # by its first bytes, whatever the name
    assert detect_kind(_toy_file(tmp_path, "saved.txt", ["one"])) == "toy"
    # and inside a mixed folder, as a part of its own
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    _toy_file(mixed, "list.toy", ["x"])
    (mixed / "note.md").write_text("# a note\n")
    assert sorted(part.kind for part in plan(mixed)) == ["files", "toy"]


def test_a_registered_importer_is_a_choice_of_add(toy: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    shown = runner.invoke(main, ["add", "--help"])
    assert shown.exit_code == 0
    assert "toy" in shown.output.split("--kind", 1)[1].split("\n", 1)[0]
    refused = runner.invoke(main, ["add", str(tmp_path), "--kind", "nope", "--home", "h"])
    assert refused.exit_code == 2 and "toy" in refused.output


@pytest.mark.slow
def test_memtrails_add_reads_it_and_resumes(toy: Path, tmp_path: Path, embedder: Any) -> None:
    path = _toy_file(tmp_path, "notes.data", ["alpha", "beta"])
    home = tmp_path / "home"
    runner = CliRunner()
    # MiniLM by name: the folder is reopened below with the suite's MiniLM fixture.
    first = runner.invoke(
        main,
        ["add", str(path), "--kind", "toy", "--json", "--home", str(home), "--model", "minilm"],
    )
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["added"] == 2
    _toy_file(tmp_path, "notes.data", ["alpha", "beta", "gamma"])
    again = runner.invoke(main, ["add", str(path), "--kind", "toy", "--json", "--home", str(home)])
    report = json.loads(again.output)
    # the saved position came back to the importer by itself: only the new line was read
    assert (report["added"], report["unchanged"]) == (1, 2)
    assert report["sources"][0]["mode"] == "incremental"

    async def stored() -> str | None:
        async with Memory.open(home, embedder=embedder) as memory:
            record = await memory.get("toy-3")
            return record.text if record else None

    assert asyncio.run(stored()) == "gamma"


async def test_a_registered_importer_is_in_the_mcp_add_tool(toy: Path, tmp_path: Path) -> None:
    server = build_server(FolderAccess(tmp_path / "home"), allow_writes=True)
    async with Client(server) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    kind = tools["add"].input_schema["properties"]["kind"]
    enum = [e for branch in kind.get("anyOf", [kind]) for e in branch.get("enum", [])]
    assert set(enum) >= {*kinds()} and "toy" in enum
    assert "toy files" in kind["description"]
