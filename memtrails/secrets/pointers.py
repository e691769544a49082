"""Pointers where a password would stand: where it is kept or who has it, not the password;
and a home folder's path, which a value starting with "~" may be."""

from __future__ import annotations

from typing import Final

import re2

__all__ = ["home_path", "is_pointer"]

# A pointer where a password would stand (rule set 15): where it is kept or who has it
# ("see-the-wiki", "ask_bob", "in-1password", "check the vault"), or that it is not given
# yet ("TBD", "same-as-before"). Words only (a letter-only word in each part, or a password
# manager's name); a lead word first, or the whole value one of the set phrases.
_POINTER_LEADS: Final = frozenset(
    {
        *("see", "ask", "check", "in", "on", "at", "from", "via", "per", "use", "look"),
        *("stored", "saved", "kept", "sent", "shared", "dm", "ping", "contact", "request"),
        *("get", "find", "same", "refer", "inside", "under", "lives", "pinned", "found"),
        *("call", "email", "grab", "pull", "fetch", "read", "ref", "cf", "where", "whatever"),
    }
)
_POINTER_PHRASES: Final = frozenset(
    {
        *("tbd", "tba", "tbc", "todo", "n/a", "na", "pending", "unchanged", "ditto"),
        *("the usual", "as usual", "as before", "not set", "not needed", "no password"),
        *("none needed", "not required", "not given", "not shared", "to be decided"),
        *("to be announced", "to follow", "will send", "sent separately", "see below"),
        *("see above", "ask me", "same as before", "same as above", "same as prod"),
    }
)
# Password managers and places a password is kept, in a pointer's words ("in-1password").
_KEPT_IN: Final = frozenset({"1password", "1pass", "keepassxc", "keepass2", "vaultwarden"})
_POINTER_SPLIT: Final = re2.compile(r"[-_ \t]+")


def is_pointer(value: str) -> bool:
    """Tell whether ``value`` points to a password rather than being one: a lead word ("see",
    "ask", "in", "check", ...) and words after it ("see-the-wiki", "ask_bob", "in
    1Password"), or a phrase that says none is given ("TBD", "same-as-before"). A password
    of words holds a digit or a symbol that no word has ("see-you-2024" stays a password)."""
    try:
        kept = [p for p in _POINTER_SPLIT.split(value.strip(" .")) if p]
    except UnicodeEncodeError:  # a lone surrogate: no words RE2 can read
        return False
    parts = [p.lower() for p in kept]
    if " ".join(parts) in _POINTER_PHRASES:
        return True
    return (
        len(parts) >= 2
        and parts[0] in _POINTER_LEADS
        and all(
            (p.isalpha() and p.isascii()) or p in _KEPT_IN or _ticket(kept, i)
            for i, p in enumerate(parts)
        )
    )


# Words before a number that make it an entry's or a ticket's ("see-ticket-4411").
_NUMBERED: Final = frozenset({"ticket", "issue", "jira", "case", "item", "entry", "page", "pr"})


def _ticket(parts: list[str], i: int) -> bool:
    """Tell whether ``parts[i]`` is a ticket's or an entry's number: digits after a word
    that names one ("ticket", "item") or after a project's key in capitals ("INFRA-4411")."""
    if not (parts[i].isdigit() and i >= 2):
        return False
    before = parts[i - 1]
    return before.lower() in _NUMBERED or (
        len(before) >= 2 and before.isupper() and before.isalpha()
    )


# A home folder: "~", "~user" alone, or either with a path after it.
_HOME: Final = re2.compile(r"~(?:[a-z_][a-z0-9_.-]{0,31})?/.*|~[a-z]{0,32}")


def home_path(value: str) -> bool:
    """Tell whether ``value``, starting with "~", is a path in a home folder ("~/x", "~ann",
    "~ann/x"), not a password that starts with "~" ("~Winter-4192", "~dragon_8867")."""
    try:
        return _HOME.fullmatch(value) is not None
    except UnicodeEncodeError:  # a lone surrogate: no path RE2 can read
        return False
