"""Every Python example of docs/python.md runs, typed as it is there, and prints what the page
says it prints.

Each ```python block is run whole, in order, as a reader would paste it into a script: in a
scratch folder (``archive.mbox`` there is the first messages of a real list archive from the
shared corpora) with a fresh ``HOME``, so ``~/.memtrails`` is a new folder. The real model
would make this a minute or more of embedding on 2 cores, and the page's claims are about
the API, not the model's ranking: ``Memory.open`` gets :class:`memtrails.testing.HashingEmbedder`
where the example names no embedder. No PostgreSQL server runs here: for the asyncpg example
``asyncpg`` is a stand-in whose connection's server-side cursor yields rows with ``keys()``,
as ``asyncpg.Record``s do, inside a transaction it checks is open.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import first_messages

from memtrails import Memory
from memtrails.testing import HashingEmbedder

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "python.md"
MAILS = 6  # messages of the real archive the first example imports


def blocks() -> list[str]:
    """The page's ```python blocks, in order."""
    text = PAGE.read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


class _Row(dict[str, Any]):
    """A row as asyncpg gives one: ``keys()`` and ``row["name"]``, not a dict subclass there,
    but read through the same ``keys()``."""


class _Connection:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.in_transaction = False
        self.closed = False

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        self.in_transaction = True
        try:
            yield
        finally:
            self.in_transaction = False

    async def cursor(self, query: str) -> AsyncIterator[_Row]:
        assert self.in_transaction, "asyncpg's cursors need a transaction"
        assert query.startswith("SELECT id, summary AS title, body AS text FROM tickets")
        for row in self.rows:
            yield _Row(row)

    async def close(self) -> None:
        self.closed = True


def _asyncpg(conn: _Connection) -> types.ModuleType:
    module = types.ModuleType("asyncpg")

    async def connect(dsn: str) -> _Connection:
        assert dsn == "postgresql://localhost/helpdesk"
        return conn

    module.connect = connect  # type: ignore[attr-defined]
    module.Connection = _Connection  # type: ignore[attr-defined]
    module.Record = _Row  # type: ignore[attr-defined]
    return module


@pytest.fixture
def reader(
    tmp_path: Path,
    corpora: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Callable[[str], str]:
    """Runs one example as a script in a scratch folder; returns what it printed."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    mbox = corpora / "mbox" / "twisted-web-2005-December.mbox"
    (work / "archive.mbox").write_bytes(first_messages(mbox, MAILS))
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEMTRAILS_HOME", raising=False)
    opened = Memory.open

    def open_hashing(path: Any, **kwargs: Any) -> Any:
        if kwargs.get("embedder") is None and kwargs.get("model") is None:
            kwargs["embedder"] = HashingEmbedder()
        return opened(path, **kwargs)

    monkeypatch.setattr(Memory, "open", staticmethod(open_hashing))

    def run(code: str) -> str:
        capsys.readouterr()
        exec(compile(code, str(PAGE), "exec"), {"__name__": "__main__"})
        return capsys.readouterr().out

    return run


def test_the_page_shows_the_examples_this_test_runs() -> None:
    found = blocks()
    assert len(found) == 3
    assert "from_mbox(" in found[0]
    assert "from_iterable(rows, in_thread=True)" in found[1]
    assert "import asyncpg" in found[2]


def test_import_an_mbox_and_search_it(reader: Callable[[str], str]) -> None:
    first = blocks()[0]
    out = reader(first).splitlines()
    assert out[0] == f"{MAILS} 0 0", out  # report.added, report.unchanged, report.skipped
    hits = [line for line in out[1:] if not line.startswith("  ")]
    assert len(hits) == 5  # k=5
    assert all(re.fullmatch(r"\d\.\d{3} .+ \(.+@.+\)", hit) for hit in hits), hits
    assert all(line.startswith("  ") and line.strip() for line in out[2::2])
    # As the comment on the page says: a second run finds every mail unchanged.
    assert reader(first).splitlines()[0] == f"0 {MAILS} 0"


def test_a_db_api_cursor_and_records_of_your_own(reader: Callable[[str], str]) -> None:
    code = blocks()[1]
    printed = reader(code).splitlines()
    promised = [line.split("  # ", 1)[1] for line in code.splitlines() if "print(" in line]
    assert printed == promised
    assert Path("app.db").is_file()
    again = reader(code).splitlines()  # the same rows and records: nothing added
    assert again[:2] == ["0 added from app.db", "0 added from notes"]


def test_an_asyncpg_server_side_cursor(
    reader: Callable[[str], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = _Connection(
        [
            {"id": 7, "title": "Printer jams", "text": "The printer on floor 2 jams."},
            {"id": 8, "title": "VPN drops", "text": "The VPN drops every hour."},
        ]
    )
    monkeypatch.setitem(sys.modules, "asyncpg", _asyncpg(conn))
    monkeypatch.setenv("DATABASE_URL", "postgresql://localhost/helpdesk")
    assert reader(blocks()[2]).splitlines() == ["2 tickets added"]
    assert conn.closed and not conn.in_transaction
