"""Undo ``format=flowed`` (RFC 3676): the lines a mailer wrapped are one paragraph again."""

from __future__ import annotations

__all__ = ["unflow"]

_SIGNATURE = "-- "


def unflow(text: str, *, delsp: bool = False) -> str:
    """Return ``text`` (a ``text/plain; format=flowed`` body, LF line ends) unwrapped.

    A line that ends in a space is continued by the next one of the same quote depth: the
    two are joined, with the space kept (``delsp=no``: the space is the one between two
    words) or dropped (``delsp=yes``: the mailer added it, and may have cut inside a word,
    as Apple Mail does with Japanese). A line's leading ``>`` marks are its quote depth and
    are written once, as ``> `` per level, before the joined line; a space a mailer added
    before a line starting with a space, ``>`` or ``From `` (space stuffing) goes. The
    signature line ``-- `` is never continued.
    """
    out: list[str] = []
    depth_open: int | None = None  # the quote depth of the paragraph being joined
    current: list[str] = []

    def close() -> None:
        nonlocal depth_open
        if depth_open is not None:
            out.append(("> " * depth_open + "".join(current)).rstrip(" "))
        depth_open = None
        current.clear()

    for raw in text.split("\n"):
        depth = len(raw) - len(raw.lstrip(">"))
        line = raw[depth:]
        if line.startswith(" "):
            line = line[1:]  # space stuffing, or the space after quote marks
        if depth_open is not None and depth != depth_open:
            close()  # a change of quote depth ends a paragraph (RFC 3676 4.5)
        soft = line.endswith(" ") and line != _SIGNATURE
        if soft and delsp:
            line = line[:-1]
        if depth_open is None:
            depth_open = depth
        current.append(line)
        if not soft:
            close()
    close()
    return "\n".join(out)
