"""The public API: each public namespace's ``__all__`` and its names agree, names are documented,
imports are light."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import memtrails
import memtrails.extend
import memtrails.secrets
import memtrails.testing

# Constants and type aliases carry no docstring of their own.
_UNDOCUMENTED = {"CONFIDENT_COSINE", "ENTRY_POINTS", "KINDS", "RULES", "RULES_VERSION", "Vector"}


def _isort_style(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions, each alphabetical.
    return (0 if name.isupper() else 1 if name[0].isupper() else 2), name


@pytest.mark.parametrize(
    "module", [memtrails, memtrails.extend, memtrails.testing, memtrails.secrets]
)
def test_all_is_sorted_and_documented(module: types.ModuleType) -> None:
    assert module.__all__ == sorted(module.__all__, key=_isort_style)
    for name in module.__all__:
        value = getattr(module, name)
        if name not in _UNDOCUMENTED:
            assert value.__doc__, f"{name} has no docstring"


@pytest.mark.parametrize("module", [memtrails, memtrails.extend, memtrails.secrets])
def test_all_and_the_namespace_agree_in_both_directions(module: types.ModuleType) -> None:
    # Every lazy name resolves, so the namespace below holds everything that can be reached.
    for name in module.__all__:
        getattr(module, name)
    public = {
        name
        for name, value in vars(module).items()
        # ``annotations``: what ``from __future__ import annotations`` leaves in a module
        if not name.startswith("_")
        and name != "annotations"
        and not isinstance(value, types.ModuleType)
    }
    assert public == set(module.__all__)


def test_testing_exports_what_it_defines() -> None:
    # Its helpers import freely; what it defines itself it exports.
    defined = {
        name
        for name, value in vars(memtrails.testing).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == "memtrails.testing"
    }
    assert defined <= set(memtrails.testing.__all__)  # it may re-export a double too
    assert all(hasattr(memtrails.testing, name) for name in memtrails.testing.__all__)


def test_plumbing_is_not_at_the_top() -> None:
    # A pipeline of your own finds them in memtrails.extend; users of Memory never need them.
    for name in ("batch", "prefetch", "in_flight_bound"):
        assert not hasattr(memtrails, name), name
        assert name in memtrails.extend.__all__


def test_what_the_readme_names_is_importable_from_memtrails() -> None:
    from memtrails import CONFIDENT_COSINE, add_git, add_path, from_maildir

    assert callable(from_maildir) and callable(add_path) and callable(add_git)
    assert 0 < CONFIDENT_COSINE < 1


def test_public_names_say_memtrails() -> None:
    for name in ("Memory", "MemoryRecord", "from_jsonl", "OnnxEmbedder", "EdgeIndex"):
        assert getattr(memtrails, name).__module__ == "memtrails", name


@pytest.mark.slow
def test_import_memtrails_loads_no_model_runtime_or_index_client() -> None:
    code = (
        "import sys, memtrails\n"
        "heavy = ('onnxruntime', 'tokenizers', 'qdrant_edge', 'qdrant_client', 'httpx')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == ""
    # ...and that the check can see them: touching a lazy name loads its runtime.
    code = "import sys, memtrails\nmemtrails.EdgeIndex\nprint('qdrant_edge' in sys.modules)\n"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "True"


def test_typed_package() -> None:
    from importlib.resources import files

    assert files("memtrails").joinpath("py.typed").is_file()
