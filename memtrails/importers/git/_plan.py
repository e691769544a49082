"""Plan the walk of a repository's history: the refs to walk, and what the last run read.

The heads walked (a branch, HEAD, or every ref ``--all-branches`` names), the refs that
cannot be walked and why (a damaged ref file, a ref to a missing object, a packed-refs
file git cannot read: then a view of the repository holding the whole ones), and, from the
saved position, the commits already read: an incremental walk leaves them out, a full one
is walked where they cannot be trusted (a rewritten branch, a deepened shallow clone).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..._exceptions import SourceError
from ._refs import RefsView, packed_refs_damage, read_refs
from ._repo import locate, source_of

__all__ = ["SHA", "WalkPlan"]

# for-each-ref leaves out a ref whose file is damaged, saying so on its standard error; a ref
# name holds no space, so "; " (how the error lines are joined) ends it.
_BROKEN_REF = re.compile(r"ignoring (?:broken ref|ref with broken name) (.+?)(?=; |$)")
_ALL_LINES = 1 << 30
# The key of a work tree's HEAD in a saved position: the main one's, or a linked one's.
_HEAD_KEY = re.compile(r"HEAD|worktrees/[^/]+/HEAD")
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names
_BAD_STATE = "the saved position is not one this version reads"


def _saved_heads(
    state: Mapping[str, Any] | None,
) -> tuple[dict[str, str], frozenset[str], str | None]:
    """Return the heads the last run walked, the shallow clone's edges it saw, and why they
    cannot be used (or None)."""
    if state is None:
        return {}, frozenset(), None
    heads = state.get("heads")
    shallow = state.get("shallow", [])  # absent before this was saved: no edge known
    if not isinstance(heads, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and SHA.fullmatch(v) for k, v in heads.items()
    ):
        return {}, frozenset(), _BAD_STATE
    if not isinstance(shallow, list) or not all(
        isinstance(v, str) and SHA.fullmatch(v) for v in shallow
    ):
        return {}, frozenset(), _BAD_STATE
    return dict(heads), frozenset(shallow), None


class WalkPlan:
    """What to walk in which repository: the heads, the revs given to git, the mode."""

    def __init__(
        self,
        repo_path: Path,
        source: str | None,
        branch: str,
        all_branches: bool,
        since_commit: str | None,
        state: Mapping[str, Any] | None,
    ) -> None:
        self.repo = locate(repo_path.expanduser(), source)
        self.source = source if source is not None else source_of(self.repo)
        self.all_branches = all_branches
        # Refs lost to a damaged packed-refs file (git read the others from a view of the
        # repository without them), each with why.
        self.lost: dict[str, str] = {}
        self.view: RefsView | None = None
        self.common = Path(self.repo.common_dir)  # the repository's, not a view's
        # Every work tree of a repository is one source; each has its own HEAD, saved
        # under its own key.
        worktree = self.repo.worktree
        self.head_key = "HEAD" if worktree is None else f"worktrees/{worktree}/HEAD"
        try:
            self._plan_walk(branch, since_commit, state)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Remove the view of a repository with damaged refs, if one was made."""
        if self.view is not None:
            self.view.close()

    def _plan_walk(
        self, branch: str, since_commit: str | None, state: Mapping[str, Any] | None
    ) -> None:
        all_branches = self.all_branches
        # A fresh `git init` has no commits: nothing to import, and nothing wrong.
        code, refs, err = self._run("for-each-ref", "--count=1", "--format=%(refname)")
        if code != 0 and packed_refs_damage(err):
            self._use_view()
            code, refs, _ = self._run("for-each-ref", "--count=1", "--format=%(refname)")
        self.empty = (
            self._commits(["HEAD^{commit}"]) == [None]
            and not (code == 0 and refs)
            and not self.lost
        )
        # The refs walked, by name, and the commit each was at before the walk started:
        # the position saved at the end (never newer than what the walk read).
        self.heads: dict[str, str] = {}
        # Refs that could not be walked (their file or their commit is damaged or missing),
        # each with why: the commits only they reach are not read, and no prune may run.
        self.damaged: dict[str, str] = {}
        # Commits to walk from, and `^` ones to leave out: they go to git on its standard
        # input, for there may be more of them than a command line holds.
        self.revs: list[str] = []
        if all_branches:
            self.heads = self._all_heads()
            # Every ref's commit by name, not `--all`: one damaged ref would stop it all.
            self.revs += sorted(set(self.heads.values()))
        elif not (self.empty and branch == "HEAD"):
            key = self.head_key if branch == "HEAD" else branch
            self.heads[key] = self._verify(branch, "branch")
            self.revs.append(self.heads[key])
        shallow_file = Path(self.repo.common_dir) / "shallow"
        self.shallow: frozenset[str] = frozenset(
            shallow_file.read_text().split() if shallow_file.is_file() else ()
        )
        self.saved, self.saved_shallow, self.why = _saved_heads(state)
        self.carried = self._carried()
        known = self._plan() if self.saved else None
        self.mode = "full" if known is None else "incremental"
        self.revs += ["^" + sha for sha in sorted(known or ())]
        self.known = sorted(known or ())
        # Nothing new anywhere: no need to start git log at all.
        self.nothing_new = known is not None and set(self.heads.values()) <= known
        self.partial = since_commit is not None
        if since_commit is not None:
            self.revs.append("^" + self._verify(since_commit, "since_commit"))
        self.broken = False  # set when a missing commit object ends the walk early

    def _use_view(self) -> None:
        """Read the refs by hand and walk a view of the repository that holds the whole ones."""
        common = Path(self.repo.common_dir)
        found = read_refs(common)
        # Damage a loose ref overrides (as in git) loses nothing: no error for it.
        self.lost = found.damaged
        _, kind, _ = self._run("rev-parse", "--show-object-format")
        self.view = RefsView(
            Path(self.repo.git_dir), common, found.refs, sha256=kind.strip() == "sha256"
        )
        self.repo = replace(self.repo, git_dir=self.view.path, common_dir=self.view.path)

    def _lost(self, rev: str) -> str | None:
        """Say why a ref the user named was lost to a damaged packed-refs file, or None."""
        for prefix in ("", "refs/", "refs/heads/", "refs/tags/", "refs/remotes/"):
            if prefix + rev in self.lost:
                return self.lost[prefix + rev]
        return None

    def _all_heads(self) -> dict[str, str]:
        """Return every ref ``--all`` walks (stashes and notes left out) -> its commit; the
        damaged ones go into ``self.damaged``."""
        code, out, err = self._run("for-each-ref", "--format=%(refname)", keep=_ALL_LINES)
        if code != 0:
            raise SourceError(self.source, f"cannot list the refs ({err})")
        for broken in _BROKEN_REF.finditer(err):
            self.damaged[broken.group(1)] = "its file does not name an object"
        self.damaged.update(self.lost)
        # Stashes and notes are refs but not history anyone wrote as commits.
        names = [
            name
            for name in out.splitlines()
            if name and name != "refs/stash" and not name.startswith("refs/notes/")
        ]
        names.insert(0, "HEAD")
        found = self._objects([rev for name in names for rev in (name, name + "^{commit}")])
        heads: dict[str, str] = {}
        for k, name in enumerate(names):
            (_, itself), (sha, kind) = found[2 * k], found[2 * k + 1]
            if kind == "commit":
                heads[self.head_key if name == "HEAD" else name] = sha
            elif itself == "missing" and name != "HEAD":  # an unborn HEAD is no damage
                self.damaged[name] = "it points at an object that is not in the repository"
            # Else a ref to a tree or a blob (rare tags): no history.
        return heads

    def _commits(self, revs: list[str]) -> list[str | None]:
        """Resolve each rev to a commit sha, or None when it is not one, in one git call."""
        return [sha if kind == "commit" else None for sha, kind in self._objects(revs)]

    def _objects(self, revs: list[str]) -> list[tuple[str, str]]:
        """Return each rev's object name and type, in one git call; the type is ``missing``
        when git finds no object (what it says of a tree peeled to a commit, too)."""
        if not revs:
            return []
        code, out, err = self._run(
            "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin="\n".join(revs) + "\n"
        )
        if code != 0:
            raise SourceError(self.source, f"cannot read the refs ({err})")
        objects: list[tuple[str, str]] = []
        for line in out.splitlines():
            sha, _, kind = line.partition(" ")
            objects.append((sha, kind))
        return objects

    def _plan(self) -> set[str] | None:
        """Return the commits the last run covered (to leave out of the walk), or None when
        the walk must be full; ``self.why`` then says why."""
        walked = [name for name in self.heads if name in self.saved]
        if self.heads and not walked and not self.carried:
            self.why = "no position saved for " + ", ".join(sorted(self.heads))
            return None
        deepened = sorted(self.saved_shallow - self.shallow)
        if deepened:
            # The clone now holds history before the edge the last run stopped at, never read:
            # it is older than every saved head, so only a full walk reaches it.
            self.why = (
                f"the shallow clone was deepened: the history before {deepened[0][:12]} "
                "is now in the repository"
            )
            return None
        shas = sorted(set(self.saved.values()))
        present = {sha for sha, found in zip(shas, self._commits(shas), strict=True) if found}
        for name in walked:
            old, new = self.saved[name], self.heads[name]
            if old == new or (self.all_branches and _HEAD_KEY.fullmatch(name)):
                # With every ref walked, HEAD moving (a checkout) drops nothing from the
                # history: what it pointed at is still under its branch, or, if detached,
                # gone as a deleted branch would be.
                continue
            if old not in present:
                self.why = (
                    f"{name}: commit {old[:12]} of the last run is no longer in the repository"
                )
                return None
            code, _, err = self._run("merge-base", "--is-ancestor", old, new)
            if code == 1 and not err:  # git says 1 also when an object on the way is missing
                self.why = (
                    f"{name}: {old[:12]} is no longer in its history (rewritten, force-pushed,"
                    " reset or another branch checked out)"
                )
                return None
            if code != 0:
                self.why = f"{name}: cannot compare {old[:12]} with {new[:12]} ({err})"
                return None
        # Every commit reachable from a saved head was read by the last run, including the
        # heads of refs deleted since (while git still has them).
        return present

    def _carried(self) -> dict[str, str]:
        """Return the saved HEADs of the repository's other work trees (imported by their
        own paths), kept in the position: their commits are known, and no prune may forget
        them. A linked work tree removed since is dropped."""
        carried: dict[str, str] = {}
        for name, sha in self.saved.items():
            if name in self.heads or name == self.head_key or not _HEAD_KEY.fullmatch(name):
                continue
            if name == "HEAD" or (self.common / "worktrees" / name.split("/")[1]).is_dir():
                carried[name] = sha
        return carried

    def _verify(self, rev: str, name: str) -> str:
        code, out, _ = self._run(
            "rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"
        )
        if code != 0 or not SHA.fullmatch(out.strip()):
            if rev == "HEAD":  # the default: say what HEAD is, for the user named nothing
                raise SourceError(self.source, self._head_trouble())
            lost = self._lost(rev)
            if lost is not None:
                raise SourceError(self.source, f"`{name}` {rev!r} is damaged ({lost})")
            if self.lost:
                damage = "; ".join(sorted(self.lost.values()))
                raise SourceError(
                    self.source,
                    f"`{name}` {rev!r} is not a commit among the refs that can be read "
                    f"(the refs file is damaged: {damage})",
                )
            raise SourceError(self.source, f"`{name}` {rev!r} is not a commit in this repository")
        return out.strip()

    def _head_trouble(self) -> str:
        """Say why HEAD names no commit in a repository that has some, and what to do."""
        head = Path(self.repo.git_dir) / "HEAD"
        try:
            target = head.read_text(errors="replace").strip()
        except OSError:
            target = ""
        ref = target.removeprefix("ref: ") if target.startswith("ref: refs/") else None
        if ref is None:
            what = "HEAD names no commit (it is damaged or points at a missing object)"
        else:
            branch = ref.removeprefix("refs/heads/")
            code, out, err = self._run("for-each-ref", "--format=%(refname)", ref)
            if ref in self.lost:
                what = f"HEAD is on branch {branch!r}, which is damaged ({self.lost[ref]})"
            elif self.lost and code == 0 and not out.strip():
                damage = "; ".join(sorted(self.lost.values()))
                what = (
                    f"HEAD is on branch {branch!r}, which is not among the refs that can be "
                    f"read (the refs file is damaged: {damage})"
                )
            elif code == 0 and not out.strip() and "broken" not in err:
                what = f"HEAD is on branch {branch!r}, which has no commits yet (new or orphan)"
            else:
                what = f"HEAD is on branch {branch!r}, which is damaged (names no commit)"
        return f"{what}: check out a branch with commits, or import every branch (--all-branches)"

    def _run(self, *args: str, stdin: str | None = None, keep: int = 3) -> tuple[int, str, str]:
        return self.repo.run(*args, stdin=stdin, keep=keep)
