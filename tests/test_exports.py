"""The public API: everything in ``memtrails.__all__`` is importable, documented and sorted."""

from __future__ import annotations

import memtrails


def test_all_is_sorted_and_complete() -> None:
    assert memtrails.__all__ == sorted(memtrails.__all__)
    for name in memtrails.__all__:
        value = getattr(memtrails, name)
        assert value.__doc__, f"{name} has no docstring"


def test_typed_package() -> None:
    from importlib.resources import files

    assert files("memtrails").joinpath("py.typed").is_file()
