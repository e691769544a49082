"""Read a Git repository's history as commit records, one per commit, newest first."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import git

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..records import At, Item, MemoryRecord, RecordError, SourceState

__all__ = ["MAX_FILES_IN_META", "MAX_FILES_IN_TEXT", "from_git"]

MAX_FILES_IN_META = 200
MAX_FILES_IN_TEXT = 50

# A header token starts with this marker; numstat tokens start with a digit or "-", so the
# two can never be confused (paths only ever follow a numstat token, at known positions).
_MARK = "\x01memtrails-commit "
_FORMAT = "%x01memtrails-commit %H%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B%x00"
_HEADER_FIELDS = 9
_NUMSTAT = re.compile(r"\n?(\d+|-)\t(\d+|-)\t(.*)", re.DOTALL)
_READ_SIZE = 1 << 16
_STUCK_AT = re.compile(r"parents of commit ([0-9a-f]{40})")
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names
_BAD_STATE = "the saved position is not one this version reads"
# Fixed options so a user's git config (renames off, signatures on, external diff drivers)
# never changes what is read or how fast.
_LOG_OPTIONS = (
    "-z",
    "--numstat",
    "-M",
    "--root",
    "--diff-merges=first-parent",
    "--no-ext-diff",
    "--no-textconv",
    "--no-show-signature",
    "--no-color",
    f"--format={_FORMAT}",
)


@dataclass
class _Commit:
    sha: str
    parents: list[str]
    author: str
    author_email: str
    authored: int
    committer: str
    committer_email: str
    committed: int
    message: str
    files: list[dict[str, Any]] = field(default_factory=list)
    file_count: int = 0


def _record(commit: _Commit, source: str, shallow: bool, files_known: bool) -> MemoryRecord:
    message = commit.message.rstrip("\n")
    summary = message.split("\n", 1)[0].strip()
    text = message
    if commit.files:
        names = [f["path"] for f in commit.files[:MAX_FILES_IN_TEXT]]
        more = commit.file_count - len(names)
        listing = "\n".join(names) + (f"\n... and {more} more" if more > 0 else "")
        text = f"{message}\n\nFiles changed:\n{listing}"
    meta: dict[str, Any] = {
        "sha": commit.sha,
        "parents": commit.parents,
        "merge": len(commit.parents) > 1,
        "committer": f"{commit.committer} <{commit.committer_email}>",
        "committed_at": At(commit.committed * 1000).iso(),
    }
    if files_known:
        meta["files"] = commit.files
        if commit.file_count > len(commit.files):
            meta["files_truncated"] = commit.file_count - len(commit.files)
    if shallow:
        meta["shallow"] = True
    return MemoryRecord(
        id=commit.sha,
        text=text,
        kind="commit",
        author=f"{commit.author} <{commit.author_email}>",
        title=summary or None,
        at=At(commit.authored * 1000),
        source=source,
        thread=None,
        meta=meta,
    )


class _Log:
    """A running ``git log``, parsed token by token as its output streams in."""

    def __init__(self, git_exe: str, git_dir: str, args: list[str]) -> None:
        # A file, not a pipe: git's stderr can never fill up and stall the log. Closed in close().
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            [git_exe, "--git-dir", git_dir, "--no-pager", "log", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
        )
        self.returncode: int | None = None

    def tokens(self) -> Iterator[str]:
        assert self._proc.stdout is not None
        tail = b""
        while True:
            chunk = os.read(self._proc.stdout.fileno(), _READ_SIZE)
            if not chunk:
                break
            parts = (tail + chunk).split(b"\0")
            tail = parts.pop()
            for part in parts:
                yield part.decode("utf-8", "replace")
        if tail:
            yield tail.decode("utf-8", "replace")
        self.returncode = self._proc.wait()

    def commits(self) -> Iterator[_Commit]:
        """Yield each complete commit; one cut short by a failing git is not yielded."""
        tokens = self.tokens()
        current: _Commit | None = None
        for token in tokens:
            if token.startswith(_MARK):
                if current is not None:
                    yield current
                fields = [token[len(_MARK) :]]
                for extra in tokens:
                    fields.append(extra)
                    if len(fields) == _HEADER_FIELDS:
                        break
                if len(fields) < _HEADER_FIELDS:
                    current = None
                    break
                current = _parse_header(fields)
                continue
            match = _NUMSTAT.fullmatch(token)
            if current is None or match is None:
                continue
            insertions, deletions, path = match.groups()
            old_path = None
            if not path:  # a rename or copy: the old and new paths follow as two tokens
                old_path = next(tokens, "")
                path = next(tokens, "")
            current.file_count += 1
            if len(current.files) < MAX_FILES_IN_META:
                entry: dict[str, Any] = {
                    "path": path,
                    "insertions": None if insertions == "-" else int(insertions),
                    "deletions": None if deletions == "-" else int(deletions),
                }
                if insertions == "-":
                    entry["binary"] = True
                if old_path is not None:
                    entry["from"] = old_path
                current.files.append(entry)
        if self.returncode is None:
            self.returncode = self._proc.wait()
        if current is not None and self.returncode == 0:
            yield current

    def error(self) -> str:
        self._stderr.seek(0)
        lines = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        return "; ".join(lines[-3:]) or f"git log exited with status {self.returncode}"

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()


def _parse_header(fields: list[str]) -> _Commit:
    sha, parents, an, ae, at, cn, ce, ct, body = fields
    return _Commit(
        sha=sha,
        parents=parents.split(),
        author=an,
        author_email=ae,
        authored=int(at or 0),
        committer=cn,
        committer_email=ce,
        committed=int(ct or 0),
        message=body,
    )


def _saved_heads(state: Mapping[str, Any] | None) -> tuple[dict[str, str], str | None]:
    """Return the heads the last run walked, and why they cannot be used (or None)."""
    if state is None:
        return {}, None
    heads = state.get("heads")
    if not isinstance(heads, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) and _SHA.fullmatch(v) for k, v in heads.items()
    ):
        return {}, _BAD_STATE
    return dict(heads), None


class _History:
    """What to walk in which repository, and how to walk it in worker threads."""

    def __init__(
        self,
        repo_path: Path,
        source: str,
        branch: str,
        all_branches: bool,
        since_commit: str | None,
        state: Mapping[str, Any] | None,
    ) -> None:
        self.source = source
        self.all_branches = all_branches
        try:
            repo = git.Repo(repo_path)
        except git.NoSuchPathError as exc:
            raise SourceError(source, "no such folder") from exc
        except git.InvalidGitRepositoryError as exc:
            raise SourceError(source, "not a git repository") from exc
        try:
            self.git_dir = str(Path(repo.git_dir).resolve())
            self.git_exe = str(git.Git.GIT_PYTHON_GIT_EXECUTABLE or "git")
            # A fresh `git init` has no commits: nothing to import, and nothing wrong.
            self.empty = not repo.head.is_valid() and not any(True for _ in repo.refs)
            # The refs walked, by name, and the commit each was at before the walk started:
            # the position saved at the end (never newer than what the walk read).
            self.heads: dict[str, str] = {}
            self.revs: list[str] = []
            if all_branches:
                self.heads = self._all_heads()
                # Stashes and notes are refs but not history anyone wrote as commits.
                self.revs += ["--exclude=refs/stash", "--exclude=refs/notes/*", "--all"]
            elif not (self.empty and branch == "HEAD"):
                self.heads[branch] = self._verify(repo, branch, "branch")
                self.revs.append(self.heads[branch])
            self.saved, self.why = _saved_heads(state)
            known = self._plan() if self.saved else None
            self.mode = "full" if known is None else "incremental"
            self.revs += ["^" + sha for sha in sorted(known or ())]
            self.known = sorted(known or ())
            # Nothing new anywhere: no need to start git log at all.
            self.nothing_new = known is not None and set(self.heads.values()) <= known
            self.partial = since_commit is not None
            if since_commit is not None:
                self.revs.append("^" + self._verify(repo, since_commit, "since_commit"))
            shallow_file = Path(repo.common_dir) / "shallow"
            self.shallow: frozenset[str] = frozenset(
                shallow_file.read_text().split() if shallow_file.is_file() else ()
            )
            self.broken = False  # set when a missing commit object ends the walk early
        finally:
            repo.close()

    @classmethod
    def open(
        cls,
        repo: Path,
        source: str | None,
        branch: str,
        all_branches: bool,
        since_commit: str | None,
        state: Mapping[str, Any] | None,
    ) -> _History:
        path = repo.expanduser()
        src = source if source is not None else "git:" + str(path.resolve())
        return cls(path, src, branch, all_branches, since_commit, state)

    def _all_heads(self) -> dict[str, str]:
        """Return every ref ``--all`` walks (stashes and notes left out) -> its commit."""
        code, out, err = self._run("for-each-ref", "--format=%(refname)")
        if code != 0:
            raise SourceError(self.source, f"cannot list the refs ({err})")
        names = [
            name
            for name in out.splitlines()
            if name and name != "refs/stash" and not name.startswith("refs/notes/")
        ]
        names.insert(0, "HEAD")
        shas = self._commits([name + "^{commit}" for name in names])
        # A ref to a tree or a blob (rare tags) has no history; a dangling one none either.
        return {name: sha for name, sha in zip(names, shas, strict=True) if sha is not None}

    def _commits(self, revs: list[str]) -> list[str | None]:
        """Resolve each rev to a commit sha, or None when it is not one, in one git call."""
        if not revs:
            return []
        code, out, err = self._run(
            "cat-file", "--batch-check=%(objectname) %(objecttype)", stdin="\n".join(revs) + "\n"
        )
        if code != 0:
            raise SourceError(self.source, f"cannot read the refs ({err})")
        shas: list[str | None] = []
        for line in out.splitlines():
            sha, _, kind = line.partition(" ")
            shas.append(sha if kind == "commit" else None)
        return shas

    def _plan(self) -> set[str] | None:
        """Return the commits the last run covered (to leave out of the walk), or None when
        the walk must be full; ``self.why`` then says why."""
        walked = [name for name in self.heads if name in self.saved]
        if self.heads and not walked:
            self.why = "no position saved for " + ", ".join(sorted(self.heads))
            return None
        shas = sorted(set(self.saved.values()))
        present = {sha for sha, found in zip(shas, self._commits(shas), strict=True) if found}
        for name in walked:
            old, new = self.saved[name], self.heads[name]
            if old == new or (self.all_branches and name == "HEAD"):
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

    def _verify(self, repo: git.Repo, rev: str, name: str) -> str:
        try:
            sha = repo.git.rev_parse("--verify", "--quiet", "--end-of-options", rev + "^{commit}")
        except git.GitCommandError as exc:
            raise SourceError(
                self.source, f"`{name}` {rev!r} is not a commit in this repository"
            ) from exc
        return str(sha).strip()

    def _run(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        proc = subprocess.run(
            [self.git_exe, "--git-dir", self.git_dir, "--no-pager", *args],
            input=stdin.encode() if stdin is not None else None,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
            check=False,
        )
        out = proc.stdout.decode("utf-8", "replace")
        err = "; ".join(proc.stderr.decode("utf-8", "replace").strip().splitlines()[-3:])
        return proc.returncode, out, err

    def _emit(self, commit: _Commit, files_known: bool) -> Iterator[MemoryRecord | RecordError]:
        shallow = commit.sha in self.shallow
        try:
            record = _record(commit, self.source, shallow, files_known)
        except (ValueError, TypeError) as exc:  # e.g. a date outside JavaScript's range
            yield RecordError(self.source, commit.sha, f"unreadable commit ({exc})", id=commit.sha)
            return
        yield record
        if shallow:
            yield RecordError(
                self.source,
                commit.sha,
                "shallow clone: the history before this commit is not in the repository "
                "(run `git fetch --unshallow` to import it)",
            )

    def items(self) -> Iterator[Item]:
        if not (self.empty or self.nothing_new):
            yield from self._walk()
        # Only at the end: git yields newest first, so no earlier point covers everything
        # older than itself.
        yield self._position()

    def _position(self) -> SourceState:
        # After a break, commits past it were never read: keep the old position (or none),
        # so the next run reads them once the repository is repaired.
        heads = self.saved if self.broken else self.heads
        complete = self.mode == "full" and not self.partial and not self.broken and not self.shallow
        return SourceState(
            self.source, {"heads": dict(heads)}, self.mode, complete, self.why, self._skipped()
        )

    def _skipped(self) -> int:
        """Count the commits an incremental walk left out: the import counts them unchanged."""
        if self.mode != "incremental" or not self.known:
            return 0
        code, out, _ = self._run("rev-list", "--count", *self.known)
        return int(out.strip()) if code == 0 and out.strip().isdigit() else 0

    def _walk(self) -> Iterator[Item]:
        position = 0  # commits of the walk handled so far, in git's order
        last: str | None = None
        # Each pass streams `git log` from `position`; when git stops on a broken object,
        # the commit it stopped at is handled alone and the walk resumes after it.
        while True:
            log = _Log(
                self.git_exe, self.git_dir, [*_LOG_OPTIONS, f"--skip={position}", *self.revs]
            )
            try:
                for commit in log.commits():
                    position += 1
                    last = commit.sha
                    yield from self._emit(commit, files_known=True)
                if log.returncode == 0:
                    return
                reason = log.error()
            finally:
                log.close()
            code, out, err = self._run(
                "rev-list", "--max-count=1", f"--skip={position}", *self.revs
            )
            sha = out.strip()
            if code == 0 and sha:
                yield from self._alone(sha)
                position += 1
                last = sha
                continue
            # The walk itself is broken: a commit object is missing, so git cannot tell
            # which commits come next. Keep the commit whose parent is missing, then stop.
            reason = err or reason
            stuck = _STUCK_AT.search(reason)
            if stuck and stuck.group(1) != last:
                yield from self._alone(stuck.group(1))
                last = stuck.group(1)
            where = f"after {last}" if last else "start of history"
            self.broken = True
            yield RecordError(
                self.source,
                where,
                f"the history cannot be read further; a commit object is missing ({reason})",
            )
            return

    def _alone(self, sha: str) -> Iterator[Item]:
        """Read one commit on its own: in full, else without its files, else as an error."""
        # git may have stopped while walking past this commit, not while diffing it.
        log = _Log(self.git_exe, self.git_dir, [*_LOG_OPTIONS, "--no-walk", sha])
        try:
            commits = list(log.commits())
            reason = log.error()
        finally:
            log.close()
        if log.returncode == 0 and commits:
            yield from self._emit(commits[0], files_known=True)
            return
        code, out, err = self._run("log", "-z", "--no-walk", f"--format={_FORMAT}", sha)
        tokens = out.split("\0")
        if code != 0 or not tokens[0].startswith(_MARK) or len(tokens) < _HEADER_FIELDS:
            yield RecordError(self.source, sha, f"unreadable commit ({err or reason})", id=sha)
            return
        commit = _parse_header([tokens[0][len(_MARK) :], *tokens[1:_HEADER_FIELDS]])
        yield from self._emit(commit, files_known=False)
        yield RecordError(
            self.source,
            sha,
            f"the files this commit changed could not be read; an object is missing ({reason})",
        )


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


async def from_git(
    repo: str | os.PathLike[str],
    *,
    branch: str = "HEAD",
    all_branches: bool = False,
    since_commit: str | None = None,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one record per commit of a Git repository, newest first.

    Streams a single ``git log --numstat`` in worker threads (reading its output as it comes,
    never the whole history at once), in git's default order: newest first by commit date,
    a commit always before its parents. Stops where ``since_commit`` starts, so a re-run with
    the newest sha of the last run reads only what is new.

    Each record has ``kind="commit"``, ``id`` = the full sha, ``text`` = the full message
    plus a "Files changed" list (at most 50 names), ``title`` = the summary line,
    ``author="Name <email>"``, ``at`` = the author date, and ``meta`` with ``sha``,
    ``parents``, ``merge``, ``committer``, ``committed_at`` and ``files`` (path, insertions,
    deletions, ``binary``/``from`` when relevant; at most 200, the rest counted in
    ``files_truncated``). Merges list their changes against the first parent.

    A missing object gives a :class:`RecordError` and the import goes on: a commit whose
    changed files cannot be diffed is still yielded (without ``files``) beside an error; a
    missing commit object ends the walk with an error. The boundary commits of a shallow
    clone are yielded with ``meta["shallow"]`` and an error saying the history is cut.

    The walk ends with a :class:`~memtrails.records.SourceState` whose state is
    ``{"heads": {ref: sha}}``: the commit each walked ref was at when the walk started
    (``branch`` as given, or with ``all_branches`` every ref's full name and ``HEAD``).
    Given back as ``state``, it makes the walk incremental: commits reachable from any
    saved head are left out (``git log <heads> ^<saved>...``), so only new commits are read
    and a re-run with nothing new starts no ``git log`` at all (``mode="incremental"``,
    ``complete=False``). It falls back to a full walk (``mode="full"``, ``why`` set) when:

    - the state is not one this version reads;
    - no walked ref has a saved head (another ``branch``, or ``all_branches`` switched);
    - a walked ref moved and its saved commit is no longer in the repository, or is no
      longer an ancestor of where the ref is now (amended, rebased, force-pushed, reset,
      or for ``branch="HEAD"`` another branch checked out): commits dropped from the
      history may then have been imported, and only a full walk (with prune) can tell;
    - git cannot tell whether it is an ancestor (an object between the two is missing).
      With ``all_branches``, ``HEAD`` moving is not a rewrite (its commits stay under
      their branch), and a deleted ref is not either (its saved commit is still left out
      while git keeps it).

    A full walk is ``complete`` (a prune may forget commits no longer reachable) unless
    ``since_commit`` was given, the clone is shallow, or a missing commit ended the walk.
    After such a break the old position (or none) is kept, so commits past it are read
    once the repository is repaired.

    Args:
        repo: the working tree or bare repository.
        branch: the branch, tag or commit to walk from.
        all_branches: walk every branch, tag and remote ref (not stashes or notes) instead.
        since_commit: leave out this commit and everything reachable from it.
        source: the source name on every record; defaults to ``"git:" + resolved path``.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).

    Raises:
        SourceError: the path is missing or not a repository, or ``branch`` or
            ``since_commit`` is not a commit in it.

    Returns:
        An async iterator of records, per-commit errors and, last, the source state.

    Example::

        state = memory.source_state("git:/home/me/code/repo")
        await memory.ingest(from_git("~/code/repo", state=state))
    """
    history = await asyncio.to_thread(
        _History.open, Path(repo), source, branch, all_branches, since_commit, state
    )
    # Close the reader (and stop git) as soon as the consumer stops, not when GC runs.
    async with aclosing(_generator(iterate_in_thread(history.items))) as items:
        async for item in items:
            yield item
