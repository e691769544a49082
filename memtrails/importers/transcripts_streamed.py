"""A Claude Code answer written over several lines, joined into one turn.

Claude Code writes an answer as it streams: each content block (thinking, text, each tool
call) on a line of its own, every line with its own ``uuid`` and the same ``message.id``
(``msg_...``) and ``requestId``; some versions write a line again with the blocks written so
far. One answer is one turn here: its record's id is the first line's, its text each block's
words once, in order, and its tools all the calls. A turn is complete when a later answer of
the same agent (the session's, or one subagent's: ``isSidechain``, ``agentId``) starts, when
the user speaks, or at the end of what is written; one still open at the end of the file
(no line of it says why the message stopped, ``stop_reason``; not long; the file written to
in the last hour) is kept in the
run's state, so that a line written after the run joins it and the turn is read again,
whole, under the same id. (Seen in the format notes of Claude Code sessions found
by the code search: "multiple assistant messages with the same message.id and requestId
represent streaming chunks", and in ticpu/claude-conversation-search-mcp's
``docs/jsonl-format.md``.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answer", "Answers"]

_OPEN_MOST = 16  # answers kept open at once (parallel subagents in one file); the oldest closes
_KEPT_MOST = 1 << 16  # characters of an answer kept in the run's state to join later lines to


@dataclass
class Answer:
    """One answer being written: where it started, and its words and tools so far."""

    message: str  # the API's message id
    session: str  # the session id of its first line
    key: str  # its first line's uuid (or line-N)
    line: int
    at: Any
    lane: str  # whose answer: the session's ("") or a subagent's
    sidechain: bool
    parts: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    complete: bool = False  # a line of it says why the message stopped (``stop_reason``)

    def add(self, parts: list[str], calls: list[str]) -> None:
        """Add a line's blocks (``calls``: each one's tool, or ""): a block already there (a
        line written again) is not added again."""
        for part, call in zip(parts, calls, strict=True):
            if part not in self.parts:
                self.parts.append(part)
                if call:
                    self.tools.append(call)

    def saved(self) -> list[Any]:
        return [self.message, self.session, self.key, self.line, self.at, self.lane,
                self.sidechain, self.parts, self.tools]  # fmt: skip

    @classmethod
    def restored(cls, saved: Any) -> Answer | None:
        if not (isinstance(saved, list) and len(saved) == 9):
            return None
        message, session, key, line, at, lane, sidechain, parts, tools = saved
        if not (
            all(isinstance(v, str) for v in (message, session, key, lane))
            and isinstance(line, int)
            and isinstance(parts, list)
            and isinstance(tools, list)
            and all(isinstance(v, str) for v in parts + tools)
        ):
            return None
        return cls(message, session, key, line, at, lane, bool(sidechain), parts, tools)


@dataclass
class Answers:
    """The answers of a session still open, by message id, oldest first."""

    open: dict[str, Answer] = field(default_factory=dict)

    def take(self, message: str, start: Answer, parts: list[str], calls: list[str]) -> list[Answer]:
        """Add a line of the answer ``message`` (``start`` describes its line, for an answer
        not yet open); return the answers this line shows complete."""
        done: list[Answer] = []
        answer = self.open.get(message)
        if answer is None:
            done = [a for a in self.open.values() if a.lane == start.lane]
            for a in done:
                del self.open[a.message]
            answer = self.open[message] = start
            while len(self.open) > _OPEN_MOST:
                done.append(self.open.pop(next(iter(self.open))))
        answer.add(parts, calls)
        return done

    def settle(self, everything: bool = False) -> None:
        """Forget, at the end of the file, the answers a later line cannot join: complete
        ones (a session's last answer most often), long ones (the run's state keeps no long
        text; a later line of one is a turn of its own), and ``everything`` in a file no
        tool writes to any more."""
        for message, answer in list(self.open.items()):
            if everything or answer.complete or sum(map(len, answer.parts)) > _KEPT_MOST:
                del self.open[message]

    def close(self) -> list[Answer]:
        """Return all the open answers, none left open (the user spoke)."""
        done = list(self.open.values())
        self.open.clear()
        return done

    def saved(self) -> list[Any]:
        return [a.saved() for a in self.open.values()]

    def restore(self, saved: Any) -> None:
        self.open.clear()
        for item in saved if isinstance(saved, list) else []:
            answer = Answer.restored(item)
            if answer is not None:
                self.open[answer.message] = answer
