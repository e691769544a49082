"""Who and what a Slack export names: users, channels, DM members, bots; markup made readable."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Generator, Iterator, Mapping
from decimal import Decimal
from typing import Any
from zipfile import ZipInfo

from ...records import RecordError
from . import _stream
from ._dates import seconds, slack_date
from ._export import READ_ERRORS, WORKSPACES, Export, MemberRefused, not_json, workspaces
from ._found import FOUND_NAMES, Labels, digest, found_names, found_people
from ._ranked import user_rank

__all__ = ["EXTRA_NAME_FILES", "Names", "link_text", "name_of", "unescape"]

# Name files beside the conversation lists: the apps of integration_logs.json name bots
# that carry only an id; canvases.json and file_conversations.json title the folders of a
# canvas's comments (named "FC:<canvas file id>[:<title>]" by the export).
# An Enterprise Grid org's export names its users in org_users.json, not users.json.
EXTRA_NAME_FILES = (
    "org_users.json",
    "integration_logs.json",
    "canvases.json",
    "file_conversations.json",
)
_CANVAS_FOLDER = re.compile(r"^FC:(F[A-Z0-9]+)(?::(.*))?$", re.DOTALL)

# Users every workspace has that users.json leaves out.
_BUILT_IN = {"USLACKBOT": "Slackbot"}
_MARKUP = re.compile(r"<([^<>\n]*)>")
# A group DM's folder: "mpdm-" + the members' user names joined by "--" + "-1".
_GROUP_DM = re.compile(r"^mpdm-(.+)-\d+$")
# A folder named by its conversation id (a channel's name is never upper case): a direct
# message's (D...) always; a group DM's or a private channel's (G...) in older exports, and
# any conversation's where a tool names folders by id.
_DM_FOLDER = re.compile(r"^D[A-Z0-9]{8,}$")
_GROUP_FOLDER = re.compile(r"^G[A-Z0-9]{8,}$")
_ID_FOLDER = re.compile(r"^[CDG][A-Z0-9]{8,}$")
# What a conversation's id is followed by, where nothing in the export names it.
NO_NAME = "(name not in the export)"


def name_of(user: Mapping[str, Any]) -> str | None:
    profile = user.get("profile")
    profile = profile if isinstance(profile, Mapping) else {}
    for value in (
        user.get("real_name"),
        profile.get("real_name"),
        profile.get("display_name"),
        user.get("display_name"),
        user.get("name"),
    ):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


class Names:
    """Everything needed to turn messages into records: names, channels, bot names."""

    def __init__(self, export: Export) -> None:
        self.export = export
        self.source = export.source
        self.users: dict[str, str] = {}
        self.handles: dict[str, str] = {}  # user name (the @handle) -> real name
        self._handles: dict[str, str] = {}  # user name -> user id
        self._ranks: dict[str, tuple[bool, bool, Decimal]] = {}  # user id -> its entry's rank
        self.channel_names: dict[str, str] = {}
        self.channel_types: dict[str, str] = {}
        self.members: dict[str, list[str]] = {}  # DM and group DM folder -> user ids
        self.bots: dict[str, str] = {}
        self.apps: dict[str, str] = {}  # app id (or bot id) -> its name in integration_logs
        self.channel_ids: dict[str, str] = {}  # folder -> conversation id
        self.channel_services: dict[str, set[str]] = {}  # conversation id -> integrations
        self.canvases: dict[str, str] = {}  # canvas file id -> its title
        self.canvas_of: dict[str, str] = {}  # conversation id -> the canvas it comments
        self.learned: dict[str, str] = {}  # bot names learned from the current day file
        # A DM or group DM no name file gives members: the names of who wrote in it.
        self.people: dict[str, list[str]] = {}
        # Names the current day file's messages give users missing from users.json (people
        # of another org in a Slack Connect channel): their `user_profile`. Mentions of them
        # in that day file are named so; a day file is always read whole, so a re-run that
        # skips earlier days names them the same.
        self.profiles: dict[str, str] = {}
        # The labels the current day file's mentions give channels and user groups.
        self.labels = Labels()
        # Folders named by an id that no name file names: the name their day files give.
        self.found: dict[str, str] = {}
        # Members of DMs and group DMs users.json leaves out: the names their messages give.
        self.outsiders: dict[str, str] = {}
        self.errors: list[RecordError] = []
        # SHA-256 of each name file as read (None when absent): a change means a full pass.
        self.metadata: dict[str, str | None] = {}

    def _load_list(self, member: str) -> Iterator[Any]:
        """Yield the entries of a name file; of each member of its name, in a zip that
        holds several (one holding users a zip tool appended later), none lost. Its digest
        goes to ``metadata`` once all are yielded. Each is read a piece at a time, never
        held whole (a large org's users.json is hundreds of megabytes)."""
        self.metadata[member] = None
        if not self.export.has(member):
            return
        digests: list[str] = []
        copies = self.export.copies(member)
        for where, copy in copies:
            digest = yield from self._entries(where, copy)
            if digest is not None:
                digests.append(digest)
        # Unknown (None) while any of them cannot be read, as one that cannot be.
        if len(digests) == 1 == len(copies):
            self.metadata[member] = digests[0]
        elif len(digests) == len(copies):
            self.metadata[member] = hashlib.sha256(" ".join(digests).encode()).hexdigest()

    def _entries(self, where: str, copy: str | ZipInfo) -> Generator[Any, None, str | None]:
        """Yield a name file's entries a piece at a time; return the digest of its bytes
        (None: it could not be read). One cut short (a download, an editor) yields the
        entries before the break, which still name people and channels in every record."""
        h = hashlib.sha256()
        pieces = self.export.chunks(copy)

        def hashed() -> Iterator[bytes]:
            for piece in pieces:
                h.update(piece)
                yield piece

        n = 0
        try:
            try:
                for entry in _stream.json_array(hashed()):
                    n += 1
                    yield entry
            except _stream.NotAnArray:
                self.errors.append(RecordError(self.source, where, "not a JSON array"))
            except (ValueError, RecursionError) as exc:
                self.errors.append(RecordError(self.source, where, _broken(exc, n)))
            for piece in pieces:  # the rest, for its digest
                h.update(piece)
        except MemberRefused as exc:
            self.errors.append(RecordError(self.source, where, str(exc)))
            return None
        except READ_ERRORS as exc:  # a damaged member: CRC, inflate or I/O error
            self.errors.append(RecordError(self.source, where, f"cannot read ({exc})"))
            return None
        return h.hexdigest()

    def load_metadata(self) -> None:
        for workspace in workspaces(self.export):
            self._load_workspace(workspace)
        self._load_integrations()
        self._load_canvases()
        self._find_names()

    def _find_names(self) -> None:
        """Name the folders named by an id that no name file names from their day files, and
        the members of DMs users.json leaves out from their messages' profiles
        (:mod:`._found`); the names go into ``metadata``, so that a change reads all again."""
        folders = [c for c in self.export.channels if self._nameless(c)]
        # Members of DMs and group DMs users.json leaves out, and where they may have written.
        missing = {
            m
            for ms in self.members.values()
            for m in ms
            if m not in self.users and m not in _BUILT_IN
        }
        dms = [
            c
            for c in self.export.channels
            if missing and not missing.isdisjoint(self.members.get(self._named(c)[0], ()))
        ]
        if not folders and not dms:
            return
        ids = {folder: folder.rsplit("/", 1)[-1] for folder in folders}
        self.found = found_names(self.export, folders, ids)
        for folder, name in self.found.items():
            self.channel_names[ids[folder]] = name
        self.outsiders = found_people(self.export, dms, missing, name_of)
        self.metadata[FOUND_NAMES] = digest(self.found, self.outsiders)

    def _nameless(self, channel: str) -> bool:
        """Whether a channel or private channel's folder is named by its id and no name file
        names it (a DM's, a group DM's, a canvas's are titled otherwise)."""
        base = channel.rsplit("/", 1)[-1]
        if not _ID_FOLDER.match(base) or _DM_FOLDER.match(base):
            return False
        key, name = self._named(channel)
        kind = self.channel_types.get(key)
        return name == base and kind in (None, "channel", "group") and not self.members.get(key)

    def _load_workspace(self, workspace: str) -> None:
        """Load the names of the export's top ("") or of one of its workspaces (teams/<ws>/),
        whose channel folders go by ``teams/<ws>/<name>``."""
        users = self._load_list(f"{workspace}users.json")
        if not workspace:
            users = itertools.chain(users, self._load_list("org_users.json"))
        for user in users:
            if isinstance(user, Mapping) and isinstance(user.get("id"), str):
                name = name_of(user)
                uid, rank = user["id"], user_rank(user)
                # Named more than once: the entry that tells most, else the last (_ranked).
                if name and rank >= self._ranks.get(uid, rank):
                    self.users[uid], self._ranks[uid] = name, rank
                    if isinstance(user.get("name"), str) and user["name"]:
                        self._handles[user["name"]] = uid
        # A handle goes by the name of the entry kept for its user.
        self.handles = {handle: self.users[uid] for handle, uid in self._handles.items()}
        kinds = {
            "channels.json": "channel",
            "groups.json": "group",
            "mpims.json": "mpim",
            "dms.json": "dm",
        }
        for member, kind in kinds.items():
            for channel in self._load_list(workspace + member):
                if not isinstance(channel, Mapping):
                    continue
                cid, name = channel.get("id"), channel.get("name")
                # DM folders are named by their id; everything else by its name.
                folder = name if isinstance(name, str) and name else cid
                if not isinstance(folder, str):
                    continue
                if isinstance(cid, str):
                    self.channel_names.setdefault(cid, folder)
                    self.channel_ids[workspace + folder] = cid
                self.channel_types[workspace + folder] = kind
                members = channel.get("members")
                if kind in ("dm", "mpim") and isinstance(members, list):
                    self.members[workspace + folder] = [m for m in members if isinstance(m, str)]

    def _load_integrations(self) -> None:
        dates: dict[str, Decimal] = {}  # each app's newest entry's date (_ranked)
        for entry in self._load_list("integration_logs.json"):
            if not isinstance(entry, Mapping):
                continue
            app = _text(entry.get("app_type")) or _text(entry.get("service_type"))
            if app is None:
                continue
            date = seconds(entry.get("date"))
            for key in ("app_id", "bot_id"):
                if not _text(entry.get(key)):
                    continue
                # The newest dated entry; undated ones, the first (Slack writes newest first).
                known = dates.get(entry[key])
                newer = date is not None and (known is None or date > known)
                if entry[key] not in self.apps or newer:
                    self.apps[entry[key]] = app
                    if date is not None:
                        dates[entry[key]] = date
            channel = _text(entry.get("channel"))
            if channel and _text(entry.get("service_type")):
                self.channel_services.setdefault(channel, set()).add(app)

    def _load_canvases(self) -> None:
        for canvas in self._load_list("canvases.json"):
            if not isinstance(canvas, Mapping) or not _text(canvas.get("id")):
                continue
            title = _text(canvas.get("title")) or _text(canvas.get("name"))
            if title:
                self.canvases[canvas["id"]] = title
            for share in canvas.get("shares") or ():
                if isinstance(share, Mapping) and _text(share.get("channel")):
                    self.canvas_of[share["channel"]] = canvas["id"]
        for conversation in self._load_list("file_conversations.json"):
            if not isinstance(conversation, Mapping):
                continue
            cid, name = _text(conversation.get("id")), _text(conversation.get("name"))
            if cid and name:
                self.channel_names[cid] = name
                self.channel_ids[name] = cid
                self.channel_types[name] = "canvas"

    def bot_app(self, channel: str, app_id: str | None, bot_id: str | None) -> str | None:
        """Return the app integration_logs.json names for a bot: by its app or bot id, else
        the only integration ever added to its channel (a webhook posts where it was added)."""
        for key in (app_id, bot_id):
            if key and key in self.apps:
                return self.apps[key]
        key, base = self._named(channel)
        # A folder named by an id no name file lists is that conversation's id all the same.
        cid = self.channel_ids.get(key) or (base if _ID_FOLDER.match(base) else "")
        services = self.channel_services.get(cid, set())
        return next(iter(services)) if len(services) == 1 else None

    def user_name(self, uid: str, label: str | None = None) -> str:
        return self.users.get(uid) or label or self.outsiders.get(uid) or _BUILT_IN.get(uid) or uid

    def mentioned(self, uid: str, label: str | None = None) -> str:
        """Return the name a mention of a user reads as: by users.json, the profile their
        messages in the day file carry, the mention's label, another mention's in the day
        file, else their id."""
        return (
            self.users.get(uid)
            or self.profiles.get(uid)
            or label
            or self.labels.users.get(uid)
            or self.outsiders.get(uid)
            or _BUILT_IN.get(uid)
            or uid
        )

    def readable(self, text: str) -> str:
        """Turn Slack markup into plain text: mentions, channel links, labelled URLs, escapes."""
        return unescape(_MARKUP.sub(self._replace_markup, text))

    def _replace_markup(self, match: re.Match[str]) -> str:
        inner = match.group(1)
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            return "@" + self.mentioned(target[1:], label.lstrip("@") or None)
        if target.startswith("#"):
            return self.channel_mention(target[1:], label)
        if target.startswith("!"):
            return _special(target[1:], label, self.labels.groups)
        return link_text(target, label)

    def channel_mention(self, cid: str, label: str | None = None) -> str:
        """Return the name a mention of a conversation reads as: the name the export gives
        it, else the mention's label or another mention's in the day file, else its id
        saying its name is not in the export."""
        name = self.channel_names.get(cid)
        if name and name != cid:
            return "#" + name
        label = (label or "").strip().lstrip("#") or self.labels.channels.get(cid)
        if label:
            return "#" + label
        return f"#{cid} {NO_NAME}" if cid else "#"

    def title_of(self, channel: str) -> str:
        """Return a conversation's title: ``#name``, ``DM: names``, ``Group DM: names`` or
        ``Canvas: title`` (a canvas's comments); one of a workspace of an Enterprise Grid
        export (``teams/<ws>/<name>``) followed by `` (<ws>)``, as two workspaces may each
        have a ``#general``."""
        title = self._title(channel)
        parts = channel.split("/")
        return f"{title} ({parts[1]})" if len(parts) == 3 and parts[0] == WORKSPACES else title

    def _named(self, channel: str) -> tuple[str, str]:
        """Return the key a conversation's names go by, and its name.

        Its folder and the folder's name (``teams/<ws>/<name>``: a workspace's channel), but
        a folder named by its id that no name file lists so, where one lists the id by a
        name (``groups.json``: ``{"id": "G0ABC…", "name": "secret-project"}``): that name.
        """
        base = channel.rsplit("/", 1)[-1]
        name = self.channel_names.get(base)
        if channel in self.found:  # its id is its name's key all the same
            return channel, base
        if channel in self.channel_types or not _ID_FOLDER.match(base) or not name:
            return channel, base
        return channel[: len(channel) - len(base)] + name, name

    def _title(self, channel: str) -> str:
        canvas = self._canvas_title(channel)
        if canvas is not None:
            return "Canvas: " + canvas
        if channel in self.found:
            return "#" + self.found[channel]
        key, base = self._named(channel)
        members = self.members.get(key)
        kind = self.channel_types.get(key)
        if kind == "dm" and members:
            return "DM: " + ", ".join(self.user_name(u) for u in members)
        group = _GROUP_DM.match(base)
        people = self.people.get(channel)
        if kind == "mpim" or group:
            if members:
                return "Group DM: " + ", ".join(self.user_name(u) for u in members)
            if group:
                # No mpims.json: the folder name lists the members' user names.
                names = [n for n in group.group(1).split("--") if n]
                return "Group DM: " + ", ".join(self.handles.get(n, n) for n in names)
            return "Group DM: " + (", ".join(people) if people else base)
        if self.by_people(channel):
            # No dms.json (or no members in it): who wrote in it, never the bare id alone. A
            # G… folder no name file names is a group DM or a private channel: "Group".
            label = "DM: " if kind == "dm" or _DM_FOLDER.match(base) else "Group: "
            return label + (", ".join(people) if people else base)
        return f"#{base} {NO_NAME}" if self._nameless(channel) else "#" + base

    def by_people(self, channel: str) -> bool:
        """Whether a conversation is titled by who wrote in it (:attr:`people`): a DM or
        group DM no name file gives members, and whose folder name does not list them; a
        G… folder no name file names (older exports: a group DM or a private channel)."""
        key, base = self._named(channel)
        if self.members.get(key) or channel in self.found:
            return False
        kind = self.channel_types.get(key)
        if kind == "dm":
            return True
        if kind == "mpim":
            return _GROUP_DM.match(base) is None
        if kind is None and _DM_FOLDER.match(base):
            return True
        return kind in (None, "group") and _GROUP_FOLDER.match(base) is not None

    def _canvas_title(self, channel: str) -> str | None:
        folder = _CANVAS_FOLDER.match(channel.rsplit("/", 1)[-1])
        cid = self.channel_ids.get(channel, "")
        if folder is None and self.channel_types.get(channel) != "canvas":
            return None
        file_id = folder.group(1) if folder else self.canvas_of.get(cid)
        if file_id and file_id in self.canvases:
            return self.canvases[file_id]
        if folder and folder.group(2) and folder.group(2).strip():
            return folder.group(2).strip()
        return file_id or channel


def link_text(target: str, label: str) -> str:
    """Return a link as a reader sees it: ``label (address)``; an address alone where the
    label says nothing more (a link Slack made of what was typed, ``example.com``); a mail
    address or a phone number without its ``mailto:`` or ``tel:``."""
    for scheme in ("mailto:", "tel:"):
        target = target.removeprefix(scheme)
    bare = target.split("://", 1)[-1].rstrip("/")
    if not label or label == target or label.rstrip("/") == bare:
        return target
    return f"{label} ({target})"


def _special(command: str, label: str, groups: Mapping[str, str]) -> str:
    """Return a ``<!...>`` command as Slack's clients show it: ``<!here>`` as ``@here``, a
    user group (``<!subteam^S1|@oncall>``) by its handle (``groups``: those another mention
    in the day file gives), else its id, a date by its fallback text, else by its format
    filled in (in UTC: the reader's zone is not known)."""
    word, _, rest = command.partition("^")
    if word == "date":
        if label:
            return label
        stamp, _, fmt = rest.partition("^")
        return slack_date(stamp, fmt.split("^", 1)[0])
    if word == "subteam":
        gid = rest.split("^", 1)[0]
        name = label.lstrip("@") or groups.get(gid) or gid
        return "@" + name if name else "@group"
    # @here, @channel, @everyone; an old export's labels go without the @ (<!here|here>)
    return "@" + (label.lstrip("@") or word)


def _broken(exc: ValueError | RecursionError, kept: int) -> str:
    """Say why a name file is not valid JSON, and how many entries before that were read."""
    if not kept:
        return not_json(exc)
    return not_json(exc) + (
        f"; the {kept} before it read" if kept > 1 else "; the entry before it read"
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def unescape(text: str) -> str:
    # Slack escapes only these three; &amp; last so "&amp;lt;" stays "&lt;".
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
