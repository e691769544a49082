"""Secret scrubbing: replace credentials in text with typed markers, in linear time.

The API is two pure, synchronous, deterministic functions::

    from memtrails.scrub import scrub_record, scrub_text

    clean, found = scrub_text("aws_access_key_id = AKIAIOSFODNN7EXAMPLE")
    # clean == "aws_access_key_id = [secret:aws-access-key]"
    # found == Counter({"aws-access-key": 1})

    record2, found = scrub_record(record)
    # record2 is record (the same object) when nothing was found, so callers can skip work.

``scrub_record`` scrubs ``title``, ``text`` and every string anywhere inside ``meta``
(recursively through mappings, lists and tuples; keys are kept as they are, but a key named
like ``password`` or ``api_key`` marks its string value as a secret). ``author``, ``id``,
``source`` and ``thread`` are left alone. Same input, same output: the fingerprint is
computed after scrubbing. Scrubbing an already scrubbed text finds nothing.

Each secret becomes ``[secret:KIND]`` (see :data:`KINDS`); for ``url-password`` only the
password is replaced (``https://bob:[secret:url-password]@host``) and for ``password``
assignments only the value (``password: [secret:password]``). A value that is itself a
provider token gets the provider's kind (``Authorization: Bearer [secret:jwt]``).

Assignments (kind ``password``): a key ending in password, passwd, pwd, pw, pass, secret,
token, api_key/apikey/api-key, access_key, private_key, secret_key or authorization (with
an optional prefix of up to three words: ``DB_PASSWORD``, ``clientSecret``), then ``=``,
``:``, ``=>``, ``:=``, ``==`` or a space after ``--key``, then a value. Only the value is
replaced, and not when it is:

- shorter than 6 characters;
- a placeholder, reference or mask: ``${VAR}``, ``$VAR``, ``%s``, ``{{var}}``,
  ``<redacted>``, ``[REDACTED]``, ``****``, ``hf_***``;
- a literal or a type name: None, null, true, string, required, object, ...;
- a word holding a key word but no digit: ``your_password_here``;
- code, when unquoted: ``getpass()``, ``os.environ[...]``, ``settings.DB_PASSWORD``,
  ``user_password``, a bare word followed by more words or by ``=``, ``(`` or ``:``
  (prose and annotations: ``offset_token: Opaque token from ...``), or ending in ``:``;
- a quoted phrase with spaces;
- under a key that is not a password (token, secret, key): digits only
  (``max_tokens: 100000``), or without any digit unless 20+ mixed-case characters
  (``token = Operator``, ``"send_message"``).

``Bearer <value>`` on its own needs 16+ characters with a letter and a digit. The same
value check applies to a string in ``meta`` under a key named like that.

Linear time: the rules are alternatives of two RE2 expressions (google-re2, no
backtracking), each scanned once over the UTF-8 bytes of the text. RE2 makes each search
linear; finding *all* matches stays linear because no rule can keep a partial match alive
far past a place where another match may start (key prefixes and URL schemes are at most
three words, the other open-ended parts start with a literal that cannot recur inside
them), and a match rejected by the checks above never sends the scan back more than its
own length. ``benchmarks/scrub_speed.py`` measures it, doubling every hostile input.

Known gaps: passwords in prose without a separator ("the password is hunter2"), YAML
block scalars, XML elements (``<password>x</password>``), camelCase short keys
(``dbPass``), Stripe publishable keys (``pk_``: public by design), Google OAuth client
secrets and access tokens other than as assignment values, and tokens of services
not listed in :data:`KINDS`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Final

import re2

from .records import MemoryRecord

__all__ = ["KINDS", "RULES", "marker", "scrub_record", "scrub_text"]

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
_KEY = (
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
class _Rule:
    name: str  # unique; the group name in the combined expression
    kind: str  # the marker's kind; "" for a span to keep as it is (data: URIs)
    pattern: str
    token: bool  # in the token pass (also run inside values); else in the assignment pass


#: The rules, in priority order: at one position the first rule that matches wins.
RULES: Final[tuple[_Rule, ...]] = (
    # Base64 images and attachments: skipped whole, so nothing inside them is read as a key.
    _Rule(
        "data_uri",
        "",
        r"data:[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9=.+-]+)*;base64,[A-Za-z0-9+/=]+",
        True,
    ),
    # A PEM block: header, then lines of base64 or "Name: value" headers, then the END line,
    # or, when there is none, up to the last such line (the tail separator is kept).
    _Rule(
        "private_key",
        "private-key",
        r"(?P<hdr>-----BEGIN[ A-Z0-9]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----)"
        rf"(?P<body>(?:{_SEP}[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*)?[ \t]*)*)"
        rf"(?:{_SEP}[ \t]*(?P<end>{_PEM_LABEL})|{_SEP}|\z)",
        True,
    ),
    # 40 base64 characters are only an AWS secret key next to a name that says so.
    _Rule(
        "aws_secret_key",
        "aws-secret-key",
        r"(?i:aws[_. -]?secret[_. -]?(?:access[_. -]?)?key|secret[_. -]?access[_. -]?key)"
        r"\\?[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*\\?[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        True,
    ),
    _Rule(
        "aws_access_key",
        "aws-access-key",
        r"\b(?P<v>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16})\b",
        True,
    ),
    _Rule(
        "github_token",
        "github-token",
        r"\b(?P<v>gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b",
        True,
    ),
    _Rule(
        "gitlab_token",
        "gitlab-token",
        r"\b(?P<v>(?:glpat|gldt|glptt|glrt|gloas|glcbt|glft|glimt|glagent|glsoat|glffct)"
        r"-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]+)*|GR1348941[A-Za-z0-9_-]{20,})",
        True,
    ),
    _Rule(
        "slack_webhook",
        "slack-webhook",
        r"(?P<v>https://hooks\.slack(?:-gov)?\.com/(?:services|workflows|triggers)/"
        r"[A-Za-z0-9_/+-]{10,})",
        True,
    ),
    _Rule(
        "slack_token",
        "slack-token",
        r"\b(?P<v>(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,})",
        True,
    ),
    _Rule(
        "stripe_key",
        "stripe-key",
        r"\b(?P<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})\b",
        True,
    ),
    _Rule(
        "google_api_key",
        "google-api-key",
        r"\b(?P<v>AIza[0-9A-Za-z_-]{35})(?:[^0-9A-Za-z_-]|\z)",
        True,
    ),
    _Rule(
        "anthropic_key",
        "anthropic-key",
        r"\b(?P<v>sk-ant-(?:api|admin|sid|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,})",
        True,
    ),
    _Rule(
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
    _Rule(
        "jwt",
        "jwt",
        r"(?:^|[^A-Za-z0-9_-])(?P<v>eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*)",
        True,
    ),
    # scheme://user:pass@host: the password may hold '@' (greedy to the last one before the
    # host) but not '/', so a port or path never reads as a password.
    _Rule(
        "url_password",
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9]*(?:[+.-][A-Za-z0-9]+){0,2}://[^\s:/?#@\[\]\"'<>]*:"
        r"(?P<v>[^\s/?#\"'<>]+)@[A-Za-z0-9_\[]",
        True,
    ),
    # key = value, key: value, "key": "value", key => value, KEY=value (env), prose; and
    # command-line flags: --password hunter2, --api-key=... (one rule: a smaller program).
    _Rule(
        "assignment",
        "password",
        rf"(?:--{_KEY.replace('<key>', '<fkey>')}(?:=|[ \t]+)"
        rf"|{_KEY}\\?[\"']?[ \t]*(?:===|==|=>|:=|=|:)[ \t]*){_VALUE}",
        False,
    ),
    # A bearer token on its own ("curl -H 'Bearer ...'"): stricter shape checks in Python.
    _Rule("bearer", "password", r"\b(?i:bearer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)", False),
)

_OPTIONS = re2.Options()
# Room for the DFA's state cache: with too little, RE2 falls back to its (still linear but
# slower) NFA on long inputs.
_OPTIONS.max_mem = 64 << 20


_Spans = list[tuple[int, int]]  # (start, end) of group 0, 1, 2, ...; (-1, -1) if unset


def _searcher(regex: Any) -> Callable[[bytes, int, int], _Spans | None]:
    """Return a function that finds the leftmost match in ``buf[pos:end]``, as group spans.

    re2's public ``search`` wraps every match in a ``_Match`` whose ``span(i)`` costs a few
    calls each; with 40 groups that dominated the scan. Its underlying ``Match`` returns all
    spans in one call, so use it when present and fall back to the public API otherwise.
    """
    raw = getattr(regex, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is not None and anchor is not None and hasattr(raw, "Match"):

        def fast(buf: bytes, pos: int, end: int) -> _Spans | None:
            spans: _Spans = raw.Match(anchor, buf, pos, end)
            return None if spans[0][0] < 0 else spans

        return fast
    groups = range(regex.groups + 1)

    def portable(buf: bytes, pos: int, end: int) -> _Spans | None:
        m = regex.search(buf, pos, end)
        return None if m is None else [m.span(i) for i in groups]

    return portable


@dataclass(frozen=True, slots=True)
class _Compiled:
    """One combined expression and, per rule, the indexes of its groups."""

    regex: Any  # re2._Regexp (no stubs)
    search: Callable[[bytes, int, int], _Spans | None]
    rules: tuple[tuple[_Rule, int, dict[str, int]], ...]  # rule, outer group, inner groups


def _compile(rules: tuple[_Rule, ...]) -> _Compiled:
    parts = []
    for rule in rules:
        # Group names must be unique across the alternation: prefix them with the rule's.
        inner = rule.pattern.replace("(?P<", f"(?P<{rule.name}__")
        parts.append(f"(?P<{rule.name}>{inner})")
    regex = re2.compile("|".join(parts), _OPTIONS)
    index: dict[str, int] = regex.groupindex
    table = []
    for rule in rules:
        prefix = f"{rule.name}__"
        groups = {n[len(prefix) :]: i for n, i in index.items() if n.startswith(prefix)}
        table.append((rule, index[rule.name], groups))
    return _Compiled(regex, _searcher(regex), tuple(table))


# Two passes, not one: RE2's DFA builds a state per combination of live partial matches, and
# the assignment rules (a key of any identifier) combined with the URL rule (a scheme of any
# word) multiply into so many states that one combined pass ran at ~20 MB/s, two at ~100.
# The token pass also runs inside assignment and URL-password values, so that
# "token: ghp_..." is counted as a github-token, not a password.
_TOKENS = _compile(tuple(r for r in RULES if r.token))
_ASSIGNMENTS = _compile(tuple(r for r in RULES if not r.token))
_KEY_NAME = re2.compile(_KEY, _OPTIONS)
_KEY_MATERIAL = re2.compile(r"[A-Za-z0-9+/]{16}")

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

_Span = tuple[int, int, str]  # start, end, kind: one replacement in the byte buffer


def _is_placeholder(value: str) -> bool:
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
def _accept_value(value: str, password_key: bool, quoted: bool) -> bool:
    """Decide whether an assignment's value is a secret (the rule is in the module docs).

    Args:
        value: the value, without its quotes.
        password_key: the key names a password (pass, pw, passwd, ...), so digits count.
        quoted: the value was quoted, so code shapes (names, calls) count as values.
    """
    value = value.strip()
    if len(value) < 6 or _is_placeholder(value):
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


def _decode(buf: bytes, start: int, end: int) -> str:
    return buf[start:end].decode("utf-8", "surrogatepass")


def _rstrip_separators(buf: bytes, start: int, end: int) -> int:
    """Return ``end`` moved back over trailing blank lines, so they stay in the text."""
    while end > start:
        if buf[end - 1] in b" \t\r\n":
            end -= 1
        elif buf[end - 2 : end] == b"\\n" and end - 2 >= start:
            end -= 2
        else:
            break
    return end


def _tokens_in(buf: bytes, start: int, end: int) -> Iterator[_Span]:
    """Run the token pass over a value, unless it is too short to hold any token."""
    # The shortest token ("xoxb-" + 10) has 15 bytes; a URL password needs "://".
    if end - start >= 15 or b"://" in buf[start:end]:
        # From one byte before: the jwt rule reads the character before a token.
        for s, e, kind in _matches(_TOKENS, buf, max(start - 1, 0), end):
            yield (max(s, start), e, kind)


def _inner(buf: bytes, start: int, end: int, kind: str) -> list[_Span]:
    """Return the replacements inside an accepted value [start, end).

    Provider tokens inside it keep their own kinds when they cover the value (all but a few
    characters of quoting or escapes); otherwise the whole value becomes one ``kind``.
    """
    spans = list(_tokens_in(buf, start, end))
    covered = sum(e - s for s, e, _ in spans)
    if spans and (end - start) - covered <= 3:
        return spans
    return [(start, end, kind)]


def _matches(compiled: _Compiled, buf: bytes, start: int, end: int) -> Iterator[_Span]:
    """Yield the replacements in ``buf[start:end]``, in order and without overlaps."""
    pos = start
    while pos < end:
        sp = compiled.search(buf, pos, end)
        if sp is None:
            return
        for rule, outer, g in compiled.rules:  # noqa: B007 (the loop finds the rule)
            if sp[outer][0] >= 0:
                break
        ms, me = sp[outer]
        resume = me
        name = rule.name
        if not rule.kind:  # a span to keep as it is
            yield (ms, me, "")
        elif name == "private_key":
            body_s, body_e = sp[g["body"]]
            end_s, end_e = sp[g["end"]]
            if _KEY_MATERIAL.search(buf, body_s, body_e) is not None:
                stop = end_e if end_s >= 0 else _rstrip_separators(buf, body_s, body_e)
                yield (ms, stop, rule.kind)
                resume = stop
            else:  # a header without key material ("-----BEGIN ... KEY-----\n...")
                resume = sp[g["hdr"]][1]
        elif name == "assignment":
            yield from _assignment(buf, sp, g, rule.kind)
        elif name == "bearer":
            vs, ve = sp[g["v"]]
            value = _decode(buf, vs, ve)
            shaped = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
            if shaped and not _is_placeholder(value):
                yield from _inner(buf, vs, ve, rule.kind)
            resume = ve
        elif name == "url_password":
            vs, ve = sp[g["v"]]
            if not _is_placeholder(_decode(buf, vs, ve)):
                yield from _inner(buf, vs, ve, rule.kind)
            resume = ve
        elif name == "aws_secret_key":
            vs, ve = sp[g["v"]]
            key40 = buf[vs:ve]
            if key40.lower() != key40 and key40.upper() != key40:  # mixed case, as AWS's are
                yield (vs, ve, rule.kind)
                resume = ve
            else:  # a short match: look again one byte on (the assignment rule may apply)
                resume = ms + 1
        else:  # a provider token: its value group ("v", or "v2" for a second shape)
            vs, ve = sp[g["v"]]
            if vs < 0:
                vs, ve = sp[g["v2"]]
            yield (vs, ve, rule.kind)
            resume = ve
        pos = max(resume, pos + 1)


def _assignment(buf: bytes, sp: _Spans, g: dict[str, int], kind: str) -> Iterator[_Span]:
    """Yield the replacements for one ``key = value`` match (see :func:`_accept_value`)."""
    for group in ("vdq", "vsq", "vesc", "vbare"):
        vs, ve = sp[g[group]]
        if vs >= 0:
            break
    ks, ke = sp[g["key"]]
    if ks < 0:
        ks, ke = sp[g["fkey"]]
    if buf[max(ks - 3, 0) : ks] == b"://":
        return  # the user of scheme://user:pass@host: the url-password rule's business
    if buf[ks - 1 : ke + 1] == b"[secret:":
        return  # one of our own markers: scrubbing scrubbed text must find nothing
    key = buf[ks:ke].lower()
    value = _decode(buf, vs, ve)
    if group == "vbare":
        # Prose punctuation after a bare value is not part of it.
        stripped = value.rstrip(".)")
        ve -= len(value) - len(stripped)  # ASCII characters: one byte each
        value = stripped
        after = buf[ve : ve + 24].lstrip(b" \t")[:1]
        if (
            value.isidentifier()
            and not any(map(str.isdigit, value))
            and (after.isalpha() or after in (b"=", b"(", b":"))
        ):
            return  # "offset_token: Opaque token from ...", "token: object = None": prose, code
        if value.endswith(":"):
            return  # "password=lambda: ...", "password: password:": code or a key, not a value
        if key == b"pwd" and value.startswith("/"):
            return  # PWD=/home/ann: the shell's working directory
    else:
        # A quoted value may carry its own auth scheme: "Bearer abc".
        head, _, rest = value.partition(" ")
        if rest and head.lower() in ("bearer", "basic", "token", "bot"):
            vs += len(head) + 1
            value = rest
    if _accept_value(value, b"pass" in key or b"pw" in key, group != "vbare"):
        yield from _inner(buf, vs, ve, kind)
    else:
        # Not a secret, but it may still hold a provider token: scan it (once).
        yield from _tokens_in(buf, vs, ve)


def _merge(first: list[_Span], second: list[_Span]) -> list[_Span]:
    """Merge the two passes' replacements into one ordered list without overlaps.

    The earlier span wins (the longer at the same start); a span that starts inside a kept
    one but runs past it keeps its tail, so every byte some rule flagged is replaced.
    """
    if not second:
        return first
    out: list[_Span] = []
    last = 0
    for s, e, kind in sorted(first + second, key=lambda span: (span[0], -span[1])):
        if e <= last:
            continue
        out.append((max(s, last), e, kind))
        last = e
    return out


def _scrub_bytes(buf: bytes, spans: Iterator[_Span], counts: Counter[str]) -> bytes | None:
    out: list[bytes] = []
    last = 0
    for s, e, kind in spans:
        if kind:
            out.append(buf[last:s])
            out.append(marker(kind).encode("ascii"))
            counts[kind] += 1
            last = e
    if not out:
        return None
    out.append(buf[last:])
    return b"".join(out)


def scrub_text(text: str) -> tuple[str, Counter[str]]:
    """Replace the secrets in ``text`` with typed markers.

    Args:
        text: any text: a mail body, a chat message, a config file, a diff.

    Returns:
        The scrubbed text (``text`` itself when nothing was found) and the number of
        replacements per kind.

    Example:
        >>> scrub_text("export GITHUB_TOKEN=ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8")
        ('export GITHUB_TOKEN=[secret:github-token]', Counter({'github-token': 1}))
    """
    counts: Counter[str] = Counter()
    if not text:
        return text, counts
    # Work on UTF-8 bytes: the scan can restart at any offset without re-encoding the text
    # (re2's str API re-encodes on every call). surrogatepass keeps lone surrogates intact.
    buf = text.encode("utf-8", "surrogatepass")
    spans = _merge(
        list(_matches(_TOKENS, buf, 0, len(buf))),
        list(_matches(_ASSIGNMENTS, buf, 0, len(buf))),
    )
    out = _scrub_bytes(buf, iter(spans), counts)
    if out is None:
        return text, counts
    return out.decode("utf-8", "surrogatepass"), counts


def _scrub_secret_value(text: str, key: str, counts: Counter[str]) -> str:
    """Scrub a string stored under a key named like a secret (``{"password": "..."}``)."""
    buf = text.encode("utf-8", "surrogatepass")
    low = key.lower()
    if not _accept_value(text, "pass" in low or "pw" in low, True):
        return _scrub_into(text, counts)
    stripped = text.strip()
    start = len(text[: len(text) - len(text.lstrip())].encode("utf-8", "surrogatepass"))
    end = start + len(stripped.encode("utf-8", "surrogatepass"))
    out = _scrub_bytes(buf, iter(_inner(buf, start, end, "password")), counts)
    return text if out is None else out.decode("utf-8", "surrogatepass")


def _scrub_into(text: str, counts: Counter[str]) -> str:
    """Scrub ``text`` and add what was found to ``counts``; return the scrubbed text."""
    clean, found = scrub_text(text)
    counts.update(found)
    return clean


def _scrub_meta(value: Any, counts: Counter[str], secret_key: str | None = None) -> Any:
    """Scrub every string inside ``value``; return ``value`` itself when nothing changed."""
    if isinstance(value, str):
        if secret_key:
            return _scrub_secret_value(value, secret_key, counts)
        return _scrub_into(value, counts) if value else value
    if isinstance(value, Mapping):
        changed = False
        out: dict[Any, Any] = {}
        for k, v in value.items():
            named = k if isinstance(k, str) and _KEY_NAME.fullmatch(k) is not None else None
            new = _scrub_meta(v, counts, named)
            changed = changed or new is not v
            out[k] = new
        return out if changed else value
    if isinstance(value, list | tuple):
        items = [_scrub_meta(v, counts, secret_key) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def scrub_record(record: MemoryRecord) -> tuple[MemoryRecord, Counter[str]]:
    """Return ``record`` with the secrets in its title, text and meta replaced.

    Args:
        record: the record to scrub.

    Returns:
        The scrubbed record and the replacements per kind. When nothing was found the record
        returned *is* ``record`` (test with ``is``) and the counter is empty.

    Example:
        >>> r = MemoryRecord(id="1", text="db: postgres://app:s3cr3t-pw@db.local/app")
        >>> scrub_record(r)[0].text
        'db: postgres://app:[secret:url-password]@db.local/app'
    """
    counts: Counter[str] = Counter()
    title = _scrub_into(record.title, counts) if record.title else record.title
    text = _scrub_into(record.text, counts)
    meta = _scrub_meta(record.meta, counts)
    if not counts:
        return record, counts
    return dataclasses.replace(record, title=title, text=text, meta=meta), counts
