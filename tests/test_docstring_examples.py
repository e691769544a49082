"""The examples in the package's docstrings run, and say what they show."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import memtrails

PACKAGE = Path(memtrails.__file__).parent
MODULES = sorted(
    ".".join(("memtrails", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for p in PACKAGE.rglob("*.py")
    if p.name != "__main__.py"  # runs the command line on import
)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_a_module_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of the examples in {name} fail (printed above)"
