"""Read a Git repository's history as commit records, one per commit, newest first."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import tempfile
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import git

from .._exceptions import SourceError
from ..records import At, Item, MemoryRecord, RecordError
from ._threaded import iterate_in_thread

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


class _History:
    """What to walk in which repository, and how to walk it in worker threads."""

    def __init__(
        self,
        repo_path: Path,
        source: str,
        branch: str,
        all_branches: bool,
        since_commit: str | None,
    ) -> None:
        self.source = source
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
            self.revs: list[str] = []
            if all_branches:
                # Stashes and notes are refs but not history anyone wrote as commits.
                self.revs += ["--exclude=refs/stash", "--exclude=refs/notes/*", "--all"]
            elif not (self.empty and branch == "HEAD"):
                self.revs.append(self._verify(repo, branch, "branch"))
            if since_commit is not None:
                self.revs.append("^" + self._verify(repo, since_commit, "since_commit"))
            shallow_file = Path(repo.common_dir) / "shallow"
            self.shallow: frozenset[str] = frozenset(
                shallow_file.read_text().split() if shallow_file.is_file() else ()
            )
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
    ) -> _History:
        path = repo.expanduser()
        src = source if source is not None else "git:" + str(path.resolve())
        return cls(path, src, branch, all_branches, since_commit)

    def _verify(self, repo: git.Repo, rev: str, name: str) -> str:
        try:
            sha = repo.git.rev_parse("--verify", "--quiet", "--end-of-options", rev + "^{commit}")
        except git.GitCommandError as exc:
            raise SourceError(
                self.source, f"`{name}` {rev!r} is not a commit in this repository"
            ) from exc
        return str(sha).strip()

    def _run(self, *args: str) -> tuple[int, str, str]:
        proc = subprocess.run(
            [self.git_exe, "--git-dir", self.git_dir, "--no-pager", *args],
            stdin=subprocess.DEVNULL,
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
            yield RecordError(self.source, commit.sha, f"unreadable commit ({exc})")
            return
        yield record
        if shallow:
            yield RecordError(
                self.source,
                commit.sha,
                "shallow clone: the history before this commit is not in the repository "
                "(run `git fetch --unshallow` to import it)",
            )

    def items(self) -> Iterator[MemoryRecord | RecordError]:
        if self.empty:
            return
        position = 0  # commits of the walk handled so far, in git's order
        last: str | None = None
        # Each pass streams `git log` from `position`; when git stops on a broken object,
        # the commit it stopped at is handled alone and the walk resumes after it.
        while True:
            log = _Log(self.git_exe, self.git_dir, [*_LOG_OPTIONS, f"--skip={position}", *self.revs])
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
            yield RecordError(self.source, sha, f"unreadable commit ({err or reason})")
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
) -> AsyncGenerator[MemoryRecord | RecordError, None]:
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

    Args:
        repo: the working tree or bare repository.
        branch: the branch, tag or commit to walk from.
        all_branches: walk every branch, tag and remote ref (not stashes or notes) instead.
        since_commit: leave out this commit and everything reachable from it.
        source: the source name on every record; defaults to ``"git:" + resolved path``.

    Raises:
        SourceError: the path is missing or not a repository, or ``branch`` or
            ``since_commit`` is not a commit in it.

    Returns:
        An async iterator of records and per-commit errors.

    Example::

        async with aclosing(from_git("~/code/repo", since_commit=last_seen)) as items:
            async for item in items:
                print(item)
    """
    history = await asyncio.to_thread(
        _History.open, Path(repo), source, branch, all_branches, since_commit
    )
    # Close the reader (and stop git) as soon as the consumer stops, not when GC runs.
    async with aclosing(_generator(iterate_in_thread(history.items))) as items:
        async for item in items:
            yield item
