"""The exception tree: the drawing in ``_exceptions``'s docstring is the real hierarchy, every
error is defined there and exported from ``memtrails``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memtrails
from memtrails import _exceptions

PACKAGE = Path(memtrails.__file__).parent


def _drawn() -> dict[str, str | None]:
    """Each class the docstring draws, with its drawn parent (None for the root)."""
    doc = _exceptions.__doc__ or ""
    tree = doc.split("::", 1)[1]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []  # (column of the name, name) of the open branches
    for line in tree.splitlines():
        found = re.search(r"[A-Za-z_]\w*", line)
        if not found:
            continue
        if line[: found.start()].strip(" │├└─") or not line.startswith("    "):
            break  # prose after the drawing
        column, name = found.start(), found.group()
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[name] = stack[-1][1] if stack else None
        stack.append((column, name))
    return parents


def _real() -> dict[str, str | None]:
    # Every exception class the module holds but the built-in ones (``__module__`` of ours
    # says ``memtrails``: the package re-exports them under its name).
    classes = {
        name: value
        for name, value in vars(_exceptions).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ != "builtins"
    }
    return {
        name: next((base.__name__ for base in cls.__bases__ if base.__name__ in classes), None)
        for name, cls in classes.items()
    }


def test_the_drawn_tree_is_the_class_hierarchy() -> None:
    drawn = _drawn()
    assert drawn, "the docstring draws no tree"
    assert drawn == _real()


def test_one_root_and_every_error_exported() -> None:
    real = _real()
    assert [name for name, parent in real.items() if parent is None] == ["MemtrailsError"]
    assert set(_exceptions.__all__) == set(real)
    for name in real:
        assert name in memtrails.__all__, f"{name} is not exported from memtrails"
        assert getattr(memtrails, name) is getattr(_exceptions, name)


def test_no_memtrails_error_is_defined_outside_the_tree() -> None:
    # A class in another module deriving from one of ours belongs in _exceptions.py, drawn
    # and exported, so users can catch it by a public name.
    ours = set(_real())
    outside = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_exceptions.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                if bases & ours:
                    outside.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert outside == []
