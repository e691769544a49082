"""The rule data: what each kind of secret looks like, as RE2 patterns (no engine here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["KEY", "KINDS", "RULES", "Rule", "marker"]

#: Every kind of marker :func:`scrub_text` can write, in a stable order.
KINDS: Final[tuple[str, ...]] = (
    "aws-access-key",
    "aws-secret-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-webhook",
    "stripe-key",
    "google-api-key",
    "openai-key",
    "anthropic-key",
    "jwt",
    "private-key",
    "url-password",
    "password",
)


def marker(kind: str) -> str:
    """Return the text that replaces a secret of ``kind``, e.g. ``[secret:jwt]``."""
    return f"[secret:{kind}]"


# --- Rules -------------------------------------------------------------------------------------
# Each rule is an RE2 pattern; its named group ``v`` (or the ``v*`` groups) is what gets
# replaced, the rest is context that stays. RE2 has no lookarounds, so a trailing boundary
# is sometimes one consumed character; the scan resumes at the end of ``v``, not of the match.

# Line breaks inside a PEM block: real ones, or the two-character "\n" escapes of a key
# pasted from JSON (Google service-account files, Kubernetes secrets).
_SEP = r"(?:\r?\n|\\r\\n|\\n)"
_PEM_LABEL = r"-----END[ A-Z0-9]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----"

# Key names for assignments. Short names (pw, pwd, pass) only as a whole name or after a
# separator, so "compass: northwest" and "bypass = ..." are not read as passwords. Long names
# may end an identifier ("DB_PASSWORD", "clientSecret", "x-api-key"); the key must end there,
# so "max_tokens" or "password_file" are not keys.
KEY = (
    r"(?P<key>\b(?:(?:[A-Za-z0-9_]+[.-]?){0,3}[_.-])?(?i:pwd?|pass)"
    r"|\b(?:[A-Za-z0-9_]+[.-]?){0,3}(?i:passw(?:or)?d|secret|token|api[_-]?key"
    r"|(?:access|private|secret)[_-]?key|authorization))"
)
# A value: double-quoted (JSON escapes allowed), single-quoted, quoted with escaped quotes
# (JSON inside a JSON string), or bare: 6+ characters up to a space, quote, comma or
# semicolon, not starting like a reference, a placeholder or a flag ($VAR, %s, {{x}}, <x>,
# [x], #, @, -),
# so that those near-misses are not even matches. A bare value may follow an HTTP auth
# scheme word, which stays.
_VALUE = (
    r"(?:\"(?P<vdq>(?:[^\"\\\r\n]|\\.)*)\""
    r"|'(?P<vsq>(?:[^'\\\r\n]|\\.)*)'"
    r"|\\\"(?P<vesc>[^\"\\\r\n]*)\\\""
    r"|(?:(?i:bearer|basic|token|bot|digest|negotiate)[ \t]+)?"
    r"(?P<vbare>[^\s\"'`,;$%{<\[#@-][^\s\"'`,;]{5,}))"
)


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: a pattern, the kind of marker it writes, and the pass it runs in."""

    name: str  # unique; the group name in the combined expression
    kind: str  # the marker's kind; "" for a span to keep as it is (data: URIs)
    pattern: str
    token: bool  # in the token pass (also run inside values); else in the assignment pass


#: The rules, in priority order: at one position the first rule that matches wins.
RULES: Final[tuple[Rule, ...]] = (
    # Base64 images and attachments: skipped whole, so nothing inside them is read as a key.
    Rule(
        "data_uri",
        "",
        r"data:[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9=.+-]+)*;base64,[A-Za-z0-9+/=]+",
        True,
    ),
    # A PEM block: header, then lines of base64 or "Name: value" headers, then the END line,
    # or, when there is none, up to the last such line (the tail separator is kept).
    Rule(
        "private_key",
        "private-key",
        r"(?P<hdr>-----BEGIN[ A-Z0-9]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----)"
        rf"(?P<body>(?:{_SEP}[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*)?[ \t]*)*)"
        rf"(?:{_SEP}[ \t]*(?P<end>{_PEM_LABEL})|{_SEP}|\z)",
        True,
    ),
    # 40 base64 characters are only an AWS secret key next to a name that says so.
    Rule(
        "aws_secret_key",
        "aws-secret-key",
        r"(?i:aws[_. -]?secret[_. -]?(?:access[_. -]?)?key|secret[_. -]?access[_. -]?key)"
        r"\\?[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*\\?[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        True,
    ),
    Rule(
        "aws_access_key",
        "aws-access-key",
        r"\b(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b",
        True,
    ),
    Rule(
        "github_token",
        "github-token",
        r"\b(?P<v>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b",
        True,
    ),
    Rule(
        "gitlab_token",
        "gitlab-token",
        r"\b(?P<v>(?:glpat|gldt|glptt|glrt|gloas|glcbt|glft|glimt|glagent|glsoat|glffct)"
        r"-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,})",
        True,
    ),
    Rule(
        "slack_webhook",
        "slack-webhook",
        r"(?P<v>https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9_/+-]{10,})",
        True,
    ),
    Rule(
        "slack_token",
        "slack-token",
        r"\b(?P<v>(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,})",
        True,
    ),
    Rule(
        "stripe_key",
        "stripe-key",
        r"\b(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})\b",
        True,
    ),
    Rule(
        "google_api_key",
        "google-api-key",
        r"\b(?P<v>AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|\z)",
        True,
    ),
    Rule(
        "anthropic_key",
        "anthropic-key",
        r"\b(?P<v>sk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,})",
        True,
    ),
    Rule(
        "openai_key",
        "openai-key",
        r"\b(?:(?P<v>sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,})"
        r"|(?P<v2>sk-[A-Za-z0-9]{48})(?:[^A-Za-z0-9_-]|\z))",
        True,
    ),
    # Header and payload both start with '{"' in base64 ("eyJ"); the signature may be empty.
    # It starts after a character that cannot be inside a segment (one consumed character,
    # not \b): with \b, every "-eyJ" inside a long segment would start a new partial match
    # that lives to the segment's end, and tokens between them made the scan quadratic.
    Rule(
        "jwt",
        "jwt",
        r"(?:^|[^A-Za-z0-9_-])(?P<v>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)",
        True,
    ),
    # scheme://user:pass@host: the password may hold '@' (greedy to the last one before the
    # host) but not '/', so a port or path never reads as a password.
    Rule(
        "url_password",
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9]*(?:[+.-][A-Za-z0-9]+){0,2}://[^\s:/?#@\[\]\"'<>]*:"
        r"(?P<v>[^\s/?#\"'<>]+)@[A-Za-z0-9_\[]",
        True,
    ),
    # key = value, key: value, "key": "value", key => value, KEY=value (env), prose; and
    # command-line flags: --password hunter2, --api-key=... (one rule: a smaller program).
    Rule(
        "assignment",
        "password",
        rf"(?:--{KEY.replace('<key>', '<fkey>')}(?:=|[ \t]+)"
        rf"|{KEY}\\?[\"']?[ \t]*(?:===|==|=>|:=|=|:)[ \t]*){_VALUE}",
        False,
    ),
    # A bearer token on its own ("curl -H 'Bearer ...'"): stricter shape checks in Python.
    Rule("bearer", "password", r"\b(?i:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", False),
)
