"""docs/architecture.md's map of the package names every top-level module and package there is,
and nothing that is gone: a newcomer reads it to find where a thing lives."""

from __future__ import annotations

import re
from pathlib import Path

import memtrails

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(memtrails.__file__).parent


def _mapped() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = text.split("```\nmemtrails/\n", 1)[1].split("```", 1)[0]
    names: set[str] = set()
    for line in tree.splitlines():
        head = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]  # the names, before the words
        names.update(re.findall(r"\b\w+\.py\b", line))  # modules, in the words too
        names.update(part.split("/")[0] + "/" for part in head.split() if part.endswith("/"))
    return names


def _present() -> set[str]:
    found = set()
    for path in PACKAGE.iterdir():
        if path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
            found.add(path.name)
        elif path.is_dir() and any(path.glob("*.py")):  # folder/ has no __init__.py
            found.add(path.name + "/")
    return found


def test_the_map_names_every_module_and_no_other() -> None:
    mapped, present = _mapped(), _present()
    assert sorted(present - mapped) == [], "modules the map in docs/architecture.md leaves out"
    assert sorted(mapped - present) == [], "names in the map that are gone"
