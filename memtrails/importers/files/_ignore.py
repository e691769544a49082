"""Which paths a folder's ``.gitignore`` files (and ``.git/info/exclude``) leave out."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

__all__ = ["IgnoreFile", "ignored", "kept_tree", "read_ignore"]

# pathspec reads "X/**/" as if it matched X itself; git matches only folders under X.
_UNDER_ANY = re.compile(r"/\*\*/(?= *$)")


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]  # pathspec's expression, searched as pathspec searches it
    ignores: bool  # False for a "!" rule, which takes a path back in
    # The same expression made to end where the path ends: pathspec's expressions also
    # match whatever lies under a matching folder (their ``ps_d`` group marks the end of
    # the folder), but git asks a rule about the path alone. None for an expression open
    # at its end ("X/**" is "^X/"): it matches what is under X, at any depth.
    whole: re.Pattern[str] | None


def _rule(regex: re.Pattern[str], ignores: bool) -> _Rule:
    marked = "ps_d" in regex.groupindex
    whole = re.compile(f"(?:{regex.pattern})\\Z", regex.flags) if marked else None
    return _Rule(regex, ignores, whole)


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The rules of one ignore file, and the folder they apply under."""

    base: str  # the folder holding the .gitignore, relative to the root ("" for the root)
    rules: tuple[_Rule, ...]  # last first: the last rule that matches decides


def read_ignore(path: Path, base: str) -> IgnoreFile | None:
    """Read an ignore file; None when it is missing, unreadable or has no rules."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "replace").splitlines()]
    # pathspec reads each line (comments, escapes, classes, "**", anchoring, "!").
    spec = GitIgnoreSpec.from_lines(_UNDER_ANY.sub("/*/**/", line) for line in lines)
    rules = tuple(
        _rule(p.regex, bool(p.include))
        for p in reversed(spec.patterns)
        if p.include is not None and p.regex is not None
    )
    return IgnoreFile(base, rules) if rules else None


def _matches(rule: _Rule, path: str, is_dir: bool) -> bool:
    """Whether a rule matches ``path`` itself (a folder's without a trailing ``/``)."""
    if rule.whole is None:
        return rule.regex.search(path) is not None
    return rule.whole.search(path + "/" if is_dir else path) is not None


def ignored(rel: str, is_dir: bool, stack: list[IgnoreFile]) -> bool:
    """Whether ``rel`` is ignored.

    As git decides: within a file the last matching rule wins, and a deeper ``.gitignore``
    overrides a shallower one (``.git/info/exclude``, first in ``stack``, comes last).
    """
    for ignore in reversed(stack):
        sub = rel[len(ignore.base) + 1 :] if ignore.base else rel
        for rule in ignore.rules:
            if _matches(rule, sub, is_dir):
                return rule.ignores
    return False


def kept_tree(root: Path) -> Iterator[tuple[Path, str, list[str], list[str]]]:
    """Walk ``root`` as ``os.walk`` does, leaving out hidden and ignored folders and files.

    Yields ``(folder, rel, dirs, files)`` with ``rel`` relative to ``root`` (``""`` for the
    root) and both lists sorted; as with ``os.walk``, removing names from ``dirs`` prunes them.
    The notes walk applies the same rules, so a folder's plan and its notes agree.
    """
    stacks: dict[str, list[IgnoreFile]] = {}
    exclude = read_ignore(root / ".git" / "info" / "exclude", "")
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        rel = here.relative_to(root).as_posix()
        rel = "" if rel == "." else rel
        stack = stacks.pop(rel, None)
        if stack is None:  # the root
            stack = [exclude] if exclude is not None else []
        if ".gitignore" in files:
            ignore = read_ignore(here / ".gitignore", rel)
            if ignore is not None:
                stack = [*stack, ignore]
        prefix = f"{rel}/" if rel else ""
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and not ignored(prefix + d, True, stack)
        )
        for d in dirs:
            stacks[prefix + d] = stack
        kept = sorted(
            f for f in files if not f.startswith(".") and not ignored(prefix + f, False, stack)
        )
        yield here, rel, dirs, kept
