"""Passwords that tools, statements and build files take in a fixed place (rule set 17).

RAR's glued header password (``rar a -hpX``), a quoted passphrase holding spaces after
``--passphrase`` (gpg's), htpasswd's password after ``-b`` whatever its other flags, SQL's
``IDENTIFIED WITH plugin BY 'X'`` and Oracle's bare ``IDENTIFIED BY X``, a flag's ``<(echo
X)``, a mail or FTP client's ``.login('user', 'X')``, a Gradle signing block's
``storePassword "X"`` (a name, a space, a quoted value: Groovy's calls without
parentheses), an Apple property list's ``<key>NAME</key>`` then ``<string>X</string>`` and
an Android resource's ``<string name="NAME">X</string>``.
Each names its tool's word or its file's shape, so the same flag or word elsewhere is no
match.
"""

from __future__ import annotations

from typing import Final

from .pieces import NAMED_KEY, value_of_class
from .prose import DASHED_PW, PW_VALUE
from .rule import Rule

__all__ = ["TOOL_RULES"]

# The rest of a command's line before the flag (no pipe, no command separator).
_ON_LINE = r"[^\r\n|;&]{0,300}?[ \t]"
_SQ = value_of_class(r"'\r\n", 4)
_DQ = value_of_class(r"\"\r\n", 4)
# A flag's value: quoted (4+ characters, spaces allowed) or a bare password's shape.
_VALUE = rf"(?:'(?P<v>{_SQ})'|\"(?P<v2>{_DQ})\"|(?P<v3>{PW_VALUE})|(?P<v4>{DASHED_PW}))"
# A value in quotes that a statement or a call passes as a password (3+ characters).
_SQ3 = value_of_class(r"'\r\n", 3)
_DQ3 = value_of_class(r"\"\r\n", 3)
_QUOTED = rf"(?:'(?P<v5>{_SQ3})'|\"(?P<v6>{_DQ3})\")"
# An XML text value: 6+ characters, no space, up to the closing tag.
_XML_TEXT = value_of_class(r"<\s", 6)
# A name in a property list's <key> or an Android resource's name attribute.
_XML_NAME = r"[A-Za-z0-9_.-]{1,64}"

TOOL_RULES: Final[tuple[Rule, ...]] = (
    Rule(
        "rar_header_password",
        "password",
        rf"\b(?i:rar|winrar|rar\.exe|winrar\.exe)\b{_ON_LINE}-hp{_VALUE}",
        "headers",
        "url",
    ),
    # A passphrase quoted with spaces in it: a bare one is the command_line rule's.
    Rule(
        "quoted_passphrase",
        "password",
        r"(?:^|[ \t])--passphrase(?:[ \t]+|=)(?:'(?P<v>[^'\s][^'\r\n]{2,126}[^'\s])'"
        r"|\"(?P<v2>[^\"\s][^\"\r\n]{2,126}[^\"\s])\")",
        "headers",
        "url",
    ),
    # Commands whose password is a word in a fixed place after them: htpasswd -b FILE USER
    # PASSWORD, its flags in any order and number ("-b -c", "-cbB"); net user NAME PASSWORD.
    Rule(
        "command_password",
        "password",
        r"\bhtpasswd(?:[ \t]+-[A-Za-z]{1,8}){0,3}?[ \t]+-[A-Za-z]{0,8}b[A-Za-z]{0,8}"
        r"(?:[ \t]+-[A-Za-z]{1,8}){0,3}[ \t]+[^\s-][^\s]{0,255}[ \t]+[^\s]{1,64}[ \t]+"
        r"(?P<v>[^\s`-][^\s`]{2,})"
        r"|\bnet[ \t]+user[ \t]+[^\s/]+[ \t]+(?P<v2>[^\s/*`][^\s`]{5,})",
        "headers",
        "url",
    ),
    # Oracle's CREATE USER scott IDENTIFIED BY X; unquoted: a letter and a digit in it.
    Rule(
        "identified_bare",
        "password",
        r"\b(?i:identified)[ \t]+(?i:by)[ \t]+(?P<v>[A-Za-z0-9_#$!@%^*+=~.-]{6,64})"
        r"[ \t]*(?:;|\r?\n|\z)",
        "headers",
        "alnum",
    ),
    # A password handed to a flag through a process substitution: rsync's
    # --password-file=<(echo X), any --*pass*/--*secret*/--*token* flag's <(printf X).
    Rule(
        "substituted_password",
        "password",
        r"(?:^|[ \t])--?[A-Za-z-]{0,24}(?i:pass|secret|token)[A-Za-z-]{0,24}(?:=|[ \t]+)"
        rf"<\((?:echo|printf)[ \t]+(?:-[neE]{{1,3}}[ \t]+)?{_VALUE}[ \t]*\)",
        "headers",
        "url",
    ),
    # MySQL's ALTER USER ... IDENTIFIED WITH mysql_native_password BY 'X' (the plain
    # IDENTIFIED BY is the statements rule's); a mail, IMAP or FTP client's login(user, X).
    Rule(
        "plugin_password",
        "password",
        r"\b(?i:identified)[ \t]+(?i:with)[ \t]+['\"`]?[A-Za-z0-9_]{1,64}['\"`]?[ \t]+"
        rf"(?i:by)[ \t]+{_QUOTED}"
        r"|\.login\([ \t]*(?:'[^'\r\n]{1,128}'|\"[^\"\r\n]{1,128}\")[ \t]*,[ \t]*"
        rf"(?:'(?P<v>{_SQ})'|\"(?P<v2>{_DQ})\")[ \t]*\)",
        "headers",
        "url",
    ),
    # Groovy's and Gradle's "storePassword "X"": the name of a password or a secret, a space
    # and a quoted value ending the line; the value gets an assignment's checks.
    Rule(
        "dsl_setting",
        "password",
        rf"(?:^|\n)[ \t]*(?P<key>{NAMED_KEY})[ \t]+"
        rf"(?:\"(?P<v>{_DQ})\"|'(?P<v2>{_SQ})')[ \t]*;?[ \t]*(?:\r?\n|\z)",
        "headers",
        "keyed",
    ),
    # A property list's key and its string (iOS and macOS apps' Info.plist and config
    # plists), an Android resource's named string: the value under a secret's name.
    Rule(
        "xml_named_string",
        "password",
        rf"<key>(?P<key>{_XML_NAME})</key>[ \t]*(?:\r?\n[ \t]*)?<string>(?P<v>{_XML_TEXT})"
        rf"</string>|<string[ \t]+name=\"(?P<key2>{_XML_NAME})\"[^>\r\n]{{0,80}}>"
        rf"(?P<v2>{_XML_TEXT})</string>",
        "headers",
        "keyed",
    ),
)
