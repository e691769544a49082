"""Pieces of the rules' patterns: key names, values and what sets them."""

from __future__ import annotations

from typing import Final

__all__ = [
    "ANY_KEY",
    "ATTR",
    "BACKSLASH",
    "BARE",
    "BARE_FIRST",
    "BARE_VALUE",
    "BLOCK",
    "BT_VALUE",
    "CDATA_VALUE",
    "CONF",
    "DQ",
    "DQ_VALUE",
    "ESC_VALUE",
    "KEY",
    "KEY_SUFFIX",
    "NAMED",
    "NAMED_KEY",
    "OPERATOR",
    "PAIRED",
    "PROSE_QUOTED",
    "QUOTED_VALUE",
    "SET_COMMAND",
    "SQ",
    "SQ_VALUE",
    "URL",
    "VALUE",
    "WIFI_VALUE",
    "WORD_VALUE",
    "XML_VALUE",
    "value_of_class",
]

# Key names for assignments. Short names (pw, pwd, pass) only as a whole name or after a
# separator, so "compass: northwest" and "bypass = ..." are not read as passwords. Long names
# may end an identifier ("DB_PASSWORD", "clientSecret", "x-api-key"); the key must end there
# or in a suffix that names an encoding of the same thing ("SECRET_KEY_BASE", "token_b64"),
# so "max_tokens" or "password_file" are not keys.
NAMED = (
    r"\b(?:(?:[A-Za-z0-9_]+[.-]?){0,3}[_.-])?(?i:pwd?|pass|psk|pat)|\b[A-Za-z0-9]*[a-z]Pat"
    r"|\b(?:[A-Za-z0-9_]+[.-]?){0,3}(?i:passw(?:or)?d|passphrase|secret|token|credentials?"
    r"|sess(?:ion)?[_-]?id|connect\.sid"
    r"|api[_.-]?key|(?:access|private|secret|auth|service|account|client|master|signing"
    r"|encryption|app|db|database|priv|sas|storage|admin|sdk|licen[cs]e|ca|consumer|webhook"
    r"|hmac|session|shared|server|mobile|bot|deploy|jwt|cookie|root|subscription"
    r"|integration|ingest|write)[_.-]?key"
    r"|authorization)"
)
# Any other name of a key: "STRIPE_KEY", "app.api.key", "foo_key", "apiMaticKey", "Key" in a
# log line; "auth" alone (a query's "&auth=", an npm or Docker config's). The engine asks
# more of their values (values.is_random): such names also name cache keys, sort keys and
# dictionary keys, and "auth: true" or "auth: oauth2" is a setting.
ANY_KEY = (
    r"\b(?:[A-Za-z0-9]+[_.-]){1,3}(?i:key)|\b[a-z][A-Za-z0-9]*[a-z0-9]Key|\b[A-Z][A-Z0-9]*KEY"
    r"|\b(?i:key|auth)"
)
KEY_SUFFIX = r"(?:[_.-](?i:base|value|b64|base64))?"
#: A name of a secret that any value with a digit fills (see values.accept_value).
NAMED_KEY: Final = rf"(?:{NAMED}){KEY_SUFFIX}"
KEY = rf"(?P<key>{NAMED_KEY}|(?:{ANY_KEY}){KEY_SUFFIX})"


def value_of_class(
    no: str, least: int, not_first: str = "", rest: str = "", escape: str = ""
) -> str:
    """Return a pattern for a value of ``least`` or more characters of the class ``[^no]``
    (or ``rest``, when its characters are not one class), that does not start like a
    placeholder.

    A value that starts like a template's slot or a variable (``${``, ``$(``, ``$NAME``,
    ``%(``, ``%s``, ``{{``, ``<name``, ``[name``) is never a secret (values.is_placeholder),
    so the rules do not even match it: a file of such placeholders costs the scan nothing. A
    password that merely starts with one of those characters ("$3cr3t!", "%=hYg...",
    "<3Kitten", "{9x...") still matches, and its check tells it from a placeholder
    ("{password}", "@VAR@"). ``not_first``: characters that may not start it either;
    ``escape``: an escape sequence that may start it ("\\.").
    """
    rest = rest or f"[^{no}]"
    one = rf"[^{no}{not_first}$%{{<\[]"
    if escape:
        one = f"(?:{one}|{escape})"
    # "%" and a letter may start a password (rule set 15): the check tells it from
    # a placeholder ("%NAME%", "%s", "%APPDATA%\\x", letters alone).
    two = [rf"\$[^{no}{{(A-Za-z_]", rf"%[^{no}{{(]", rf"\{{[^{no}{{]", rf"\[[^{no}A-Za-z]"]
    if "<" not in no:
        two.append(rf"<[^{no}A-Za-z/]")
    # "<" or "[", a letter, and a digit or a symbol soon after (rule set 16: "<tango548!",
    # "[Willow536?"): a bracket a password opens with, which the check tells from a
    # placeholder's ("<password1>", "[REDACTED-2]" close it); "<name>" and "[REDACTED]" hold
    # neither, so they are still no match.
    opens = ("<" if "<" not in no else "") + r"\["
    three = rf"[{opens}][A-Za-z]{{1,24}}[0-9!?#&*+=^~@%]{rest}*"  # the check counts its length
    return (
        f"(?:{one}{rest}{{{max(least - 1, 0)},}}|(?:{'|'.join(two)}){rest}{{{max(least - 2, 0)},}}"
        f"|{three})"
    )


# The characters values stop at, by kind of value (f-strings cannot hold them in 3.11).
DQ = r"\"\\\r\n"
SQ = r"'\\\r\n"
BARE = r"\s\"'`,;"
PROSE_QUOTED = r"\s`'\""
URL = r"\s/?\"'<>"
PAIRED = r"\"'\r\n"
BACKSLASH = r"\\"
ATTR = r"\"\r\n"
CONF = r"\s#\"'"
DQ_VALUE = value_of_class(DQ, 6, rest=rf"(?:[^{DQ}]|\\.)", escape=r"\\.")
SQ_VALUE = value_of_class(SQ, 6, rest=rf"(?:[^{SQ}]|\\.)", escape=r"\\.")
ESC_VALUE = value_of_class(DQ, 6)
# 6+ characters (a "-" first only before another character than "-": "--x" is a flag; "-x"
# and "-+mLl2-M0J" are judged by the check, which wants a digit), the last not a ":".
BARE_FIRST = value_of_class(BARE, 5, not_first=r"\-")
BARE_VALUE = rf"(?:{BARE_FIRST}|-[^{BARE}\-][^{BARE}]{{3,}})[^{BARE}:]"
XML_VALUE = value_of_class(r"<\s", 6)
CDATA_VALUE = value_of_class(r"\]\r\n", 6)
WORD_VALUE = value_of_class(r"\s", 6)
WIFI_VALUE = value_of_class(r";\\\r\n", 3, rest=r"(?:[^;\\\r\n]|\\.)", escape=r"\\.")

# A value: double-quoted (JSON escapes allowed), single-quoted, quoted with escaped quotes
# (JSON inside a JSON string), or bare: 6+ characters up to a space, quote, comma or
# semicolon. None starts like a reference or a placeholder (see _lead), so those near-misses
# are not even matches; nor is "--flag", nor a bare value ending in ":" (a key or code:
# "password: password:", "lambda:"), which the check rejected. One starting with "-x", "#"
# or "@" (a random token, a password, an "@VAR@") is judged by its value check. A bare value
# may follow an HTTP auth scheme word, which stays.
BT_VALUE = value_of_class(r"`\r\n", 6)
# The quoted forms: "double", 'single', `backticks` (Go's raw strings, JavaScript's templates).
QUOTED_VALUE = rf"\"(?P<vdq>{DQ_VALUE})\"|'(?P<vsq>{SQ_VALUE})'|`(?P<vbt>{BT_VALUE})`"
VALUE = (
    rf"(?:{QUOTED_VALUE}"
    rf"|\\\"(?P<vesc>{ESC_VALUE})\\\""
    r"|(?:(?P<scheme>(?i:bearer|basic|token|bot|digest|negotiate|ssws|aws4-hmac-sha256))[ \t]+)?"
    rf"(?P<vbare>{BARE_VALUE})"
    r"(?:[\s\"'`,;]|\z))"
)

# What sets a value: = : => := and make's ::= :::= ?= +=, PHP's .=, Ruby's ||=.
OPERATOR = r"(?:===|==|=>|:::=|::=|:=|\?=|\+=|\.=|\|\|=|=|:)"

# A YAML block scalar between a key and its value ("password: |" or "token: >-", then the
# value indented on the next line; the engine takes the lines indented as far after it too),
# after a YAML tag if there is one ("!!str" before a number); Home Assistant's "password:
# !secret wifi_password" names a value (a name: no secret), Ansible's "!vault |" an encrypted
# one (the vault rule's). A tag is a name: letters, perhaps digits at its end ("!Base64"), then
# a ":", "/" or "." part; a random password that starts with "!" is no tag.
# A YAML anchor may come first ("password: &db_pw X", rule set 17: the anchor was taken for
# the value, the value left); an alias ("*db_pw") names the value again and holds none.
BLOCK = (
    r"(?:&[A-Za-z0-9_.-]{1,64}[ \t]+(?:\r?\n[ \t]+)?)?"
    r"(?:!!?[A-Za-z][A-Za-z_]*[0-9]*(?:[.:/][A-Za-z0-9_.:/-]*)?[ \t]+)?"
    r"(?P<block>[|>][+-]?[1-9]?[ \t]*\r?\n[ \t]+)?"
)

# Commands that set an environment variable from a name and a value with a space between:
# fish's set -x/-gx/-Ux/--export NAME VALUE, csh's and launchctl's setenv NAME VALUE,
# Windows' setx [/M] NAME VALUE [/M], PowerShell's Set-Item [-Path] Env:NAME [-Value] VALUE,
# gh's secret set NAME --body VALUE, a Dockerfile's ENV NAME VALUE. The value gets an assignment's checks ("$PATH", a path,
# a word is no secret).
SET_COMMAND = (
    r"\b(?:set|setx|setenv|Set-Item|ENV)[ \t]+(?:[-/][A-Za-z-]+[ \t]+){0,4}(?i:env:)?"
    rf"{KEY.replace('<key>', '<skey>')}[ \t]+(?:(?:-Value|--body|-b)(?:[ \t]+|=)?)?"
)
