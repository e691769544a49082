"""Sessions saved as one JSON document, rewritten whole after each turn: Codex CLI's first
ones and Gemini CLI's.

The TypeScript Codex CLI (April to June 2025, before the Rust one) saved each session as
``~/.codex/sessions/rollout-<date>-<id>.json``: ``{"session": {"timestamp", "id",
"instructions"}, "items": [<Responses API items>]}``, indented (openai/codex
``codex-cli/src/utils/storage/save-rollout.ts``). The items are those later rollouts hold
line by line (``message``, ``function_call``, ``function_call_output``, ``reasoning``), with
no time of their own: each turn is dated by the session's start. Item N of ``items`` is
read as line N is in a JSON Lines session (its record's id ends ``:line-N``).

**Gemini CLI** (from 0.2, mid-2025) records each session as
``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json``: ``{"sessionId",
"projectHash", "startTime", "lastUpdated", "messages": [{"id", "timestamp", "type": "user" |
"gemini" | "info" | "error" | ..., "content", "toolCalls": [{"name", "args", "status",
"resultDisplay"}], "thoughts", "model"}]}`` (``ChatRecordingService`` in
``@google/gemini-cli-core``, its ``chatRecordingService.d.ts``; the project's folder is in
``.project_root`` beside ``chats/`` in later versions). A ``user`` message is the user's, a
``gemini`` one the agent's (``gemini-cli``) with its tool calls as short lines, an ``error``
status of one as ``[tool error: ...]``; thoughts (``thoughts``, a part marked ``thought``),
tools' output and notices and errors of the CLI are left out (:func:`_gemini_text`).
Its record's id is the session's with the message's ``id``.

A later save adds items, so a re-run reads the items after those it read before, once their
digest shows them unchanged (a Gemini message completed after it was read makes the run read
the session again, its unchanged turns unchanged).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Generator
from typing import Any, BinaryIO

from ..records import Item, MemoryRecord, RecordError
from ._guard import RecordStep
from ._shared import too_long_number
from ._transcript_text import line_text
from .transcripts_turns import Session, short

__all__ = ["WHOLE_HEAD", "read_whole"]

WHOLE_HEAD = re.compile(rb'\s*\{\s*"(?:session"\s*:\s*\{|sessionId"\s*:)')
"""How such a file starts (after a byte order mark)."""

_ITEM = RecordStep("agent transcripts", "item")


def _digest(items: list[Any]) -> str:
    return hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()


def _item(session: Session, item: Any, n: int, source: str) -> MemoryRecord | RecordError | None:
    try:
        return session.turn(item, n, source)
    except ValueError as exc:
        return RecordError(source, f"{session.rel}: item {n}", f"not a session item: {exc}")


def read_whole(
    f: BinaryIO, session: Session, mark: Any, source: str, limit: int
) -> Generator[Item, None, tuple[list[Any], int, int] | None]:
    """Yield the turns of a whole-document session from ``f``, after those ``mark`` says
    were read; return its new mark, the turns read and those passed over, or None when it
    could not be read (an error says why)."""
    size = os.fstat(f.fileno()).st_size
    if size > limit:
        yield RecordError(
            source,
            session.rel,
            f"session of {size:,} bytes is over {limit:,} (Limits.max_line_bytes); not read",
        )
        return None
    try:
        data = line_text(f.read())
    except RecursionError:
        reason = "nested too deeply to read"
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        reason = str(exc)
    except ValueError:
        reason = too_long_number()
    else:
        gemini = isinstance(data, dict) and "messages" in data
        if gemini:
            header, items = data, data.get("messages")
        elif isinstance(data, dict):
            header, items = data.get("session"), data.get("items")
        else:
            header = items = None
        if isinstance(header, dict) and isinstance(items, list):
            return (yield from _items(session, header, items, mark, source, gemini))
        reason = 'expected {"session": {...}, "items": [...]} or {"sessionId", "messages": [...]}'
    yield RecordError(source, session.rel, f"not a Codex or Gemini CLI session: {reason}")
    return None


# What Gemini CLI puts after the user's words when they name files (``@README.md``): the
# files' contents, read by its tool, which no one typed (``atCommandProcessor.ts``).
_REFERENCED = "--- Content from referenced files ---"
_REFERENCED_END = "--- End of content ---"


def _gemini_text(content: Any, user: bool, called: bool) -> str:
    """Return a Gemini message's words, by the rule the other agents' follow: a part the
    model marks ``thought`` (its reasoning) left out, as a tool's output is (a
    ``functionResponse``, a ``codeExecutionResult``) unless it failed; a call the message's
    ``toolCalls`` do not list (``called``) as ``[tool NAME: args]``; in the user's words,
    the files their ``@`` mentions brought in left out."""
    parts = [{"text": content}] if isinstance(content, str) else content
    texts: list[str] = []
    for part in parts if isinstance(parts, list) else [parts]:
        thought = part.get("thought") if isinstance(part, dict) else None
        if not isinstance(part, dict) or thought is True or str(thought).lower() == "true":
            continue
        call, code, ran = (
            part.get(k) for k in ("functionCall", "executableCode", "codeExecutionResult")
        )
        response = part.get("functionResponse")
        data = part.get("inlineData") or part.get("fileData")
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(call, dict) and not called:
            texts.append(f"[tool {call.get('name') or '?'}: {short(call.get('args', ''))}]")
        elif isinstance(code, dict):
            texts.append(f"[tool code_execution: {short(code.get('code', ''))}]")
        elif isinstance(ran, dict) and ran.get("outcome") not in (None, "OUTCOME_OK"):
            texts.append(f"[tool error: {short(ran.get('output') or ran.get('outcome'))}]")
        elif isinstance(response, dict) and isinstance(response.get("response"), dict):
            failed = response["response"].get("error")
            texts.extend([f"[tool error: {short(failed)}]"] if failed else [])
        elif isinstance(data, dict):
            mime = data.get("mimeType")
            kind = mime.split("/")[0] if isinstance(mime, str) and mime.strip() else "file"
            texts.append(f"[{kind}]")
    text = "\n".join(texts)
    if user and _REFERENCED in text:
        said, _, rest = text.partition(_REFERENCED)
        after = rest.partition(_REFERENCED_END)[2]  # what was typed after them, if anything
        text = (said.rstrip() + "\n" + after.strip()).strip()
    return text


def _gemini(
    session: Session, message: Any, n: int, source: str
) -> MemoryRecord | RecordError | None:
    """Return a Gemini CLI message's turn: the user's words, or the agent's with its tools."""
    if not isinstance(message, dict):
        where, got = f"{session.rel}: item {n}", type(message).__name__
        return RecordError(source, where, f"not a session item: expected a JSON object, got {got}")
    kind = message.get("type")
    if kind not in ("user", "gemini"):
        return None  # the CLI's own notices and errors
    calls = message.get("toolCalls")
    listed = kind == "gemini" and isinstance(calls, list) and bool(calls)
    lines = [_gemini_text(message.get("content"), kind == "user", listed)]
    tools: list[str] = []
    for call in calls if kind == "gemini" and isinstance(calls, list) else []:
        if isinstance(call, dict):
            name = str(call.get("name") or "?")
            tools.append(name)
            lines.append(f"[tool {name}: {short(call.get('args', ''))}]")
            if call.get("status") == "error":
                lines.append(f"[tool error: {short(call.get('resultDisplay') or '')}]")
    if isinstance(message.get("model"), str) and message["model"]:
        session.model = message["model"]
    author = "user" if kind == "user" else session.agent
    key = message["id"] if isinstance(message.get("id"), str) and message["id"] else f"line-{n}"
    text = "\n".join(line for line in lines if line)
    return session.record(n, key, author, text, message.get("timestamp"), source, tools=tools)


def _project_root(session: Session) -> str | None:
    """Return the project folder Gemini CLI notes in ``.project_root`` beside ``chats/``."""
    try:
        with (session.file.parent.parent / ".project_root").open("rb") as f:
            text = f.read(4096).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if text and "\n" not in text else None


def _items(
    session: Session,
    header: dict[str, Any],
    items: list[Any],
    mark: Any,
    source: str,
    gemini: bool = False,
) -> Generator[Item, None, tuple[list[Any], int, int]]:
    start = turns = skipped = 0
    if (
        isinstance(mark, list)
        and len(mark) == 5
        and mark[0] == "whole"
        and isinstance(mark[1], int)
        and 0 < mark[1] <= len(items)
        and mark[2] == _digest(items[: mark[1]])
    ):
        start, turns = mark[1], int(mark[4])
        session.restore(mark[3])
        skipped = turns
    if gemini:
        session.agent = "gemini-cli"
        session.id = str(header.get("sessionId") or session.id)
        session.thread = session.id
        session.started = str(header.get("startTime") or "") or None
        session.project = _project_root(session) or session.project
    else:  # no forks in these: turns keep their item numbers
        session.chained = False
        session.turn({k: v for k, v in header.items() if k != "type"}, 0, source)
    convert = _gemini if gemini else _item
    for n, item in enumerate(items[start:], start + 1):
        got = _ITEM.run(source, f"{session.rel}: item {n}", convert, session, item, n, source)
        if isinstance(got, MemoryRecord):
            turns += 1
        if got is not None:
            yield got
    done = ["whole", len(items), _digest(items), session.saved(), turns]
    return done, turns - skipped, skipped
