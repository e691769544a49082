"""Aider's chat history (``.aider.chat.history.md`` in a project's folder): one record per turn.

Aider appends to the file as it works (``aider/io.py``, ``InputOutput``): each run of it
starts with ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time); what the user types
is each of its lines as ``#### line`` (a blank input ``#### <blank>``), after a blank line,
each ending in the two spaces of a Markdown line break (``append_chat_history``'s
``linebreak``); Aider's own output (files added, tokens, commits, errors, its questions and
the answers to them) is a ``> `` line, the lines of a message of several lines right after it
unquoted (``tool_output`` quotes the first alone), its last ending in those two spaces; the
model's answer is the Markdown written between, after a blank line (``ai_output``), whole
once it is complete.

Who speaks, then (the rule, line by line):

- ``#### text`` is the user's when it ends in those two spaces; one without them is the
  answer's (a Markdown heading: models write ``#### Step 1``). In a file whose
  ``#### `` lines lost their spaces (an editor that trims them), every ``#### `` line is the
  user's: the first ``#### `` line read says which the file is (no answer comes before a
  run's first input). A ``#### `` line that is Aider answering its own question, as it does
  for a group of them (``... (Y)es/(N)o/(A)ll ... [Yes]: a``), is Aider's output, no one's words.
- ``> text`` right after the user's input or Aider's output is Aider's output, as are the
  lines right after it up to a blank line, left out (an answer starts after a blank line).
  In an answer or after a blank line, once the run's user has spoken, a ``> `` line may be
  a Markdown quote of the answer too: its paragraph (up to a blank line) is Aider's output
  when a line of it ends in the two spaces every message of Aider's ends in, else the
  answer's. A message of Aider's goes on up to the line that ends so, blank lines and all:
  older Aider quotes the first line of a message of several alone (``tool_error``'s
  ``# 1 SEARCH/REPLACE block failed to match!``, a blank line, the blocks, then
  ``Just reply with fixed versions ...``), all of it Aider's. In a file that lost its
  trailing spaces, every ``> `` line is Aider's output and the unquoted lines after it up to
  a blank line, as before.
- Any other line is the answer's, blank lines inside it included. An answer holding a
  quote with a line that ends in two spaces (a Markdown line break) reads as Aider's output
  there, and one holding a ``#### `` line that ends in two spaces as the user's: the file
  tells no difference.

Beside it, ``.aider.input.history`` (prompt_toolkit's ``FileHistory``) holds what the user
typed with the time of each (``# 2025-06-19 14:32:20.123456`` then ``+line`` lines): a user
turn found there, after its run started, is dated by it, and the answer by the turn it
answers; else a turn has the run's start.

Here: the user's words are a ``user`` record, an answer ``aider``'s, both in the run's
thread; Aider's output lines are left out (as agents' tool output is). A record's id is the
run's start and the turn's number in it (``aider-20250619T143216:3``, after the folder's
path when a folder of sessions is read). A re-run reads on from the start of the last run
in the file, its turns read again (the same ones are unchanged).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Generator, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO

from ..records import At, Item, MemoryRecord
from ._jsonl_source import bounded_lines
from ._legacy_text import decode_legacy

__all__ = ["AIDER_HISTORY", "is_aider_history", "read_aider"]

AIDER_HISTORY = ".aider.chat.history.md"
"""The name Aider gives its chat history (``--chat-history-file``'s default)."""

_INPUTS = ".aider.input.history"
_STARTED = re.compile(r"# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_INPUT_TIME = re.compile(r"# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")
# Aider answering its own question for the user (confirm_ask with a group's preference),
# written as the user's input: "Add file to the chat? (Y)es/(N)o/(A)ll/... [Yes]: a".
_SELF_ANSWER = re.compile(r"\(Y\)es/\(N\)o(?:/\([A-Z]\)[^/\[]*)* \[[^\]]*\]: ?\S*\s*$")
_SAMPLE = 4096
# The model's reasoning in an answer, left out as the other agents' is: as Aider writes it
# to the history (``reasoning_tags.py``: its tag, ``<thinking-content-<hash>>``), as it shows
# it (between ``► **THINKING**`` and ``► **ANSWER**``), or a model's own ``<think>`` that
# opens the answer (one Aider was not told to strip).
_REASONING = (
    re.compile(r"<(thinking-content-[0-9a-f]+)>.*?(?:</\1>|\Z)", re.DOTALL),
    re.compile(
        r"(?:^-{6,}\n)?^► \*\*THINKING\*\*.*?(?:^-{6,}\n)?^► \*\*ANSWER\*\*$", re.DOTALL | re.M
    ),
    re.compile(r"\A\s*<(think|thinking|reasoning)>.*?(?:</\1>|\Z)", re.DOTALL),
)


def _without_reasoning(text: str) -> str:
    """Return an answer's text without the model's reasoning."""
    for pattern in _REASONING:
        text = pattern.sub("", text)
    return text.strip()


def is_aider_history(path: Path) -> bool:
    """Tell whether a file is Aider's chat history: its name, and its first words."""
    if path.name != AIDER_HISTORY:
        return False
    try:
        with path.open("rb") as f:
            head = f.read(_SAMPLE)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf\r\n").startswith(b"# aider chat started at ")


def _text(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = decode_legacy(raw)[0]
    return text.rstrip("\r\n")


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def _inputs(folder: Path, limit: int) -> list[tuple[datetime, str]]:
    """Return what the user typed, with when, from ``.aider.input.history`` (none if absent)."""
    entries: list[tuple[datetime, str]] = []
    when: datetime | None = None
    lines: list[str] = []
    try:
        with (folder / _INPUTS).open("rb") as f:
            for raw, _ in bounded_lines(f, limit):
                line = _text(raw)
                stamp = _INPUT_TIME.match(line)
                if stamp:
                    if when is not None:
                        entries.append((when, "\n".join(lines)))
                    when, lines = _time(stamp.group(1)), []
                elif line.startswith("+"):
                    lines.append(line[1:])
    except OSError:
        return []
    if when is not None:
        entries.append((when, "\n".join(lines)))
    return entries


class _Run:
    """One run of Aider in the file: when it started, its turns so far."""

    def __init__(self, started: datetime, key: str) -> None:
        self.started = started
        self.key = key  # the thread's id
        self.turns = 0
        self.said: datetime | None = None  # when the user last spoke


def _classified(f: BinaryIO, start: int, n: int, limit: int) -> Iterator[tuple[str, str, int, int]]:
    """Yield ``(kind, line, n, offset)`` for each line from ``start`` (line
    ``n + 1``), ``kind`` who it is: ``run``, ``user``, ``tool`` (Aider's output), ``aider``
    (an answer's, its blank lines included) or ``""`` (a blank line between turns).

    In a file whose lines keep Aider's two spaces, a ``> `` line in an answer or after a
    blank line, once the run's user has spoken, may be Aider's output or a Markdown quote of
    the answer: its paragraph is held until it ends, and is Aider's output when a line of it
    ends in Aider's two spaces (every message of Aider's ends so), else the answer's. A
    message of Aider's whose line so far does not end so goes on, blank lines and all, up to
    the line that does (older Aider quotes the first line of a message of several alone)."""
    f.seek(start)
    offset = start
    who = ""  # the kind of the line before
    blank = True  # whether the line before was blank
    spaced: bool | None = None  # whether Aider's "#### " lines end in two spaces here
    asked = False  # whether the user spoke in this run yet
    going = False  # whether a message of Aider's goes on (its last line not read yet)
    held: list[tuple[str, int, int]] = []  # a "> " paragraph not told yet

    def release(kind: str) -> Iterator[tuple[str, str, int, int]]:
        for line, k, at in held:
            yield kind, line, k, at
        held.clear()

    for raw, length in bounded_lines(f, limit):
        n += 1
        line = _text(raw) if length <= limit else ""  # a longer line is not held
        started = _STARTED.match(line)
        hashes = line.startswith("#### ") or line == "####"
        quote = line.startswith("> ") or line == ">"
        if held:
            if line.strip() and not started and not hashes:
                held.append((line, n, offset))
                offset += length
                continue
            aiders = any(h.endswith("  ") for h, _, _ in held)
            who, going = ("tool", not held[-1][0].endswith("  ")) if aiders else ("aider", False)
            yield from release(who)
            blank = False
        if hashes and spaced is None:
            spaced = line.endswith("  ")
        if started:
            kind, asked, going = "run", False, False
        elif hashes and _SELF_ANSWER.search(line):
            kind = "tool"
        elif hashes and (line.endswith("  ") or not spaced):
            kind, asked, going = "user", True, False
        elif going:
            kind, going = "tool", not line.endswith("  ")
        elif quote and asked and spaced and (blank or who == "aider"):
            held.append((line, n, offset))
            offset += length
            continue
        elif quote or (who == "tool" and line.strip()):
            # Right after the user's input or Aider's output, Aider's; the unquoted lines of
            # a message of several too.
            kind, going = "tool", bool(spaced) and not line.endswith("  ")
        elif line.strip() or who == "aider":
            kind = "aider"
        else:
            kind = ""
        yield kind, line, n, offset
        who, blank = kind, not line.strip()
        offset += length
    if held:
        yield from release("tool" if any(h.endswith("  ") for h, _, _ in held) else "aider")


def _turns(
    f: BinaryIO, start: int, n: int, limit: int
) -> Iterator[tuple[str, str, int, int, str | None]]:
    """Yield ``(who, text, line, offset, started)`` for each turn from ``start`` (line
    ``n + 1``): who is ``user``, ``aider`` or ``run`` (a run's first line, ``text`` its
    start), ``offset`` where the turn's first line is."""
    who, first, at = "", 0, start
    lines: list[str] = []

    def done() -> Iterator[tuple[str, str, int, int, str | None]]:
        text = "\n".join(lines).strip()
        text = _without_reasoning(text) if who == "aider" else text
        if who and text and text != "<blank>":
            yield who, text, first, at, None

    for kind, line, k, offset in _classified(f, start, n, limit):
        if kind != who or kind == "run":
            yield from done()
            who, lines, first, at = kind, [], k, offset
        started = _STARTED.match(line) if kind == "run" else None
        if started:
            yield "run", started.group(1), k, offset, started.group(1)
            who = ""
        elif kind == "user":
            lines.append(line[5:].rstrip())
        elif kind == "aider":
            lines.append(line.rstrip())
    yield from done()


def read_aider(
    f: BinaryIO, file: Path, rel: str, prefix: str, mark: Any, source: str, limit: int
) -> Generator[Item, None, tuple[list[Any], int, bool]]:
    """Yield the turns of an Aider chat history from where ``mark`` says the last run in it
    started; return the new mark, the turns read, and whether it read on from a mark."""
    start = line = 0
    if (
        isinstance(mark, list)
        and len(mark) == 4
        and mark[0] == "aider"
        and isinstance(mark[2], int)
        and isinstance(mark[3], int)
        and mark[1] == _head(f, mark[2])
    ):
        start, line = mark[2], mark[3]
    inputs = _inputs(file.parent, limit)
    used = 0
    run: _Run | None = None
    last, last_line = start, line
    count = 0
    for who, text, n, offset, started in _turns(f, start, line, limit):
        if who == "run" and started is not None:
            when = _time(started) or datetime(1970, 1, 1)
            run = _Run(when, f"{prefix}aider-{when:%Y%m%dT%H%M%S}")
            last, last_line = offset, n - 1
            continue
        if run is None:
            continue  # words before any run started: not Aider's
        run.turns += 1
        at = run.started
        if who == "user":
            for k in range(used, len(inputs)):
                if inputs[k][0] >= run.started and inputs[k][1].strip() == text:
                    run.said, used = inputs[k][0], k + 1
                    break
            else:
                run.said = None
        at = run.said or run.started
        project = file.parent
        yield MemoryRecord(
            id=f"{run.key}:{run.turns}",
            text=text,
            source=source,
            kind="chat",
            author="user" if who == "user" else "aider",
            title=f"aider session in {project.name or rel}",
            thread=run.key,
            at=At.of(at),
            meta={"agent": "aider", "file": rel, "line": n, "project": str(project)},
        )
        count += 1
    return ["aider", _head(f, last), last, last_line], count, start > 0


def _head(f: BinaryIO, upto: int) -> str:
    """Return a digest of the file's first bytes, at most ``upto`` of them."""
    f.seek(0)
    return hashlib.sha256(f.read(min(_SAMPLE, upto))).hexdigest()
