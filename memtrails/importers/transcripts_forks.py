"""A Codex turn's id from what the conversation holds up to it, so a fork's copies are the
turns they copy.

Codex forks a session (``/fork``, or a thread forked by the app server) by writing a new
rollout that holds the parent's items again: the parent's ``session_meta`` line and its
items up to the fork, each written anew with the time of the fork (openai/codex:
``InitialHistory::Forked`` is the parent's rollout items, persisted into the new file; the
fork's own ``session_meta`` names its parent in ``forked_from_id``). A line's number in its
file cannot tell a copy from the turn it copies; what the conversation said up to it can. A
Codex turn's id here is its root session's id (the first session of a chain of forks) with a
digest of the conversation's items up to and including it: the same in the parent's file
and in every fork's copy, another once the fork says something the parent did not.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["CHAINED", "link"]

CHAINED = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "web_search_call",
    }
)
"""The items of a conversation whose words the digest holds (reasoning is not: it may be
encrypted anew)."""

_KEY_CHARS = 20


def _gist(item: dict[str, Any]) -> str:
    """Return what an item says, whichever fields a Codex version writes beside it."""
    content = item.get("content")
    parts = content if isinstance(content, list) else []
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    said = item.get("arguments", item.get("input", item.get("action")))
    fields = [item.get("type"), item.get("role"), texts, item.get("name"), said]
    fields += [item.get("call_id"), item.get("output")]
    return json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str)


def link(before: str, item: dict[str, Any]) -> str:
    """Return the digest of the conversation up to ``item``, ``before`` that up to the item
    before it (the root session's id for the first)."""
    return hashlib.sha256(f"{before}\n{_gist(item)}".encode()).hexdigest()[:_KEY_CHARS]
