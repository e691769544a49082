"""``memtrails mcp``: the memory folder as a Model Context Protocol server for AI agents."""

from __future__ import annotations

from .access import FolderAccess
from .server import build_server, serve

__all__ = ["FolderAccess", "build_server", "serve"]
