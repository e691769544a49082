"""Run ``git log`` and parse its output, token by token as it streams, into commit records."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import IO, Any

from ...limits import Limits
from ...records import At, MemoryRecord
from .._legacy_text import lone_cr_as_lf
from .._shared import bounded_name, name_as_title
from ._repo import git_env
from ._text import decode_commit, decode_name, without_controls

__all__ = ["MAX_FIELD_BYTES", "MAX_FILES_IN_META", "MAX_FILES_IN_TEXT", "cut_field", "local_time"]

MAX_FILES_IN_META = 200
NO_MESSAGE = "(no commit message)"
MAX_FILES_IN_TEXT = 50

# A header token starts with this marker; numstat tokens start with a digit or "-", so the
# two can never be confused (paths only ever follow a numstat token, at known positions).
MARK = "\x01memtrails-commit "
_MARK = MARK.encode()
# Names and addresses as .mailmap maps them (%aN), as `git log` and `git shortlog` show them.
FORMAT = "%x01memtrails-commit %H%x00%P%x00%aN%x00%aE%x00%at%x00%cN%x00%cE%x00%ct%x00%B%x00"
HEADER_FIELDS = 9
_IDENTS = ("aN", "aE", "cN", "cE")
# A count of more digits than any file has lines is not git's output (and int() of 4,300+
# digits raises): such a token is no file line.
_NUMSTAT = re.compile(rb"\n?(\d{1,18}|-)\t(\d{1,18}|-)\t(.*)", re.DOTALL)
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # SHA-1 or SHA-256 object names
# A --raw line: ":old-mode new-mode old-object new-object status" (R and C, a rename or a
# copy, take two paths after it, the others one).
_RAW = re.compile(rb"\n?:([0-7]{6}) ([0-7]{6}) ([0-9a-f]{40,64}) ([0-9a-f]{40,64}) ([A-Z])\d*")
_GITLINK = b"160000"
_NO_OBJECT = re.compile(r"0+")
_READ_SIZE = 1 << 16
# The most of one field kept (a message: the rest is read past, never held): a record's text
# is cut at Limits.max_text_units anyway, and no UTF-16 unit takes more than 4 bytes of
# UTF-8, so a message cut here is still cut (and said so) where the record is. An 80 MB
# message held whole took 500 MB at its peak.
MAX_FIELD_BYTES = 4 * Limits().max_text_units
# Fixed options so a user's git config (renames off, signatures on, external diff drivers)
# never changes what is read or how fast.
LOG_OPTIONS = (
    "-z",
    # --raw too: only it tells a submodule (a gitlink, mode 160000), whose bump --numstat
    # counts as a one-line change, and gives the two commits it moved between.
    "--raw",
    "--no-abbrev",
    "--numstat",
    "-M",
    "--root",
    "--diff-merges=first-parent",
    "--no-ext-diff",
    "--no-textconv",
    "--no-show-signature",
    "--no-color",
    f"--format={FORMAT}",
)


@dataclass
class Commit:
    """One commit as ``git log`` printed it."""

    sha: str
    parents: list[str]
    author: str
    author_email: str
    authored: int | None  # Unix seconds; None: git printed none (before 1970), or unstorable
    committer: str
    committer_email: str
    committed: int | None
    message: str
    files: list[dict[str, Any]] = field(default_factory=list)
    file_count: int = 0
    # Each submodule the commit moved, by path: the commits it pointed at before and after
    # (None: added, or removed).
    submodules: dict[bytes, tuple[str | None, str | None]] = field(default_factory=dict)
    # The author's offset from UTC in minutes, as the commit object writes it (+0200: 120);
    # None when not read (the object could not be) or not one a clock shows.
    author_offset: int | None = None


def _ident(name: str, email: str) -> str | None:
    """``Name <email>``; the name alone for a commit that gives no e-mail (``Ann <>``, or
    none at all), ``<email>`` for one with no name, None for one that gives neither. No
    control character is kept."""
    name = bounded_name(without_controls(name, True).strip())
    email = bounded_name(without_controls(email, True).strip())
    if email:
        return f"{name} <{email}>" if name else f"<{email}>"
    return name or None


def _listed(entry: dict[str, Any]) -> str:
    """A changed file's line in a commit's text; a submodule's says which commits it moved
    between, as ``git diff --submodule=short`` does."""
    name = name_as_title(entry["path"])
    moved = entry.get("submodule")
    if moved is None:
        return name
    old, new = (sha[:12] if sha else None for sha in (moved["from"], moved["to"]))
    if old is None:
        return f"{name} (submodule added at {new})"
    if new is None:
        return f"{name} (submodule removed, was at {old})"
    # Moved to another path at the same commit (git mv): only its path changed.
    return f"{name} (submodule at {new})" if old == new else f"{name} (submodule {old}..{new})"


def commit_record(
    commit: Commit,
    source: str,
    shallow: bool,
    files_known: bool,
    files_error: str | None = None,
) -> MemoryRecord:
    """Build the record of a commit.

    A commit whose changes cannot be told is still one record, with no file list:
    ``files_error`` says why, in ``meta`` (as a mail's unreadable attachment does), for it
    is no record lost and is not counted as one.
    """
    # A message written on Windows ends its lines in CR LF, and a CR alone ends a line too:
    # all are LF, as in every other commit; terminal escapes are no words.
    message = commit.message.replace("\r\n", "\n") if "\r" in commit.message else commit.message
    message = without_controls(lone_cr_as_lf(message)).rstrip("\n")
    # The first line that is not blank, as git's own %s: a hand-written or converted commit
    # (svn, hg) may open with empty lines.
    summary = message.lstrip().split("\n", 1)[0].strip()
    # A commit may have no message at all (--allow-empty-message, a converted history): it
    # is still a commit, and a record with no text and no title would be refused.
    text = message if message.strip() else NO_MESSAGE
    if files_known and commit.files:
        # One line each, as `ls` shows them (a newline or an ESC is legal in a path).
        names = [_listed(f) for f in commit.files[:MAX_FILES_IN_TEXT]]
        more = commit.file_count - len(names)
        listing = "\n".join(names) + (f"\n... and {more} more" if more > 0 else "")
        text = f"{text}\n\nFiles changed:\n{listing}"
    meta: dict[str, Any] = {
        "sha": commit.sha,
        "parents": commit.parents,
        "merge": len(commit.parents) > 1,
        "committer": _ident(commit.committer, commit.committer_email) or "",
    }
    if commit.committed is not None:
        meta["committed_at"] = At(commit.committed * 1000).iso()
    local = local_time(commit.authored, commit.author_offset)
    if local is not None:
        # A record's time is UTC; the author's own clock (a late-night commit, a time zone
        # moved to) is kept beside it, as git shows it (%aI).
        meta["authored_local"] = local
    # The author's date, else the committer's; a commit with neither (its dates damaged, or
    # past what a date holds) has no time rather than a false one (1970).
    when = commit.authored if commit.authored is not None else commit.committed
    if commit.authored is None:
        meta["date_error"] = (
            "the author date is not a time a record can hold (damaged, or past the year 275760)"
            + ("; the committer date is used" if when is not None else "")
        )
    if files_known:
        meta["files"] = commit.files
        if commit.file_count > len(commit.files):
            meta["files_truncated"] = commit.file_count - len(commit.files)
    elif files_error is not None:
        meta["files_error"] = files_error
    if shallow:
        meta["shallow"] = True
    return MemoryRecord(
        id=commit.sha,
        text=text,
        kind="commit",
        author=_ident(commit.author, commit.author_email),
        title=summary or None,
        at=None if when is None else At(when * 1000),
        source=source,
        thread=None,
        meta=meta,
    )


def local_time(seconds: int | None, offset: int | None) -> str | None:
    """Return ISO 8601 with the offset (``2024-05-03T16:00:00+02:00``) of ``seconds`` on a
    clock ``offset`` minutes from UTC; None when either is unknown or past year 9999."""
    if seconds is None or offset is None:
        return None
    try:
        wall = datetime(1970, 1, 1) + timedelta(seconds=seconds, minutes=offset)
    except OverflowError:
        return None
    if wall.year < 1:  # datetime holds years 1 to 9999 only
        return None
    sign, minutes = ("-" if offset < 0 else "+"), abs(offset)
    return f"{wall:%Y-%m-%dT%H:%M:%S}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


_MAX_SECONDS = 8_640_000_000_000  # the last second a JavaScript Date (and so At) holds
_SECONDS = re.compile(r"[-+]?[0-9]{1,30}")


def storable_seconds(field: str) -> int | None:
    """Read a commit time, Unix seconds (negative before 1970), or None.

    git prints a number here; it prints nothing for a time before 1970 (the walk then reads
    it from the commit object, see ``_raw``). Anything else (a damaged object, or not git's
    output at all), or a time no date can hold, is None: no time, rather than a false one.
    """
    if not _SECONDS.fullmatch(field):
        return None
    value = int(field)
    return value if -_MAX_SECONDS <= value <= _MAX_SECONDS else None


def parse_header(fields: list[str]) -> Commit:
    """Read the header fields of one commit (see ``FORMAT``), decoded (:func:`header`)."""
    sha, parents, an, ae, at, cn, ce, ct, body = fields
    # git leaves %aN and the others as they are for an ident it cannot split (no <email>).
    an, ae, cn, ce = (
        "" if f"%{k}" == v else v for k, v in zip(_IDENTS, (an, ae, cn, ce), strict=True)
    )
    return Commit(
        sha=sha,
        parents=parents.split(),
        author=an,
        author_email=ae,
        authored=storable_seconds(at),
        committer=cn,
        committer_email=ce,
        committed=storable_seconds(ct),
        message=body,
    )


def header(fields: list[bytes]) -> Commit:
    """Read the header fields of one commit as git printed them: bytes, in UTF-8 or (a
    commit that does not name its encoding) whatever charset its author's system used."""
    return parse_header(decode_commit(fields))


def cut_field(raw: bytes, limit: int | None = None) -> bytes:
    """Return ``raw`` cut to ``limit`` bytes (:data:`MAX_FIELD_BYTES`), never inside a
    UTF-8 character (a cut one would make the whole field read as a legacy charset)."""
    limit = MAX_FIELD_BYTES if limit is None else limit
    if len(raw) <= limit:
        return raw
    end = limit
    while end > limit - 3 and raw[end] & 0xC0 == 0x80:
        end -= 1
    return raw[:end]


class Log:
    """A running ``git log``, parsed token by token as its output streams in."""

    def __init__(
        self, git_exe: str, git_dir: str, args: list[str], work_tree: str | None = None
    ) -> None:
        """Start ``git log args``: the options (``-...``) on its command line, the revs
        (commits, and ``^`` ones left out) on its standard input, as many as there are (a
        command line holds about 2 MiB: 50,000 revs). ``work_tree``: where the repository's
        ``.mailmap`` is; git runs in ``git_dir``, never reading another folder's."""
        options = [arg for arg in args if arg.startswith("-")]
        revs = "".join(arg + "\n" for arg in args if not arg.startswith("-"))
        # A file, not a pipe: git's stderr can never fill up and stall the log. Closed in close().
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        tree = ["--work-tree", work_tree] if work_tree is not None else []
        self._proc = subprocess.Popen(
            [git_exe, "--git-dir", git_dir, *tree, "--no-pager", "log", *options, "--stdin"],
            cwd=git_dir,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=git_env(),
        )
        self.returncode: int | None = None
        assert self._proc.stdin is not None
        # git reads all of its standard input before it prints anything, so writing it whole
        # first cannot stall on the output pipe.
        try:
            self._proc.stdin.write(revs.encode())
            self._proc.stdin.close()
        except BrokenPipeError:  # git stopped early: its error says why
            pass

    def tokens(self) -> Iterator[bytes]:
        assert self._proc.stdout is not None
        # The token being read, as the chunks it came in: joined once when it ends, for a
        # message of many MB (many reads) is never copied again at each read.
        pieces: list[bytes] = []
        size = 0  # of the pieces kept: past MAX_FIELD_BYTES, the token's rest is read past
        while True:
            chunk = os.read(self._proc.stdout.fileno(), _READ_SIZE)
            if not chunk:
                break
            if b"\0" not in chunk:
                if size <= MAX_FIELD_BYTES:
                    pieces.append(chunk)
                    size += len(chunk)
                continue
            parts = chunk.split(b"\0")
            pieces.append(parts[0])
            yield cut_field(b"".join(pieces))
            for part in parts[1:-1]:
                yield cut_field(part)
            pieces, size = [parts[-1]], len(parts[-1])
        tail = cut_field(b"".join(pieces))
        if tail:
            yield tail
        self.returncode = self._proc.wait()

    def commits(self) -> Iterator[Commit]:
        """Yield each complete commit; one cut short by a failing git is not yielded."""
        tokens = self.tokens()
        current: Commit | None = None
        for token in tokens:
            if token.startswith(_MARK):
                if current is not None:
                    yield current
                fields = [token[len(_MARK) :]]
                for extra in tokens:
                    fields.append(extra)
                    if len(fields) == HEADER_FIELDS:
                        break
                if len(fields) < HEADER_FIELDS:
                    current = None
                    break
                current = header(fields)
                if not _SHA.fullmatch(current.sha):
                    current = None  # not git's output (damaged): no commit, nor its files
                continue
            if token[:1] == b":" or token[:2] == b"\n:":
                # A --raw line; its paths come next (they are the numstat line's too, read
                # there): two after a rename or a copy (R100, C75), else one. Only a
                # submodule's line is parsed further: a commit may list 100,000 files.
                status = token[token.rfind(b" ") + 1 : token.rfind(b" ") + 2]
                named = next(tokens, b"")
                if status in (b"R", b"C"):
                    named = next(tokens, b"")
                raw = _RAW.fullmatch(token) if _GITLINK in token[:17] else None
                if current is not None and raw is not None:
                    old, new = (
                        None if mode != _GITLINK or _NO_OBJECT.fullmatch(sha) else sha
                        for mode, sha in (
                            (raw.group(1), raw.group(3).decode()),
                            (raw.group(2), raw.group(4).decode()),
                        )
                    )
                    current.submodules[named] = (old, new)
                continue
            match = _NUMSTAT.fullmatch(token)
            if current is None or match is None:
                continue
            insertions, deletions = match.group(1).decode(), match.group(2).decode()
            raw_path, raw_old = match.group(3), None
            if not raw_path:  # a rename or copy: the old and new paths follow as two tokens
                raw_old = next(tokens, b"")
                raw_path = next(tokens, b"")
            # A path is bytes to git: one not in UTF-8 is read as cp1252, not as U+FFFD.
            path = decode_name(raw_path)
            old_path = None if raw_old is None else decode_name(raw_old)
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
                moved = current.submodules.get(raw_path)
                if moved is not None:
                    # Not lines: the commit the submodule points at changed.
                    entry["insertions"] = entry["deletions"] = None
                    entry["submodule"] = {"from": moved[0], "to": moved[1]}
                current.files.append(entry)
        if self.returncode is None:
            self.returncode = self._proc.wait()
        if current is not None and self.returncode == 0:
            yield current

    def error(self) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace")
        lines = [line for line in text.strip().splitlines() if not line.startswith("hint:")]
        return "; ".join(lines[-3:]) or f"git log exited with status {self.returncode}"

    def close(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):  # left open by a git that stopped early
                self._proc.stdin.close()
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()
