"""Records in other scripts than the question's: which they are, and the ones a search adds.

A multilingual model finds a record in another language less close than one in the
question's own (``ranking.LANGUAGE_PULL`` gives that back), so in a folder mostly in one
language a note in another falls out of the dense side's few dozen candidates before the
pull can reach it: an English question about a Korean note on backups meets a hundred
English mails about servers first. So the search also asks for the closest passages written
in some other script than the question's (the index keeps each passage's scripts), and adds
those that the question comes closer to than a question saying nothing does: a record close
to every question (a test mail, a line of repeated kana) is close to the blank one too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from ..embedding._base import Vector
from .index._base import Hit, IndexBackend, SearchFilter, SparseVector
from .lines import live_line
from .log import RecordLog
from .scripts import SCRIPTS, prose_scripts, share_a_script
from .table import Table

__all__ = [
    "FOREIGN_CANDIDATES",
    "foreign_candidates",
    "grouped_by_script",
    "script_groups",
    "script_texts",
]

# Passages in other scripts asked for, beside the dense side's own candidates. On the dev
# set's notes in five languages among 1,500 English mails and chats, English questions about
# them found 4 of 11 first and 4 in the first ten; with these, 6 and 7 (benchmarks/README.md).
FOREIGN_CANDIDATES = 8


async def foreign_candidates(
    index: IndexBackend,
    dense: Vector,
    blank: Vector,
    scripts: frozenset[str],
    where: SearchFilter,
    known: Collection[str],
) -> list[Hit]:
    """Return the best passages written in some script not among ``scripts`` (the
    question's) whose records are not among ``known`` (those the search checks anyway) and
    that ``dense`` comes closer to than ``blank`` (the model's vector for a question saying
    nothing) does; none when the question is in no script. (One also in the question's
    script is sorted out by the search, as a record in it.)

    A passage the dense side found too, past the records it checks, is returned: else how
    deep that side reads (a search for 20 results reads deeper than one for 10) would decide
    whether a note in another script is weighed as one, and a larger ``k`` lost it.

    Folders indexed before passages kept their scripts give none until ``memtrails reindex
    --payloads``.
    """
    if not scripts or not SCRIPTS - scripts:
        return []
    outside = replace(where, outside=scripts)
    found, _ = await index.candidates(dense, SparseVector([], []), FOREIGN_CANDIDATES, outside)
    seen = set(known)
    query, nothing = _unit(dense), _unit(blank)
    out = []
    for hit in found:
        if hit.uid in seen or hit.vector is None:
            continue
        passage = _unit(hit.vector)
        if float(query @ passage) > float(nothing @ passage):
            out.append(hit)
    return out


def _unit(vector: Vector) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    return v / max(float(np.linalg.norm(v)), 1e-12)


def script_texts(uids: Sequence[str], table: Table, log: RecordLog) -> dict[str, str]:
    """Return each record's title and text (its first 600 characters), for its script.
    Blocking: one log read a record."""
    out: dict[str, str] = {}
    for uid in uids:
        if (found := live_line(uid, table, log)) is not None:
            line = found[1]
            out[uid] = f"{line.get('title') or ''}\n{str(line.get('text') or '')[:600]}"
    return out


def script_groups(texts: Mapping[str, str], query: frozenset[str]) -> tuple[set[str], set[str]]:
    """Return the records of ``texts`` whose prose is in none of the scripts ``query`` is in,
    and those whose prose shares one (see :func:`memtrails.folder.scripts.prose_scripts`: a
    Korean note naming Latin tools is Korean prose); a record too short to tell is in
    neither."""
    foreign: set[str] = set()
    kin: set[str] = set()
    if query:
        for uid, text in texts.items():
            if scripts := prose_scripts(text):
                (kin if share_a_script(query, scripts) else foreign).add(uid)
    return foreign, kin


async def grouped_by_script(
    checked: Sequence[str],
    hits: Sequence[Hit],
    added: Sequence[str],
    query: frozenset[str],
    table: Table,
    log: RecordLog,
) -> tuple[set[str], set[str], dict[str, str]]:
    """Return :func:`script_groups` of the ``checked`` records and the heads read for it.

    A point keeps its passage's prose scripts (``points.passage_scripts``), and a record's
    scripts are those of its passages among ``hits``; only a record whose points keep none
    (a folder indexed before they did) is read (:func:`script_texts`).
    When one of the records not ``added`` (the dense side's own) is in another script, every
    checked head is read: the words each record in the question's script holds and the names
    the others write weigh then (ranking.WORDS_HELD, confidence.spell_names_alike). A folder
    in one script reads none (benchmarks/README.md, issue 32, eleventh pass).
    """
    wanted = set(checked)
    kept: dict[str, set[str]] = {}
    for hit in hits:
        scripts = hit.payload.get("scripts")
        if hit.uid in wanted and isinstance(scripts, list):
            kept.setdefault(hit.uid, set()).update(map(str, scripts))
    unread = [uid for uid in checked if uid not in kept]
    heads = await asyncio.to_thread(script_texts, unread, table, log) if unread else {}
    foreign, kin = script_groups(heads, query)
    if query:
        for uid, scripts in kept.items():
            if scripts:
                (kin if share_a_script(query, frozenset(scripts)) else foreign).add(uid)
    if foreign - set(added):
        rest = [uid for uid in checked if uid not in heads]
        heads |= await asyncio.to_thread(script_texts, rest, table, log)
    return foreign, kin, heads
