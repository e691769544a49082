"""``memtrails serve``: one process owns a memory folder; the CLI, scripts and agents use it.

The service (``owner.serve``) holds the folder's lock, model and index, and answers on one
loopback address: the JSON API under ``/v1`` (``routes``), the MCP tools at ``/mcp``, both
behind one guard (``auth``: Host/Origin checks and a bearer token). Imports run as jobs
(``jobs``, ``imports``) beside searches. ``discovery`` finds a running service from its
folder (``service.json``, ``service.token``) and ``client.RemoteMemory`` speaks to it with
``Memory``'s API. Importing this package loads neither Starlette nor uvicorn.
"""

from __future__ import annotations

from importlib import import_module as _import_module
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any

from .._exceptions import ServiceError
from .discovery import ServiceInfo, find_service

if _TYPE_CHECKING:
    from .client import RemoteMemory, connect

__all__ = ["RemoteMemory", "ServiceError", "ServiceInfo", "connect", "find_service"]


def __getattr__(name: str) -> _Any:
    # The client loads httpx and the whole Memory API: only when a service is there to call.
    if name not in ("RemoteMemory", "connect"):
        raise AttributeError(f"module 'memtrails.service' has no attribute {name!r}")
    value = getattr(_import_module(".client", __name__), name)
    globals()[name] = value
    return value
