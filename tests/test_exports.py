"""The public API: ``memtrails.__all__`` and the package agree, names are documented, imports are light."""

from __future__ import annotations

import subprocess
import sys
import types

import memtrails


def test_all_is_sorted_and_documented() -> None:
    assert memtrails.__all__ == sorted(memtrails.__all__)
    for name in memtrails.__all__:
        value = getattr(memtrails, name)
        assert value.__doc__, f"{name} has no docstring"


def test_all_and_the_package_agree_in_both_directions() -> None:
    # Every lazy name resolves, so the namespace below holds everything that can be reached.
    for name in memtrails.__all__:
        getattr(memtrails, name)
    public = {
        name
        for name, value in vars(memtrails).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(memtrails.__all__)


def test_public_names_say_memtrails() -> None:
    for name in ("Memory", "MemoryRecord", "from_jsonl", "OnnxEmbedder", "EdgeIndex"):
        assert getattr(memtrails, name).__module__ == "memtrails", name


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
