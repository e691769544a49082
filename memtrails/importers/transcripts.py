"""Coding-agent transcripts (Claude Code, Codex, Gemini CLI): one record per conversation turn.

Formats read (none is documented by its vendor, so these are the shapes their files have
had; where each is seen is named in ``transcripts_turns.py`` and ``transcripts_whole.py``):

- **Claude Code** (``~/.claude/projects/<project path, / as ->/<session id>.jsonl``, and a
  subagent's ``agent-<id>.jsonl`` beside it or under ``<session id>/subagents/``; seen from
  1.0 to 2.1): lines ``{"type": "user" | "assistant", "uuid", "parentUuid", "sessionId",
  "timestamp", "cwd", "gitBranch", "isSidechain", "isMeta", "isCompactSummary", "message":
  {"role", "model", "content": str | [{"type": "text", "text"} | {"type": "tool_use", "name",
  "input"} | {"type": "tool_result", "content", "is_error"} | {"type": "thinking", ...} |
  {"type": "image", "source"}]}}``, and ``attachment`` lines (a ``queued_command``: words
  typed while the agent worked); other line types (``summary``, ``system``,
  ``queue-operation``, ``file-history-snapshot``, ``custom-title``, ``progress``) are not
  turns. A session file may open with any of them.
- **Claude Code print mode** (``claude -p --output-format stream-json --verbose``, its
  output saved as a ``.jsonl`` file; the shape of the Agent SDK's messages): an ``init``
  line ``{"type": "system", "subtype": "init", "session_id", "cwd", "model"}``, then
  ``user`` and ``assistant`` lines as above with ``session_id`` for ``sessionId`` and
  ``parent_tool_use_id`` set on a subagent's, and a last ``result`` line, which repeats
  the last answer and is no turn. The prompt is in it only when ``--replay-user-messages``
  echoes what came in (a ``user`` line, the user's turn). The session file print mode
  writes (``~/.claude/projects``) opens with ``queue-operation`` lines that hold the prompt
  (``enqueue``) before its ``user`` line: those are no turns, so the prompt is one turn.
- **Codex CLI** (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``, from 0.4x on):
  lines ``{"timestamp", "type": "session_meta" | "response_item" | "event_msg" |
  "turn_context" | "compacted", "payload": {...}}``; a ``response_item`` whose payload is
  ``{"type": "message", "role", "content": [{"type": "input_text" | "output_text", "text"} |
  {"type": "input_image", ...}]}`` is a turn, ``{"type": "function_call" |
  "custom_tool_call" | "local_shell_call", ...}`` a tool call. The rollouts of May to August
  2025 (``~/.codex/sessions/rollout-<time>-<id>.jsonl``: a first line ``{"id", "timestamp"}``
  with ``instructions`` and ``git`` when there were any, then the items themselves, and
  ``{"record_type": "state"}`` lines) are read too, and so are the TypeScript CLI's
  ``rollout-<date>-<id>.json`` documents of spring 2025 (``transcripts_whole.py``).
- **Gemini CLI** (``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json``): one JSON
  document a session, read by ``transcripts_whole.py``. Its ``logs.json`` (the user's
  prompts alone) and ``/chat save`` checkpoints (no times) repeat those and are not read.
- **Aider** (``.aider.chat.history.md`` in a project's folder, told by its name and first
  line): Markdown Aider appends to, read by ``transcripts_aider.py``.

The rule for tools: a tool call becomes one line of its turn, ``[tool NAME: first 160
characters of its input]``; a tool's result is left out, unless it is an error, which
becomes the agent's ``[tool error: first 160 characters]`` (an image in it ``[image]``); the
model's reasoning (``thinking``, ``redacted_thinking``, ``reasoning``; a Gemini part marked
``thought``; in Aider's history its reasoning tags, ``► **THINKING**`` up to ``► **ANSWER**``,
a ``<think>`` that opens an answer) is left out, as is what a Gemini tool gave back (a
``functionResponse``, a ``codeExecutionResult``, unless either failed; the files an ``@``
mention read into the user's words). Calls and
results of the tools a later version adds are read so by their type's name (``*_tool_use``
and ``*_tool_result`` blocks, ``*_call`` and ``*_output`` items: ``web_search_tool_result``,
``mcp_tool_use``, ``mcp_call``...); a block or item of a type not known here that holds
words (its ``title``, ``text``, ``content``, ``refusal``, ``summary`` or ``message``) is kept,
marked by its type (``[callout] words``, a Codex refusal ``[refusal] words``), one with none
(ids, data, encrypted content) left out, as are Codex's ``ghost_snapshot`` and
``compaction`` items. What the tools write as the
user's and no one typed (reminders, command output, caveats, summaries, Codex's context
blocks) is left out, by the rules in ``transcripts_turns.py``. Secrets are scrubbed by the
pipeline like everything else.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

from .._exceptions import SourceError
from .._threads import iterate_in_thread
from ..limits import Limits
from ..records import Item, MemoryRecord, RecordError, SourceState
from ._guard import RecordStep
from ._jsonl_source import bounded_lines
from ._shared import Closing, as_generator, default_source, too_long_number
from ._transcript_text import file_lines, line_text, sniff, strip_bom
from .contract import resumable_importer
from .transcripts_aider import AIDER_HISTORY, is_aider_history, read_aider
from .transcripts_turns import TOOL_CHARS, Session
from .transcripts_whole import WHOLE_HEAD, read_whole

__all__ = [
    "TOOL_CHARS",
    "from_agent_transcripts",
    "is_transcript",
    "is_transcript_file",
    "is_transcripts_folder",
]

_STREAMING_SECONDS = 3600  # a file written to since: its last answer may still be streaming
_SAMPLE = 4096  # bytes hashed at the start of a file, to tell an appended file from a new one
_TURN = RecordStep("agent transcripts", "line")
_Session = Session  # the name the class had here


# A first line longer than the sample (Codex 0.5x writes its whole system prompt into
# ``session_meta``; a Claude Code session may open with a long pasted prompt) is told by how
# it starts: the keys in the order the tools write them.
_TORN_CODEX = re.compile(
    rb'\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"session_meta"\s*,\s*"payload"\s*:\s*\{'
)
_TORN_CLAUDE = re.compile(rb'\{\s*"parentUuid"\s*:.{0,400}?"sessionId"\s*:\s*"', re.DOTALL)
# What ``claude -p --output-format stream-json --verbose`` (print mode, headless) writes
# first: its init line, long where it lists tools, commands and MCP servers.
_TORN_HEADLESS = re.compile(
    rb'\{\s*"type"\s*:\s*"system"\s*,\s*"subtype"\s*:\s*"init"\s*,.{0,600}?"session_id"\s*:\s*"',
    re.DOTALL,
)
# Claude Code 2.1's own background queries, written as subagents' files beside a session's:
# the summary that compacts it (``agent-acompact-<hex>.jsonl``), the suggestions of what to
# type next (``agent-aprompt_suggestion-<hex>.jsonl``): a prompt of the tool's and the model's
# answer to it, no one's words. (Named so in the layouts tools that read these folders
# describe, which leave them out; a Task subagent's is ``agent-a<hex>.jsonl``.)
_BACKGROUND = re.compile(r"agent-a(?=[a-z_]*[g-z_])[a-z_]+-[0-9a-f]+\.jsonl")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _first_line(head: bytes) -> tuple[bytes, bool]:
    """Return the first line of a file's first bytes as UTF-8, and whether it is whole."""
    codec, bom = sniff(head)
    short = len(head) < _SAMPLE  # the whole file
    if codec != "utf-8":  # UTF-16: its first line, as UTF-8 (a torn last unit left out)
        head = head[bom : len(head) - len(head) % 2].decode(codec, "replace").encode()
    line, newline, _ = strip_bom(head).partition(b"\n")
    return line, bool(newline) or short


def _first_object(head: bytes) -> Any:
    line, _ = _first_line(head)
    try:
        return line_text(line)
    except ValueError:
        return None


def is_transcript(head: bytes) -> bool:
    """Tell whether a file's first bytes are a Claude Code or Codex session's first line."""
    line, whole = _first_line(head)
    if not whole:
        return any(torn.match(line) for torn in (_TORN_CODEX, _TORN_CLAUDE, _TORN_HEADLESS))
    first = _first_object(head)
    if not isinstance(first, dict):
        return False
    if "sessionId" in first or ("leafUuid" in first and first.get("type") == "summary"):
        return True  # Claude Code
    if first.get("type") == "file-history-snapshot" and "snapshot" in first:
        return True  # Claude Code 2.x opens a session with one
    if first.get("type") == "system" and first.get("subtype") == "init":
        return isinstance(first.get("session_id"), str)  # claude -p's stream-json
    if first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
        return True  # Codex
    return {"id", "timestamp", "instructions"} <= first.keys()  # older Codex


def _older_codex(path: Path, head: bytes) -> bool:
    """Tell whether a file is a Codex rollout of mid-2025, whose first line is ``{"id",
    "timestamp"}`` with ``instructions`` and ``git`` only when there were any."""
    first = _first_object(head)
    return (
        path.name.startswith("rollout-")
        and isinstance(first, dict)
        and {"id", "timestamp"} <= first.keys() <= {"id", "timestamp", "instructions", "git"}
        and isinstance(first["id"], str)
        and bool(_UUID.fullmatch(first["id"]))
    )


def _session_name(name: str) -> bool:
    """Tell whether a file's name may be a session's: JSON Lines, an early Codex one or
    Gemini CLI's."""
    return (
        name.endswith(".jsonl")
        or (name.startswith(("rollout-", "session-")) and name.endswith(".json"))
        or name == AIDER_HISTORY
    )


def _jsonl_files(
    root: Path, unlisted: list[tuple[Path, str]] | None = None, depth: int = 4
) -> Iterator[Path]:
    """Yield the ``.jsonl`` files under ``root`` (at most ``depth`` folders down), sorted; a
    folder that cannot be listed goes into ``unlisted`` with why."""
    try:
        with os.scandir(root) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        if unlisted is not None:
            unlisted.append((root, exc.strerror or str(exc)))
        return
    for entry in entries:
        if entry.name.startswith(".") and entry.name != AIDER_HISTORY:
            continue
        if entry.is_file(follow_symlinks=False) and _session_name(entry.name):
            if not _BACKGROUND.fullmatch(entry.name):
                yield Path(entry.path)
        elif depth > 0 and entry.is_dir(follow_symlinks=False):
            yield from _jsonl_files(Path(entry.path), unlisted, depth - 1)


def is_transcript_file(path: Path) -> bool:
    """Tell whether a file is one session's transcript (a ``.jsonl`` whose first line is)."""
    if not _session_name(path.name) or not path.is_file():
        return False
    try:
        if path.name == AIDER_HISTORY:
            return is_aider_history(path)
        with path.open("rb") as f:
            head = f.read(_SAMPLE)
        if path.suffix == ".json":
            return bool(WHOLE_HEAD.match(strip_bom(head)))
        return is_transcript(head) or _older_codex(path, head)
    except OSError:
        return False


# What the tools keep beside their sessions: Claude Code 2.x a session's long tool outputs
# (``<session id>/tool-results/toolu_*.txt``), background shells' output (``bash-outputs/``)
# and a project's notes to itself (``memory/MEMORY.md``); Gemini CLI a project's
# ``shell_history``. They are no sessions, and leave the folder one of sessions.
_TOOLS_OWN = frozenset({"tool-results", "bash-outputs"})
_TOOLS_OWN_FILES = frozenset({"MEMORY.md", "shell_history"})


def is_transcripts_folder(path: Path) -> bool:
    """Tell whether a folder holds only agent sessions: its first ``.jsonl`` file is a
    transcript, and it holds no files but JSON Lines and JSON (an index) as far as a look
    at its first entries goes; a notes folder with a transcript in it stays a notes folder."""
    first: Path | None = None
    for n, (here, dirs, files) in enumerate(os.walk(path)):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _TOOLS_OWN)
        for name in files:
            if name.startswith(".") or name in _TOOLS_OWN_FILES:
                continue
            if not name.endswith((".jsonl", ".json")):
                return False
            if first is None and _session_name(name):
                first = Path(here) / name
        if n >= 8:
            break
    return first is not None and is_transcript_file(first)


# -- reading, resumably ----------------------------------------------------------------------


def _line_item(
    session: Session, raw: bytes, n: int, source: str
) -> MemoryRecord | RecordError | None:
    """Return line ``n``'s turn, None when it is no turn, or the error saying why it is no line."""
    where = f"{session.rel}: line {n}"
    try:
        line = line_text(raw)
    except RecursionError:
        return RecordError(source, where, "not a transcript line: nested too deeply to read")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return RecordError(source, where, f"not a transcript line: {exc}")
    except ValueError:
        return RecordError(source, where, f"not a transcript line: {too_long_number()}; not read")
    try:
        return session.turn(line, n, source)
    except ValueError as exc:
        return RecordError(source, where, f"not a transcript line: {exc}")


def _head_digest(f: Any, upto: int) -> str:
    """Return a digest of the file's first bytes, at most ``upto`` of them (what was read)."""
    f.seek(0)
    return hashlib.sha256(f.read(min(_SAMPLE, upto))).hexdigest()


def _read(
    root: Path, source: str, state: Mapping[str, Any] | None, every: int, limit: int
) -> Iterator[Item]:
    saved = (state or {}).get("files")
    saved = saved if isinstance(saved, dict) else {}
    unlisted: list[tuple[Path, str]] = []
    files = [root] if root.is_file() else list(_jsonl_files(root, unlisted))
    done: dict[str, list[Any]] = {}
    # A folder that could not be listed, or a file not read, may hold sessions the folder
    # has: the run is then not complete, and a prune forgets none of them.
    unsure = bool(unlisted)
    for folder, why in unlisted:
        where = folder.relative_to(root).as_posix() if folder != root else "."
        yield RecordError(
            source, where, f"cannot list the folder: {why}; its sessions were not read"
        )
    resumed = False
    skipped = 0  # turns before the resume points: unchanged, not read again
    count = 0
    # Turns read this run: a copy of one in another file (a Codex fork's of its parent's, a
    # resumed Claude Code session's of the earlier one's) is the same turn, not read again.
    seen: set[str] = set()
    parents = _Parents(files, root, limit)
    for file in files:
        session = Session(file, root if root.is_dir() else file)
        session.beside = root.is_dir()
        session.lookup = parents.turns
        rel = session.rel
        try:
            with file.open("rb") as f:
                mark = saved.get(rel)
                if file.name == AIDER_HISTORY:
                    under = file.parent.relative_to(root).as_posix() if root.is_dir() else "."
                    prefix = "" if under == "." else f"{under}/"
                    done[rel], read, on = yield from read_aider(
                        f, file, rel, prefix, mark, source, limit
                    )
                    count, resumed = count + read, resumed or on
                    continue
                if file.suffix.lower() == ".json":
                    whole = yield from read_whole(f, session, mark, source, limit)
                    if whole is None:
                        unsure = True
                        continue
                    done[rel], read, passed = whole
                    count, skipped, resumed = count + read, skipped + passed, resumed or passed > 0
                    continue
                start, line_no, turns = 0, 0, 0
                stat = os.fstat(f.fileno())
                size = stat.st_size
                # a file no tool has written to for a while: no answer in it is streaming
                written = time.time() - stat.st_mtime < _STREAMING_SECONDS
                if (
                    isinstance(mark, list)
                    and len(mark) == 5
                    and isinstance(mark[1], int)
                    and 0 < mark[1] <= size
                    and mark[0] == _head_digest(f, mark[1])
                ):
                    start, line_no, turns = mark[1], int(mark[2]), int(mark[4])
                    session.restore(mark[3])
                    resumed = True
                    skipped += turns
                codec, _ = sniff(f.read(_SAMPLE))
                f.seek(start)
                offset = start
                # Bounded (a longer line is read past, never held), and lines ended with a
                # lone CR read as their LF twins, at the same offsets; UTF-16 read as UTF-8,
                # each line's length that of its bytes in the file.
                utf16 = codec != "utf-8"
                lines = file_lines(f, codec, limit) if utf16 else bounded_lines(f, limit)
                longest = 2 * limit if utf16 else limit
                for raw, length in lines:
                    # A last line ended by a lone CR is whole (JSON holds no raw CR in a
                    # string), as bounded_lines cannot tell from a file of one such line.
                    if not raw.endswith((b"\n", b"\r")):
                        break  # a torn last line: read next run, once it is whole
                    offset += length
                    line_no += 1
                    where = f"{rel}: line {line_no}"
                    if length > longest:
                        yield RecordError(
                            source,
                            where,
                            f"line of {length:,} bytes is over {longest:,} (Limits."
                            f"max_line_bytes{', twice in UTF-16' if utf16 else ''}); not read",
                        )
                        continue
                    if line_no == 1:
                        raw = strip_bom(raw)
                    if not raw.strip():
                        continue
                    item = _TURN.run(source, where, _line_item, session, raw, line_no, source)
                    for got in [*session.drain(), item]:
                        if isinstance(got, MemoryRecord):
                            if got.id in seen:
                                continue
                            seen.add(got.id)
                            count += 1
                            turns += 1
                        if got is not None:
                            yield got
                for got in session.ending(source, written):
                    if got.id not in seen:
                        seen.add(got.id)
                        count += 1
                        turns += 1
                        yield got
                head = _head_digest(f, offset)
                done[rel] = [head, offset, line_no, session.saved(), turns]
        except OSError as exc:
            unsure = True
            yield RecordError(source, rel, f"cannot read the file: {exc.strerror or exc}")
            continue
        if count >= every:
            count = 0
            yield SourceState(source, {"files": {**saved, **done}}, mode=_mode(resumed))
    yield SourceState(
        source,
        {"files": done},
        mode=_mode(resumed),
        complete=not resumed and not unsure,
        skipped=skipped,
    )


class _Parents:
    """The turns of the Codex sessions a run reads, by session id, for their forks: a fork's
    file copies its parent's items, which are read from the parent's file (where it is one
    the run reads: a rollout is named with its session's id)."""

    def __init__(self, files: list[Path], root: Path, limit: int) -> None:
        self.root = root if root.is_dir() else None
        self.limit = limit
        self.files: dict[str, Path] = {}
        for file in files:
            found = _UUID.search(file.stem) if file.name.startswith("rollout-") else None
            if found and self.root is not None:
                self.files.setdefault(found.group(0).lower(), file)
        self.known: dict[str, set[str]] = {}

    def turns(self, sid: str) -> set[str]:
        """Return the ids of the turns in session ``sid``'s file (none when it is not read)."""
        file = self.files.get(sid.lower())
        if file is None or self.root is None:
            return set()
        if sid not in self.known:
            self.known[sid] = self._read(file, self.root)
        return self.known[sid]

    def _read(self, file: Path, root: Path) -> set[str]:
        session = Session(file, root)  # its copies of its own parent's turns count too
        ids: set[str] = set()
        try:
            with file.open("rb") as f:
                for raw, length in bounded_lines(f, self.limit):
                    if length > self.limit or not raw.endswith((b"\n", b"\r")):
                        continue
                    try:
                        got = session.turn(line_text(strip_bom(raw)), 0, "parent")
                    except (ValueError, RecursionError):
                        continue
                    if got is not None:
                        ids.add(got.id)
        except OSError:
            return set()
        return ids


def _mode(resumed: bool) -> str:
    return "incremental" if resumed else "full"


@resumable_importer()
async def from_agent_transcripts(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    checkpoint_every: int = 256,
    limits: Limits | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one chat record per turn of coding-agent sessions (Claude Code, Codex, Gemini CLI, Aider).

    ``path`` is one session file or a folder of them at any depth (``~/.claude/projects``,
    ``~/.codex/sessions``, ``~/.gemini/tmp``). Each turn's record: ``id`` = ``<session id>:<line's uuid or
    line-N>`` (Codex: the root session's id and a digest of the conversation up to the
    turn; Aider: the run's start and the turn's number), ``kind="chat"``, ``author`` =
    ``user`` (the words a person typed) or the agent (``claude-code``, ``codex``,
    ``gemini-cli``, ``aider``: its answers, tool calls and tool errors, and a
    subagent's turns, ``meta["sidechain"]``), ``thread`` = the session id (the first
    session's, for a session resumed into a new file or a Codex fork), ``at`` = the line's
    timestamp (the session's start where items have none), ``title`` = the agent and the
    project folder, ``meta`` = agent, project (the session's working folder), branch,
    model, the tools it called, file and line. Tool calls and results follow the rule in
    this module's docstring.

    Re-runs (``state``): the files are append-only, so a file whose first 4 KiB are
    unchanged is read from where the last run stopped; a torn last line (a session being
    written) is left for the next run; a ``.json`` session, saved whole, is read from the
    items after those read before. Such a run is incremental (no pruning).

    Lines end with LF, CRLF or a lone CR. A line longer than ``limits.max_line_bytes``
    (default: ``Limits()``) is an error naming it, read past without being held. A file
    saved in UTF-16 (with or without a byte order mark: told by its NULs) or UTF-8 with a
    BOM reads as one in UTF-8; a line that is not valid UTF-8 reads in the charset it
    looks like, most often Windows-1252.

    Raises:
        SourceError: the path does not exist.
        ValueError: ``checkpoint_every`` is not positive.
    """
    if checkpoint_every < 1:
        raise ValueError(f"`checkpoint_every` must be at least 1, got {checkpoint_every}")
    root = Path(path).expanduser()
    name = source if source is not None else default_source(root)
    if not root.exists():
        raise SourceError(name, "no such file or folder")

    def make() -> Iterator[Item]:
        limit = (limits or Limits()).max_line_bytes
        return Closing(_read(root, name, state, checkpoint_every, limit), None)

    async with aclosing(as_generator(iterate_in_thread(make, chunk=64))) as items:
        async for item in items:
            yield item
