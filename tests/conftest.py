"""Shared fixtures: where the real corpora are, and temporary memory folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The read-only real-world corpora shipped beside the repository (../shared/corpora)."""
    if not CORPORA.is_dir():
        pytest.fail(f"corpora not found at {CORPORA}; set MEMTRAILS_CORPORA")
    return CORPORA
