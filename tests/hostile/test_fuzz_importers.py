"""A seeded fuzzer of every importer: inputs from the shared corpora, mutated, must never crash,
hang or give more out than they hold.

Each importer gets a fixed number of mutated inputs (seeded: a failure names its seed and
replays), small enough that all of them run in about a minute. ``MEMTRAILS_FUZZ_CASES``
multiplies the count for a longer run by hand. An error from the importers' guard (a
record whose conversion raised) fails the case too: the guard keeps an import going past a
bug, and the fuzzer is here to find the bug.
"""

from __future__ import annotations

import copy
import importlib.util
import io
import json
import os
import random
import re
import shutil
import stat
import subprocess
import zipfile
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import benchmark, collect

from memtrails._exceptions import SourceError
from memtrails.importers.eml import from_eml
from memtrails.importers.files import from_files
from memtrails.importers.git._log import LOG_OPTIONS, Log, commit_record
from memtrails.importers.jsonl import from_jsonl
from memtrails.importers.maildir import from_maildir
from memtrails.importers.mbox import from_mbox
from memtrails.importers.slack import from_slack_export
from memtrails.importers.transcripts import from_agent_transcripts
from memtrails.records import MemoryRecord, RecordError, Seen, SourceState

pytestmark = pytest.mark.timeout(120)

CASES = 80 * int(os.environ.get("MEMTRAILS_FUZZ_CASES", "1"))
_SEED_BYTES = 48 * 1024  # a seed is cut to this: mutations, not size, are what is tested
# What parsers look for: bytes that start, end or split their structures.
_TOKENS = [
    b"\0",
    b"\x01",
    b"\r\n",
    b"\n\n",
    b"From ",
    b"From - Mon Jan  1 00:00:00 2024\n",
    b"--",
    b"--b\n",
    b'Content-Type: multipart/mixed; boundary="b"\n',
    b"Content-Transfer-Encoding: base64\n",
    b"=?utf-8?b?",
    b"?=",
    b"begin 644 f.bin\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b"\\",
    b"\\u",
    b"\\ud800",
    b",",
    b":",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\xe2\x94\x80" * 8,
    b"ghp_" + b"a" * 36,
    b"AKIA" + b"A" * 16,
    b"1e999",
    b"-0",
    b"9" * 400,
    b"\t",
    b"\x1b[31m",
    "\u2028".encode(),
]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """Return ``data`` changed by 1 to 8 random edits (flip, insert, delete, repeat, cut)."""
    out = bytearray(data[:_SEED_BYTES])
    for _ in range(rng.randint(1, 8)):
        at = rng.randint(0, len(out))
        what = rng.randrange(6)
        if what == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif what == 1:
            out[at:at] = rng.choice(_TOKENS) * rng.choice((1, 1, 2, 50))
        elif what == 2:
            del out[at : at + rng.randint(1, 512)]
        elif what == 3:
            piece = bytes(out[at : at + rng.randint(1, 256)])
            out[at:at] = piece * rng.randint(1, 40)
        elif what == 4:
            del out[at:]
        else:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    return bytes(out)


#: Values of every JSON type (and strings no field expects) for :func:`mutate_json`.
_ODD_VALUES: list[Any] = [
    None,
    True,
    0,
    -1.5,
    10**30,
    "",
    "x",
    "9" * 30,
    "2025-13-45T99:99:99Z",
    "ghp_" + "b" * 36,
    [],
    [1, "a", None],
    {},
    {"type": "text", "text": 5},
]


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Return the path of every value inside ``value`` (itself included), depth first."""
    found = [at]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*at, index))
    return found


def _put(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    value[at[0]] = _put(value[at[0]], at[1:], new)
    return value


def _swap_values(obj: Any, rng: random.Random, edits: int) -> Any:
    for _ in range(edits):
        at = rng.choice(_paths(obj))
        obj = _put(obj, at, copy.deepcopy(rng.choice(_ODD_VALUES)))
    return obj


def mutate_json(data: bytes, rng: random.Random) -> bytes:
    """Return JSON ``data`` (one document, or JSON Lines) with some of its values swapped for
    values of other types.

    Byte edits mostly make a line that is no JSON at all; this reaches the code that reads
    fields, with a number where a name was, an object where a list was, and so on.
    """
    try:
        return json.dumps(_swap_values(json.loads(data), rng, rng.randint(1, 4))).encode()
    except ValueError:
        pass  # not one document: JSON Lines, or damaged
    out = []
    for line in data.splitlines(keepends=True):
        try:
            obj = json.loads(line)
        except ValueError:
            out.append(line)
            continue
        out.append(json.dumps(_swap_values(obj, rng, rng.choice((0, 0, 1, 2)))).encode() + b"\n")
    return b"".join(out)


def seeds(root: Path, pattern: str, limit: int = 40) -> list[bytes]:
    files = sorted(p for p in root.glob(pattern) if p.is_file())[:limit]
    assert files, f"no seed under {root} matching {pattern}"
    return [p.read_bytes() for p in files]


READ: dict[str, int] = {}  # records read per test: the fuzzer must reach the parsers


#: What the importers' guard says of a record whose conversion raised (see
#: ``memtrails.importers._guard``): a bug the fuzzer found, which the guard would hide.
_GUARDED = "importer failed on this"


def bounded(items: list[Any], given: int, kind: str = "") -> None:
    """No crash got here; what came out is no more than the input can hold."""
    READ[kind] = READ.get(kind, 0) + sum(isinstance(i, MemoryRecord) for i in items)
    text = 0
    for item in items:
        assert isinstance(item, MemoryRecord | RecordError | Seen | SourceState), item
        assert not (isinstance(item, RecordError) and _GUARDED in item.reason), item
        if isinstance(item, MemoryRecord):
            text += len(item.text) + len(item.title or "")
    # decoding only shrinks text; attached documents may inflate, within their limits
    assert text <= 64 * given + 1_000_000, (text, given)
    assert len(items) <= given + 100, (len(items), given)


async def drain(items: AsyncGenerator[Any, None]) -> list[Any]:
    try:
        return await collect(items)
    except SourceError:
        return []  # an input that cannot be opened at all raises, as documented


Case = Callable[[Path, random.Random], "tuple[AsyncGenerator[Any, None], int]"]


def _one_file(name: str, corpus: list[bytes], rng: random.Random, where: Path) -> tuple[Path, int]:
    data = mutate(rng.choice(corpus), rng)
    path = where / name
    path.write_bytes(data)
    return path, len(data)


@pytest.fixture(scope="module")
def corpus(corpora: Path) -> dict[str, list[bytes]]:
    gsm8k = b"".join((corpora / "jsonl" / "gsm8k-test.jsonl").read_bytes().splitlines(True)[:40])
    return {
        "mbox": seeds(corpora / "mbox", "**/*.mbox"),
        "eml": seeds(corpora / "eml", "**/*.eml", limit=120),
        "jsonl": [gsm8k, *seeds(corpora / "jsonl", "*.jsonl")],
        "slack": seeds(corpora / "slack" / "hfaran-testarchive", "**/*.json"),
    }


@pytest.mark.parametrize("kind", ["mbox", "eml", "jsonl"])
async def test_fuzz_one_file_importers(
    tmp_path: Path, corpus: dict[str, list[bytes]], kind: str
) -> None:
    open_ = {"mbox": from_mbox, "eml": from_eml, "jsonl": from_jsonl}[kind]
    for seed in range(CASES * 2):
        rng = random.Random(f"{kind}-{seed}")
        path, size = _one_file(f"case.{kind}", corpus[kind], rng, tmp_path)
        items = await drain(open_(path))  # type: ignore[operator]
        bounded(items, size, kind)
    assert READ[kind] >= CASES, READ  # most mutated inputs still hold records


async def test_fuzz_maildir(tmp_path: Path, corpus: dict[str, list[bytes]]) -> None:
    for seed in range(CASES):
        rng = random.Random(f"maildir-{seed}")
        root = tmp_path / f"md{seed}"
        total = 0
        for sub in ("cur", "new", "tmp"):
            (root / sub).mkdir(parents=True)
        for n in range(rng.randint(1, 6)):
            name = f"{n}.host:2,{rng.choice(['S', 'RS', '', 'x' * 200])}"
            _, size = _one_file(name, corpus["eml"], rng, root / rng.choice(["cur", "new"]))
            total += size
        bounded(await drain(from_maildir(root)), total, "maildir")
    assert READ["maildir"] >= CASES, READ


async def test_fuzz_slack_export(
    tmp_path: Path, corpora: Path, corpus: dict[str, list[bytes]]
) -> None:
    base = corpora / "slack" / "hfaran-testarchive"
    for seed in range(CASES):
        rng = random.Random(f"slack-{seed}")
        root = tmp_path / f"export{seed}"
        shutil.copytree(base, root)
        files = sorted(p for p in root.rglob("*.json"))
        for path in rng.sample(files, k=min(3, len(files))):
            edit = mutate if rng.random() < 0.5 else mutate_json
            path.write_bytes(edit(path.read_bytes(), rng))
        total = sum(p.stat().st_size for p in files)
        bounded(await drain(from_slack_export(root)), total, "slack")
        zipped = tmp_path / f"export{seed}.zip"
        with zipfile.ZipFile(zipped, "w") as z:
            for path in files:
                z.write(path, path.relative_to(root).as_posix())
        zipped.write_bytes(mutate(zipped.read_bytes(), rng) if seed % 2 else zipped.read_bytes())
        bounded(await drain(from_slack_export(zipped)), total, "slack")
    assert READ["slack"] >= CASES, READ


async def test_fuzz_notes_folder(tmp_path: Path, corpus: dict[str, list[bytes]]) -> None:
    texts = corpus["eml"] + corpus["jsonl"] + [b"# Title\n\nsome *notes*\n", b"*.log\n!a*\n"]
    for seed in range(CASES):
        rng = random.Random(f"files-{seed}")
        root = tmp_path / f"notes{seed}"
        root.mkdir()
        total = 0
        for n in range(rng.randint(1, 8)):
            raw = rng.choice([b"n.md", b"x.txt", b"\xff.md", b"a b.rst", b"c.py", b"d.log"])
            sub = root / rng.choice(["", "sub", "sub/deep"])
            sub.mkdir(parents=True, exist_ok=True)
            data = mutate(rng.choice(texts), rng)
            with open(os.path.join(os.fsencode(sub), b"%d" % n + raw), "wb") as f:
                f.write(data)
            total += len(data)
        (root / ".gitignore").write_bytes(mutate(b"*.log\n!keep.log\nsub/**/x*\n/c.py\n", rng))
        bounded(await drain(from_files(root)), total, "files")
    assert READ["files"] >= CASES, READ


_GIT_LOG_FROM = "54d5a7e272c2cccb58465bc90be416e5b85e7b46"


@pytest.fixture(scope="module")
def git_log_text(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Real ``git log`` output (40 commits of this repository) in the importer's format.

    The 40 commits end at a fixed commit, so the mutated inputs, like every other fuzzer's,
    are the same on every run (this branch's head would make each new commit a new input);
    a clone without that commit (a shallow one) falls back to the head.
    """
    root = Path(__file__).resolve().parents[2]
    for start in (_GIT_LOG_FROM, "HEAD"):
        done = subprocess.run(
            ["git", "-C", str(root), "log", "-n", "40", *LOG_OPTIONS, start, "--"],
            capture_output=True,
            check=False,
        )
        if done.returncode == 0 and done.stdout:
            break
    if done.returncode != 0 or not done.stdout:
        pytest.skip("no Git history to seed the log fuzzer with")
    return done.stdout


def test_fuzz_git_log_text(tmp_path: Path, git_log_text: bytes) -> None:
    """The log parser reads what ``git log`` prints; feed it mutated output instead."""
    for seed in range(CASES * 2):
        rng = random.Random(f"git-{seed}")
        text = tmp_path / "log.bin"
        text.write_bytes(mutate(git_log_text, rng))
        fake = tmp_path / "git"
        fake.write_text(f"#!/bin/sh\nexec cat '{text}'\n", encoding="utf-8")
        fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
        log = Log(str(fake), str(tmp_path), [])
        try:
            records = [commit_record(c, "git:fuzz", False, True) for c in log.commits()]
        finally:
            log.close()
        bounded(records, text.stat().st_size, "git")
    assert READ["git"] >= CASES, READ


TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "transcripts"


async def test_fuzz_agent_transcripts(tmp_path: Path) -> None:
    """Claude Code and Codex sessions, their bytes or their fields mutated, read and resumed."""
    corpus = seeds(TRANSCRIPTS, "**/*.jsonl")
    for seed in range(CASES * 2):
        rng = random.Random(f"transcripts-{seed}")
        edit = mutate if seed % 2 else mutate_json
        path = tmp_path / "session.jsonl"
        path.write_bytes(edit(rng.choice(corpus), rng))
        items = await drain(from_agent_transcripts(path))
        bounded(items, path.stat().st_size, "transcripts")
        if seed % 4 == 0 and items and isinstance(items[-1], SourceState):
            # The session goes on with more (damaged) lines: the next run resumes after it.
            with path.open("ab") as f:
                f.write(edit(rng.choice(corpus), rng))
            again = await drain(from_agent_transcripts(path, state=items[-1].state))
            bounded(again, path.stat().st_size, "transcripts")
    assert READ["transcripts"] >= CASES, READ


_ZIPPED = ("docx", "pptx", "xlsx", "odt", "ods", "odp", "epub")


def _mutate_member(data: bytes, rng: random.Random) -> bytes:
    """Return a zip container (DOCX, EPUB...) with one member's bytes mutated, zipped again,
    so the document's own parser is reached (a mutated zip mostly fails its checksums)."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = [(info, z.read(info)) for info in z.infolist()]
    chosen = rng.choice([i for i, (info, _) in enumerate(members) if not info.is_dir()])
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for i, (info, body) in enumerate(members):
            z.writestr(info, mutate(body, rng) if i == chosen else body)
    return out.getvalue()


_STAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


def _steady(data: bytes) -> bytes:
    """Return a zip container with the times its writer put in (member dates, the core
    properties' created and modified) fixed, so its bytes, and so the mutations of a seed,
    are the same on every run."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = [(info, z.read(info)) for info in z.infolist()]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info, body in members:
            fixed = zipfile.ZipInfo(info.filename, date_time=(2020, 1, 1, 0, 0, 0))
            fixed.compress_type = info.compress_type
            if info.filename.endswith("core.xml"):
                body = _STAMP.sub(b"2020-01-01T00:00:00Z", body)
            z.writestr(fixed, body)
    return out.getvalue()


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """One small document of each format (PDF, Office, OpenDocument, RTF, HTML, EPUB), the
    same bytes on every run."""
    for writer in ("reportlab", "docx", "pptx", "openpyxl"):
        pytest.importorskip(writer)
    if importlib.util.find_spec("kreuzberg") is None:
        pytest.skip("kreuzberg (the documents extra) is not installed: no document is read")
    from reportlab import rl_config

    before, rl_config.invariant = rl_config.invariant, 1  # no date or random id in the PDF
    try:
        written = benchmark("documents_samples").write_all(tmp_path_factory.mktemp("documents"))
    finally:
        rl_config.invariant = before
    return {
        fmt: _steady(path.read_bytes()) if fmt in _ZIPPED else path.read_bytes()
        for fmt, path in written.items()
    }


async def test_fuzz_documents(tmp_path: Path, documents: dict[str, bytes]) -> None:
    """Mutated documents in a notes folder: each is its record or its named error."""
    for seed in range(CASES // 2):
        rng = random.Random(f"documents-{seed}")
        root = tmp_path / f"docs{seed}"
        root.mkdir()
        total = 0
        names = set()
        for n, fmt in enumerate(rng.sample(sorted(documents), k=3)):
            zipped = fmt in _ZIPPED and rng.random() < 0.5
            data = (_mutate_member if zipped else mutate)(documents[fmt], rng)
            (root / f"{n}.{fmt}").write_bytes(data)
            names.add(f"{n}.{fmt}")
            total += len(data)
        items = await drain(from_files(root))
        bounded(items, total, "documents")
        told = {i.id for i in items if isinstance(i, MemoryRecord | RecordError)}
        assert told == names, (seed, told)
    assert READ["documents"] >= CASES // 4, READ
