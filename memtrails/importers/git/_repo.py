"""Find the repository a path names, the way git does, and the one source name it gets."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..._exceptions import SourceError
from .._shared import byte_exact

__all__ = ["Repository", "git_env", "locate", "source_of"]

# What git tells to run to trust a repository another user owns.
_SAFE_DIRECTORY = re.compile(r"git config --global --add safe\.directory [^;]+")
# Variables that would point git at another repository than the one named by the path.
_LOCATING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")


def git_env() -> dict[str, str]:
    """Return the environment every git command runs in: no prompt, C messages, no GIT_DIR."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATING}
    return {**env, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


def run_git(
    exe: str, args: list[str], stdin: str | None = None, keep: int = 3, paths: bool = False
) -> tuple[int, str, str]:
    """Run one git command; return its exit code, output and the last ``keep`` lines of its
    errors, joined by ``"; "``. With ``paths`` (its output is file system paths), bytes
    that are not UTF-8 are kept as Python keeps them in a path (``os.fsdecode``), so that
    the path still names the folder; else they read as U+FFFD."""
    proc = subprocess.run(
        [exe, "--no-pager", *args],
        input=stdin.encode() if stdin is not None else None,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        env=git_env(),
        check=False,
    )
    out = os.fsdecode(proc.stdout) if paths else proc.stdout.decode("utf-8", "replace")
    lines = [line.strip() for line in proc.stderr.decode("utf-8", "replace").splitlines()]
    # git's advice ("hint: ...", as for a deprecated info/grafts file) is no error.
    err = "; ".join([line for line in lines if line and not line.startswith("hint:")][-keep:])
    return proc.returncode, out, err


@dataclass(frozen=True, slots=True)
class Repository:
    """A repository git can read: where its objects are, and what it is called."""

    exe: str
    git_dir: str  # absolute: the folder git calls the repository (``.git``, or a bare one)
    common_dir: str  # absolute: shared by every work tree of the repository (refs, shallow)
    name: str  # the main work tree's top folder, or the git dir when there is no work tree
    # A linked work tree's name in the repository (``.git/worktrees/<id>``), None for the
    # main one: each work tree has its own HEAD.
    worktree: str | None = None
    # The top folder of the work tree the path is in, None for a bare repository: what git
    # reads the repository's own files in it from (``.mailmap``).
    work_tree: str | None = None

    def run(self, *args: str, stdin: str | None = None, keep: int = 3) -> tuple[int, str, str]:
        """Run a git command on this repository (``keep``: how many lines of errors to keep)."""
        return run_git(self.exe, ["--git-dir", self.git_dir, *args], stdin, keep)


def locate(path: Path, source: str | None = None) -> Repository:
    """Find the repository at ``path`` as ``git -C path`` would.

    A work tree, a folder inside one, its ``.git`` folder (or ``.git`` file), a bare
    repository (with or without a ``config`` file), a submodule and a linked work tree all
    work. The name is the resolved top folder of the work tree, so ``repo`` and
    ``repo/.git`` are one source, and so are a submodule's folder and its git dir
    (``.git/modules/<name>``); a linked work tree (by its folder or its
    ``.git/worktrees/<id>``) is named as its main work tree is, for it is the same
    repository; a bare repository is named by its resolved git dir.

    Raises:
        SourceError: the path is missing, git is not installed, or git cannot read a
            repository there (the reason git gives).
    """
    label = source if source is not None else "git:" + byte_exact(str(path.resolve()))
    if path.name == ".git" and path.is_file():  # a submodule's or linked work tree's pointer
        path = path.parent
    if not path.exists():
        raise SourceError(label, "no such folder")
    exe = shutil.which("git")
    if exe is None:
        raise SourceError(
            label,
            "the git command was not found on PATH (it is what reads a repository): "
            "install git, or add the folder that holds it to PATH",
        )
    if not path.is_dir():
        code, top, _ = run_git(
            exe, ["-C", str(path.parent), "rev-parse", "--show-toplevel"], paths=True
        )
        if code == 0 and top.strip():  # a file of a work tree: its repository is meant
            raise SourceError(
                label,
                "a file, not a repository (a file's history is not imported alone): give "
                f"the repository's folder, {top.strip()}",
            )
        raise SourceError(label, "not a git repository (not a folder)")
    code, out, err = run_git(
        exe,
        [
            "-C",
            str(path),
            "rev-parse",
            "--absolute-git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--is-inside-work-tree",
        ],
        paths=True,
    )
    lines = out.splitlines()
    if code != 0 or len(lines) != 4:
        if "not a git repository" in err:
            raise SourceError(label, "not a git repository")
        trust = _SAFE_DIRECTORY.search(err)
        if "dubious ownership" in err and trust:
            raise SourceError(
                label,
                "git refuses to read a repository another user owns (its 'dubious ownership' "
                f"check); if you trust it, run: {trust.group(0)}",
            )
        raise SourceError(label, f"git cannot read a repository here ({err or out.strip()})")
    # The common dir may be printed relative to the folder git ran in.
    git_dir, common_dir = str(Path(lines[0]).resolve()), str((path / lines[1]).resolve())
    bare, in_work_tree = lines[2] == "true", lines[3] == "true"
    # In a work tree, or in a git dir that names its work tree (core.worktree: a submodule's
    # .git/modules/<name>), the top folder of the work tree.
    code, top, _ = run_git(exe, ["-C", str(path), "rev-parse", "--show-toplevel"], paths=True)
    work_tree = str(Path(top.strip()).resolve()) if code == 0 and top.strip() else None
    if git_dir != common_dir:  # a linked work tree: the repository is its main one's
        name = _main_name(exe, path, common_dir)
        return Repository(exe, git_dir, common_dir, name, Path(git_dir).name, work_tree)
    name = git_dir
    if (in_work_tree or not bare) and work_tree is not None:
        name = work_tree
    elif not bare and Path(git_dir).name == ".git":
        # Named by its .git folder: the work tree around it is the repository's usual name.
        name = work_tree = str(Path(git_dir).parent)
    return Repository(exe, git_dir, common_dir, name, work_tree=work_tree)


def _main_name(exe: str, path: Path, common_dir: str) -> str:
    """Return the name of a linked work tree's repository: its main work tree's top folder
    (git lists it first), or the common dir of a bare one."""
    code, out, _ = run_git(exe, ["-C", str(path), "worktree", "list", "--porcelain"], paths=True)
    first = out.split("\n", 1)[0] if code == 0 else ""
    if first.startswith("worktree "):
        return str(Path(first.removeprefix("worktree ")).resolve())
    common = Path(common_dir)
    return str(common.parent if common.name == ".git" else common)


def git_source(repo: str | os.PathLike[str]) -> str:
    """Return the source name :func:`~memtrails.importers.git.from_git` gives a repository.

    ``"git:"`` and the work tree's resolved top folder (the resolved git dir of a bare
    repository), however the repository is named: ``repo``, ``repo/.git`` or a folder
    inside the work tree all give the same name, so a re-run finds its saved position. A
    submodule is named by its folder, whether given that or its git dir; a linked work
    tree (``git worktree add``) by its main work tree, so the commits the two share are
    one source's, imported once.

    Args:
        repo: the work tree, a folder in it, its ``.git`` folder or file, a linked work
            tree, a submodule, or a bare repository.

    Raises:
        SourceError: git cannot read a repository there.

    Returns:
        The source name.
    """
    return source_of(locate(Path(repo).expanduser()))


def source_of(repo: Repository) -> str:
    """The source name of a located repository: ``git:`` and its name, byte-exact (a folder
    whose name is not UTF-8 keeps its bytes after ``//``, as a notes folder's source does)."""
    return "git:" + byte_exact(repo.name)
