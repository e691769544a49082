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


# A public name's ``__module__`` reads ``memtrails`` once it is loaded through the package, and
# an aiostream operator (``normalise``, ``batch``...) is neither a function nor a class:
# ``doctest.testmod`` of the module that defines one then passes its examples by without a
# word. Each public name's examples are therefore also found from the name itself.
NAMESPACES = ("memtrails", "memtrails.extend", "memtrails.testing", "memtrails.secrets")
PUBLIC = sorted(
    f"{namespace}.{name}"
    for namespace in NAMESPACES
    for name in importlib.import_module(namespace).__all__
)


@pytest.mark.parametrize("name", PUBLIC)
def test_the_examples_of_a_public_name_hold(name: str) -> None:
    namespace, _, attr = name.rpartition(".")
    module = importlib.import_module(namespace)
    value = getattr(module, attr)
    if not str(getattr(value, "__module__", "")).startswith("memtrails"):
        pytest.skip(f"{name} is a value or an alias of another library's type")
    # What the example sees unimported: the namespace's names and, for a function, its module's.
    globs = {**vars(module), **getattr(value, "__globals__", {})}
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(value, name, module=False, globs=globs):
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} of the examples of {name} fail (above)"
