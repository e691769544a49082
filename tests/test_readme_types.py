"""The README's Python samples pass ``mypy --strict`` as a user would copy them.

Each ```python block of README.md (and of docs/*.md) is checked as its own module. A short
prelude declares the few names a sample takes from the text around it (an open ``memory``,
a database ``conn``); everything the sample imports or defines is checked as written.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# What a sample may use without defining it: the objects the prose says it already holds.
# Private aliases, so that a sample which forgets an import of its own still fails.
PRELUDE = """\
import sqlite3 as _sqlite3
from collections.abc import AsyncIterator as _AsyncIterator
from typing import Any as _Any

import asyncpg as _asyncpg

import memtrails as _memtrails

memory: _memtrails.Memory
conn: _asyncpg.Connection
sqlite_cursor: _sqlite3.Cursor
dsn: str


async def fetch(since: _Any) -> _AsyncIterator[dict[str, _Any]]:
    yield {"id": "1", "text": "a row", "updated_at": since}


"""


def samples() -> list[tuple[str, str]]:
    """Return ``(where, code)`` for every Python block of the README and the docs."""
    found = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            found.append((f"{doc.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def test_the_readme_has_samples() -> None:
    assert len(samples()) >= 5


@pytest.mark.slow
def test_readme_samples_pass_mypy_strict(tmp_path: Path) -> None:
    files: dict[str, str] = {}
    for i, (where, code) in enumerate(samples()):
        path = tmp_path / f"sample_{i}.py"
        path.write_text(PRELUDE + code, encoding="utf-8")
        files[path.name] = where
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--strict",
            # The samples await at the top level, as in an async REPL or a notebook.
            "--disable-error-code",
            "top-level-await",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            *sorted(str(tmp_path / name) for name in files),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    prelude_lines = PRELUDE.count("\n")
    errors = []
    for line in result.stdout.splitlines():
        found = re.match(r".*?(sample_\d+\.py):(\d+): (error: .*)", line)
        if found:
            where, first = files[found.group(1)].rsplit(":", 1)
            errors.append(
                f"{where}:{int(first) + int(found.group(2)) - prelude_lines - 1}: {found.group(3)}"
            )
    assert result.returncode == 0 and not errors, "\n".join(errors) or result.stdout + result.stderr
