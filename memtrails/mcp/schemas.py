"""The MCP tools' output schemas, and their results: structured content plus compact text.

Each tool's ``outputSchema`` is derived from these TypedDicts, so a client knows the fields
(not a bare ``{"type": "object"}``). The text content a model reads is short lines, not the
structured content again as indented JSON: the same facts in a fraction of the tokens.
"""

from __future__ import annotations

import json
from typing import Any, NotRequired

from mcp.types import CallToolResult, TextContent
from typing_extensions import TypedDict

__all__ = [
    "KINDS",
    "AddResult",
    "ForgetResult",
    "RecordResult",
    "SearchResult",
    "StatusResult",
    "add_result",
    "forget_result",
    "record_result",
    "search_result",
    "status_result",
]

KINDS = ("mail", "chat", "commit", "note", "file", "document")
"""The kinds memtrails' own importers give records (a custom source may name others)."""


class Hit(TypedDict):
    id: str
    uid: str
    uri: str
    title: str | None
    kind: str
    author: str | None
    at: str | None
    source: str
    score: float
    confidence: float | None
    confident: bool
    snippet: str
    dense: float | None
    keyword: float | None
    attachment: NotRequired[str]


class SearchResult(TypedDict):
    count: int
    results: list[Hit]


class RecordResult(TypedDict):
    id: str
    uid: str
    uri: str
    source: str
    kind: str
    title: str | None
    author: str | None
    at: str | None
    thread: str | None
    text: str
    meta: dict[str, Any]
    text_chars: int
    truncated: NotRequired[bool]


class StatusResult(TypedDict, total=False):
    path: str
    records: int
    indexed: int
    points: int
    sources: dict[str, int]
    model: dict[str, Any]
    index: dict[str, Any]
    writes_allowed: bool
    importing: dict[str, Any]  # {"pid", "command"}: the running import reads go through


class AddResult(TypedDict, total=False):
    added: int
    updated: int
    unchanged: int
    skipped: int
    removed: int
    errors: list[dict[str, Any]]
    errors_not_shown: int
    secrets: dict[str, int]
    seconds: float


class ForgetResult(TypedDict):
    forgotten: int
    id: str


def _result(data: dict[str, Any], text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def _compact(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def search_result(data: dict[str, Any]) -> CallToolResult:
    """One line per hit (rank, score, date, kind, author, title, uid) and its snippet."""
    lines = [f"{data['count']} results"]
    for n, hit in enumerate(data["results"], start=1):
        head = " | ".join(
            str(v)
            for v in (
                f"{n}. {hit['score']:.2f}",
                (hit.get("at") or "")[:10],
                hit.get("kind"),
                hit.get("author"),
                hit.get("title") or hit.get("id"),
                f"uid {hit['uid']}",
            )
            if v
        )
        lines += [head, f"   {hit.get('snippet', '')}"]
    if data["results"] and not data["results"][0].get("confident", True):
        lines.append("(nothing close in meaning or in words: probably not in this memory)")
    return _result(data, "\n".join(lines))


def record_result(data: dict[str, Any]) -> CallToolResult:
    """The record's fields on a line each, then its text."""
    fields = ("id", "uid", "source", "kind", "title", "author", "at", "thread")
    lines = [f"{key}: {data[key]}" for key in fields if data.get(key) is not None]
    if data.get("meta"):
        lines.append(f"meta: {_compact(data['meta'])}")
    if data.get("truncated"):
        lines.append(f"(text cut at {len(data['text'])} of {data['text_chars']} characters)")
    return _result(data, "\n".join([*lines, "", data.get("text", "")]))


def status_result(data: dict[str, Any]) -> CallToolResult:
    """The status as compact JSON (it is small)."""
    return _result(data, _compact(data))


def add_result(data: dict[str, Any]) -> CallToolResult:
    """The import's counts as compact JSON."""
    return _result(data, _compact(data))


def forget_result(data: dict[str, Any]) -> CallToolResult:
    """How many records were forgotten."""
    return _result(data, f"forgot {data['forgotten']} record(s) with id {data['id']}")
