"""``memtrails serve``: one process owns a memory folder; the CLI, scripts and agents use it.

The service (``owner.serve``) holds the folder's lock, model and index, and answers on one
loopback address: the JSON API under ``/v1`` (``routes``), the MCP tools at ``/mcp``, both
behind one guard (``auth``: Host/Origin checks and a bearer token). Imports run as jobs
(``jobs``, ``imports``) beside searches. ``discovery`` finds a running service from its
folder (``service.json``, ``service.token``) and ``client.RemoteMemory`` speaks to it with
``Memory``'s API. Importing this package loads neither Starlette nor uvicorn.
"""

from __future__ import annotations

from .client import RemoteMemory, ServiceError, connect
from .discovery import ServiceInfo, find_service

__all__ = ["RemoteMemory", "ServiceError", "ServiceInfo", "connect", "find_service"]
