"""Names a package loads on first use (PEP 562), so that importing it stays cheap."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str,
    where: Mapping[str, str],
    namespace: dict[str, Any],
    shown: Callable[[Any], Any] = lambda value: value,
) -> Callable[[str], Any]:
    """Return a module ``__getattr__`` that imports each name of ``where`` on first use.

    Args:
        package: the package's ``__name__`` (relative module names are read against it).
        where: each lazy name -> the module (relative) that defines it.
        namespace: the package's ``globals()``: a name, once loaded, is kept there, so later
            uses no longer pass through ``__getattr__``.
        shown: applied to each value once, as it is loaded (the package's own ``__module__``).
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = shown(getattr(import_module(module, package), name))
        namespace[name] = value
        return value

    return __getattr__
