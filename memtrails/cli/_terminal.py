"""Text from the inputs made safe to print on a terminal line."""

from __future__ import annotations

import ast
import re

__all__ = ["for_terminal", "log_to_terminal", "safe_error"]

# What a terminal acts on instead of showing: C0 controls (ESC starts sequences that set the
# window title, clear the screen or move the cursor), DEL, C1 controls (U+009B is CSI), and
# the bidi embeddings, overrides and isolates that reorder what follows them ("Trojan
# source"). Click strips only colour sequences, and only when the output is no terminal.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The same where the text is printed in lines: tabs and line ends stay (a CR only before LF).
_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)
# What reads as one of the escapes written here: a name that holds these characters as they
# are (the four characters `\x1b`) would print as an escaped ESC does.
_LOOKS_ESCAPED = re.compile(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|\\)")
# A quoted string, in the quotes Python's repr uses (kept whole by re.split): one that
# opens after no letter or digit and closes before none, so that an apostrophe in the words
# around it ("can't open 'x': it's gone") neither opens nor closes one.
_QUOTED = re.compile(r"""((?<!\w)(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?!\w))""")
# Set on a click error once its message is escaped: a second pass would escape the escapes.
_SAFE_MARK = "_memtrails_terminal_safe"


def _escape(match: re.Match[str]) -> str:
    text = match.group()
    if text == "\\":
        return "\\\\"
    code = ord(text)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: object, *, lines: bool = False, quoted: bool = False) -> str:
    """Return ``text`` (or its ``str``) with each character a terminal would act on written
    as its Python escape (``\\x1b``, ``\\u202e``); all else, accents, CJK, emoji and
    right-to-left scripts, as it is. ``lines``: keep tabs and line ends (a record's text).

    A text shown with escapes has its backslashes doubled too, and so has one that holds
    what reads as an escape (``\\x1b`` as four characters, ``\\\\``): a printed ``\\x1b`` is
    then always an escaped ESC, never a name that holds those characters. Other backslashes
    (``C:\\Users``) stay as they are. ``quoted``: the text may quote values as Python writes
    them (``'\\x1b'``, click's and memtrails' messages do), already escaped: those quotes stay
    as they are, and so does a line that shows escapes elsewhere; a quote that opens or
    closes on a letter is an apostrophe (``can't``), no quote.

    Example:
        >>> print(for_terminal("notes\\x1b]0;owned\\x07 \\u202eabc.md"))
        notes\\x1b]0;owned\\x07 \\u202eabc.md
        >>> print(for_terminal(r"notes\\x1b.md"))
        notes\\\\x1b.md
        >>> print(for_terminal(r"C:\\Users\\ann"))
        C:\\Users\\ann
        >>> for_terminal("café 日本 עברית") == "café 日本 עברית"
        True
    """
    text = str(text)
    unsafe = _UNSAFE_IN_LINES if lines else _UNSAFE
    if "\\" not in text or not (unsafe.search(text) or _LOOKS_ESCAPED.search(text)):
        return unsafe.sub(_escape, text)
    if quoted:
        # Python's quotes stay as written (a repr holds no character to escape, and its
        # backslashes are doubled already); outside them, a backslash is doubled where the
        # line shows escapes, or where it reads as one.
        shows = unsafe.search(text) is not None
        return "".join(
            part
            if _is_repr(part)
            else re.sub(f"{unsafe.pattern}|\\\\", _escape, part)
            if shows
            else _LOOKS_ESCAPED.sub(_double, part)
            for part in _QUOTED.split(text)
        )
    return re.sub(f"{unsafe.pattern}|\\\\", _escape, text)


def _double(match: re.Match[str]) -> str:
    return match.group().replace("\\", "\\\\")


def _is_repr(part: str) -> bool:
    """Whether ``part`` is a string as Python's ``repr`` writes it."""
    if len(part) < 2 or part[0] not in "'\"" or part[-1] != part[0]:
        return False
    try:
        value = ast.literal_eval(part)
    except (SyntaxError, ValueError):
        return False
    return isinstance(value, str) and repr(value) == part


def safe_error(exc: BaseException) -> None:
    """Escape, in place and once, the message of a click error (``exc.message``), which may
    quote what was typed (an option's value, an extra argument) or a file's name."""
    message = getattr(exc, "message", None)
    if isinstance(message, str) and not getattr(exc, _SAFE_MARK, False):
        exc.message = for_terminal(message, lines=True, quoted=True)  # type: ignore[attr-defined]
        setattr(exc, _SAFE_MARK, True)


def log_to_terminal(*names: str) -> None:
    """Print the warnings of the loggers ``names`` on stderr escaped, where they may quote a
    watched path, a request's path or a client's words: each after its level, as uvicorn's
    own handler writes it (``WARNING:  Invalid HTTP request received.``)."""
    import logging

    class Escaped(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            level = f"{record.levelname}:".ljust(9)  # uvicorn's levelprefix, and its space
            return f"{level} {for_terminal(super().format(record), lines=True, quoted=True)}"

    handler = logging.StreamHandler()
    handler.setFormatter(Escaped())
    handler.setLevel(logging.WARNING)
    handler.set_name(_SAFE_MARK)
    for name in names:
        logger = logging.getLogger(name)
        # One such handler a logger, on today's stderr: a command run again in one process
        # (a test's CliRunner swaps stderr) replaces the last one's.
        for old in [h for h in logger.handlers if h.get_name() == _SAFE_MARK]:
            logger.removeHandler(old)
        logger.addHandler(handler)
