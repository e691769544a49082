"""Shared fixtures: where the real corpora are, and temporary memory folders."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The read-only real-world corpora shipped beside the repository (../shared/corpora)."""
    if not CORPORA.is_dir():
        pytest.fail(f"corpora not found at {CORPORA}; set MEMTRAILS_CORPORA")
    return CORPORA


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The real packaged model, loaded once for the whole run (it is loop-agnostic)."""
    from memtrails.embedding import default_embedder

    model = asyncio.run(default_embedder(threads=2))
    yield model
    asyncio.run(model.aclose())


@pytest.fixture
def gsm8k_subset(corpora: Path, tmp_path: Path) -> Callable[[int], Path]:
    """Write the first N lines of the real gsm8k corpus to a temp .jsonl and return its path."""

    def make(n: int) -> Path:
        out = tmp_path / f"gsm8k-{n}.jsonl"
        with (corpora / "jsonl" / "gsm8k-test.jsonl").open("rb") as src, out.open("wb") as dst:
            for _, line in zip(range(n), src, strict=False):
                dst.write(line)
        return out

    return make
