"""Text from the inputs made safe to print on a terminal line."""

from __future__ import annotations

import re

__all__ = ["for_terminal"]

# What a terminal acts on instead of showing: C0 controls (ESC starts sequences that set the
# window title, clear the screen or move the cursor), DEL, C1 controls (U+009B is CSI), and
# the bidi embeddings, overrides and isolates that reorder what follows them ("Trojan
# source"). Click strips only colour sequences, and only when the output is no terminal.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The same where the text is printed in lines: tabs and line ends stay (a CR only before LF).
_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: object, *, lines: bool = False) -> str:
    """Return ``text`` (or its ``str``) with each character a terminal would act on written
    as its Python escape (``\\x1b``, ``\\u202e``); all else, accents, CJK, emoji and
    right-to-left scripts, as it is. ``lines``: keep tabs and line ends (a record's text).

    Example:
        >>> print(for_terminal("notes\\x1b]0;owned\\x07 \\u202eabc.md"))
        notes\\x1b]0;owned\\x07 \\u202eabc.md
        >>> for_terminal("café 日本 עברית") == "café 日本 עברית"
        True
    """
    return (_UNSAFE_IN_LINES if lines else _UNSAFE).sub(_escape, str(text))
