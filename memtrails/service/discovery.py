"""Where a running service is found: ``service.json`` and ``service.token`` in its folder."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from .._exceptions import ServiceFileError

__all__ = [
    "SERVICE_FILE",
    "SERVICE_ROLE",
    "TOKEN_FILE",
    "ServiceInfo",
    "ensure_token",
    "find_service",
    "read_token",
    "remove_service_file",
    "write_service_file",
]

SERVICE_FILE = "service.json"
TOKEN_FILE = "service.token"
SERVICE_ROLE = "memtrails serve"
"""The role the service writes into ``memory.lock`` beside its pid."""


@dataclass(frozen=True, slots=True)
class ServiceInfo:
    """A service that holds a memory folder: its process, address and bearer token."""

    home: Path
    pid: int
    host: str
    port: int
    token: str
    importing: str | None = None
    """Set when the holder is an import that answers reads while it runs (what it runs,
    ``memtrails add ...``): it refuses writes until it ends."""

    @property
    def url(self) -> str:
        """The service's base URL (``http://127.0.0.1:8765``)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with mode 0600, atomically (a temp file renamed over it)."""
    import tempfile  # here, not at the start of every command

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def ensure_token(home: Path) -> str:
    """Return the folder's bearer token, writing a new one (mode 0600) at the first start."""
    path = home / TOKEN_FILE
    token = read_token(home)
    if token is None:
        token = secrets.token_urlsafe(32)
        _write_private(path, token + "\n")
    return token


def read_token(home: Path) -> str | None:
    """Return the bearer token the service of ``home`` checks, or None when there is none."""
    try:
        token = (home / TOKEN_FILE).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ServiceFileError(
            f"cannot read the service token {home / TOKEN_FILE}: {exc.strerror}; it must be "
            "readable by the folder's owner"
        ) from exc
    return token or None


def write_service_file(home: Path, host: str, port: int, importing: str | None = None) -> None:
    """Say where this process serves ``home`` (``service.json``, mode 0600); ``importing``:
    this process is an import that answers reads only (what it runs)."""
    info: dict[str, object] = {"pid": os.getpid(), "host": host, "port": port}
    info["started"] = time.time()
    if importing is not None:
        info["importing"] = importing
    _write_private(home / SERVICE_FILE, json.dumps(info) + "\n")


def remove_service_file(home: Path) -> None:
    """Remove ``service.json`` if it is this process's (a clean stop)."""
    path = home / SERVICE_FILE
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()


def find_service(home: Path) -> ServiceInfo | None:
    """Return the service that holds ``home``, or None when none runs.

    A ``service.json`` left by a killed service is stale: its pid is gone, or the folder's
    lock names another holder (a pid reused by another program); it is then ignored. Whether
    the service answers is for the caller to find out (it may be starting or stopping).
    """
    try:
        info = json.loads((home / SERVICE_FILE).read_text(encoding="utf-8"))
        pid, host, port = int(info["pid"]), str(info["host"]), int(info["port"])
        importing = info.get("importing")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not 0 < pid < 1 << 31:  # os.kill raises OverflowError past a pid_t: not a service's
        return None
    if pid == os.getpid() or not _alive(pid) or not _holds_lock(home, pid):
        return None
    token = read_token(home)
    if token is None:
        return None
    return ServiceInfo(home, pid, host, port, token, str(importing) if importing else None)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive, though not ours
    return True


def _holds_lock(home: Path, pid: int) -> bool:
    # The service writes its pid into memory.lock while it holds the flock.
    try:
        text = (home / "memory.lock").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return text.split(" ", 1)[0].strip() == str(pid)
