"""One line of a coding-agent session as a turn: who spoke, their words, and when.

What the tools write into a session besides what a person typed and what the model answered,
and what becomes of it here (the tools document none of it; each rule names where it is seen):

- **Claude Code** writes, as ``"type": "user"`` lines, the results of tools (``tool_result``
  blocks), a caveat and the expanded prompt of a slash command (``"isMeta": true``), the
  summary that continues a compacted session (``"isCompactSummary": true``, or text starting
  ``This session is being continued from a previous conversation``), and text it wraps in tags
  (``<system-reminder>``, ``<local-command-stdout>``, ``<bash-stdout>``, ``<ide_selection>``
  and the others in ``_CLAUDE_DROPPED``); a slash command the user typed is a wrapper
  (``<command-name>/review</command-name><command-args>PR 12</command-args>``). A subagent's
  lines (``"isSidechain": true``, in the session file or an ``agent-*.jsonl`` of its own, with
  the session's ``sessionId``) hold the prompt the agent gave it as a ``user`` message, and
  API errors and placeholders are ``assistant`` lines of the model ``<synthetic>``. What the
  user types while the agent works reaches the turn as an ``attachment`` line
  (``{"type": "queued_command", "prompt"}``, Claude Code 2.1; a survey of 470 of them in a
  project's notes found by the code search): it is the user's.
  (Seen in daaain/claude-code-log's ``factories/user_factory.py`` and test data, the
  format notes of microsoft/amplifier ``ai_working/claude_code_logging`` and
  jeremedia/claude-code-log-format, which read Claude Code 2.0.55's source.)
- **Codex** writes, as ``user`` messages, context that is no one's words: the environment,
  AGENTS.md (``# AGENTS.md instructions for``, earlier ``<user_instructions>``), skills,
  aborted turns, shell commands the user ran with their output, subagent notices; Codex's own
  ``is_contextual_user_message`` (openai/codex ``codex-rs/core/src/contextual_user_message.rs``)
  tells them by the start of a text, as ``_CODEX_CONTEXT`` does here.

Here: a person's words are a ``user`` record; the model's answers and tool calls are the
agent's (``claude-code``, ``codex``); a tool's error is the agent's too (``meta["tool_result"]``);
a subagent's turns are the agent's, marked ``meta["sidechain"]``, in the session's thread;
injected text, caveats, summaries and placeholders are no record; an image is ``[image]``,
never its bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..records import At, MemoryRecord
from .transcripts_forks import CHAINED, link
from .transcripts_streamed import Answer, Answers
from .transcripts_words import (
    COMPACT_PREFIX,
    TOOL_CHARS,
    claude_parts,
    claude_text,
    codex_other,
    codex_text,
    short,
    tool_prompt,
)

__all__ = ["TOOL_CHARS", "Session", "short"]

_UUID_NAME = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_QUIET_MOST = 64  # lines of Claude Code's own exchanges (Warmup...) kept, to know their answers
# Claude Code lines that may come first and name no session
_CLAUDE_ONLY = (
    "summary",
    "queue-operation",
    "file-history-snapshot",
    "custom-title",
    "permission-mode",
)
# The lines of ``claude -p --output-format stream-json`` (print mode), which name their
# session ``session_id``: its ``init`` and ``result`` lines are no turns (``result`` repeats
# the last answer's text).
_HEADLESS = ("system", "user", "assistant", "result")
_CODEX_CALLS = {  # a tool call's item, and the tool's name where the item names none
    "function_call": "function_call", "custom_tool_call": "custom_tool_call",
    "local_shell_call": "local_shell_call", "web_search_call": "web_search",
}  # fmt: skip
_CODEX_ENVELOPES = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def _named(value: Any, known: str | None) -> str | None:
    """Return ``value`` when it is a name (a non-empty string), else what was ``known``.

    A line from another version (or a damaged one) may hold a number or an object where a
    working folder, branch or model is: the session keeps what it knew.
    """
    return value if isinstance(value, str) and value else known


class Session:
    """What one transcript file says about its session: agent, thread, project, branch, model.

    ``thread`` is the first session id the file names: a Claude Code session resumed into a
    new file copies the earlier lines (their ``sessionId`` the first session's) before its own,
    so its turns stay in the first session's thread; a Codex fork names its parent
    (``forked_from_id``). A record's id is the session id its own line names, so a copied
    line is the record it was in the earlier file.
    """

    def __init__(self, file: Path, root: Path) -> None:
        self.file = file
        self.agent = ""
        self.id = file.stem
        self.thread: str | None = None
        self.started: str | None = None
        self.project: str | None = None
        self.branch: str | None = None
        self.model: str | None = None
        self.rel = file.relative_to(root).as_posix() if file != root else file.name
        self.answers = Answers()  # Claude Code answers still being written
        self.ready: list[MemoryRecord] = []  # turns complete since :meth:`drain`
        self.quiet: dict[str, None] = {}  # uuids of Claude Code's own exchanges' lines
        self.chain: str | None = None  # a Codex conversation's digest so far
        self.chained = True  # Codex turns' ids are digests (False: line-N, as before forks)
        self.resumes: dict[str, bool] = {}  # session ids whose own file is beside this one
        self.beside = False  # whether files beside this one are read in the same source
        self.parent: str | None = None  # the session a Codex fork was forked from
        self.copies: set[str] | None = None  # the ids of that session's turns
        # the ids of the turns of a session read in the same source, by its id (else none)
        self.lookup: Callable[[str], set[str]] | None = None

    def saved(self) -> list[Any]:
        """Return what a later run needs to go on reading this file where this one stopped."""
        saved = [self.id, self.agent, self.project, self.branch, self.model, self.thread]
        more: dict[str, Any] = {"answers": self.answers.saved()} if self.answers.open else {}
        if self.quiet:
            more["quiet"] = list(self.quiet)
        if self.agent == "codex":
            more["chain"] = self.chain if self.chained else False
        if more:
            return [*saved, self.started, more]
        return [*saved, self.started] if self.started else saved

    def restore(self, saved: Any) -> None:
        """Take back what :meth:`saved` returned (a run resuming in the middle of the file)."""
        if isinstance(saved, list) and len(saved) in (5, 6, 7, 8):
            self.id, self.agent = str(saved[0]), str(saved[1])
            self.project, self.branch, self.model = (_named(v, None) for v in saved[2:5])
            self.thread = _named(saved[5], None) if len(saved) > 5 else self.id
            self.started = _named(saved[6], None) if len(saved) > 6 else None
            more = saved[7] if len(saved) > 7 and isinstance(saved[7], dict) else {}
            self.answers.restore(more.get("answers"))
            quiet = more.get("quiet")
            self.quiet = (
                {k: None for k in quiet if isinstance(k, str)} if isinstance(quiet, list) else {}
            )
            chain = more.get("chain")
            self.chain = chain if isinstance(chain, str) else None
            # a Codex position saved before its turns' ids were digests goes on in line numbers
            self.chained = chain is not False and (self.agent != "codex" or "chain" in more)

    def drain(self) -> list[MemoryRecord]:
        """Return the turns completed since the last call (answers written over lines)."""
        ready, self.ready = self.ready, []
        return ready

    def ending(self, source: str, written: bool = True) -> list[MemoryRecord]:
        """Return the turns of the answers still open where the file ends, left open (when
        the file was ``written`` to lately): a line written later joins its answer, read
        again then under the same id."""
        answers = list(self.answers.open.values())
        self.answers.settle(everything=not written)
        return [r for a in answers if (r := self._answer(a, source)) is not None]

    def _answer(self, answer: Answer, source: str) -> MemoryRecord | None:
        return self.record(
            answer.line, answer.key, self.agent, "\n".join(answer.parts), answer.at, source,
            sid=answer.session, tools=answer.tools, sidechain=answer.sidechain,
        )  # fmt: skip

    def _close(self, answers: list[Answer], source: str) -> None:
        self.ready.extend(r for a in answers if (r := self._answer(a, source)) is not None)

    def turn(self, obj: Any, n: int, source: str) -> MemoryRecord | None:
        """Return the record of line ``n`` when it is a conversation turn, else None."""
        if not isinstance(obj, dict):
            raise ValueError(f"expected a JSON object, got {type(obj).__name__}")
        if self.agent != "codex" and (
            self.agent
            or "sessionId" in obj
            or obj.get("type") in _CLAUDE_ONLY
            or ("session_id" in obj and obj.get("type") in _HEADLESS)
        ):
            self.agent = "claude-code"
            return self._claude(obj, n, source)
        self.agent = "codex"
        return self._codex(obj, n, source)

    def record(
        self,
        n: int,
        key: Any,
        author: str,
        text: str,
        at: Any,
        source: str,
        sid: str | None = None,
        **meta: Any,
    ) -> MemoryRecord | None:
        """Return the record of a turn (None when it has no words): its id the session's
        with ``key``, ``meta`` the facts given that are set, and the session's."""
        if not text.strip():
            return None
        shown = {k: v for k, v in meta.items() if v}
        shown.update(agent=self.agent, file=self.rel, line=n)
        if self.project:
            shown["project"] = self.project
        if self.branch:
            shown["branch"] = self.branch
        if self.model:
            shown["model"] = self.model
        project = Path(self.project).name if self.project else self.rel
        when = at if isinstance(at, str) and at else self.started
        return MemoryRecord(
            id=f"{sid or self.id}:{key}",
            text=text,
            source=source,
            kind="chat",
            author=author,
            title=f"{self.agent} session in {project}",
            thread=self.thread or self.id,
            at=At.of(when) if when else None,
            meta=shown,
        )

    def _claude(self, obj: dict[str, Any], n: int, source: str) -> MemoryRecord | None:
        # Print mode's stream-json names the session ``session_id``; a session file ``sessionId``.
        sid = obj.get("sessionId") or obj.get("session_id")
        self.id = str(sid or self.id)
        self.project = _named(obj.get("cwd"), self.project)
        self.branch = _named(obj.get("gitBranch"), self.branch)
        message = obj.get("message")
        if obj.get("type") == "attachment":
            return self._queued(obj, n, source)
        if obj.get("type") == "system" and obj.get("subtype") == "init":
            self.model = _named(obj.get("model"), self.model)  # print mode's first line
        if obj.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            return None
        self.thread = self.thread or _named(sid, None)
        if self._copied(sid):
            return None
        role = str(message.get("role") or obj["type"])
        model = message.get("model")
        if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isApiErrorMessage"):
            return None  # Claude Code's words: caveats, expanded commands, summaries, errors
        if model == "<synthetic>":
            return None
        self.model = _named(model, self.model)
        # A subagent's line: so marked in a session file, naming the Task call it works
        # for in print mode's stream-json.
        sidechain = bool(obj.get("isSidechain")) or isinstance(obj.get("parent_tool_use_id"), str)
        key = str(obj.get("uuid") or f"line-{n}")
        parent = obj.get("parentUuid")
        if role == "assistant" and isinstance(parent, str) and parent in self.quiet:
            self._hush(key)  # the answer to Claude Code's own prompt
            return None
        answer = message.get("id")
        if role == "assistant" and isinstance(answer, str) and answer:
            parts, calls, _ = claude_parts(message.get("content"), role)
            lane = f"{obj.get('agentId') or 'sidechain'}" if sidechain else ""
            start = Answer(answer, self.id, key, n, obj.get("timestamp"), lane, sidechain)
            self._close(self.answers.take(answer, start, parts, calls), source)
            if message.get("stop_reason"):  # the API's message is complete
                self.answers.open[answer].complete = True
            return None
        text, tools, result = claude_text(message.get("content"), role)
        if role == "user" and text.startswith(COMPACT_PREFIX):
            return None
        if role == "user" and not result and parent is None and tool_prompt(text):
            self._hush(key)
            return None
        if result and isinstance(parent, str) and parent in self.quiet:
            self._hush(key)
            return None
        author = "user" if role == "user" and not result and not sidechain else self.agent
        if author == "user" and text.strip():
            self._close(self.answers.close(), source)
        return self.record(
            n, key, author, text, obj.get("timestamp"), source,
            tools=tools, sidechain=sidechain, tool_result=result,
            prompt=sidechain and role == "user" and not result,
        )  # fmt: skip

    def _copied(self, sid: Any) -> bool:
        """Tell whether a line is a copy Claude Code made of an earlier session's line (a
        session resumed into a new file), that session's own file beside this one: its turn
        is read there. (When that file is gone, as Claude Code deletes old sessions, the
        copy is the turn.)"""
        if not self.beside or not isinstance(sid, str) or sid == self.file.stem:
            return False
        if not _UUID_NAME.fullmatch(self.file.stem):
            return False  # a subagent's file names its session's id on every line
        if sid not in self.resumes:
            self.resumes[sid] = (self.file.parent / f"{sid}.jsonl").is_file()
        return self.resumes[sid]

    def _hush(self, key: str) -> None:
        """Note a line of an exchange of Claude Code's own (no turn), for those answering it."""
        self.quiet[key] = None
        while len(self.quiet) > _QUIET_MOST:
            del self.quiet[next(iter(self.quiet))]

    def _queued(self, obj: dict[str, Any], n: int, source: str) -> MemoryRecord | None:
        """Return what the user typed while the agent worked, which Claude Code 2.1 writes
        as a ``queued_command`` attachment when it hands it to the running turn."""
        queued = obj.get("attachment")
        if not isinstance(queued, dict) or queued.get("type") != "queued_command":
            return None
        origin = queued.get("origin")
        kind = origin.get("kind") if isinstance(origin, dict) else None
        if queued.get("commandMode") not in (None, "prompt") or kind not in (None, "human"):
            return None  # a background task's notice, riding the same path
        self.thread = self.thread or _named(obj.get("sessionId"), None)
        text, _, _ = claude_text(queued.get("prompt"), "user")
        sidechain = bool(obj.get("isSidechain"))
        author = self.agent if sidechain else "user"
        key = obj.get("uuid") or f"line-{n}"
        return self.record(
            n, key, author, text, obj.get("timestamp"), source, queued=True, sidechain=sidechain
        )

    def _codex(self, obj: dict[str, Any], n: int, source: str) -> MemoryRecord | None:
        kind = obj.get("type")
        if "payload" in obj or kind in _CODEX_ENVELOPES:
            payload = obj.get("payload")
        elif kind is None and "id" in obj and "timestamp" in obj:
            kind, payload = "session_meta", obj  # the first line of an older rollout
        elif kind is None:
            return None  # an older rollout's {"record_type": "state"}
        else:
            kind, payload = "response_item", obj  # an older rollout's items, unwrapped
        if not isinstance(payload, dict):
            return None
        if kind == "session_meta":
            if self.thread is None:  # a fork's file holds its parent's meta line too
                self.id = str(payload.get("id") or self.id)
                self.started = _named(payload.get("timestamp"), self.started)
                self.parent = _named(payload.get("forked_from_id"), None)
            if self.chain is None:  # the metas before the items: the fork's, its parent's...
                own = _named(payload.get("id"), None) or self.id
                self.thread = _named(payload.get("forked_from_id"), None) or own
            self.project = _named(payload.get("cwd"), self.project)
            git = payload.get("git")
            self.branch = _named(git.get("branch") if isinstance(git, dict) else None, self.branch)
            return None
        if kind == "turn_context":
            self.model = _named(payload.get("model"), self.model)
            self.project = _named(payload.get("cwd"), self.project)
            return None
        if kind != "response_item":  # event_msg repeats the response items
            return None
        at = obj.get("timestamp")
        key, sid = f"line-{n}", None
        # A damaged line may give any JSON as the type: only a string names one.
        item = payload.get("type") if isinstance(payload.get("type"), str) else None
        if self.chained and item in CHAINED:
            key = self.chain = link(self.chain or self.thread or self.id, payload)
            sid = self.thread
            if self.parent and self.copies is None:
                self.copies = self.lookup(self.parent) if self.lookup else set()
            if self.copies and f"{sid}:{key}" in self.copies:
                return None  # a fork's copy of its parent's turn, read from the parent's file
        if item == "message":
            role = payload.get("role")
            if role not in ("user", "assistant"):
                return None
            author = "user" if role == "user" else self.agent
            text = codex_text(payload.get("content"))
            return self.record(n, key, author, text, at, source, sid=sid)
        if item in _CODEX_CALLS:
            name = str(payload.get("name") or _CODEX_CALLS[payload["type"]])
            call = payload.get("arguments", payload.get("input", payload.get("action", "")))
            line = f"[tool {name}: {short(call)}]"
            return self.record(n, key, self.agent, line, at, source, sid=sid, tools=[name])
        if item is None:
            return None
        line, tool = codex_other(item, payload)  # a newer version's item: its words kept
        author = "user" if payload.get("role") == "user" else self.agent
        tools = [tool] if tool else None
        return self.record(n, key, author, line, at, source, sid=sid, tools=tools)
