"""The package's layering rule, enforced: no module imports from a layer above its own.

The rule (also in docs/architecture.md), lowest layer first:

1. base: ``_exceptions``, ``_threads``, ``_uncancelled``, ``portable``, ``dates``, ``date_fields``, ``day_order``, ``export_dates``, ``world_dates``, ``written_dates``, ``zone_names``, ``month_names``, ``locale_dates``, ``date_years``, ``periods``, ``words``, ``keys``, ``records``, ``reports``, ``record_values``, ``limits``
2. models and rules: ``embedding``, then ``secrets``, then ``items`` (what flows between
   the stages and the folder)
3. the three stages of the data flow, which never import one another: ``importers``,
   ``pipeline``, ``folder`` (the memory folder: the sink)
4. composition: ``ingest``, ``memory``, ``add``, ``mcp``, ``service``, ``cli``, ``testing``,
   ``extend`` and the package's ``__init__``

A module may import from lower layers and from its own group only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import memtrails

PACKAGE = Path(memtrails.__file__).parent

BASE = {
    "_exceptions",
    "_lazy",
    "_threads",
    "_uncancelled",
    "portable",
    "dates",
    "date_fields",
    "day_order",
    "export_dates",
    "world_dates",
    "written_dates",
    "zone_names",
    "month_names",
    "locale_dates",
    "date_years",
    "periods",
    "words",
    "keys",
    "records",
    "reports",
    "record_values",
    "limits",
}

LAYERS: list[list[set[str]]] = [
    [BASE | {"_measure", "_heap"}],
    [{"embedding"}],
    [{"secrets"}],
    [{"items"}],
    [{"importers"}, {"pipeline"}, {"folder"}],
    [
        {
            "ingest",
            "memory",
            "_opener",
            "add",
            "mcp",
            "service",
            "cli",
            "testing",
            "extend",
            "adapters",
            "maintenance",
        }
        | {"__init__", "__main__"}
    ],
]


def _place(top: str) -> tuple[int, int]:
    for level, groups in enumerate(LAYERS):
        for group, names in enumerate(groups):
            if top in names:
                return level, group
    raise AssertionError(
        f"memtrails.{top} has no layer: add it to LAYERS in tests/test_layers.py and to the "
        "docs/architecture.md"
    )


def _module_name(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts


def _imported(me: list[str], is_package: bool, source: str) -> list[tuple[int, list[str]]]:
    """Return (line, memtrails-relative module parts) of every memtrails import in a module."""
    package = me if is_package else me[:-1]
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if not node.module:  # from . import x
                    found.extend((node.lineno, [*base, alias.name]) for alias in node.names)
                    continue
                found.append((node.lineno, [*base, *node.module.split(".")]))
            elif node.module and node.module.split(".")[0] == "memtrails":
                found.append((node.lineno, node.module.split(".")[1:]))
        elif isinstance(node, ast.Import):
            found.extend(
                (node.lineno, alias.name.split(".")[1:])
                for alias in node.names
                if alias.name.split(".")[0] == "memtrails"
            )
    return found


def _violations(me: list[str], is_package: bool, source: str) -> list[str]:
    mine = _place(me[0] if me else "__init__")
    wrong = []
    for line, target in _imported(me, is_package, source):
        if target and _place(target[0]) != mine and _place(target[0])[0] >= mine[0]:
            wrong.append(
                f"{'/'.join(me) or '__init__'}:{line} imports memtrails.{'.'.join(target)}"
            )
    return wrong


def test_no_module_imports_from_a_higher_layer_or_a_sibling_stage() -> None:
    wrong = []
    modules = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        modules += 1
        source = path.read_text(encoding="utf-8")
        wrong += _violations(_module_name(path), path.name == "__init__.py", source)
    assert modules > 40  # the walk really saw the package
    assert not wrong, "layering broken:\n" + "\n".join(wrong)


def test_the_rule_reports_upward_and_sideways_imports() -> None:
    upward = "from ..memory import Memory\n"
    sideways = "def f():\n    from ..folder.table import Table\n"
    allowed = "from ..records import MemoryRecord\nfrom ._base import x\n"
    assert _violations(["pipeline", "dedup"], False, upward) == [
        "pipeline/dedup:1 imports memtrails.memory"
    ]
    assert _violations(["pipeline", "dedup"], False, sideways) == [
        "pipeline/dedup:2 imports memtrails.folder.table"
    ]
    assert _violations(["folder", "index", "edge"], False, allowed) == []
    assert _violations(["records"], False, "import memtrails.items\n") == [
        "records:1 imports memtrails.items"
    ]
