"""Read a Slack export (a folder or a .zip) as chat records, one per message."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any, cast

from ..._threads import iterate_in_thread
from ...limits import Limits
from ...records import Item
from ..contract import resumable_importer
from ._export import DEFAULT_MAX_MEMBER_BYTES, DEFAULT_MAX_RATIO, Export
from ._walk import items as export_items
from ._walk import record_count

__all__ = ["DEFAULT_MAX_MEMBER_BYTES", "DEFAULT_MAX_RATIO", "from_slack_export", "message_count"]


def _generator(items: AsyncIterator[Item]) -> AsyncGenerator[Item, None]:
    # iterate_in_thread is an async generator, annotated as a plain iterator.
    return cast("AsyncGenerator[Item, None]", items)


@resumable_importer()
async def from_slack_export(
    path: str | os.PathLike[str],
    *,
    source: str | None = None,
    state: Mapping[str, Any] | None = None,
    max_ratio: float = DEFAULT_MAX_RATIO,
    limits: Limits | None = None,
) -> AsyncGenerator[Item, None]:
    """Yield one chat record per message of a Slack export, channel by channel, day by day.

    Reads the export a day file at a time in worker threads, from a folder or straight out of
    the .zip Slack sends (member by member). User names come from ``users.json`` (and
    ``org_users.json``, where an Enterprise Grid org's export names them; a user several
    entries name, by the one not deleted, then with a real name, then the newest
    ``updated``, else the last read); channel
    names from ``channels.json`` (and ``groups.json``, ``mpims.json``, ``dms.json``) or the
    channel folder names. An Enterprise Grid export that holds each workspace as an export of
    its own (``teams/<workspace>/``, with its ``users.json`` and ``channels.json``) has each
    read too, its channels going by ``teams/<workspace>/<name>`` (ids, threads) and titled
    ``#name (<workspace>)`` (two workspaces may each have a ``#general``); a folder elsewhere
    that holds channel folders of its own is a :class:`RecordError` naming it, its messages
    not read (the run then not complete). Slack markup becomes plain text (``<@U1>`` becomes ``@Real Name``; a user
    missing from ``users.json``, as people of another org in a Slack Connect channel are, is
    named by the ``user_profile`` their messages in that day file carry, else by the label
    another mention of them in it gives, ``<@U1|gina>``;
    ``<url|label>`` becomes ``label (url)``), attachment text (integrations, link previews) is
    appended, and shared files are noted as ``[file: name]`` (a text snippet's or post's first lines,
    its ``preview``, follow; a file with no name nor title as what it is, ``[file: unnamed
    PNG]``, or became, ``[file: deleted]``, or a Slack Connect file of another organization's,
    ``[file: shared from another organization]``, never by its bare id; several alike once,
    ``[3 files: unnamed PNG]``; an entry that names nothing, ``{}``, not at all). A message with no
    ``text`` is read from its blocks (rich text: mentions named, a list item or paragraph a line,
    a nested list two spaces further in, ordered ones numbered per level ``1.``, ``a.``,
    ``i.``, a quote's lines marked ``> ``; an app's ``section``, ``header`` and ``context`` blocks);
    one whose ``text`` is an app's
    summary has the lines of those blocks the text does not already say added to it. An
    attachment with no title nor text of its own is read from its blocks, else from its
    ``fallback``, where that says words its pretext and fields do not; a huddle as ``[huddle] with``
    its participants. ``<!here>``, ``<!channel>`` and ``<!everyone>`` read as ``@here``...,
    a user group ``<!subteam^S1|@oncall>`` as ``@oncall`` (with no handle, by the one another
    mention in that day file gives it, else ``@S1``), a channel ``<#C1>`` by its name (else
    the label another mention in that day file gives it, else ``#C1 (name not in the
    export)``), ``<mailto:a@b.c|Ann>`` as ``Ann (a@b.c)``, a link Slack made of what was typed
    (``<http://example.com|example.com>``) as its address alone, a
    ``<!date^...|fallback>`` as its fallback (its format filled in, in UTC, with none). Joins, leaves,
    integration notices, tombstones and the hidden ``message_replied`` copies of a thread's
    parent (exports before 2018) are skipped silently, as are messages that say nothing once
    their text, blocks, attachments and files are read (what is left of a message whose
    file was removed: its reactions); Slackbot (``USLACKBOT``) is named so. A message
    deleted (a ``message_deleted`` event names it by ``deleted_ts``, or an edit or a
    ``tombstone`` replaced it) is not imported, wherever in the channel's days the event
    is; an edited one (``message_changed`` events) is imported once, as its last edit left
    it (its id the original's), the earlier words in no record. A record an earlier run
    made of a message deleted since is forgotten by the next run that reads such an event,
    incremental or full, with no ``--prune`` (``ImportReport.removed`` counts it: the
    position's ``SourceState.deleted`` names it). One a newer export merely leaves out (a
    message deleted before it was made, no event left) is forgotten so too by the run
    that reads its day file whole (the position keeps the ts of each day file's records):
    never for a day file the export does not hold (a partial export), one that could not
    be read whole, nor one run with ``--full`` (no position to compare with: an edited
    message gets its new words, but a deleted one stays, and the position that run saves
    holds only what it found, so no later run forgets it either: give ``--full`` with
    ``--prune``); a message
    now in another day file of the channel is kept; on the export's first and last days
    (a date range may cut them) only one between the first and last messages the day
    file still holds. The rest stays until a run with ``--prune``, which reads the export
    whole and forgets what it no longer holds.

    Each record has ``kind="chat"``, ``id="<channel>/<ts>"`` (stable across runs; the
    channel is its folder's name, so a channel renamed in Slack gets new ids, the old ones
    forgotten by a run with ``--prune``),
    ``title="#<channel>"`` (``"DM: names"`` for direct messages, ``"Group DM: names"`` for
    group DMs, their members from ``dms.json`` and ``mpims.json``, one users.json leaves out
    (another organization's, Slack Connect) by the ``user_profile`` of their messages in
    those conversations, or else from the ``mpdm-a--b-1`` folder
    name; a DM whose members no name file gives, its folder named by its id ``D01…``, by who
    wrote in it, from all its day files, sorted; a ``G…`` folder no name file lists, an older
    export's group DM or private channel, so too, as ``"Group: names"``; a folder named by an
    id that a name file lists under a name, by that name; one named by a channel's id that
    no name file names, by the name its own day files give it: its last rename, a
    ``channel_name`` its messages carry, a mention of it in them, else the label most
    mentions of it elsewhere in the export give it, all its days read for it before its
    records are made, else ``#C0123ABCD (name not in the export)``), ``author`` = the
    user's real name (a bot: its ``username``, ``bot_profile.name``, the name a ``bot_add``
    notice gave it, else its bot id),
    ``thread="<channel>/<thread_ts or ts>"`` and ``meta`` with ``channel``, ``ts``, ``user``
    and, when present, ``subtype``, ``edited``, ``bot``, ``files``, ``reply_count`` and
    ``reactions`` (the first 100 kinds; ``reactions_left_out`` counts any more).

    After a channel (once the items read since the last one number a tenth of the export's
    channels, so that thousands of small DMs cost no quadratic positions), and at the end,
    comes a :class:`~memtrails.records.SourceState`:
    ``{"metadata": {name file: sha256 or None}, "channels": {channel: {"last": last day
    file, "before": digest of the names and stamps of the day files before it, "bots":
    bot names learned from those, "ts": {day file: the ts of its records}}}}`` (and, for a DM titled by who wrote in it, ``"people"``
    who wrote in those, ``"title"`` and the ts of the messages ``"deleted"`` in it: a newer
    day that brings someone new, or deletes the message of an earlier one, changes the
    title, and the channel is then read whole, so that no record keeps the old one; only
    those with a message that is a record count, not the writer of a deleted message nor of
    one that says nothing). Given back as ``state``, it makes the run
    incremental: in each channel whose day files before its last one are as they were
    (same names, and same size and CRC-32 in a zip, same size and mtime in a folder),
    those are not read; the last day file and any newer ones are (a day file grows during
    its day; its unchanged messages cost no embedding). A new channel is read in full.
    The run is then ``mode="incremental"``, ``complete=False``. It reads everything
    (``mode="full"``, ``why`` set) when:

    - the state is not one this version reads, or another kind's (the source was last read
      with another ``--kind``: ``why`` says which);
    - ``users.json``, ``org_users.json``, ``channels.json``, ``groups.json``, ``mpims.json``
      or ``dms.json`` (or a workspace's, in ``teams/<workspace>/``) changed, appeared or
      disappeared, or the names the day files give folders no name file names changed:
      the names written into every record may differ.

    A channel whose earlier day files changed (a day added before the last one, a file
    edited or, in a folder, rewritten with a new mtime, as a fresh unzip does), or one of
    which could not be read last run, is read in full, the others still incrementally; if no
    day file at all could be skipped, the run counts as full. A full run is ``complete``
    unless a day file or a channel folder could not be read (a symlink loop, no permission:
    each is a :class:`RecordError` naming it, and the rest is read); then nothing is pruned.

    Hostile or damaged archives: a member over ``limits.max_file_bytes`` (128 MiB by
    default) is not read, nor is a zip member of more
    than 1 MiB that inflates more than ``max_ratio`` times (250 by default; real exports
    inflate 3-40 times, zip bombs about 1,000), nor any member once the whole archive has
    inflated ``max_ratio`` times its size (plus 1 MiB): each becomes a :class:`RecordError`
    naming the member and the limit, decided from the zip's directory before anything is
    inflated, and the import goes on. A day file over 16 MiB is never held whole: it is read
    twice, a message at a time (once to check it is valid JSON, a broken one being one
    error as a small one is, once for its records), so memory stays within a few MiB and its
    largest message (a day file of 100 MiB, 248,000 messages: 60 MB at its peak, where
    reading it whole took 700 MB). A name file (a large org's ``users.json``) is read in
    pieces too, once, whatever its size (UTF-8, or UTF-16 or UTF-32 as ``json.loads``
    reads them). A zip
    member whose name leads outside the export (``../x``, ``/etc/x``, ``C:\\x``) is never
    read and is reported the same way. A zip holding several members of one name (a zip tool
    that appends a file again rather than replacing it) has each of them read once, in the
    archive's order (errors name them ``general/2024-01-01.json (copy 2 of 2 in the zip)``).
    Folders a zip tool separated with backslashes (Windows PowerShell 5.1's
    ``Compress-Archive``) are folders still. Member names a zip tool wrote in UTF-8 without
    flagging them so (Info-ZIP's ``zip`` on
    Linux and macOS) are read as UTF-8, not as code page 437: a channel named ``日本語``
    keeps its name, and its records the ids the unzipped folder gives them. Channel folder
    names a Mac wrote with decomposed accents (NFD), in a zip or a folder, are read composed
    (NFC), as the name files and exports made elsewhere write them: the same channel, ids
    and titles.
    A day file or name file saved as the Web API's answer, as a script of one's own writes
    it (``{"ok": true, "messages": [...], "has_more": false}``, ``{"members": [...]}``,
    ``{"channels": [...]}``), is read as the array it holds; a name file keyed by id
    (``{"U1": {...}, "U2": {...}}``, in such a wrapper or not) as its entries, a day file of
    one message saved as an object as that message, one keyed by ts as its messages.
    A damaged or truncated zip (its directory of members is at the end of the file) raises a
    :class:`SourceError` saying so. A day file named otherwise than ``YYYY-MM-DD.json`` but
    starting so (``2024-01-02 (1).json``, a second download) is read as one; any other JSON
    file in a channel's folder (but Slack's ``canvases_in_conversation.json``) is a
    :class:`RecordError` naming it as not read, the run complete all the same; so is a day
    file outside any channel's folder (beside ``channels.json``, or a workspace's in
    ``teams/<workspace>/``: whose messages it holds is not known), and a folder of day
    files alone (one channel's folder) is a :class:`SourceError` saying so.

    Args:
        path: the export folder or .zip file.
        source: the source name on every record; defaults to the resolved path.
        state: the ``SourceState.state`` the last run ended with (``Memory.source_state``).
        limits: ``max_file_bytes`` is the largest member read, in bytes, inflated (default
            128 MiB).
        max_ratio: the most a zip member over 1 MiB, and the whole zip, may inflate
            (inflated / compressed).

    Raises:
        SourceError: the path is missing, is not a Slack export, or is a damaged .zip file.
        ValueError: ``max_ratio`` is not positive.

    Returns:
        An async iterator of records and source states; a broken day file or message
        becomes a :class:`RecordError` in its place and the rest still imports (a message
        is named by its day file and its place in it, from 1: ``general/2024-01-01.json,
        message 3``). A message whose text, or the text of its attachments or files, is of
        another JSON type than Slack writes (a number where a string belongs, a string where
        an array of objects does) is such an error, naming the value, never a record with
        that text lost; one object where an array of them belongs is read as an array of one.
        Values that carry no text (reactions, profiles, ids) of another type are ignored.

    Example::

        async with aclosing(from_slack_export("slack-export.zip")) as items:
            async for item in items:
                print(item)
    """
    max_member_bytes = (limits or Limits()).max_file_bytes or DEFAULT_MAX_MEMBER_BYTES
    if not max_ratio > 0:
        raise ValueError(f"`max_ratio` must be positive, got {max_ratio}")
    export = await asyncio.to_thread(Export.open, Path(path), source, max_member_bytes, max_ratio)
    try:
        # Close the thread-side reader as soon as the consumer stops, not when GC runs.
        read = functools.partial(export_items, export, state)
        async with aclosing(_generator(iterate_in_thread(read))) as items:
            async for item in items:
                yield item
    finally:
        await asyncio.to_thread(export.close)


def message_count(
    path: str | os.PathLike[str],
    state: Mapping[str, Any] | None = None,
    *,
    max_ratio: float = DEFAULT_MAX_RATIO,
    limits: Limits | None = None,
) -> tuple[int, int]:
    """Return how many items :func:`from_slack_export` will count, and how many it skips.

    The first number is what the import then reports it saw (``ImportReport.seen``), given
    the same ``state``: each message of the day files it reads (less the notices it drops
    silently), each file it cannot read, and the records of the day files it skips (counted
    unchanged, unread); the second is those skipped records alone. Each day file read is
    parsed as JSON, nothing more: a small part of what the import does with it.

    Raises:
        SourceError: as :func:`from_slack_export` does.
    """
    max_member_bytes = (limits or Limits()).max_file_bytes or DEFAULT_MAX_MEMBER_BYTES
    export = Export.open(Path(path), None, max_member_bytes, max_ratio)
    try:
        return record_count(export, state)
    finally:
        export.close()
