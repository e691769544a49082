"""Value checks: whether an assignment's value is a secret or a placeholder, a name, code."""

from __future__ import annotations

import functools
import string
from itertools import pairwise
from typing import Final

import re2

from .formats import random_letters, slash_base64, wordy
from .plain import bracket_password, cjk_at
from .pointers import home_path, is_pointer

__all__ = [
    "accept_prose",
    "accept_value",
    "block_scalar_end",
    "is_mask",
    "is_placeholder",
    "label_line",
    "port_word",
    "prose_secret",
    "sigv4_key_id",
    "user_and_password",
    "yaml_tag",
]

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
        # Encodings: Buffer.from("accountKey", "base64"), key.encode("utf-8").
        *("base64", "base64url", "base32", "base16", "hex", "utf8", "utf-8", "utf16le", "ucs2"),
        *("ascii", "latin1", "binary"),
    }
)
# Words in a value that mark an example or a placeholder ("your_api_key_here") when the
# value has no digit.
_KEY_WORDS: Final = ("password", "passwd", "secret", "token", "apikey", "api_key", "api-key")
_PLACEHOLDER_START: Final = ("$", "%", "{", "<", "[", "#", "@")
# What a value starting with one of those is when it is a template's slot or a variable, not
# a password that happens to start with a symbol ("$3cr3t!", "%=hYg...", "@A&ySB..."):
# "${VAR}...", "$(cmd)", "$DB_PASSWORD...", "%(pw)s", "%PASSWORD%...", "%5d", "{{x}}",
# "{password}...", "<password...", "[REDACTED...", "@VAR@..." (a name in one case:
# "@PCOi89SJnmR@Z^z" is a password), "@password". (The rules do
# not even match a value starting "${", "$(", "%(", "%{", "{{", or "$", "%", "<", "[" and a
# letter.)
_SLOT: Final = re2.compile(
    r"\$[{(A-Za-z_]|%[({]|%[A-Za-z_][A-Za-z0-9_]*%(?:[^A-Za-z0-9]|\z)|%[A-Za-z_]+\z|%[-+ #0]{0,4}(?:[0-9]{0,3}\.[0-9]{0,3}|[0-9]{0,3})(?:hh|ll|[hlLqjzt])?(?:[A-Za-z]\z|[sdifFeEgGxXoucpaAr](?:[^A-Za-z0-9_]|\z))|\{\{|\{[A-Za-z_][A-Za-z0-9_.-]*\}|<[A-Za-z_/]|\[[A-Za-z_ ]"
    r"|@(?:[A-Z_][A-Z0-9_.]*|[a-z_][a-z0-9_.]*)@|@[A-Za-z_.]+\z"
)


# A documented example or a mask standing for a token: AWS's published example keys
# (AKIAIOSFODNN7EXAMPLE), "ghp_xxxx...", "sk-****", "AKIAXXXXXXXXXXXXXXXX".
_EXAMPLES: Final = ("example", "sample", "dummy", "placeholder")
_YOURS: Final = ("key", "token", "secret", "password")
_MASK_CHARS: Final = frozenset("xX*#.•0-_")


def is_mask(value: str) -> bool:
    """Tell whether a token-shaped value is a documented example or a mask, not a secret.

    A run of six of one mask character (``x``, ``X``, ``*``, ``0``, ...), which a random
    token holds with odds below one in a billion, or a word that says it is an example.
    """
    run, last = 0, ""
    for c in value:
        run = run + 1 if c == last else 1
        last = c
        if run >= 6 and c in _MASK_CHARS:
            return True
    low = value.lower()
    if any(w in low for w in _EXAMPLES):
        return True
    return "your" in low and any(w in low for w in _YOURS)


def _matches_text(pattern: re2._Regexp, value: str, full: bool) -> bool:
    """Match ``pattern`` at the start of ``value`` (or all of it); a lone surrogate, which
    RE2 cannot read, reads as "?"."""
    try:
        found = pattern.fullmatch(value) if full else pattern.match(value)
    except UnicodeEncodeError:
        value = value.encode("utf-8", "replace").decode("utf-8")
        found = pattern.fullmatch(value) if full else pattern.match(value)
    return found is not None


# The names of SASL mechanisms (an SMTP server's "250-AUTH PLAIN LOGIN CRAM-MD5", a client's
# "AUTH CRAM-MD5", Dovecot's auth_mechanisms) and the base64 of SMTP's AUTH LOGIN prompts
# ("Username:", "Password:"): no secrets (rule set 10).
_SASL: Final = re2.compile(
    r"(?i:plain|login|anonymous|external|gssapi|gss-spnego|ntlm|otp|skey|srp|x?oauth2?"
    r"|oauthbearer|kerberos_v[45]|(?:cram|digest|hmac)-(?:md5|sha-?[0-9]*)|scram-sha-?[0-9]+"
    r"(?:-plus)?|gs2-[a-z0-9-]+|eap-aes128(?:-plus)?|openid20|saml20|plain-clienttoken|apop)"
    r"|[VUdc](?:XNlcm5hbWU6|GFzc3dvcmQ6)"
)


def is_placeholder(value: str) -> bool:
    """Tell whether a value is a placeholder, a variable reference or a mask, not a secret."""
    low = value.lower()
    if low in _NOT_SECRETS or "redacted" in low:
        return True
    if is_pointer(value):
        return True
    mechanism = value.rpartition("=")[2]  # Dovecot's "mechanism=DIGEST-MD5" too
    if len(mechanism) <= 18 and _matches_text(_SASL, mechanism, full=True):
        return True  # a SASL mechanism's name, an SMTP prompt
    if value.startswith("#"):
        # "#{var}", "#REDACTED" are placeholders; "#0*QBbPX0m" is a password.
        digits = any(map(str.isdigit, value))
        return not (value[1:2] != "{" and digits and len(value) >= 8)
    if value.startswith(_PLACEHOLDER_START) and _matches_text(_SLOT, value, full=False):
        return not bracket_password(value)  # "<tango548!" opens like "<name>", left open
    if value.startswith("-") and not (
        len(value) >= 8 and value[1:2] != "-" and any(map(str.isdigit, value))
    ):
        return True  # a flag or a list item ("--verbose", "-"), not a token such as "-30_RLJr"
    if len(set(value)) == 1 or not value.strip("*xX•.-_ ") or "***" in value:
        return True  # "******", "xxxx-xxxx", "hf_***": masked for display
    return not any(map(str.isdigit, value)) and any(w in low for w in _KEY_WORDS)


def _is_code(value: str) -> bool:
    """Tell whether a bare (unquoted) value reads as code: a call, an index, a name."""
    if ("(" in value or "[" in value) and not bracket_password(value):
        return True  # getpass(), os.environ["X"], ENV['X']; not "(Kx9!aa7" (rule set 16)
    parts = value.split(".")
    if len(parts) > 1 and all(p.isidentifier() for p in parts):
        # settings.DB_PASSWORD, self._token, process.env.TOKEN; not a token that has a dot
        # (Vault's legacy "s." and 24 random characters: a long part with digits in it).
        return not any(len(p) >= 16 and any(map(str.isdigit, p)) for p in parts)
    if value.isidentifier() and not any(map(str.isdigit, value)):
        # user_password, hashedPassword, API_TOKEN: variables; "hunter" is left a secret.
        camel = any(a.islower() and b.isupper() for a, b in pairwise(value))
        return "_" in value or camel
    return False


# A name of words and a version number after it: a package, not a token.
_ARTIFACT: Final = re2.compile(
    r"[A-Za-z][a-z]+(?:[-_.][A-Za-z][a-z]+)*[-_:@]v?[0-9]+(?:\.[0-9]+)+(?:[-.+][A-Za-z0-9]+)*"
)


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
    if is_mask(value):
        return False
    if password_key:
        return True
    if not quoted and value.replace(".", "_").isidentifier() and wordy(value.rsplit(".", 1)[-1]):
        return False  # a type or a name: "private_key: Ed25519PrivateKey", "a.b.MLKEM768Key"
    if value.isascii() and _ARTIFACT.fullmatch(value) is not None:
        return False  # a package and its version: io.jsonwebtoken:jjwt-jackson-0.11.2
    # Tokens, secrets and keys are random: a digit, or a long mixed-case run. Names of
    # things ("send_message", "Operator") and counts ("max_tokens: 100000") are neither.
    if value.isdigit():
        return False
    if any(map(str.isdigit, value)):
        return True
    return len(value) >= 20 and "_" not in value and value.lower() != value


# The base64 of an SSH public key starts with its type's length and name.
_SSH_BLOBS: Final = ("AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh")
# Words that, right after "password" or "key", make the phrase about something else: "my
# password manager is 1Password", "the key length is 2048".
_NOT_THE_SECRET: Final = frozenset(
    {
        *("manager", "managers", "policy", "policies", "length", "reset", "hint", "field"),
        *("file", "files", "prompt", "strength", "rotation", "expiry", "expiration", "rule"),
        *("rules", "requirement", "requirements", "change", "changes", "store", "vault"),
        *("hash", "hashes", "salt", "format", "id", "ids", "name", "names", "size", "type"),
        *("count", "limit", "limits", "server", "endpoint", "url", "path", "version"),
    }
)

# Words before "key" that make it a key meant to be seen.
_PUBLIC: Final = frozenset({"public", "publishable", "pub", "host", "primary", "foreign", "sort"})

# Trailing punctuation of a sentence, not of a value, in prose.
_PROSE_TAIL: Final = ".,;:)]}>"


# An address or a URL's user: "@", then a domain ending in a name of letters, then the end, a
# path or a port ("ann@example.com", "user@github.com/org/repo"; "P@ss.word1" is none).
_ADDRESS: Final = re2.compile(r"[^@\s]*@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}(?:\.?\z|[/:?#])")


# An address as the user, ":" and a password ("ops@example.com:X"; not a port, not "://").
_ADDRESS_AND_PASSWORD: Final = re2.compile(
    r"[A-Za-z0-9._+-]{1,64}@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}:([^/:\s][^\s]{2,}[^0-9\s][^\s]*)"
)


def _after_address(value: str) -> str:
    """Return the password after an address as its user ("ops@example.com:X" -> "X"), or
    ``value`` as it is."""
    try:
        pair = _ADDRESS_AND_PASSWORD.fullmatch(value)
    except UnicodeEncodeError:  # a lone surrogate: no address RE2 can read
        return value
    return value if pair is None else str(pair.group(1))


def prose_value_end(value: str) -> str:
    """Return a prose value without the sentence punctuation after it ("is hunter2." -> "hunter2")."""
    return value.rstrip(_PROSE_TAIL)


@functools.lru_cache(maxsize=4096)
def accept_prose(value: str, password_word: bool, quoted: bool) -> bool:
    """Decide whether a value named in prose ("the password is X", "token X") is a secret.

    Prose names far more things than it hands out secrets, so this asks more than
    :func:`accept_value`: never a placeholder, code, a URL, a path or an address; after a word
    for a password, 6+ characters with a digit or a symbol (quoted: 4+ of anything), so "the
    password is stored in the vault" stays; after a word for a key or a token, 16+ characters
    of a random string: letters and digits, no run of words ("token_refresh_handler"), not an
    SSH public key's blob.

    Args:
        value: the value, without quotes and trailing sentence punctuation.
        password_word: the word before it names a password (password, pwd, passphrase, ...).
        quoted: the value was quoted or in backticks.
    """
    if is_placeholder(value) or "://" in value or not value.strip("|-:+="):
        return False  # a placeholder, a URL, a table's rule ("|------|------|")
    if value.startswith(("/", "./", "..")) and not slash_base64(value):
        return False  # a path, not base64 that starts with "/" ("/VqIoKZ...==")
    if value.startswith("~") and home_path(value):
        return False  # "~/notes/pw.txt", "~deploy": a home folder; "~8YD%UZX..." is none
    if password_word and "@" in value and ":" in value:
        value = _after_address(value)  # "creds: ops@example.com:X": an address, then X
    at_end = value.endswith("@") and not any(map(str.isdigit, value))
    if "@" in value and (_matches_text(_ADDRESS, value, full=False) or at_end):
        return False  # an address: "sent the password to ann@example.com", "anonymous@"
    if _is_code(value) and not quoted:
        return False
    has_digit = any(map(str.isdigit, value))
    if password_word:
        if not quoted and not has_digit:
            value = value.rstrip("?!")  # a question or an exclamation: "password please?"
        if quoted:
            return (len(value) >= 4 and not value.isalpha()) or len(value) >= 8
        return len(value) >= 6 and (
            has_digit or not value.replace("-", "").isalnum() or is_passphrase(value)
        )
    if len(value) < 16 or not has_digit or not any(map(str.isalpha, value)):
        return False
    hexadecimal = value[:2] in ("0x", "0X") and all(c in string.hexdigits for c in value[2:])
    if value.startswith(_SSH_BLOBS) or hexadecimal:
        return False  # an SSH public key, a number or a key id in hex
    if not quoted and wordy(value.rsplit(".", 1)[-1]):
        return False  # a type or a name: "private_key: Ed25519PrivateKey"
    # A name made of words ("refresh_token_v2_handler") has long letter runs between
    # separators; a random token has digits scattered through it.
    parts = [p for p in value.replace("-", "_").replace(".", "_").split("_") if p]
    return not all((p.isalpha() and not random_letters(p)) or p.isdigit() for p in parts)


def is_passphrase(value: str) -> bool:
    """Tell whether ``value`` is a passphrase of words joined by "-" ("correct-horse-battery",
    "blue-7-sky"): three parts or more, each a word of 3+ letters or a number of 1-4 digits,
    two words at least; not "state-of-the-art" (a short word), "x1-y2-z3" (an id's parts) or
    "case-sensitive" (two words)."""
    parts = value.split("-")
    words = [p for p in parts if p.isalpha() and p.isascii()]
    numbers = [p for p in parts if p.isdigit() and len(p) <= 4]
    return (
        len(parts) >= 3
        and len(words) >= 2
        and len(words) + len(numbers) == len(parts)
        and all(len(w) >= 3 for w in words)
    )


def phrase_ends(buf: bytes, start: int, value: str) -> bool:
    """Tell whether ``value`` at ``buf[start]``, when it reads as a passphrase, ends a word:
    the text's end, a space, a quote or a bracket, or sentence punctuation before one
    ("...-battery." but not "secret-stuff-here.txt"). Any other value: True."""
    if not is_passphrase(value.rsplit(":", 1)[-1]):
        return True
    end = start + len(value.encode("utf-8", "surrogatepass"))
    if end >= len(buf) or buf[end] in b" \t\r\n'\"`)]>":
        return True
    if cjk_at(buf, end):
        return True  # a script without spaces goes on (Japanese: "です")
    return buf[end] in b".,;:!?" and (end + 1 >= len(buf) or buf[end + 1] in b" \t\r\n'\"`)")


def prose_about_the_secret(before: str, gap: str) -> bool:
    """Tell whether the words around a key word still name the secret itself.

    "password for the VPN is" does; "password manager is", "key length is" and "publishable
    key" do not.

    Args:
        before: the text just before the key word (a few bytes: its last word counts).
        gap: the text between the key word and the value.
    """
    last = before.split()[-1:] if before[-1:].isspace() else []
    if last and last[0].lower().strip("(\"'`") in _PUBLIC:
        return False
    first = gap.strip(" \t:=->").split(None, 1)
    return not first or first[0].lower().strip(".,:") not in _NOT_THE_SECRET


# Fields of a form or a query: name=value&name=value, or one field whose name is a secret's.
_FIELD: Final = re2.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]-]*=")
_NEXT_FIELD: Final = re2.compile(r"&(?:amp;)?[A-Za-z_][A-Za-z0-9_.\[\]-]*=")
_SECRET_NAMES: Final = ("pass", "passwd", "password", "pwd", "pw", "token", "secret", "key", "auth")


def _is_form(value: str) -> bool:
    """Tell whether a prose value is a form's fields ("user=bob&password=V", "password=V")."""
    if "=" not in value or not _matches_text(_FIELD, value, full=False):
        return False
    name, _, rest = value.partition("=")
    if not rest.strip("=") or len(name) > 40:
        return False  # base64's padding ("dG9r...CI="), not a field
    if name.lower().endswith(_SECRET_NAMES):
        return True
    try:
        return _NEXT_FIELD.search(value) is not None
    except UnicodeEncodeError:
        return False


def prose_secret(
    before: str, gap: str, value: str, password_word: bool, quoted: bool
) -> str | None:
    """Return the secret a prose phrase hands out, or None when it names none.

    Args:
        before: the few characters before the key word.
        gap: the text between the key word and the value.
        value: the value as matched (a bare one may end in sentence punctuation).
        password_word: the key word names a password.
        quoted: the value was quoted or in backticks.

    Returns:
        The value without trailing sentence punctuation, when it is a secret.
    """
    if not quoted:
        # A string literal's escapes after the last word: "... will be forced.\\n".
        while value[-2:] in ("\\n", "\\r", "\\t"):
            value = value[:-2]
        value = prose_value_end(value)
    if not quoted and _is_form(value):
        return None  # "login password=V&remember=1": the assignment rule takes its fields
    if prose_about_the_secret(before, gap) and accept_prose(value, password_word, quoted):
        return value
    return None


# Words that follow "login" or "creds" in a sentence where no user follows ("login to db01",
# "creds for staging"): no user's name.
_NOT_A_USER: Final = frozenset(
    (
        *("to", "as", "at", "on", "in", "into", "for", "with", "from", "via", "by", "the"),
        *("a", "an", "is", "was", "are", "were", "and", "or", "of", "then", "again", "page"),
        *("screen", "form", "failed", "fails", "error", "shell", "prompt", "button"),
        *("server", "host", "node", "here", "there", "info", "details", "using", "please"),
        *("see", "check"),
        # Schemes and mail headers before "x:y@host" (rule set 13): "mailto:ann2024@x.org".
        *("mailto", "sip", "sips", "tel", "xmpp", "cid", "mid", "news", "urn", "data", "re"),
        *("cc", "bcc", "fwd", "sender", "reply-to", "message-id", "references", "http"),
        *("https", "ftp", "sftp", "ssh", "git", "file", "irc"),
    )
)
# A date, a number or a version: no password of a user's ("creds rotated 2024-01-05").
_NUMBERISH: Final = re2.compile(r"[0-9.:/-]+")


def user_and_password(user: str, password: str | None) -> bool:
    """Tell whether a user and a value after a word for credentials are a user and its
    password ("creds are ann / X"), not words of a sentence ("login to db01")."""
    name = user.strip("`'\"")
    quotes = user[:1] + user[-1:] if len(user) > len(name) else ""
    return bool(
        password
        and (not quotes or quotes[0] == quotes[1])  # 'approve", folder=folder)': code
        and name.lower() not in _NOT_A_USER
        and not _matches_text(_NUMBERISH, password, full=True)
        and not any(c in password for c in "()")  # a call's arguments, no password
    )


_LABEL_LONGEST: Final = 48  # bytes of a label's line before its key word
# Words a wrapped sentence may break after, which no label ends with.
_FUNCTION_WORDS: Final = frozenset(
    {b"the", b"a", b"an", b"in", b"on", b"to", b"of", b"and", b"or", b"with", b"your", b"my"}
)


def label_line(buf: bytes, ks: int, ke: int) -> bool:
    """Tell whether the key word at ``buf[ks:ke]`` (UTF-8) is a label's, alone on its line but
    for four words around it at most ("Password", "DB password", "> Your API key", "Password
    for db01"), not the end of a sentence wrapped there ("... you can reset the password",
    "password in the")."""
    start = max(ks - _LABEL_LONGEST, 0)
    line_start = buf.rfind(b"\n", start, ks) + 1
    if not line_start and start:
        return False  # a line too long for a label
    prefix = buf[line_start:ks].lstrip(b" \t>")
    if any(c in prefix for c in b",;\t|"):
        return False  # a table's header ("id,Client Secret"): its rows are tables.py's
    tail = buf[ke : buf.find(b"\n", ke)].split()
    words = prefix.split() + tail
    if tail and tail[-1].lower() in _FUNCTION_WORDS:
        return False  # "the password in the": a sentence goes on
    return len(words) <= 4 - (not tail) and not any(w.endswith((b".", b":")) for w in words)


def block_scalar_end(buf: bytes, vs: int, ve: int) -> int:
    """Return the end of a YAML block scalar's value that starts at ``vs`` in UTF-8 ``buf`` and
    whose first line ends at ``ve``: the lines after it indented at least as far belong to it."""
    indent = vs - (buf.rfind(b"\n", 0, vs) + 1)
    while buf[ve : ve + 1] == b"\n" or buf[ve : ve + 2] == b"\r\n":
        start = ve + (2 if buf[ve : ve + 1] == b"\r" else 1)
        end = buf.find(b"\n", start)
        end = len(buf) if end < 0 else end
        line = buf[start:end].rstrip(b"\r")
        if not line.strip() or len(line) - len(line.lstrip(b" \t")) < indent:
            break
        ve = start + len(line)
    return ve


def port_word(part: str) -> bool:
    """Tell whether the part before a '/' or '?' in a URL's user-info is a port's placeholder."""
    word = part.strip("{}<>[]").lower()
    if word in ("port", "portnumber", "port_number"):
        return True
    # A template's slot or a variable ("${PORT}", "<port>", "%(port)s"), not any short word
    # a mask's check would take: a one-letter first part of a password holding a '?'.
    return part[:1] in ("$", "{", "<", "%", "[", "#", "@") and is_placeholder(part)


def yaml_tag(buf: bytes, value: str, ve: int) -> bool:
    """Tell whether a bare ``value`` ending at ``ve`` is a YAML tag before a block scalar
    ("password: !vault |": the block is the value; an Ansible vault's is the vault rule's)."""
    if not value.startswith("!"):
        return False
    if value.lower() in _TAGS:
        return True  # a tag's name quoted in prose: '"password: !vault |" takes the block'

    # The block's indicator ends its line; "!X >> .env" is a password and a redirection.
    return _BLOCK_START.match(buf[ve : ve + 24].lstrip(b" \t")) is not None


# YAML tags that stand before a value (Ansible's, Home Assistant's, CloudFormation's, YAML's).
_TAGS: Final = frozenset({"!vault", "!secret", "!binary", "!!binary", "!!str", "!env_var"})
# A block scalar's header after a tag: "|" or ">", a chomping or an indentation indicator,
# then the line's end or a comment.
_BLOCK_START: Final = re2.compile(rb"[|>][-+0-9]{0,2}[ \t]*(?:\r?\n|#|\z)")


def sigv4_key_id(buf: bytes, vs: int, ve: int) -> list[tuple[int, int]]:
    """Return the span of the key id in an AWS Signature Version 4 credential at
    ``buf[vs:ve]`` ("KEYID/20260101/us-east-1/s3/aws4_request", perhaps after "Credential=",
    perhaps percent-encoded), or none for a placeholder or a marker; the scope stays."""
    start = buf.find(b"=", vs, ve) + 1 or vs
    slash = buf.find(b"/", start, ve)
    encoded = buf[start:ve].lower().find(b"%2f")
    cut = min(i for i in (slash, encoded + start if encoded >= 0 else -1, ve) if i >= 0)
    key_id = buf[start:cut].decode("utf-8", "replace")
    if cut - start < 6 or key_id.startswith("[secret:") or is_placeholder(key_id):
        return []  # too short for a key id, one of our markers, a placeholder
    return [(start, cut)]
