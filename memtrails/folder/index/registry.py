"""The index backends a memory folder can name in its manifest, by kind, and how each opens.

A new backend is a module implementing :class:`~._base.IndexBackend` and one entry here:
an :class:`~._base.IndexKind` (its name, its opener, the files it leaves in ``index/``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..._exceptions import FolderFormatError
from ._base import IndexBackend, IndexKind, IndexPlace
from .edge_kind import EDGE, EDGE_KIND
from .memory import MEMORY, MemoryIndex

__all__ = [
    "INDEX_KINDS",
    "SERVER",
    "index_kind",
    "index_leftover",
    "new_index_spec",
    "public_url",
]

SERVER = "qdrant-server"


async def _open_server(place: IndexPlace) -> IndexBackend:
    url = place.spec.get("url") if place.url is None else place.url
    if not url:
        raise FolderFormatError(
            f"the index of memory folder {place.folder} is on a Qdrant server whose URL it does "
            "not record; give it with --qdrant-url"
        )
    from .server import ServerIndex

    return await ServerIndex.open(
        str(url),
        collection=str(place.spec.get("collection") or "memtrails"),
        dims=place.dims,
        api_key=place.api_key or os.environ.get("QDRANT_API_KEY"),
    )


async def _open_memory(place: IndexPlace) -> IndexBackend:
    if place.url:
        raise FolderFormatError(
            f"memory folder {place.folder} keeps its index in memory, not on a server; drop "
            "--qdrant-url, or import into a new folder to use a server"
        )
    # Nothing was kept: opening finds it empty and rebuilds it from the log.
    return MemoryIndex()


INDEX_KINDS: Mapping[str, IndexKind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            EDGE_KIND,
            IndexKind(SERVER, _open_server),
            IndexKind(MEMORY, _open_memory),
        )
    }
)


def index_kind(manifest: Mapping[str, Any], folder: Path) -> IndexKind:
    """Return the backend kind the folder's manifest names.

    Raises:
        FolderFormatError: the manifest names a kind this memtrails does not know (one
            line naming it; nothing in the folder is changed).
    """
    name = manifest["index"].get("kind", EDGE)
    kind = INDEX_KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise FolderFormatError(
            f"{folder / 'manifest.json'} names index kind {name!r}, which this memtrails does "
            f"not know (it knows {', '.join(sorted(INDEX_KINDS))}); open the folder with the "
            "index it was made with (Memory.open(index=...)), or import into a new folder"
        )
    return kind


def new_index_spec(url: str | None, given: IndexBackend | None) -> dict[str, Any]:
    """Return the ``index`` section of a new folder's manifest."""
    if given is not None:
        return {"kind": str(given.describe().get("kind", SERVER))}
    if url:
        # Credentials stay out of the folder: an API key comes from the caller or
        # $QDRANT_API_KEY each time.
        return {"kind": SERVER, "url": public_url(url), "collection": "memtrails"}
    return {"kind": EDGE}


def index_leftover(index: Path) -> bool:
    """Tell whether ``index`` holds only what a kind's new index writes (an interrupted first
    open left it: a new folder's index is made before its manifest)."""
    if not index.is_dir():
        return False
    names = {entry.name for entry in os.scandir(index)}
    return any(kind.files and names <= kind.files for kind in INDEX_KINDS.values())


def public_url(url: str) -> str:
    """Return ``url`` without user, password or query (what may be written to disk)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
