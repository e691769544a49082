"""Which paths a folder's ``.gitignore`` files (and ``.git/info/exclude``) leave out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

__all__ = ["IgnoreFile", "ignored", "read_ignore"]

# pathspec reads "X/**/" as if it matched X itself; git matches only folders under X.
_UNDER_ANY = re.compile(r"/\*\*/(?= *$)")


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    ignores: bool  # False for a "!" rule, which takes a path back in
    marks: bool  # whether its expression marks where a matching folder ends (``ps_d``)


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
        _Rule(p.regex, bool(p.include), "ps_d" in p.regex.groupindex)
        for p in reversed(spec.patterns)
        if p.include is not None and p.regex is not None
    )
    return IgnoreFile(base, rules) if rules else None


def _itself(rule: _Rule, m: re.Match[str], path: str, is_dir: bool) -> bool:
    """Whether a rule whose expression matched matches ``path`` itself, as git matches it.

    pathspec's expressions also match whatever lies under a matching folder (their
    ``ps_d`` group marks where the folder ends), so ``build/`` matches ``build/x.c`` and
    ``X/**`` matches the folder ``X``; git matches a rule against the path alone. The
    walk never enters an ignored folder, so the path alone is what must be asked.
    """
    end = m.start("ps_d") if rule.marks else -1
    if not is_dir:
        return end == -1  # a match through a folder mark matched a folder the file is in
    if end != -1:
        return end == len(path)  # this folder, not one of its parents
    # A rule open at its end ("X/**") matches what is under X: the folder's own path must.
    return rule.regex.match(path) is not None


def ignored(rel: str, is_dir: bool, stack: list[IgnoreFile]) -> bool:
    """Whether ``rel`` is ignored.

    As git decides: within a file the last matching rule wins, and a deeper ``.gitignore``
    overrides a shallower one (``.git/info/exclude``, first in ``stack``, comes last).
    """
    for ignore in reversed(stack):
        sub = rel[len(ignore.base) + 1 :] if ignore.base else rel
        probe = sub + "/" if is_dir else sub  # pathspec's form: a folder ends with "/"
        for rule in ignore.rules:
            m = rule.regex.match(probe)
            if m is not None and _itself(rule, m, sub, is_dir):
                return rule.ignores
    return False
