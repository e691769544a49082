"""Read a commit object as stored, for what ``git log`` cannot print of it.

``git log`` prints a commit's message only up to its first NUL byte (git refuses to write
one, but ``git hash-object`` of a crafted commit, or another tool, can), and prints no time
at all for a date before 1970 (a negative Unix time). The walk reads each commit's object
with one ``git cat-file --batch`` kept open beside the log (a few per cent of the log's own
cost) and takes the message and the dates from there when the log's are cut short, and
the message and names when its ``encoding`` header names a legacy charset but its text is
UTF-8 (git then re-encodes it to mojibake: ``CafÃ©``), or names Latin-1 (a charset that
reads any byte) but its words are in another 8-bit charset (KOI8-R as ``ÓÏÂÒÁÎÉÅ``).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from dataclasses import replace

from .._legacy_text import decode_as, decode_legacy
from ..mail.charsets import DECODE_ERRORS, python_codec
from ._log import MAX_FIELD_BYTES, Commit, cut_field, storable_seconds
from ._repo import git_env
from ._text import decode_commit, decode_name, without_controls

__all__ = ["RawCommits", "amend_commit"]

# "author Name <mail> 1700000000 +0000": the time is the number after the last ">".
_TIME = re.compile(rb"\s*([-+]?\d{1,30})(?:\s|$)")
# The zone after it: "+0200"; git writes what it was given, so an hour past 23 or a minute
# past 59 is no clock's offset.
_ZONE = re.compile(rb"(?:^|\s)[-+]?\d{1,30}\s+([-+])([01]\d|2[0-3])([0-5]\d)\s*\Z")
_NULS = re.compile("\x00+")
# Room for a commit's headers (a signature's are a few KB) beside its message's bytes.
_HEAD_ROOM = 1 << 16
# An ident with no "<email>" at all ("author Ann 1700000000 +0000", written by some converters
# and tools; git fsck's missingEmail): git log prints no name, no e-mail and no date for it.
_BARE_IDENT = re.compile(rb"(.*?)\s*([-+]?\d{1,30})(?:\s+[-+]?\d{1,4})?\s*")


# A declared charset whose honest text is UTF-8 by chance for a word or two: its UTF-8
# reading is trusted only past this many 8-bit bytes (three CJK characters).
_DOUBLE_BYTE = ("gb", "big5", "euc", "shift_jis", "cp932", "cp949", "cp950", "johab", "hz")
_MIN_CJK_BYTES = 9


def _utf8_despite_header(raw: bytes, encoding: bytes | None) -> str | None:
    """Return the legacy charset a commit names when it is in fact written in UTF-8: all of
    it reads as UTF-8 (by chance, text in an 8-bit charset almost never does), some of it
    beyond ASCII; else None."""
    codec = python_codec(encoding.decode("latin-1")) if encoding else None
    if codec is None or codec.replace("_", "-") in ("utf-8", "utf-8-sig") or raw.isascii():
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    high = len(raw) - len(raw.translate(None, bytes(range(0x80, 0x100))))
    return codec if not codec.startswith(_DOUBLE_BYTE) or high >= _MIN_CJK_BYTES else None


# The charsets a header may name that read any byte: text in another 8-bit charset under
# their label decodes with no error, as mojibake.
_READS_ANY = frozenset({"cp1252", "iso8859-1", "iso8859-15"})


def _other_than_header(raw: bytes, encoding: bytes | None) -> tuple[str, str] | None:
    """Return the Latin-1 (or Windows-1252, ISO-8859-15) charset a commit names and the one
    its words are in, where another 8-bit charset reads them clearly better (a KOI8-R or
    Windows-1251 message under a wrong ``i18n.commitEncoding``); else None."""
    codec = python_codec(encoding.decode("latin-1")) if encoding else None
    if codec not in _READS_ANY or raw.isascii():
        return None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return None  # UTF-8 under a legacy label: _utf8_despite_header
    _, found = decode_legacy(raw, candidates=(codec,))
    if found in ("utf-8", "cp1252", "latin-1", codec):
        return None
    return codec, found


def _utf8_ident(
    commit: Commit, who: str, value: bytes | None, codec: str, actual: str = "utf-8"
) -> dict[str, str]:
    """Return the name and e-mail of an author or committer line read in ``actual``, each
    where the log printed it re-encoded from ``codec`` (not where ``.mailmap`` replaced it)."""
    if value is None or b"<" not in value:
        return {}
    name, _, rest = value.partition(b"<")
    changes: dict[str, str] = {}
    for key, raw in ((who, name.strip()), (who + "_email", rest.partition(b">")[0].strip())):
        # as git re-encoded it from the charset named (iconv's ISO-8859-1 has C1 controls
        # where Windows-1252 has letters; the log's reading drops controls)
        printed = {raw.decode(codec, "replace"), raw.decode("latin-1")}
        if getattr(commit, key) in printed | {without_controls(t) for t in printed}:
            changes[key] = decode_as(raw, actual)
    return changes


def _headers(raw: bytes) -> tuple[dict[bytes, bytes], bytes]:
    """Split a commit object into its first header of each name and its message."""
    head, _, body = raw.partition(b"\n\n")
    found: dict[bytes, bytes] = {}
    for line in head.split(b"\n"):
        if line[:1] == b" ":  # the continuation of a multi-line header (gpgsig)
            continue
        name, _, value = line.partition(b" ")
        found.setdefault(name, value)
    return found, body


def _time(ident: bytes | None) -> int | None:
    """Return the Unix time of an author or committer line, negative before 1970."""
    if ident is None or b">" not in ident:
        return None
    match = _TIME.match(ident.rpartition(b">")[2])
    return storable_seconds(match.group(1).decode()) if match else None


def _offset(ident: bytes | None) -> int | None:
    """Return the offset from UTC, in minutes, of an author or committer line, or None."""
    if ident is None:
        return None
    match = _ZONE.search(ident.rpartition(b">")[2] if b">" in ident else ident)
    if match is None:
        return None
    minutes = int(match.group(2)) * 60 + int(match.group(3))
    return -minutes if match.group(1) == b"-" else minutes


def _bare_ident(ident: bytes | None) -> tuple[str, int | None] | None:
    """Return the name and time of an ident line with no ``<email>``, else None."""
    if ident is None or b"<" in ident or b">" in ident:
        return None
    match = _BARE_IDENT.fullmatch(ident)
    if match is None:  # no time either: the whole line is the name
        return decode_name(ident.strip()), None
    return decode_name(match.group(1).strip()), storable_seconds(match.group(2).decode())


def _message(body: bytes, encoding: bytes | None) -> str:
    """Decode a message holding NUL bytes: each run of them reads as one space."""
    codec = python_codec(encoding.decode("latin-1")) if encoding else None
    if codec is not None:
        try:
            return _NULS.sub(" ", body.decode(codec))
        except DECODE_ERRORS:
            pass  # not in the charset it names: read as one that names none
    return " ".join(decode_commit(re.split(rb"\x00+", body)))


def amend_commit(commit: Commit, raw: bytes) -> Commit:
    """Return ``commit`` with what the log cut short taken from its object, ``raw``."""
    headers, body = _headers(raw)
    changes: dict[str, object] = {}
    codec = _utf8_despite_header(raw, headers.get(b"encoding"))
    relabel = None if codec is not None else _other_than_header(raw, headers.get(b"encoding"))
    if codec is not None:
        changes["message"] = _NULS.sub(" ", body.decode("utf-8"))
        for who in ("author", "committer"):
            changes.update(_utf8_ident(commit, who, headers.get(who.encode()), codec))
    elif relabel is not None:
        declared, found = relabel
        changes["message"] = _NULS.sub(" ", decode_as(body, found))
        for who in ("author", "committer"):
            value = headers.get(who.encode())
            changes.update(_utf8_ident(commit, who, value, declared, found))
    elif b"\x00" in body:
        changes["message"] = _message(body, headers.get(b"encoding"))
    offset = _offset(headers.get(b"author"))
    if offset is not None:
        changes["author_offset"] = offset
    if commit.authored is None:
        changes["authored"] = _time(headers.get(b"author"))
    if commit.committed is None:
        changes["committed"] = _time(headers.get(b"committer"))
    nul_in_head = any(b"\x00" in value for value in headers.values())
    for who, when in (("author", "authored"), ("committer", "committed")):
        value = headers.get(who.encode())
        if value is not None and nul_in_head and b"<" in value:
            # git prints no names, addresses nor dates past a NUL in the header: each run
            # of them is a space.
            value = re.sub(rb"\x00+", b" ", value)
            if not getattr(commit, who) and not getattr(commit, who + "_email"):
                name, _, rest = value.partition(b"<")
                changes[who] = decode_name(name.strip())
                changes[who + "_email"] = decode_name(rest.partition(b">")[0].strip())
                if getattr(commit, when) is None:
                    changes[when] = _time(value)
        bare = _bare_ident(value)
        if bare is not None and not getattr(commit, who) and not getattr(commit, who + "_email"):
            changes[who], time = bare
            if getattr(commit, when) is None:
                changes[when] = time
    return replace(commit, **changes) if changes else commit  # type: ignore[arg-type]


class RawCommits:
    """A ``git cat-file --batch`` kept open for a walk; started on the first read."""

    def __init__(self, git_exe: str, git_dir: str) -> None:
        self._args = [git_exe, "--git-dir", git_dir, "cat-file", "--batch"]
        self._proc: subprocess.Popen[bytes] | None = None
        self._failed = False

    def amend(self, commit: Commit) -> Commit:
        """Return ``commit`` completed from its object; as it is when that cannot be read."""
        raw = self._read(commit.sha)
        return commit if raw is None else amend_commit(commit, raw)

    def parents(self, sha: str) -> list[str]:
        """Return the parents a commit's object names (none when it cannot be read)."""
        raw = self._read(sha)
        head = b"" if raw is None else raw.partition(b"\n\n")[0]
        return [line[7:].decode() for line in head.split(b"\n") if line.startswith(b"parent ")]

    def _read(self, sha: str) -> bytes | None:
        if self._failed:
            return None
        try:
            if self._proc is None:
                self._proc = subprocess.Popen(
                    self._args,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    env=git_env(),
                )
            assert self._proc.stdin is not None and self._proc.stdout is not None
            self._proc.stdin.write(sha.encode() + b"\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline().split()
            if len(line) != 3 or not line[2].isdigit():
                # "<sha> missing", or git gone: the log's own reading stands.
                if not line or line[-1] != b"missing":
                    self._failed = True
                return None
            size = int(line[2])
            # What the log keeps of a message (the rest read past, never held whole).
            cap = MAX_FIELD_BYTES + _HEAD_ROOM
            # The object and the LF git writes after it; of a longer one, a byte past the
            # cap (to tell where the last whole character ends), the rest read past.
            kept = size + 1 if size <= cap else cap + 1
            data = self._proc.stdout.read(kept)
            left = size + 1 - kept
            while left > 0:
                skipped = len(self._proc.stdout.read(min(left, 1 << 20)))
                if not skipped:
                    break
                left -= skipped
        except (OSError, ValueError):
            self._failed = True
            return None
        if len(data) != kept or left:  # cut short: git stopped
            self._failed = True
            return None
        if line[1] != b"commit":
            return None
        return data[:size] if size <= cap else cut_field(data, cap)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
