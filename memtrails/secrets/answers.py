"""A password or a key given as the answer to a question on the line before (rule set 9).

A chat pasted as text asks on one line and answers on the next: "what's the staging db
password?", then "bob: it's Zx9vB2nM4q". The answer is the value when it is the whole line
(after a speaker's name, a time, "it's", "use" or "try"): one word with letters and digits,
no path or URL; a key's 16+ random characters.
"""

from __future__ import annotations

from typing import Final

from .prose import KEY_WORDS, PW_WORDS
from .rule import Rule

__all__ = ["ANSWER_RULES"]

# The question: the key word, up to 40 more characters, "?" ending the line.
_ASKED = r"[^\r\n?]{0,40}\?[ \t]*\r?\n(?:[ \t>]*\r?\n)?[ \t>]*"
# Who answers ("[10:02] bob:", "Bob Smith:") and how ("it's", "use", "try", "here it is:").
_WHO = (
    r"(?:\[[^\]\r\n]{1,30}\][ \t]*)?"
    r"(?:[A-Za-z0-9_.@-]{1,32}(?:[ \t][A-Za-z0-9_.@-]{1,32})?:[ \t]+)?"
)
_HOW = r"(?:(?i:it's|it\x{2019}s|it is|its|use|try|here it is|here you go)[ \t]*[:,-]?[ \t]+)?"
_END = r"[ \t]*[.!]?[ \t]*(?:\r?\n|\z)"

ANSWER_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "answer_password",
        "password",
        rf"{PW_WORDS.replace('<pkey>', '<akey>')}{_ASKED}{_WHO}{_HOW}"
        rf"(?P<v>[^\s/'\"<>`]{{6,64}}){_END}",
        "headers",
        "alnum",
    ),
    Rule(
        "answer_key",
        "password",
        rf"{KEY_WORDS.replace('<tkey>', '<akey>')}{_ASKED}{_WHO}{_HOW}"
        rf"[`'\"]?(?P<v>[A-Za-z0-9_-]{{16,128}})[`'\"]?{_END}",
        "headers",
        "random",
    ),
)
