"""Read a repository's refs when git refuses its damaged ``packed-refs`` file, and give git a
view of the repository with the refs that are whole.

git reads ``packed-refs`` whole and stops at its first damaged line (a truncated line,
garbage, a peeled line out of place): ``for-each-ref`` fails, and in an unsorted file even a
commit named by its object name cannot be read (git looks for a replacement ref first).
Read line by line here, each damaged line is one ref lost, not the whole repository.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["RefsView", "packed_refs_damage", "read_refs"]

_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# What git-check-ref-format allows, near enough: components with no control character,
# space, ~^:?*[\ nor "..", "@{", a leading "." or a trailing ".lock".
_BAD_NAME = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock(?:/|$)|[./]$")
_SHOWN = 60  # characters of a damaged line an error quotes


def _name_ok(name: str) -> bool:
    return name.startswith("refs/") and not _BAD_NAME.search(name)


def _quote(line: str) -> str:
    return repr(line if len(line) <= _SHOWN else line[:_SHOWN] + "…")


def packed_refs_damage(err: str) -> bool:
    """Tell whether git's error says it could not read the ``packed-refs`` file."""
    return "packed-refs" in err or "packed refs" in err


@dataclass
class Refs:
    """The refs read by hand: name -> object name, and what was damaged -> why."""

    refs: dict[str, str] = field(default_factory=dict)
    damaged: dict[str, str] = field(default_factory=dict)


def _packed(path: Path, found: Refs) -> None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as exc:
        found.damaged[str(path)] = f"it cannot be read ({exc.strerror or exc})"
        return
    after_ref = False
    for n, raw in enumerate(data.split(b"\n"), 1):
        line = raw.decode("utf-8", "replace").rstrip("\r")
        if not line or line.startswith("# pack-refs with:"):
            continue
        where = f"line {n} of {path}"
        if line.startswith("^"):  # the peeled object of the tag above: no ref of its own
            if not (after_ref and _SHA.fullmatch(line[1:])):
                found.damaged[f"packed-refs line {n}"] = f"{where} is damaged: {_quote(line)}"
            after_ref = False
            continue
        sha, _, name = line.partition(" ")
        after_ref = bool(_SHA.fullmatch(sha)) and _name_ok(name)
        if after_ref:
            found.refs[name] = sha
        elif _name_ok(name):
            found.damaged[name] = f"{where} names no object: {_quote(line)}"
        else:
            found.damaged[f"packed-refs line {n}"] = f"{where} is damaged: {_quote(line)}"


def _loose(common_dir: Path, found: Refs) -> None:
    """Read the loose refs (each overrides its packed line, as in git)."""
    top = common_dir / "refs"
    for here, dirs, files in os.walk(top):
        dirs.sort()
        for file in sorted(files):
            path = Path(here, file)
            name = path.relative_to(common_dir).as_posix()
            if not _name_ok(name):
                continue  # a lock or temporary file, not a ref
            try:
                text = path.read_text(errors="replace").strip()
            except OSError:
                continue
            if _SHA.fullmatch(text):
                found.refs[name] = text
                found.damaged.pop(name, None)
            elif text.startswith("ref: "):
                continue  # a symbolic ref (refs/remotes/origin/HEAD): its target is listed
            else:
                found.damaged[name] = f"its file {path} does not name an object"


def read_refs(common_dir: Path) -> Refs:
    """Read every ref of the repository by hand: ``packed-refs`` line by line, then the
    loose refs; a line or file that names no object is damaged, the others are read."""
    found = Refs()
    _packed(common_dir / "packed-refs", found)
    _loose(common_dir, found)
    return found


class RefsView:
    """A bare repository in a temporary folder that borrows the objects of a damaged one
    (``objects/info/alternates``) and holds its whole refs in a clean ``packed-refs``: git
    reads it as it would the repository were its damaged lines gone."""

    def __init__(self, git_dir: Path, common_dir: Path, refs: dict[str, str], sha256: bool):
        self._dir = tempfile.TemporaryDirectory(prefix="memtrails-git-refs-")
        root = Path(self._dir.name)
        self.path = str(root)
        (root / "refs").mkdir()
        (root / "objects" / "info").mkdir(parents=True)
        (root / "objects" / "info" / "alternates").write_text(
            str((common_dir / "objects").resolve()) + "\n"
        )
        try:
            head = (git_dir / "HEAD").read_text(errors="replace").strip()
        except OSError:
            head = ""
        if not (head.startswith("ref: refs/") or _SHA.fullmatch(head)):
            head = "ref: refs/heads/-damaged-HEAD-"  # unborn: git then tells what HEAD is
        (root / "HEAD").write_text(head + "\n")
        version, extension = (1, "[extensions]\n\tobjectformat = sha256\n") if sha256 else (0, "")
        (root / "config").write_text(
            f"[core]\n\trepositoryformatversion = {version}\n\tbare = true\n{extension}"
        )
        lines = "".join(f"{sha} {name}\n" for name, sha in sorted(refs.items()))
        (root / "packed-refs").write_text(lines)
        for name in ("shallow", "info/grafts"):  # what changes the history git walks
            source = common_dir / name
            if source.is_file():
                (root / name).parent.mkdir(exist_ok=True)
                (root / name).write_bytes(source.read_bytes())

    def close(self) -> None:
        """Remove the temporary folder."""
        self._dir.cleanup()
