"""The retrieval dev set: queries with their answers, built from the shared corpora at run time."""

from __future__ import annotations

import json
import mailbox
import random
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path

__all__ = [
    "MBOXES",
    "Conversation",
    "Query",
    "Record",
    "Turn",
    "build_queries",
    "conversation_queries",
    "conversations",
    "long_check_conversations",
    "long_conversations",
    "multilingual_notes",
    "multilingual_queries",
    "notes_folder",
]

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "data" / "retrieval_questions.json"
CONVERSATIONS = HERE / "data" / "conversations.txt"
# Long multi-session chats (about 550 turns each), one file each: see long_conversations().
LONG_CONVERSATIONS = HERE / "data" / "long"
# Two more, written apart from them as a check set: nothing is tuned on them.
LONG_CHECK = HERE / "data" / "long_check"
MULTILINGUAL = HERE / "data" / "multilingual_notes.json"
# The source the multilingual notes are imported under.
MULTILINGUAL_SOURCE = "multilingual-notes"
# The Twisted list months: real questions and answers, quoted by their replies.
MBOXES = [
    "mbox/twisted-python-2003-April.mbox",
    "mbox/twisted-python-2004-February.mbox",
    "mbox/twisted-web-2005-December.mbox",
]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_ATTRIBUTION = re.compile(r"(wrote|writes|said|says)\s*:\s*$", re.IGNORECASE)
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Record:
    """What the dev set needs of an imported record: where it is, and its text."""

    source: str
    id: str
    text: str


@dataclass(slots=True)
class Query:
    """One dev-set query; ``answers`` empty means it has no answer in the corpora."""

    text: str
    category: str
    answers: set[tuple[str, str]] = field(default_factory=set)
    # Records that contain the query's words verbatim but are not its answer (the reply a
    # quoted question was taken from, other replies quoting it): left out of the ranking.
    ignore: set[tuple[str, str]] = field(default_factory=set)
    source: str | None = None
    # What kind of question it is, for the per-kind figures (conversations: words, next,
    # date, person, meaning, when, xlang).
    kind: str = ""
    # When the question is asked (``now=`` of the search), for "last week"; None: today.
    now: str | None = None


def _squash(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def notes_folder(corpora: Path, into: Path) -> Path:
    """Copy the corpora's Markdown notes (INVENTORY.md, */PROVENANCE.md) into ``into``."""
    for md in sorted(corpora.rglob("*.md")):
        rel = md.relative_to(corpora)
        if any(part.startswith("_") for part in rel.parts):
            continue
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(md, into / rel)
    return into


def _parents(corpora: Path) -> dict[str, tuple[str, str]]:
    """Return Message-ID -> (In-Reply-To Message-ID, mbox path) for the Twisted months."""
    out: dict[str, tuple[str, str]] = {}
    for rel in MBOXES:
        path = corpora / rel
        for msg in mailbox.mbox(str(path)):
            mid = (msg.get("Message-ID") or "").strip().strip("<>")
            parent = (msg.get("In-Reply-To") or "").strip()
            m = re.search(r"<([^>]+)>", parent)
            if mid and m:
                out[mid] = (m.group(1), str(path))
    return out


def _quoted_blocks(text: str) -> list[str]:
    """Return the first-level quoted blocks of a reply, attribution lines left out."""
    blocks: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith(">") and not line.startswith(">>") and not line.startswith("> >"):
            body = line[1:].strip()
            if body and not _ATTRIBUTION.search(body) and not body.startswith("--"):
                blocks[-1].append(body)
        elif blocks[-1]:
            blocks.append([])
    return [" ".join(b) for b in blocks if b]


def _own_lines(text: str) -> list[str]:
    """Return a message's own paragraphs (quotes, attributions and signatures left out)."""
    paragraphs, current = [], []
    for line in text.splitlines():
        if line.startswith("--"):
            break
        if line.startswith(">") or _ATTRIBUTION.search(line):
            continue
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def _containing(snippet: str, squashed: dict[tuple[str, str], str]) -> set[tuple[str, str]]:
    key = _squash(snippet)
    return {k for k, text in squashed.items() if key in text}


def build_queries(
    corpora: Path,
    records: Iterable[Record],
    notes_source: str,
    *,
    quotes: int = 150,
    dated: int = 60,
    seed: int = 15,
) -> list[Query]:
    """Return the dev set: quoted questions, dated snippets, notes, chat and no-answer queries.

    Args:
        corpora: the shared corpora folder.
        records: every record imported into the dev memory.
        notes_source: the ``source`` of the notes folder's records.
        quotes: how many reply -> quoted message queries to draw.
        dated: how many "in <Month> <Year>" queries to draw (each also asked as "before",
            "after" or "since" a month beside its own: category ``dated-side``).
        seed: the draw's seed (the dev set is the same on every run).
    """
    rng = random.Random(seed)
    records = list(records)
    by_id = {(r.source, r.id): r for r in records}
    mail = {k: r for k, r in by_id.items() if k[0].endswith(".mbox")}
    squashed = {k: _squash(r.text) for k, r in mail.items()}
    ids = {r.id: k for k, r in mail.items()}
    out: list[Query] = []

    # 1. A reply's quoted question -> the message it quotes.
    pairs = sorted(
        (mid, parent, path)
        for mid, (parent, path) in _parents(corpora).items()
        if mid in ids and parent in ids and parent != mid
    )
    rng.shuffle(pairs)
    used_parents: set[str] = set()
    for mid, parent, _path in pairs:
        if len(out) >= quotes:
            break
        if parent in used_parents:
            continue
        blocks = [b for b in _quoted_blocks(mail[ids[mid]].text) if len(b.split()) >= 8]
        blocks = [b for b in blocks if _squash(b) in squashed[ids[parent]]]
        if not blocks:
            continue
        asks = [b for b in blocks if "?" in b]
        words = (asks or blocks)[0].split()[:40]
        snippet = " ".join(words)
        query = Query(snippet, "quoted", {ids[parent]})
        query.ignore = _containing(snippet, squashed) - query.answers
        # A third of them scoped to their list month, as a user filtering by source would.
        if len(out) % 3 == 0:
            query.source = ids[parent][0]
        out.append(query)
        used_parents.add(parent)

    # 2. A short snippet of a message's own words with the month it was written in.
    from_file = {
        str(corpora / rel): {
            (msg.get("Message-ID") or "").strip().strip("<>"): msg.get("Date")
            for msg in mailbox.mbox(str(corpora / rel))
        }
        for rel in MBOXES
    }
    candidates = sorted(k for k in mail if k[1] not in used_parents)
    rng.shuffle(candidates)
    n_dated = 0
    templates = [
        "in {month} {year}: {s}",
        "{s} ({month} {year})",
        "what was said in {month} {year} about {s}",
    ]
    for key in candidates:
        if n_dated >= dated:
            break
        date = from_file.get(key[0], {}).get(key[1])
        if not date:
            continue
        try:
            when = parsedate_to_datetime(date)
        except (TypeError, ValueError):
            continue
        paragraphs = [p for p in _own_lines(mail[key].text) if len(p.split()) >= 12]
        if not paragraphs:
            continue
        snippet = " ".join(paragraphs[0].split()[:8])
        text = templates[n_dated % len(templates)].format(
            month=_MONTHS[when.month - 1], year=when.year, s=snippet
        )
        query = Query(text, "dated", {key})
        query.ignore = _containing(snippet, squashed) - query.answers
        out.append(query)
        # The same mail asked for by the time on one side of it: "before" the month after
        # its own, "after" the month before, "since" its own month (by rule, in turn).
        side = ("before", "after", "since")[n_dated % 3]
        shift = {"before": 1, "after": -1, "since": 0}[side]
        year, month = divmod(when.year * 12 + when.month - 1 + shift, 12)
        directed = Query(
            f"{side} {_MONTHS[month]} {year}: {snippet}", "dated-side", {key}, kind=side
        )
        directed.ignore = query.ignore
        out.append(directed)
        n_dated += 1

    # 3. Hand-written questions: the notes folder, a Slack channel, and no answer at all.
    written = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    for item in written["notes"]:
        answers = {(notes_source, f) for f in item["files"]}
        missing = answers - set(by_id)
        if missing:
            raise ValueError(f"notes question {item['q']!r}: no record {sorted(missing)}")
        out.append(Query(item["q"], "notes", answers, source=notes_source))
    chat = [r for r in records if "slack" in r.source]
    for item in written["chat"]:
        answers = {(r.source, r.id) for r in chat if any(a in r.text for a in item["answers"])}
        if not answers:
            raise ValueError(f"chat question {item['q']!r}: no record holds its answer")
        out.append(Query(item["q"], "chat", answers))
    for text in written["none"]:
        out.append(Query(text, "none"))
    for text in written["none_near"]:
        out.append(Query(text, "none-near"))
    return out


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn of a written conversation: one record."""

    id: str
    session: int
    speaker: str
    at: str
    text: str


@dataclass(slots=True)
class Conversation:
    """A written multi-session conversation between two people, with its questions."""

    name: str
    turns: list[Turn] = field(default_factory=list)
    # (kind, question, evidence substrings); kind "none" for a question with no answer.
    questions: list[tuple[str, str, list[str]]] = field(default_factory=list)
    # question -> when it is asked (relative dates in it count from then), if said
    asked_on: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """The source name its records are imported under."""
        return f"conversation/{self.name}"


_TURN = re.compile(r"^([A-Z][\w.-]*): (.+)$")
_ASK = re.compile(r"^\? \[(\w+)(?:@(\d{4}-\d\d-\d\d))?\] (.+)$")


def conversations(path: Path = CONVERSATIONS) -> list[Conversation]:
    """Parse the written conversations (``data/conversations.txt``, format in its header)."""
    out: list[Conversation] = []
    session, at = 0, ""
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if line.startswith("# conversation "):
            out.append(Conversation(line.removeprefix("# conversation ").strip()))
            session = 0
        elif not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        elif line.startswith("## "):
            session += 1
            day, time = line[3:].split()
            at = f"{day}T{time}:00Z"
        elif line.startswith("! "):
            out[-1].questions.append(("none", line[2:].strip(), []))
        elif m := _ASK.match(line):
            question, *evidence = (part.strip() for part in m.group(3).split(" | "))
            out[-1].questions.append((m.group(1), question, evidence))
            if m.group(2):
                out[-1].asked_on[question] = f"{m.group(2)}T12:00:00Z"
        elif m := _TURN.match(line):
            conv = out[-1]
            turn_id = f"{conv.name}:s{session}:t{sum(t.session == session for t in conv.turns) + 1}"
            conv.turns.append(Turn(turn_id, session, m.group(1), at, m.group(2)))
        else:
            raise ValueError(f"{path}:{n}: cannot read {line!r}")
    return out


def long_conversations(folder: Path = LONG_CONVERSATIONS) -> list[Conversation]:
    """Parse the long chats (``data/long/*.txt``, each in the format of conversations.txt).

    Each is a year or more of one pair's sessions, as a long-running chat holds them: the
    same topics come back session after session, so many turns share a question's words.
    """
    return [c for path in sorted(folder.glob("*.txt")) for c in conversations(path)]


def long_check_conversations(folder: Path = LONG_CHECK) -> list[Conversation]:
    """Parse the check set's long chats (``data/long_check/*.txt``, as ``data/long/``).

    Written apart from the dev chats, with other people, lives and topics, for a figure
    that no ranking choice was tuned on: read it, do not tune on it.
    """
    return long_conversations(folder)


def conversation_queries(convs: Iterable[Conversation]) -> list[Query]:
    """Return each conversation's questions, scoped to it (``source=``), evidence as answers.

    Raises:
        ValueError: an evidence substring matches no turn, or more than one.
    """
    out: list[Query] = []
    for conv in convs:
        for kind, text, evidence in conv.questions:
            if kind == "none":
                out.append(Query(text, "conv-none", source=conv.source, kind="none"))
                continue
            answers: set[tuple[str, str]] = set()
            for piece in evidence:
                found = [t for t in conv.turns if piece in t.text]
                if len(found) != 1:
                    raise ValueError(f"{conv.name}: {piece!r} matches {len(found)} turns")
                answers.add((conv.source, found[0].id))
            query = Query(text, "conv", answers, source=conv.source, kind=kind)
            query.now = conv.asked_on.get(text)
            out.append(query)
    return out


def multilingual_notes(path: Path = MULTILINGUAL) -> list[tuple[str, str, str, str]]:
    """Return the multilingual notes as (id, language, title, text); the title is the
    text's first line without its ``#``."""
    out = []
    for note in json.loads(path.read_text(encoding="utf-8"))["notes"]:
        head, _, _ = note["text"].partition("\n")
        out.append((note["id"], note["lang"], head.lstrip("# ").strip(), note["text"]))
    return out


def multilingual_queries(path: Path = MULTILINGUAL) -> list[Query]:
    """Return the cross-language questions: each asked in a language other than its note's,
    searched over the whole folder; ``kind`` is ``to-en`` (an English note), ``from-en`` (an
    English question) or ``other`` (neither English). Then the questions nothing answers, in
    those languages (``none-xlang``, ``kind`` their language)."""
    out = []
    written = json.loads(path.read_text(encoding="utf-8"))
    for note in written["notes"]:
        for lang, text in note["ask"].items():
            if lang == note["lang"]:
                raise ValueError(f"{note['id']}: a {lang} question about a {lang} note")
            kind = "to-en" if note["lang"] == "en" else "from-en" if lang == "en" else "other"
            out.append(Query(text, "xlang", {(MULTILINGUAL_SOURCE, note["id"])}, kind=kind))
    for lang, texts in written.get("none", {}).items():
        out += [Query(text, "none-xlang", kind=lang) for text in texts]
    return out
