"""Run the walk of a repository's history a plan (:mod:`._plan`) made: full, incremental,
or around damage (a missing or broken commit object), and the position saved after it."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ...records import Item, MemoryRecord, RecordError, SourceState
from .._guard import RecordStep
from ._log import FORMAT, HEADER_FIELDS, LOG_OPTIONS, MARK, Commit, Log, commit_record, header
from ._plan import SHA, WalkPlan
from ._raw import RawCommits

__all__ = ["History"]

_STUCK_AT = re.compile(r"parents of commit ([0-9a-f]{40})")
_COMMIT = RecordStep("git", "commit")
# A shallow clone's edge: git diffs it against nothing, listing its whole tree as changed.
_SHALLOW_FILES = (
    "shallow clone: the commit before this one is not in the repository, so what this one "
    "changed cannot be told (run `git fetch --unshallow` to read it)"
)


class History(WalkPlan):
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
        self.raw: RawCommits | None = None
        super().__init__(repo_path, source, branch, all_branches, since_commit, state)
        # Each commit's object, for what the log cuts short (a NUL in its message, a date
        # before 1970); of the view, when the refs were read around damage.
        self.raw = RawCommits(self.repo.exe, self.repo.git_dir)

    def close(self) -> None:
        """Stop reading commit objects; remove the view of a repository with damaged refs,
        if one was made."""
        if self.raw is not None:
            self.raw.close()
        super().close()

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
                damaged = set(SHA.findall(reason))
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
