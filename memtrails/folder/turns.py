"""A conversation's turns around search results: neighbours, replies and follow-ups.

Search reads these for the short turns among its best records (see ranking.rank_records):
the turns just before and after each in its thread or channel, which of them ask, which
reply to which, and what a question followed up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .._exceptions import FolderFormatError
from ..items import conversation_key
from .confidence import word_share
from .lines import live_line
from .log import RecordLog
from .table import Table

__all__ = ["FOLLOW_WORDS", "Context", "follow_ups_adding", "neighbours"]

# A follow-up question counts with the turn it followed up when it holds at least this share
# of the query's word weight that the first turn does not hold (see follow_ups_adding): a
# "what did" asks nothing of its own, "win" in "Third! What did you win?" does. On the dev
# set's chats, 0.05 / 0.1 / 0.15 / 0.2 gave all hit@1 .694 / .692 / .688 / .686; at 0.05
# 11 of the 30 questions moved went down (one out of the first 10), at 0.1 7 of 21, each by
# one place (issue 32, ninth pass).
FOLLOW_WORDS = 0.1


def _conversation(line: Mapping[str, Any]) -> tuple[Any, ...] | None:
    """Return a log line's conversation (:func:`memtrails.items.conversation_key`), None for
    a deleted record or one that is no turn of a conversation."""
    if line.get("deleted"):
        return None
    return conversation_key(
        line.get("source"),
        line.get("kind"),
        line.get("text"),
        line.get("title"),
        line.get("thread"),
        line.get("meta") or {},
    )


class Context(NamedTuple):
    """The turns around some records in their conversations (see :func:`neighbours`)."""

    #: uid -> {the live records around it in its conversation: how many turns away}
    links: dict[str, dict[str, int]]
    #: the turns among all of them that end asking a question (see `_asks`)
    asking: set[str]
    #: uid -> the turn just before it, when that one asks (anywhere in it): the question it
    #: replies to
    replies: dict[str, str]
    #: a reply's uid -> the turn its question followed up ("Deborah asked me to be the
    #: volunteer coordinator." / "What does that involve?" / the reply)
    followed: dict[str, str]
    #: uid -> its text, for every turn read
    texts: dict[str, str]


def neighbours(uids: Sequence[str], table: Table, log: RecordLog, reach: int = 1) -> Context:
    """Return the records around ``uids`` in their conversations (up to ``reach`` turns
    each way), the turns among them that ask, which turn replies to which, and what each
    reply's question followed up.

    Neighbours are the log lines around the record's own (a conversation is imported in
    order), kept while they are the current version of a record of the same conversation
    (see ``_conversation``); the walk stops at the first line that is not. A turn followed
    by one that asks is linked to that question's reply as well. Blocking: a few reads of
    the log.
    """
    found = Context({}, set(), {}, {}, {})

    def step(offset: int, side: int, group: tuple[Any, ...]) -> tuple[int, str, bool] | None:
        """The turn before (side 0) or after (side 1) the line at ``offset`` in its
        conversation: its offset, uid and whether it asks; None past the conversation."""
        at = log.around(offset)[side]
        if at is None:
            return None
        try:
            line = log.read_line(at)
        except FolderFormatError:  # a damaged line ends the walk, as a line of another chat
            return None
        uid = line.get("uid")
        if not isinstance(uid, str) or _conversation(line) != group:
            return None
        current = table.get(uid)
        if current is None or current.offset != at:
            return None
        found.texts[uid] = str(line.get("text", ""))
        if _asks(line):
            found.asking.add(uid)
        return at, uid, _has_question(line)

    def link(one: str, other: str, steps: int) -> None:
        for a, b in ((one, other), (other, one)):
            near = found.links.setdefault(a, {})
            near[b] = min(near.get(b, steps), steps)

    for uid in uids:
        if (read := live_line(uid, table, log)) is None:
            continue
        row_offset, line = read
        group = _conversation(line)
        if group is None:
            continue
        found.texts[uid] = str(line.get("text", ""))
        asks = _has_question(line)
        if _asks(line):
            found.asking.add(uid)
        nearest: list[tuple[int, str, bool] | None] = []
        for side in (0, 1):
            offset, first = row_offset, None
            for steps in range(1, reach + 1):
                got = step(offset, side, group)
                if got is None:
                    break
                offset, other, _ = got
                first = first or got
                link(uid, other, steps)
            nearest.append(first)
        before, after = nearest
        if before is not None and before[2]:
            found.replies[uid] = before[1]
        if after is not None and asks:
            found.replies[after[1]] = uid
            if before is not None:
                found.followed[after[1]] = before[1]
        elif after is not None and after[2]:
            # This turn, a question that follows it up, and the reply: the reply is about it.
            reply = step(after[0], 1, group)
            if reply is not None:
                link(after[1], reply[1], 1)
                found.replies[reply[1]] = after[1]
                found.followed[reply[1]] = uid
    return found


# "?" and the full-width and Arabic question marks (U+FF1F, U+061F).
_QUESTION_MARKS = ("?", "\uff1f", "\u061f")


def _asks(line: Mapping[str, Any]) -> bool:
    """A turn that ends asking ("What did you get her?"): seldom itself an answer."""
    return str(line.get("text", "")).rstrip().endswith(_QUESTION_MARKS)


def _has_question(line: Mapping[str, Any]) -> bool:
    """A turn that asks anywhere ("So?? How did the lesson go? I've been waiting all
    week."): the turn after it replies."""
    text = str(line.get("text", ""))
    return any(mark in text for mark in _QUESTION_MARKS)


def follow_ups_adding(
    weights: Mapping[str, float],
    followed: Mapping[str, str],
    replies: Mapping[str, str],
    texts: Mapping[str, str],
) -> set[str]:
    """Return the replies in ``followed`` whose question holds words of the query that the
    turn it followed up lacks, at least FOLLOW_WORDS of the query's word weight
    (``weights``, confidence.word_weights): "Third! What did you win?" after "I came third
    at the bouldering competition", for "What did Noor win at the bouldering competition?".
    Such a question asks what the reply says (see ranking.FOLLOW_WEIGHT)."""
    out = set()
    for reply, topic in followed.items():
        asked = replies.get(reply)
        if asked is None or asked not in texts or topic not in texts:
            continue
        first = word_share(weights, texts[topic])
        if word_share(weights, f"{texts[topic]}\n{texts[asked]}") - first >= FOLLOW_WORDS:
            out.add(reply)
    return out
