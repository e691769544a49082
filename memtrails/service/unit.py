"""``memtrails serve --print-systemd-unit``: a user unit that runs the service.

Every value the unit holds is written so that systemd reads back the very bytes given,
whatever a path holds: ``ExecStart=`` words are double-quoted with C escapes (systemd's
own unquoting), ``%`` is doubled everywhere (specifiers are expanded in every value) and
``$`` is doubled in the arguments (``$NAME`` and ``${NAME}`` are expanded there). Line
ends, control characters and bytes that are not UTF-8 are written as ``\\xNN``, so no
value can end a line, continue one or start another setting.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["systemd_unit", "unit_word"]

_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:+,")


def systemd_unit(home: Path, port: int, extra: list[str] | None = None) -> str:
    """Return a user systemd unit that runs ``memtrails serve`` for ``home``.

    Install it as ``~/.config/systemd/user/memtrails.service``, then
    ``systemctl --user enable --now memtrails``.
    """
    args = ["-m", "memtrails.cli", "serve", "--home", str(home), "--port", str(port)]
    args += extra or []
    # The program's path is not expanded for $ (it is execve's path): only % is doubled.
    words = [unit_word(sys.executable, dollars=False)] + [unit_word(a) for a in args]
    return (
        "[Unit]\n"
        f"Description=memtrails memory service for {unit_word(str(home), dollars=False)}\n"
        "\n"
        "[Service]\n"
        f"ExecStart={' '.join(words)}\n"
        "Restart=on-failure\n"
        "# SIGTERM stops it cleanly: running imports are cancelled, what they wrote is kept.\n"
        "KillSignal=SIGTERM\n"
        "TimeoutStopSec=60\n"
        "\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def unit_word(arg: str, *, dollars: bool = True) -> str:
    """Return ``arg`` as one word of a unit file's command line, read back as ``arg``'s bytes.

    A word of plain characters is left bare; any other is double-quoted, with ``\\`` and
    ``"`` escaped and every character that is not printable (line ends, tabs, other
    controls, odd spaces, bytes a path holds that are not UTF-8) written as the ``\\xNN``
    escapes of its bytes. ``%`` becomes ``%%``; with ``dollars``, ``$`` becomes ``$$``.
    """
    out: list[str] = []
    for ch in arg:
        if ch == "%":
            out.append("%%")
        elif ch == "$" and dollars:
            out.append("$$")
        elif ch in '\\"':
            out.append("\\" + ch)
        elif ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(ch)
        else:  # a byte not decoded (surrogateescape) is given back as itself
            out.append("".join(f"\\x{b:02x}" for b in _bytes(ch)))
    word = "".join(out)
    if arg and all(c in _BARE for c in arg):
        return word
    return f'"{word}"'


def _bytes(ch: str) -> bytes:
    try:
        return os.fsencode(ch)
    except UnicodeEncodeError:  # a lone surrogate no file system name decodes to
        return ch.encode("utf-8", "surrogatepass")
