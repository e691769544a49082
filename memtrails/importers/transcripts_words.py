"""The words of a coding-agent session's message: what a person typed, what the agent said,
its tool calls as short lines; what the tools add, left out (the rules, and where each is
seen, are in ``transcripts_turns.py``)."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "COMPACT_PREFIX",
    "TOOL_CHARS",
    "claude_parts",
    "claude_text",
    "codex_other",
    "codex_text",
    "short",
    "tool_prompt",
]

TOOL_CHARS = 160
"""How much of a tool call's input (or a tool error) a turn keeps."""

_CLAUDE_DROPPED = (
    "system-reminder", "local-command-stdout", "local-command-stderr", "local-command-caveat",
    "bash-stdout", "bash-stderr", "ide_opened_file", "ide_selection", "ide_diagnostics",
    "post-tool-use-hook", "user-prompt-submit-hook", "task-notification", "command-message",
    "command-contents", "teammate-message",
)  # fmt: skip
_KEPT = ("command-name", "command-args", "bash-input", "user-memory-input")
# An opening tag of those (a few attributes at most): its closing tag is looked for once per
# stretch of text, so that a text of many tags left open reads in linear time.
_OPEN_RE = re.compile(
    r"<(" + "|".join(map(re.escape, _CLAUDE_DROPPED + _KEPT)) + r")(?:\s[^<>]{0,200})?>"
)
# the caveat before a local command's output, in Claude Code 1.0 without "isMeta" (it is
# filtered by its words in daaain/claude-code-log's test_message_filtering.py)
_CAVEAT = "Caveat: The messages below "
COMPACT_PREFIX = "This session is being continued from a previous conversation"
_PLACEHOLDERS = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")
# What Claude Code asks its model on its own, as a session's first user turn: "Warmup"
# (2.0, to fill the prompt cache; a subagent's file, ``agent-*.jsonl``, often holds nothing
# else), a title for the conversation (its words in Claude Code's prompts, as the archives
# of them show). Such a turn and the answer to it are no one's words.
_TOOL_PROMPTS = ("Warmup",)
_TOOL_PROMPT_STARTS = ("Please write a 5-10 word title for the following conversation:",)
_CODEX_CONTEXT = (
    "<environment_context>", "<user_instructions>", "# agents.md instructions for", "<skill",
    "<turn_aborted>", "<context_update>", "<user_shell_command>", "<subagent_notification>",
    "<tool_context>", "<reasoning_context>", "<pinned_notes>", "<permissions instructions>",
)  # fmt: skip


def short(value: Any) -> str:
    """Return ``value`` on one line, at most :data:`TOOL_CHARS` characters of it."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= TOOL_CHARS else text[: TOOL_CHARS - 1] + "…"


def _spans(text: str) -> list[tuple[int, int, str, str]]:
    """Return the tagged stretches of ``text`` (start, end, tag, what it holds), in order."""
    spans: list[tuple[int, int, str, str]] = []
    closing: dict[str, int] = {}  # a tag's first closing tag after where it was looked for
    at = 0
    for match in _OPEN_RE.finditer(text):
        if match.start() < at:
            continue  # inside a stretch already taken
        tag = match.group(1)
        end = closing.get(tag)
        if end is None or -1 < end < match.end():
            end = closing[tag] = text.find(f"</{tag}>", match.end())
        if end < 0:
            continue  # left open: as written
        spans.append((match.start(), end + len(tag) + 3, tag, text[match.end() : end]))
        at = end + len(tag) + 3
    return spans


def _said(text: str) -> str:
    """Return what the user typed in a Claude Code message's text: a slash command as
    ``/name args``, a shell command as ``!command``, the tags Claude Code adds left out."""
    parts: list[str] = []
    command: list[str] = []
    at = 0
    for start, end, tag, inner in _spans(text):
        parts.append(text[at:start])
        at = end
        if tag == "command-name":
            inner = inner.strip()
            command.insert(0, inner if inner.startswith("/") else "/" + inner)
        elif tag == "command-args" and inner.strip():
            command.append(inner.strip())
        elif tag == "bash-input":
            parts.append("!" + inner)
        elif tag == "user-memory-input":
            parts.append(inner)
    parts.append(text[at:])
    if command and command[0].startswith("/"):
        parts.append("\n" + " ".join(command))
    said = "\n".join(line.rstrip() for line in "".join(parts).strip().splitlines())
    return "" if said in _PLACEHOLDERS or said.startswith(_CAVEAT) else said


def tool_prompt(text: str) -> bool:
    """Tell whether a user turn's text is one Claude Code wrote to its model on its own."""
    said = text.strip()
    return said in _TOOL_PROMPTS or said.startswith(_TOOL_PROMPT_STARTS)


# Content blocks that are no one's words to keep: the model's reasoning (its text, or the
# same encrypted), whatever the type of a tool's result (``web_search_tool_result``,
# ``mcp_tool_result``...: left out unless an error, as a tool's result is).
_REASONING = frozenset({"thinking", "redacted_thinking", "reasoning"})
# Where a block of a type not known here holds its words (a block's own fields, and those
# of the blocks it holds), so that a new type's text is kept rather than lost; ids, data,
# signatures and encrypted fields are not words.
_WORDS = ("title", "text", "content", "refusal", "summary", "message")
_DEPTH = 4


def _readable(value: Any, depth: int = 0) -> list[str]:
    """Return the words a value of a block holds: its strings under :data:`_WORDS`."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if depth >= _DEPTH:
        return []
    if isinstance(value, list):
        return [w for v in value for w in _readable(v, depth + 1)]
    if isinstance(value, dict):
        return [w for k in _WORDS if k in value for w in _readable(value[k], depth + 1)]
    return []


def _is_call(kind: str) -> bool:
    return kind == "tool_use" or kind.endswith("_tool_use")  # server_, mcp_...


def _is_result(kind: str) -> bool:
    return kind == "tool_result" or kind.endswith("_tool_result")


def _failed(part: dict[str, Any]) -> bool:
    """Whether a tool's result is an error: so flagged, or (a server tool's) its content an
    error (``{"type": "web_search_tool_result_error", "error_code"}``)."""
    content = part.get("content")
    kind = content.get("type") if isinstance(content, dict) else None
    return bool(part.get("is_error")) or (isinstance(kind, str) and kind.endswith("_error"))


def _error_text(part: dict[str, Any]) -> str:
    content = part.get("content", "")
    if isinstance(content, dict) and not _readable(content):
        return str(content.get("error_code") or content.get("type") or "")
    return _result_text(content if not isinstance(content, dict) else [content])


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _result_text(content: Any) -> str:
    """Return a tool result's words: its text blocks, an image as ``[image]``."""
    if isinstance(content, str):
        return content
    parts = []
    for part in _blocks(content):
        if isinstance(part.get("text"), str):
            parts.append(part["text"])
        elif part.get("type") in ("image", "document"):
            parts.append(f"[{part['type']}]")
    return " ".join(parts)


def claude_parts(content: Any, role: str) -> tuple[list[str], list[str], bool]:
    """Return a Claude Code message's blocks as words (one string a block that has any), the
    tool each calls ("" for words), and whether it is a tool result (the agent's, not the
    user's, whatever its role)."""
    parts: list[str] = []
    calls: list[str] = []
    results = False
    for part in _blocks(content):
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            text = _said(part["text"]) if role == "user" else part["text"]
            if text:
                parts.append(text)
                calls.append("")
        elif kind in ("image", "document"):
            title = part.get("title")
            named = isinstance(title, str) and title.strip()
            parts.append(f"[{kind}: {title.strip()}]" if named else f"[{kind}]")
            calls.append("")
        elif not isinstance(kind, str) or kind in _REASONING:
            continue
        elif _is_call(kind):  # server_tool_use: a search the API ran; mcp_tool_use...
            name = str(part.get("name") or "?")
            parts.append(f"[tool {name}: {short(part.get('input', ''))}]")
            calls.append(name)
        elif _is_result(kind):
            # A server tool's result is in the answer it serves, not a message of its own.
            results = results or kind == "tool_result"
            if _failed(part):
                parts.append(f"[tool error: {short(_error_text(part))}]")
                calls.append("")
        elif words := _readable({k: v for k, v in part.items() if k in _WORDS}):
            # A type this version does not know that holds words: kept, marked by its type.
            parts.append(f"[{kind}] " + "\n".join(w.strip() for w in words))
            calls.append("")
    if results:  # what else such a message holds is Claude Code's (images a tool read, notes)
        kept = [(p, c) for p, c in zip(parts, calls, strict=True) if p.startswith("[tool error: ")]
        parts, calls = [p for p, _ in kept], [c for _, c in kept]
    return parts, calls, results


def claude_text(content: Any, role: str) -> tuple[str, list[str], bool]:
    """Return a Claude Code message's text, the tools it calls, and whether it is a tool
    result (the agent's, not the user's, whatever its role)."""
    parts, calls, results = claude_parts(content, role)
    return "\n".join(parts), [c for c in calls if c], results


def codex_text(content: Any) -> str:
    """Return a Codex message's text, or nothing when it is context Codex adds; a refusal
    (``{"type": "refusal", "refusal"}``) as ``[refusal] words``."""
    parts = [
        p["text"] if isinstance(p.get("text"), str) else f"[refusal] {p['refusal']}"
        for p in _blocks(content)
        if (isinstance(p.get("text"), str) and p["text"])
        or (isinstance(p.get("refusal"), str) and p["refusal"].strip())
    ]
    if any(p.lstrip().lower().startswith(_CODEX_CONTEXT) for p in parts):
        return ""
    images = sum(1 for p in _blocks(content) if p.get("type") == "input_image")
    return "\n".join(parts + ["[image]"] * images)


# Codex items that are no one's words to keep: reasoning, what a tool gave back (any
# ``*_output``), snapshots and summaries Codex writes for itself.
_CODEX_QUIET = frozenset(
    {"reasoning", "ghost_snapshot", "compaction", "compaction_summary", "other"}
)


def codex_other(item: str, payload: dict[str, Any]) -> tuple[str, str | None]:
    """Return the line of a Codex item of a type not known here, and the tool it calls (a
    ``*_call``: ``[tool NAME: input]``); ``""`` for one that is noise or holds no words.
    Any other item that holds words is kept, marked by its type (``[refusal] words``)."""
    if item in _CODEX_QUIET or item.endswith("_output"):
        return "", None
    if item.endswith("_call"):
        name = payload.get("name")
        name = name if isinstance(name, str) and name else item.removesuffix("_call")
        said = payload.get("arguments", payload.get("input", payload.get("action", "")))
        return f"[tool {name}: {short(said)}]", name
    words = _readable({k: v for k, v in payload.items() if k in _WORDS})
    return (f"[{item}] " + "\n".join(w.strip() for w in words) if words else ""), None
