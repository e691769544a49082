"""Value checks: whether an assignment's value is a secret or a placeholder, a name, code."""

from __future__ import annotations

import functools
from itertools import pairwise
from typing import Final

__all__ = ["accept_value", "is_placeholder"]

# Values that are words of a template, a type or a status, never a secret.
_NOT_SECRETS: Final = frozenset(
    {
        *("none", "null", "nil", "true", "false", "undefined", "empty", "blank", "unset"),
        *("required", "optional", "string", "str", "bytes", "bool", "boolean", "int"),
        *("integer", "number", "text", "hidden", "masked", "redacted", "removed", "omitted"),
        *("unknown", "invalid", "expired", "missing", "default", "notset", "bearer", "basic"),
        *("secret", "secrets", "password", "passwords", "passwd", "pass", "token", "tokens"),
        *("object", "dict", "list", "tuple", "any", "array", "float", "double", "mapping"),
        *("sequence", "callable", "function", "buffer", "opaque"),
    }
)
# Words in a value that mark an example or a placeholder ("your_api_key_here") when the
# value has no digit.
_KEY_WORDS: Final = ("password", "passwd", "secret", "token", "apikey", "api_key", "api-key")
_PLACEHOLDER_START: Final = ("$", "%", "{", "<", "[", "#", "@")



def is_placeholder(value: str) -> bool:
    """Tell whether a value is a placeholder, a variable reference or a mask, not a secret."""
    low = value.lower()
    if low in _NOT_SECRETS or value.startswith(_PLACEHOLDER_START) or "redacted" in low:
        return True
    if len(set(value)) == 1 or not value.strip("*xX•.-_ ") or "***" in value:
        return True  # "******", "xxxx-xxxx", "hf_***": masked for display
    return not any(map(str.isdigit, value)) and any(w in low for w in _KEY_WORDS)


def _is_code(value: str) -> bool:
    """Tell whether a bare (unquoted) value reads as code: a call, an index, a name."""
    if "(" in value or "[" in value:
        return True  # getpass(), os.environ["X"], ENV['X']
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts):
        return True  # settings.DB_PASSWORD, self._token, process.env.TOKEN
    if value.isidentifier() and not any(map(str.isdigit, value)):
        # user_password, hashedPassword, API_TOKEN: variables; "hunter" is left a secret.
        camel = any(a.islower() and b.isupper() for a, b in pairwise(value))
        return "_" in value or camel
    return False


@functools.lru_cache(maxsize=4096)  # hostile inputs repeat one value; normal ones cost nothing
def accept_value(value: str, password_key: bool, quoted: bool) -> bool:
    """Decide whether an assignment's value is a secret (the rule is in the module docs).

    Args:
        value: the value, without its quotes.
        password_key: the key names a password (pass, pw, passwd, ...), so digits count.
        quoted: the value was quoted, so code shapes (names, calls) count as values.
    """
    value = value.strip()
    if len(value) < 6 or is_placeholder(value):
        return False
    if quoted and any(c.isspace() for c in value):
        return False  # a sentence or a message (" * [would prune] "), not a credential
    if not quoted and _is_code(value):
        return False
    if password_key:
        return True
    # Tokens, secrets and keys are random: a digit, or a long mixed-case run. Names of
    # things ("send_message", "Operator") and counts ("max_tokens: 100000") are neither.
    if value.isdigit():
        return False
    if any(map(str.isdigit, value)):
        return True
    return len(value) >= 20 and "_" not in value and value.lower() != value

