"""The memory folder's small files: manifest.json, the index checkpoint and positions, written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from .._exceptions import FolderFormatError, ModelMismatchError
from ..words import KEYWORD_AVG_WORDS, KEYWORD_B, KEYWORD_K1
from .log import holds_memory_records
from .space import disk_full, is_disk_full

__all__ = [
    "FORMAT",
    "KEYWORD_SCHEME",
    "POINT_FIELDS",
    "Advice",
    "KeptCounts",
    "check_model",
    "lost_manifest_message",
    "manifest_damage",
    "opening_line",
    "read_checkpoint",
    "read_checkpoint_counts",
    "read_checkpoint_mark",
    "read_manifest",
    "read_states",
    "scrub_rules",
    "stale_keywords",
    "stale_points",
    "write_checkpoint",
    "write_json_atomic",
    "write_manifest",
    "write_manifest_file",
]

FORMAT = 1
KEYWORD_SCHEME = {
    "words": "icu-word-break, nfkc, lower, 2..60 utf-16 units",
    "term": "fnv1a32-utf16",
    "weight": f"saturated count: k1 {KEYWORD_K1}, b {KEYWORD_B}, {KEYWORD_AVG_WORDS} words",
}

# What every point of the index keeps beside its record's uid, its passage's span and its
# vectors, past what the first memtrails kept: "scripts", the scripts its passage's prose is
# written in (points.passage_scripts), which the search asks the index by (folder/foreign.py).
# The manifest lists them under "points"; a folder indexed before lacks it until `memtrails
# reindex --payloads` (or a full reindex) gives every point what it lacks.
POINT_FIELDS = ("scripts",)


def write_json_atomic(path: Path, obj: Any) -> None:
    """Write JSON to a temp file beside ``path``, fsync it, then rename over ``path``.

    Raises:
        DiskFullError: no space was left for it (``path`` is then as it was).
    """
    import tempfile  # here: it loads shutil and random (~6 ms of `memtrails status`)

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        if is_disk_full(exc):
            raise disk_full(path.parent, f"saving {path.name}") from exc
        raise
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and is_disk_full(exc):
            raise disk_full(path.parent, f"saving {path.name}") from exc
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def read_manifest(folder: Path) -> dict[str, Any] | None:
    """Return the folder's manifest, or None for a folder memtrails has not written yet.

    Raises:
        FolderFormatError: the manifest is damaged (:func:`manifest_damage`; with records
            beside it, the message names `memtrails check --repair`), or of another format.
    """
    path = folder / "manifest.json"
    manifest, why = _load(path)
    if why is not None:
        if holds_memory_records(folder):
            raise FolderFormatError(lost_manifest_message(folder, f"its manifest.json {why}"))
        raise FolderFormatError(
            f"{path} {why}; it is not a memory folder's manifest, or a damaged one: choose "
            "another --home, or restore it from a backup (the folder holds no records: "
            "nothing is lost by starting anew in a new folder)"
        )
    return manifest


def manifest_damage(folder: Path) -> str | None:
    """Say how the folder's ``manifest.json`` is damaged ("is not readable JSON (...)",
    "has no 'index' section", ...), or None: it reads as a manifest, there is none, or it
    is of another format (a newer memtrails's, never taken for damaged)."""
    return _load(folder / "manifest.json")[1]


def _load(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """Read the manifest at ``path``: it (None when there is none), or why it is damaged.

    Raises:
        FolderFormatError: a manifest of another (newer) format.
    """
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, None
    except (ValueError, OSError, RecursionError) as exc:
        return None, f"is not readable JSON ({exc})"
    if not isinstance(manifest, dict):
        return None, f"is {_json_type(manifest)}, not a JSON object"
    version = manifest.get("format")
    if type(version) is int and version > FORMAT:
        raise FolderFormatError(
            f"{path} has format {version}; this memtrails reads format {FORMAT}: open the "
            "folder with the newer memtrails that wrote it"
        )
    if type(version) is not int or version != FORMAT:
        return None, f"has format {version!r:.40}"
    for key in ("embedding", "index"):
        if key not in manifest:
            return None, f"has no {key!r} section"
    problem = _shape_problem(manifest)
    if problem is not None:
        return None, f"is not as memtrails writes it: {problem}"
    return manifest, None


# What each section of a manifest holds: its type, and the type of each entry that is read.
_SECTIONS: dict[str, tuple[type, dict[str, type | tuple[type, ...]]]] = {
    "embedding": (
        dict,
        {
            "kind": str,
            "model_id": str,
            "dims": int,
            "sha256": str,
            "tokenizer_sha256": str,
            "max_tokens": int,
            "query_prefix": str,
            "passage_prefix": str,
            "path": str,
            "package": str,
            "url": str,
        },
    ),
    "index": (dict, {"kind": str, "url": str, "collection": str}),
    "keywords": (dict, {"words": str, "term": str, "weight": str}),
    "secrets": (dict, {"rules": list}),
    "points": (dict, {"fields": list}),
    "id": (str, {}),
}


# The vector size of each model memtrails packages (tests/test_folder_dims.py checks them
# against the models): a manifest naming one with another size is not one memtrails wrote.
_PACKAGED_DIMS = {"all-MiniLM-L6-v2-int8": 384, "multilingual-e5-small": 384}


def _shape_problem(manifest: dict[str, Any]) -> str | None:
    """Say what in ``manifest`` has the wrong type, or None (absent optional parts are fine)."""
    for key, (kind, entries) in _SECTIONS.items():
        if key not in manifest:
            continue
        section = manifest[key]
        if not isinstance(section, kind):
            return f"{key!r} is {_json_type(section)}, where memtrails writes {_json_type(kind())}"
        for entry, entry_kind in entries.items():
            value = section.get(entry) if isinstance(section, dict) else None
            if value is not None and (not isinstance(value, entry_kind) or isinstance(value, bool)):
                return f"{key}.{entry} is {_json_type(value)} ({value!r:.40})"
    embedding = manifest["embedding"]
    if not isinstance(embedding.get("dims"), int) or not embedding.get("model_id"):
        return "the 'embedding' section lacks model_id or dims"
    if embedding["dims"] < 1:
        return f"embedding.dims is {embedding['dims']}"
    known = _PACKAGED_DIMS.get(embedding["model_id"])
    packaged = embedding.get("kind") == "onnx" and not ({"path", "url"} & embedding.keys())
    if packaged and known is not None and embedding["dims"] != known:
        return (
            f"embedding.dims is {embedding['dims']}, but the model it names, "
            f"{embedding['model_id']!r}, makes {known}-dimension vectors (a manifest another "
            "version or program wrote, or edited)"
        )
    rules = manifest.get("secrets", {}).get("rules", [])
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in rules):
        return "secrets.rules holds something other than rule-set numbers"
    return None


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else type(value).__name__


def lost_manifest_message(folder: Path, why: str) -> str:
    """What to do with a folder that holds records but no manifest memtrails can read."""
    return (
        f"{folder} holds a memory's records (records.jsonl) but {why}: `memtrails check "
        f"--repair --home {folder}` writes a new manifest (for the default model, or --model) "
        "and rebuilds the index from the records; or restore manifest.json from a backup"
    )


def write_manifest(
    folder: Path, embedding: dict[str, Any], index: dict[str, Any], *, folder_id: str
) -> dict[str, Any]:
    """Write a new folder's manifest and return it (``folder_id``: the folder's identity,
    also marked in its index, so that an index copied from another folder is told apart)."""
    # Here, not at the top: the secret rules (re2) are no part of reading a folder's files.
    from ..secrets import RULES_VERSION

    manifest = {
        "format": FORMAT,
        "id": folder_id,
        "embedding": embedding,
        "keywords": dict(KEYWORD_SCHEME),
        "index": index,
        "secrets": {"rules": [RULES_VERSION]},
        "points": {"fields": list(POINT_FIELDS)},
    }
    write_manifest_file(folder, manifest)
    return manifest


def write_manifest_file(folder: Path, manifest: dict[str, Any]) -> None:
    """Write ``manifest`` as the folder's ``manifest.json`` (atomically)."""
    write_json_atomic(folder / "manifest.json", manifest)


def scrub_rules(manifest: dict[str, Any]) -> list[int]:
    """Return the secret rule-set versions the folder's records were scrubbed with.

    A folder written before the manifest recorded them was scrubbed with rule set 1.
    """
    section = manifest.get("secrets")
    rules = section.get("rules") if isinstance(section, dict) else None
    return [int(v) for v in rules] if isinstance(rules, list) else [1]


class Advice(str):
    """A line of what opening a folder found that repairs nothing: something the user may
    run (``memtrails reindex``) for the current search. It stands in ``Memory.repairs``
    beside the repairs, and the CLI prints it as a note."""

    __slots__ = ()


def opening_line(said: str) -> str:
    """One line of what opening a folder found, as the CLI and the service print it: a
    repair, or a note for an :class:`Advice`."""
    return f"{'note' if isinstance(said, Advice) else 'repaired'}: {said}"


def stale_keywords(manifest: dict[str, Any]) -> Advice | None:
    """Say why the index's keyword weights are not this version's, or None when they are."""
    if manifest.get("keywords") == KEYWORD_SCHEME:
        return None
    return Advice(
        "the index's keyword weights were written by an earlier memtrails "
        f"({(manifest.get('keywords') or {}).get('weight', '?')}); run `memtrails reindex` "
        "for the current search ranking"
    )


def stale_points(manifest: dict[str, Any], reads_across: bool) -> Advice | None:
    """Say what the index's points lack that this version's search reads, or None.

    Only their scripts for now, which only a model that reads across languages
    (``reads_across``: one with a ``ranking.LANGUAGE_PULL``) has the search ask for.
    """
    section = manifest.get("points")
    fields = section.get("fields") if isinstance(section, dict) else None
    if not reads_across or (isinstance(fields, list) and "scripts" in fields):
        return None
    return Advice(
        "the index's points were written by an earlier memtrails and do not keep the scripts "
        "their passages are written in, so a question does not look for records in other "
        "languages past the closest few dozen in its own; run `memtrails reindex --payloads` "
        "(it keeps the vectors: about 15 s per 100,000 points)"
    )


def check_model(folder: Path, stored: dict[str, Any], model: dict[str, Any]) -> None:
    """Raise ``ModelMismatchError`` when ``model`` is not the model the folder was built with."""
    from ..embedding._base import same_model

    if not same_model(stored, model):
        raise ModelMismatchError(
            f"memory folder {folder} was built with embedding model {stored.get('model_id')!r} "
            f"({stored.get('dims')} dims) but was opened with {model.get('model_id')!r} "
            f"({model.get('dims')} dims); open it with the model it was built with (its "
            "manifest.json names it), or import into a new memory folder for the new model"
        )


def read_states(folder: Path) -> dict[str, Any]:
    """Return ``sources.json``: each source's last importer position (empty when none)."""
    try:
        data = json.loads((folder / "sources.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise FolderFormatError(
            f"{folder / 'sources.json'} is not readable JSON ({exc}); delete it to re-read every source in full"
        ) from exc
    return data if isinstance(data, dict) else {}


def read_checkpoint(folder: Path) -> int:
    """Return the log offset up to which the index is known complete (0 when unknown)."""
    return read_checkpoint_mark(folder)[0]


def read_checkpoint_mark(folder: Path) -> tuple[int, str | None, str | None]:
    """Return ``(log offset, tail digest or None, problem or None)`` from ``index.json``.

    A missing file is offset 0 and no problem; an unreadable one is offset 0 and says why.
    """
    path = folder / "index.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        offset = int(data["log_offset"])
        if offset < 0:
            raise ValueError(f"negative offset {offset}")
    except FileNotFoundError:
        return 0, None, None
    except (ValueError, KeyError, TypeError, OSError) as exc:
        return 0, None, f"index.json is unreadable ({exc!r})"
    tail = data.get("log_tail")
    return offset, tail if isinstance(tail, str) else None, None


def write_checkpoint(
    folder: Path,
    offset: int,
    tail: str = "",
    counts: tuple[int, int] | None = None,
    index_disk: tuple[int, str] | None = None,
) -> None:
    """Record that every log line before ``offset`` is in the index (``tail``: the log's
    digest there, see :meth:`RecordLog.tail`); ``counts``: the index's (records, points)
    then, when they were counted, and ``index_disk`` its disk use and mark (see
    ``disk.index_disk_use``): ``memtrails status`` reads them instead of loading or
    walking the index."""
    data: dict[str, Any] = {"log_offset": offset, "log_tail": tail}
    if counts is not None:
        data["records"], data["points"] = counts
        if index_disk is not None:
            data["index_bytes"], data["index_mark"] = index_disk
    write_json_atomic(folder / "index.json", data)


class KeptCounts(NamedTuple):
    """What ``index.json`` keeps for ``memtrails status`` (see :func:`write_checkpoint`)."""

    offset: int  # the log offset they were taken at (the checkpoint then)
    records: int
    points: int
    index_disk: tuple[int, str] | None  # the index's bytes on disk and its mark, when kept


def read_checkpoint_counts(folder: Path) -> KeptCounts | None:
    """Return the index's counts kept in ``index.json`` with the log offset they were taken at;
    None when it holds none (a folder of an older version, or counts dropped by a change to
    the index not yet counted), or the file is unreadable."""
    try:
        data = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        found = (int(data["log_offset"]), int(data["records"]), int(data["points"]))
    except (ValueError, KeyError, TypeError, OSError, AttributeError):
        return None
    if min(found) < 0:
        return None
    size, mark = data.get("index_bytes"), data.get("index_mark")
    disk = (size, mark) if type(size) is int and size >= 0 and isinstance(mark, str) else None
    return KeptCounts(*found, disk)
