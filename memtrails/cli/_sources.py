"""`memtrails sources` and `memtrails show`; naming a source the way a person does."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from ..folder import source_names
from ..folder.manifest import read_states
from ..folder.moves import moved_paths, read_moves
from ..folder.positions import LOG_MARK, describe_position, stopped_part_way
from ..keys import record_uid
from ._group import main
from ._options import as_command, home_option, open_light, qdrant_option
from ._terminal import for_terminal

__all__ = ["resolve_source", "source_named"]


def resolve_source(given: str, known: Iterable[str], moves: Mapping[str, str] | None = None) -> str:
    """Return the one source ``given`` names (:func:`memtrails.folder.source_names.resolve_source`),
    its error as the command's."""
    try:
        return source_names.resolve_source(given, known, moves)
    except source_names.SourceNameError as exc:
        raise click.ClickException(str(exc)) from None


async def source_named(memory: Any, given: str) -> str:
    """Return the one source of an open memory that ``given`` names (see :func:`resolve_source`)."""
    known = (await memory.status()).sources
    return resolve_source(given, known, await asyncio.to_thread(read_moves, memory.path))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@qdrant_option
@home_option
@as_command
async def sources(as_json: bool, qdrant_url: str | None, home: Path | None) -> None:
    """List the folder's sources: records, last run and where each import got to.

    A source is what one `memtrails add PATH` (or `ingest(..., name=)`) brings: its name is
    the resolved path, `git:<repo>`, or the name given. `forget --source` drops one. A
    source the service watches (`memtrails watch add`) says so, with its state and last
    error when the service runs. So does a source whose last full read stopped part-way (a
    kill, a disk read error, damaged compressed data): `stopped_part_way` in the JSON.

    Example:

        memtrails sources --json
    """
    async with open_light(home, qdrant_url, brief=True) as memory:
        counts = (await memory.status()).sources
        saved = read_states(memory.path)
        now_at = moved_paths(read_moves(memory.path))
    saved.pop(LOG_MARK, None)
    watching = await _watched(memory.path)
    names = sorted(set(counts) | set(saved) | set(watching))
    listed = []
    for name in names:
        found = saved.get(name)
        entry: dict[str, Any] = found if isinstance(found, dict) else {}
        state = entry.get("state") if isinstance(entry.get("state"), dict) else None
        when = entry.get("saved")
        listed.append(
            {
                "source": name,
                "records": counts.get(name, 0),
                "last_run": _iso(when) if isinstance(when, int | float) else None,
                "mode": entry.get("mode"),
                "position": state,
                "stopped_part_way": stopped_part_way(entry),
                **({"path": _now_at(name, now_at)} if _now_at(name, now_at) else {}),
                **({"watched": watching[name]} if name in watching else {}),
            }
        )
    if as_json:
        click.echo(json.dumps({"sources": listed}, ensure_ascii=False))
        return
    if not listed:
        click.echo("no sources yet; `memtrails add PATH` brings one")
        return
    click.echo(f"{'records':>8}  {'last run':<20}  {'position':<24}  source")
    for item in listed:
        when = item["last_run"][:19].replace("T", " ") if item["last_run"] else "-"
        at = for_terminal(describe_position(item["position"]))
        name = for_terminal(item.get("path", item["source"]))
        click.echo(f"{item['records']:>8}  {when:<20}  {at:<24}  {name}")
        if "path" in item:
            click.echo(
                f"{'':>8}  moved from {for_terminal(item['source'])} (the name its records keep)"
            )
        if item["stopped_part_way"]:
            click.echo(
                f"{'':>8}  last run stopped part-way (or is still running): its errors said where"
            )
        watch = item.get("watched")
        if watch is not None:
            state = watch.get("state") or "not running (no service)"
            gone = "" if watch.get("exists", True) else ", GONE"
            click.echo(f"{'':>8}  watched: {for_terminal(state)}{gone}")
            if watch.get("last_error"):
                click.echo(f"{'':>8}  last error: {for_terminal(watch['last_error'])}")


async def _watched(home: Path) -> dict[str, dict[str, Any]]:
    """Return the folder's watched paths by source name, with the live state a running
    service reports (last event, last import, last error) when one holds the folder."""
    from ..importers._shared import default_source
    from ..service.watch import load_watched

    watched = {w.path: w for w in load_watched(home)}
    if not watched:
        return {}
    rows: dict[str, dict[str, Any]] = {
        w.path: {"path": w.path, "git": w.git} for w in watched.values()
    }
    try:
        from ..service.client import connect

        remote = await connect(home)
    except ImportError:  # the service's extra is not installed
        remote = None
    if remote is not None:
        async with remote:
            for row in (await remote.call("GET", "/v1/watch"))["watched"]:
                rows[row["path"]] = row
    out = {}
    for path, row in rows.items():
        if watched.get(path) is not None and watched[path].git:
            out["git:" + path] = row
        else:
            out[default_source(path)] = row
    return out


def _now_at(name: str, now_at: Mapping[str, str]) -> str | None:
    """Where a moved source is read from now (``now_at``: kept name prefix -> new path)."""
    kept = max(
        (k for k in now_at if name == k or name.startswith(k.rstrip("/") + "/")),
        key=len,
        default=None,
    )
    return None if kept is None else now_at[kept] + name[len(kept) :]


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


@main.command()
@click.argument("record_id")
@click.option("--source", default=None, help="The record's source, where several hold the id.")
@click.option("--json", "as_json", is_flag=True, help="Print the record as one JSON object.")
@qdrant_option
@home_option
@as_command
async def show(
    record_id: str, source: str | None, as_json: bool, qdrant_url: str | None, home: Path | None
) -> None:
    """Show the record RECORD_ID whole: its fields, meta and full text.

    RECORD_ID is an id as `memtrails search` prints it (or a uid); --source picks one where
    several sources hold the same id (a path, a basename, as `memtrails sources` lists them).

    Example:

        memtrails show 3f2a9c1d4e5b6a7980a1b2c3d4e5f60718293a4b --json
    """
    async with open_light(home, qdrant_url, brief=True) as memory:
        if source is not None:
            source = await source_named(memory, source)
        record = await memory.get(record_id, source=source)
    if record is None:
        raise click.ClickException(
            f"no record with id {record_id!r}; `memtrails search` prints the ids"
        )
    out = record.to_json()
    out["uid"] = record_uid(record.source, record.id)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    for key in ("id", "uid", "source", "kind", "title", "author", "at", "thread"):
        if out.get(key) is not None:
            click.echo(f"{key + ':':<8}{for_terminal(out[key])}")
    for key, value in out["meta"].items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        click.echo(f"meta.{for_terminal(key)}: {for_terminal(text)}")
    click.echo("")
    click.echo(for_terminal(record.text, lines=True))
