"""Plan and run the walk of a repository's history: full, incremental, or around damage."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..._exceptions import SourceError
from ...records import Item, MemoryRecord, RecordError, SourceState
from .._guard import RecordStep
from ._log import FORMAT, HEADER_FIELDS, LOG_OPTIONS, MARK, Commit, Log, commit_record, header
from ._raw import RawCommits
from ._refs import RefsView, packed_refs_damage, read_refs
from ._repo import locate, source_of

__all__ = ["History"]

_STUCK_AT = re.compile(r"parents of commit ([0-9a-f]{40})")
# for-each-ref leaves out a ref whose file is damaged, saying so on its standard error; a ref
# name holds no space, so "; " (how the error lines are joined) ends it.
_BROKEN_REF = re.compile(r"ignoring (?:broken ref|ref with broken name) (.+?)(?=; |$)")
_ALL_LINES = 1 << 30
# The key of a work tree's HEAD in a saved position: the main one's, or a linked one's.
_HEAD_KEY = re.compile(r"HEAD|worktrees/[^/]+/HEAD")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names
_BAD_STATE = "the saved position is not one this version reads"
_COMMIT = RecordStep("git", "commit")
# A shallow clone's edge: git diffs it against nothing, listing its whole tree as changed.
_SHALLOW_FILES = (
    "shallow clone: the commit before this one is not in the repository, so what this one "
    "changed cannot be told (run `git fetch --unshallow` to read it)"
)


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
        isinstance(k, str) and isinstance(v, str) and _SHA.fullmatch(v) for k, v in heads.items()
    ):
        return {}, frozenset(), _BAD_STATE
    if not isinstance(shallow, list) or not all(
        isinstance(v, str) and _SHA.fullmatch(v) for v in shallow
    ):
        return {}, frozenset(), _BAD_STATE
    return dict(heads), frozenset(shallow), None


class History:
    """What to walk in which repository, and how to walk it in worker threads."""

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
        self.raw: RawCommits | None = None
        try:
            self._plan_walk(branch, since_commit, state)
        except BaseException:
            self.close()
            raise
        # Each commit's object, for what the log cuts short (a NUL in its message, a date
        # before 1970); of the view, when the refs were read around damage.
        self.raw = RawCommits(self.repo.exe, self.repo.git_dir)

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

    def close(self) -> None:
        """Stop reading commit objects; remove the view of a repository with damaged refs,
        if one was made."""
        if self.raw is not None:
            self.raw.close()
        if self.view is not None:
            self.view.close()

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
        if code != 0 or not _SHA.fullmatch(out.strip()):
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

    def _log(self, args: list[str]) -> Log:
        return Log(self.repo.exe, self.repo.git_dir, args, self.repo.work_tree)

    def _revs(self) -> str:
        """Return the revs to walk as git's ``--stdin`` reads them, one a line."""
        return "".join(rev + "\n" for rev in self.revs)

    def _emit(
        self, commit: Commit, files_error: str | None = None
    ) -> Iterator[MemoryRecord | RecordError]:
        """Yield a commit's record, counted once: without its files when they cannot be told
        (``files_error``, or a shallow clone's edge), the record saying why.

        At a shallow clone's edge, an error stands for the history before it, which the
        clone does not hold: those commits are the ones not imported, not this one.
        """
        if self.raw is not None:
            commit = self.raw.amend(commit)
        shallow = commit.sha in self.shallow
        if shallow and files_error is None:
            files_error = _SHALLOW_FILES
        item = _COMMIT.run(
            self.source, commit.sha, self._record, commit, shallow, files_error, id=commit.sha
        )
        yield item
        if shallow:
            yield RecordError(
                self.source,
                f"before {commit.sha}",
                "shallow clone: the history before this commit is not in the repository "
                "(run `git fetch --unshallow` to import it)",
            )

    def _record(
        self, commit: Commit, shallow: bool, files_error: str | None
    ) -> MemoryRecord | RecordError:
        try:
            return commit_record(commit, self.source, shallow, files_error is None, files_error)
        except (ValueError, TypeError) as exc:  # e.g. a date outside JavaScript's range
            return RecordError(self.source, commit.sha, f"unreadable commit ({exc})", id=commit.sha)

    def items(self) -> Iterator[Item]:
        try:
            yield from self._items()
        finally:
            self.close()

    def _items(self) -> Iterator[Item]:
        for name, why in sorted(self.damaged.items()):
            if name.startswith("refs/"):
                reason = (
                    f"the ref is damaged ({why}): the commits only it reaches were not read; "
                    f"repair it, or delete it (`git update-ref -d {name}`) if it is not needed"
                )
            else:  # a line of packed-refs that names no ref: which one it held is lost
                reason = (
                    f"the refs file is damaged ({why}): git cannot read it, so the other refs "
                    "were read without it; the commits only its ref reached were not read; "
                    "repair or remove the line"
                )
            yield RecordError(self.source, name, reason)
        # No head at all (every ref damaged): git log given nothing would walk HEAD instead.
        if self.heads and not (self.empty or self.nothing_new):
            yield from self._walk()
        # Only at the end: git yields newest first, so no earlier point covers everything
        # older than itself.
        yield self._position()

    def _position(self) -> SourceState:
        # After a break, commits past it were never read: keep the old position (or none),
        # so the next run reads them once the repository is repaired.
        heads, shallow = (
            (self.saved, self.saved_shallow)
            if self.broken
            else ({**self.carried, **self.heads}, self.shallow)
        )
        complete = self.mode == "full" and not (
            self.partial or self.broken or self.shallow or self.damaged or self.carried
        )
        state: dict[str, Any] = {"heads": dict(heads)}
        if shallow:  # the edges seen, to tell a clone deepened since (see _plan)
            state["shallow"] = sorted(shallow)
        return SourceState(self.source, state, self.mode, complete, self.why, self._skipped())

    def _skipped(self) -> int:
        """Count the commits an incremental walk left out: the import counts them unchanged."""
        if self.mode != "incremental" or not self.known:
            return 0
        code, out, _ = self._run(
            "rev-list", "--count", "--stdin", stdin="".join(sha + "\n" for sha in self.known)
        )
        return int(out.strip()) if code == 0 and out.strip().isdigit() else 0

    def _walk(self) -> Iterator[Item]:
        position = 0  # commits of the walk handled so far, in git's order
        last: str | None = None
        # Parents of the commits read that are not read yet: a damaged object's children,
        # which git stops before, are among them.
        pending: dict[str, None] = {}
        # Each pass streams `git log` from `position`; when git stops on a broken object,
        # the commit it stopped at is handled alone and the walk resumes after it.
        while True:
            log = self._log([*LOG_OPTIONS, f"--skip={position}", *self.revs])
            try:
                for commit in log.commits():
                    position += 1
                    last = commit.sha
                    pending.pop(commit.sha, None)
                    pending.update(dict.fromkeys(commit.parents))
                    yield from self._emit(commit)
                if log.returncode == 0:
                    return
                reason = log.error()
            finally:
                log.close()
            code, out, err = self._run(
                "rev-list", "--max-count=1", f"--skip={position}", "--stdin", stdin=self._revs()
            )
            sha = out.strip()
            if code == 0 and sha:
                yield from self._alone(sha)
                position += 1
                last = sha
                pending.pop(sha, None)
                pending.update(dict.fromkeys(self.raw.parents(sha) if self.raw else ()))
                continue
            # The walk itself is broken: a commit object is missing, so git cannot tell
            # which commits come next. Keep the commit whose parent is missing, then stop.
            reason = err or reason
            stuck = _STUCK_AT.search(reason)
            if stuck and stuck.group(1) != last:
                yield from self._alone(stuck.group(1))
                last = stuck.group(1)
            elif not stuck:  # git stopped reading the damaged object, before its children
                damaged = set(_SHA.findall(reason))
                for child in [sha for sha in pending if sha not in damaged]:
                    if self.raw is not None and damaged & set(self.raw.parents(child)):
                        yield from self._alone(child)
                        last = child
            where = f"after {last}" if last else "start of history"
            self.broken = True
            yield RecordError(
                self.source,
                where,
                "the history cannot be read further; a commit object is missing or damaged "
                f"({reason})",
            )
            return

    def _alone(self, sha: str) -> Iterator[Item]:
        """Read one commit on its own: in full, else without its files, else as an error."""
        # git may have stopped while walking past this commit, not while diffing it.
        log = self._log([*LOG_OPTIONS, "--no-walk", sha])
        try:
            commits = list(log.commits())
            reason = log.error()
        finally:
            log.close()
        if log.returncode == 0 and commits:
            yield from self._emit(commits[0])
            return
        log = self._log(["-z", "--no-walk", f"--format={FORMAT}", sha])
        try:
            tokens = list(log.tokens())
            err = log.error() if log.returncode else ""
        finally:
            log.close()
        mark = MARK.encode()
        if log.returncode != 0 or len(tokens) < HEADER_FIELDS or not tokens[0].startswith(mark):
            yield RecordError(self.source, sha, f"unreadable commit ({err or reason})", id=sha)
            return
        commit = header([tokens[0][len(mark) :], *tokens[1:HEADER_FIELDS]])
        missing = (
            f"the files this commit changed could not be read; an object is missing ({reason})"
        )
        yield from self._emit(commit, missing)
