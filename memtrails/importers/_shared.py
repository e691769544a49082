"""What importers share: the default source name, the generator cast, a file-owning iterator,
a file name shown as a title, text without terminal escapes."""

from __future__ import annotations

import os
import re
import stat
import sys
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from pathlib import Path
from typing import Protocol, TypeVar, cast

__all__ = [
    "NAME_CHARS",
    "Closing",
    "as_generator",
    "bounded_name",
    "byte_exact",
    "default_source",
    "entry_may_be_file",
    "key_words",
    "may_be_file",
    "name_as_title",
    "too_long_number",
    "without_controls",
    "without_escapes",
]

T = TypeVar("T")


def too_long_number() -> str:
    """Say why JSON text is not read when ``json.loads`` raises a bare ``ValueError``: it
    holds an integer of more digits than Python converts. Python's own words tell the user
    to change the interpreter's limit, which only the program can."""
    return f"holds a number of more than {sys.get_int_max_str_digits():,} digits, too long to read"


# A terminal's escape sequences: CSI (colours, cursor moves), OSC (window titles, links) up
# to its BEL or ST, and the two-character ones (ESC c, ESC 7, ESC ( B); each bounded, so a
# stray ESC costs a short scan.
_ESCAPES = re.compile(
    r"\x1b\[[0-?]{0,64}[ -/]{0,8}[@-~]"
    r"|\x1b\][^\x07\x1b]{0,2048}(?:\x07|\x1b\\)?"
    r"|\x1b[ -/]{0,4}[0-~]?"
)
# Every other control character: C0 but tab, line feed and carriage return; DEL; C1.
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]+")
_BREAKS = re.compile("[\t\n\r]+")


#: The longest author name an importer keeps: a real one is under 100 characters; one of
#: megabytes (a crafted commit, a From of thousands of addresses) would get its whole record
#: refused (``Limits.max_field_bytes``) where a cut name keeps it.
NAME_CHARS = 1000


def bounded_name(name: str, limit: int = NAME_CHARS) -> str:
    """Return ``name`` cut to ``limit`` characters, an ellipsis saying so."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "\u2026"


def without_escapes(text: str) -> str:
    """Return ``text`` without a terminal's escape sequences (a log pasted from a coloured
    terminal): the words a terminal shows of it."""
    return _ESCAPES.sub("", text) if "\x1b" in text else text


def without_controls(text: str, one_line: bool = False) -> str:
    """Return ``text`` without terminal escapes and control characters (a message pasted
    from a coloured terminal, a name crafted to retitle a window): what it reads as. With
    ``one_line`` (a name), tabs and line breaks are spaces too."""
    text = _CONTROLS.sub("", without_escapes(text))
    return _BREAKS.sub(" ", text) if one_line else text


# Controls (C0, DEL, C1) and Unicode's line and paragraph separators.
_NAME_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


_KEY_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def key_words(key: str) -> list[str]:
    """Return the words a JSON key's name is made of, in small letters (snake_case,
    camelCase, CAPITALS and digits alike).

    Example:
        >>> key_words("blip_caption"), key_words("sentAt"), key_words("IMG_ALT2")
        (['blip', 'caption'], ['sent', 'at'], ['img', 'alt', '2'])
    """
    return [w.lower() for w in _KEY_WORD.findall(key)]


def name_as_title(name: str) -> str:
    """Return a file name as a record's title shows it: a control character in it (a line
    feed, an ESC: legal in a name on Unix) as "?", as ``ls`` shows it, so that a title is
    one line, and no terminal's command.

    Example:
        >>> name_as_title("notes" + chr(10) + chr(27) + "[2J.md")
        'notes??[2J.md'
    """
    return _NAME_CONTROLS.sub("?", name)


def default_source(path: str | os.PathLike[str]) -> str:
    """Return the source name an importer gives a path when none is chosen: its resolved form
    (:func:`byte_exact`).

    A path that resolves into ``/proc`` (``/dev/fd/63`` from a shell's ``<(...)``, whose
    target ``pipe:[12345]`` changes every run) keeps the form it was given, so the same
    command line names the same source; ``-`` (standard input) is ``stdin``.
    """
    given = Path(path).expanduser()
    if str(given) == "-":
        return "stdin"
    resolved = given.resolve()
    if resolved.parts[:2] == ("/", "proc") or ":[" in resolved.name:
        return byte_exact(str(given.absolute()))
    return byte_exact(str(resolved))


def byte_exact(name: str) -> str:
    """Return a path as a name that keeps it apart from every other path.

    A path that is valid UTF-8 is its own name. One that is not (``os`` gives its bad bytes
    as lone surrogates, which every key turns into U+FFFD) shows those bytes as U+FFFD and is
    followed by ``//`` and its bytes in hex: a resolved or listed path holds no ``//``, so two
    names that differ only in a bad byte stay two sources, or two notes (conformance/README,
    "File ids").
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "surrogateescape")
        return f"{raw.decode('utf-8', 'replace')}//{raw.hex()}"
    return name


def may_be_file(path: Path) -> bool:
    """Tell whether ``path`` is a regular file, or something there that cannot be looked at
    (a symlink loop, no permission): reading it then names the error, instead of it being
    left out unsaid. Gone, or a link to nothing: not a file."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True


def entry_may_be_file(entry: os.DirEntry[str]) -> bool:
    """:func:`may_be_file` for a folder's listed entry (from ``os.scandir``)."""
    try:
        return entry.is_file()
    except OSError:
        return True


def as_generator(items: AsyncIterator[T]) -> AsyncGenerator[T, None]:
    """Return ``items`` typed as the async generator it is (for ``contextlib.aclosing``).

    A cast, not a wrapper: closing the result closes the thread-side reader at once.
    """
    return cast("AsyncGenerator[T, None]", items)


class _Closable(Protocol):
    def close(self) -> None: ...


class Closing(Iterator[T]):
    """An iterator over a generator that also closes a file when closed or exhausted.

    ``iterate_in_thread`` closes what ``make()`` returns; a generator that was never started
    would not run its ``finally``, so the file is owned here instead. ``close()`` may be called
    from another thread while a worker is inside ``next()`` (a cancelled consumer): then the
    close is deferred to that worker, which closes the file as soon as its item is done,
    instead of failing with "generator already executing".
    """

    def __init__(self, gen: Iterator[T], file: _Closable | None) -> None:
        self._gen = gen
        self._file = file
        self._lock = threading.Lock()
        self._running = False
        self._close_requested = False
        self._closed = False

    def __iter__(self) -> Closing[T]:
        return self

    def __next__(self) -> T:
        with self._lock:
            if self._closed or self._close_requested:
                raise StopIteration
            self._running = True
        try:
            item = next(self._gen)
        except BaseException:
            with self._lock:
                self._running = False
            self._finish()
            raise
        with self._lock:
            self._running = False
            deferred = self._close_requested
        if deferred:
            self._finish()
        return item

    def close(self) -> None:
        with self._lock:
            if self._running:
                self._close_requested = True
                return
        self._finish()

    def _finish(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
        close = getattr(self._gen, "close", None)
        try:
            if close is not None:
                close()
        finally:
            if self._file is not None:
                self._file.close()
                self._file = None
