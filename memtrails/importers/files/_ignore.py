"""Which paths a folder's ``.gitignore`` files (and ``.git/info/exclude``) leave out."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import re2
from pathspec import GitIgnoreSpec

from ._entries import (
    MEMORY_FOLDER,
    NotRegularFile,
    is_memory_folder,
    list_folder,
    os_reason,
    read_regular,
)

__all__ = ["UNREADABLE_FOLDER", "IgnoreFile", "ignored", "kept_tree", "read_ignore"]

#: How a folder the walk could not list is said (``kept_tree``'s ``left_out``).
UNREADABLE_FOLDER = "cannot read the folder"

# pathspec reads "X/**/" as if it matched X itself; git matches only folders under X.
_UNDER_ANY = re.compile(r"/\*\*/(?= *$)")
# An ignore file is read up to this size; what lies past it is not a rule.
_MAX_IGNORE_BYTES = 8 << 20
_SURROGATE = re.compile("[\udc80-\udcff]")
# pathspec's plain backend: only its patterns are used (each compiled here, by RE2), and its
# default one compiles them all into one RE2 set, which fails past ~15,000 rules
# (re2.Error: "failed to compile Set"), an error no caller expects.
_PARSE_ONLY = "simple"
# pathspec's expression for a line with no wildcard: "^" (then "(?:.+/)?" when the name
# matches at any depth), the escaped path, and the end: the path itself or a folder's
# trailing "/" (any entry), or only a folder's "/" (a line ending in "/").
_DIR_ONLY = "(?P<ps_d>/)"
_LITERAL_RULE = re.compile(
    r"\^(\(\?:\.\+/\)\?)?((?:\\.|[^\\^$.|?*+()\[\]{}])+)(\(\?:\(\?P<ps_d>/\)\|\$\)|\(\?P<ps_d>/\))"
)
_ESCAPED = re.compile(r"\\(.)")


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a rule RE2 refuses is left out, not printed with its text
    options.dot_nl = True  # git's "**" crosses any character but "/", a newline too
    return options


_OPTIONS = _options()


@dataclass(frozen=True, slots=True)
class _Rule:
    # pathspec's expression, run by RE2: linear in the path's length whatever the rule
    # (pathspec's own ``re`` backtracks: "a*a*a*a*a*a*a*a*b" took seconds per name)
    regex: Any
    ignores: bool  # False for a "!" rule, which takes a path back in
    # The same expression made to end where the path ends: pathspec's expressions also
    # match whatever lies under a matching folder (their ``ps_d`` group marks the end of
    # the folder), but git asks a rule about the path alone. None for an expression open
    # at its end ("X/**" is "^X/"): it matches what is under X, at any depth.
    whole: Any
    # A rule that names one path or one name, no wildcard (most lines of a long generated
    # .gitignore): (the path, or the name at any depth, whether only a folder matches),
    # looked up in a dict instead of run. None for any other rule.
    literal: tuple[str, bool, bool] | None = None


def _rule(regex: re.Pattern[str], ignores: bool) -> _Rule | None:
    """Compile one of pathspec's expressions with RE2; None when RE2 refuses it (too large)."""
    try:
        linear = re2.compile(regex.pattern, _OPTIONS)
        marked = "ps_d" in regex.groupindex
        whole = re2.compile(f"(?:{regex.pattern})\\z", _OPTIONS) if marked else None
    except re2.error:
        return None
    literal = _LITERAL_RULE.fullmatch(regex.pattern)
    if literal is None:
        return _Rule(linear, ignores, whole)
    anywhere, text, ending = literal.groups()
    name = _ESCAPED.sub(r"\1", text)
    return _Rule(linear, ignores, whole, (name, anywhere is not None, ending == _DIR_ONLY))


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """The rules of one ignore file, and the folder they apply under."""

    base: str  # the folder holding the .gitignore, relative to the root ("" for the root)
    rules: tuple[_Rule, ...]  # last first: the last rule that matches decides
    # The literal rules by what they name: (path or name, any depth, folders only) -> the
    # position of the first (last in the file) of them; and the positions of the others.
    literals: dict[tuple[str, bool, bool], int]
    others: tuple[int, ...]

    @classmethod
    def of(cls, base: str, rules: tuple[_Rule, ...]) -> IgnoreFile:
        literals: dict[tuple[str, bool, bool], int] = {}
        others: list[int] = []
        for position, rule in enumerate(rules):
            if rule.literal is None:
                others.append(position)
            else:
                literals.setdefault(rule.literal, position)
        return cls(base, rules, literals, tuple(others))

    def deciding(self, path: str, is_dir: bool) -> _Rule | None:
        """Return the rule that decides about ``path`` (the last that matches), or None."""
        name = path.rpartition("/")[2]
        keys = [(path, False, False), (name, True, False)]
        if is_dir:
            keys += [(path, False, True), (name, True, True)]
        found = [self.literals[key] for key in keys if key in self.literals]
        best = min(found) if found else None
        for position in self.others:
            if best is not None and position > best:
                break
            if _matches(self.rules[position], path, is_dir):
                return self.rules[position]
        return None if best is None else self.rules[best]


def read_ignore(path: Path, base: str) -> IgnoreFile | None:
    """Read an ignore file; None when it is missing, unreadable or has no rules.

    Only a regular file is read (a link or a FIFO named ``.gitignore`` is not), and at most
    8 MiB of it.
    """
    try:
        data, _ = read_regular(path, _MAX_IGNORE_BYTES)
    except (NotRegularFile, OSError):
        return None
    lines = [line.rstrip("\r") for line in data.decode("utf-8", "replace").splitlines()]
    compiled = (
        _rule(p.regex, bool(p.include))
        for p in reversed(_patterns([_UNDER_ANY.sub("/*/**/", line) for line in lines]))
        if p.include is not None and p.regex is not None
    )
    rules = tuple(rule for rule in compiled if rule is not None)
    return IgnoreFile.of(base, rules) if rules else None


def _patterns(lines: list[str]) -> list[Any]:
    """Read the lines as pathspec does (comments, escapes, classes, "**", anchoring, "!")."""
    # pathspec compiles each line with ``re``, which warns about some odd classes ("Possible
    # nested set"): a user's .gitignore line is read, not reported as a Python warning.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return list(GitIgnoreSpec.from_lines(lines, backend=_PARSE_ONLY).patterns)
        except ValueError:  # pathspec refuses a line ("!" alone): git reads the others
            kept: list[Any] = []
            for line in lines:
                try:
                    kept.extend(GitIgnoreSpec.from_lines([line], backend=_PARSE_ONLY).patterns)
                except ValueError:
                    continue
            return kept


def _matches(rule: _Rule, path: str, is_dir: bool) -> bool:
    """Whether a rule matches ``path`` itself (a folder's without a trailing ``/``)."""
    if rule.whole is None:
        return rule.regex.search(path) is not None
    return rule.whole.search(path + "/" if is_dir else path) is not None


def ignored(rel: str, is_dir: bool, stack: list[IgnoreFile]) -> bool:
    """Whether ``rel`` is ignored.

    As git decides: within a file the last matching rule wins, and a deeper ``.gitignore``
    overrides a shallower one (``.git/info/exclude``, first in ``stack``, comes last). A
    byte of the name that is not UTF-8 (listed as a lone surrogate) is one character.
    """
    if not stack:
        return False
    if _SURROGATE.search(rel):
        rel = _SURROGATE.sub("\ufffd", rel)  # RE2 reads UTF-8: one character for the byte
    for ignore in reversed(stack):
        sub = rel[len(ignore.base) + 1 :] if ignore.base else rel
        rule = ignore.deciding(sub, is_dir)
        if rule is not None:
            return rule.ignores
    return False


def kept_tree(
    root: Path, left_out: list[tuple[str, str]] | None = None
) -> Iterator[tuple[Path, str, list[str], list[str]]]:
    """Walk ``root`` as ``os.walk`` does, leaving out hidden and ignored folders and files.

    Yields ``(folder, rel, dirs, files)`` with ``rel`` relative to ``root`` (``""`` for the
    root) and both lists sorted; as with ``os.walk``, removing names from ``dirs`` prunes them.
    The notes walk applies the same rules, so a folder's plan and its notes agree: links
    are not followed, only regular files are listed, and a memory folder (the root too) and
    a folder that cannot be listed are not walked. What is left out for those reasons is
    appended to ``left_out`` as ``(rel, why)``.
    """
    exclude = read_ignore(root / ".git" / "info" / "exclude", "")
    todo: list[tuple[Path, str, list[IgnoreFile]]] = [(root, "", [exclude] if exclude else [])]
    while todo:
        here, rel, stack = todo.pop()
        if is_memory_folder(here):
            _note(left_out, rel or ".", MEMORY_FOLDER)
            continue
        try:
            listing = list_folder(here)
        except OSError as exc:
            _note(left_out, rel or ".", f"{UNREADABLE_FOLDER} ({os_reason(exc, here)})")
            continue
        if listing.has_gitignore:
            ignore = read_ignore(here / ".gitignore", rel)
            if ignore is not None:
                stack = [*stack, ignore]
        prefix = f"{rel}/" if rel else ""
        for name, why in listing.special:
            if not ignored(prefix + name, False, stack):
                _note(left_out, prefix + name, why)
        dirs = [d for d in listing.dirs if not ignored(prefix + d, True, stack)]
        files = [f for f in listing.files if not ignored(prefix + f, False, stack)]
        yield here, rel, dirs, files
        todo.extend((here / d, prefix + d, stack) for d in reversed(dirs))


def _note(left_out: list[tuple[str, str]] | None, rel: str, why: str) -> None:
    if left_out is not None:
        left_out.append((rel, why))
