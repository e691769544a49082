"""The check of a ``key = value`` match: a secret's value, a provider token in it, or nothing."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import re2

from . import values as known_values
from .inner import Tokens, inner_spans, tokens_in
from .keys import accept_keyed, accept_query, is_named_key
from .passes import Spans, first_set, text_of
from .plain import is_yaml_anchor
from .shapes import is_basic_credential
from .spans import Span
from .values import block_scalar_end

__all__ = ["assignment", "bare_end"]

# Where a query parameter's value ends: the next "&name=" (HTML's "&amp;name=") or the
# fragment ("#"); a lone "&" may be part of an unencoded password. A form's field (a bare
# value anywhere else) ends at the next "&name=" too.
_NEXT_PARAMETER = re2.compile(rb"&(?:amp;)?[A-Za-z_][A-Za-z0-9_.\[\]-]*=|#")
_NEXT_FIELD = re2.compile(rb"&(?:amp;)?[A-Za-z_][A-Za-z0-9_.\[\]-]*=")


# A value that may be base64 (a Kubernetes Secret's data, a Helm value encoded once): whole
# groups of four, padded.
_BASE64 = re2.compile(r"(?:[A-Za-z0-9+/]{4}){2,64}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def _accept_wrapped(key: str, value: str) -> bool:
    """Tell whether ``value`` is the base64 of a secret stored under the name ``key``: it
    decodes to printable ASCII without spaces that :func:`keys.accept_keyed` takes as
    quoted (a Kubernetes Secret's "DB_PASSWORD: <base64>": the base64 of a password whose
    characters hold no digit reads as a camelCase name, which a password's value may not be)."""
    if not value.isascii() or _BASE64.fullmatch(value) is None:
        return False
    plain = base64.b64decode(value)
    if not plain.isascii() or not plain.decode("ascii").isprintable() or b" " in plain:
        return False
    return accept_keyed(key, plain.decode("ascii"), True)


def _in_query(buf: bytes, ks: int) -> bool:
    """Tell whether the key at ``ks`` is a URL query's parameter."""
    query = buf[ks - 1 : ks] in (b"?", b"&") or buf[max(ks - 5, 0) : ks] == b"&amp;"
    return query or (buf[ks - 1 : ks] == b"#" and buf[ks - 2 : ks - 1] not in b" \t\r\n")


_FLOW_READS = 256  # bytes before a key that _in_flow reads


def _in_flow(buf: bytes, ks: int) -> bool:
    """Tell whether the key at ``ks`` is inside a YAML or JSON flow mapping: a "{" before it
    on its line, not closed before it ("db: {user: app, password: X}")."""
    line = buf[max(ks - _FLOW_READS, 0) : ks].rpartition(b"\n")[2]
    return line.rfind(b"{") > line.rfind(b"}")


def bare_end(buf: bytes, sp: Spans, g: dict[str, int]) -> int:
    """Return where a match's bare value ends: at the next "&name=" (or a query's "#"),
    else at the match's end; -1 if the value is not bare. The scan resumes there too, so
    that the parameters and text glued after it are read on their own."""
    vs, ve = sp[g["vbare"]] if "vbare" in g else (-1, -1)
    if vs < 0:
        return -1
    ks = first_set(sp, g, ("key", "fkey", "skey"))[0]
    nxt = (_NEXT_PARAMETER if _in_query(buf, ks) else _NEXT_FIELD).search(buf, vs, ve)
    return ve if nxt is None else nxt.start()


def assignment(
    buf: bytes, sp: Spans, g: dict[str, int], kind: str, tokens: Tokens
) -> Iterator[Span]:
    """Yield the replacements for one ``key = value`` match (see :func:`keys.accept_keyed`)."""
    vs, ve, group = first_set(sp, g, ("vdq", "vsq", "vbt", "vesc", "vbare"))
    ks, ke, _ = first_set(sp, g, ("key", "fkey", "skey"))
    if buf[max(ks - 3, 0) : ks] == b"://":
        return  # the user of scheme://user:pass@host: the url-password rule's business
    if buf[ks - 1 : ke + 1] == b"[secret:":
        return  # one of our own markers: scrubbing scrubbed text must find nothing
    key = buf[ks:ke].lower()
    if "call" in g and sp[g["call"]][0] >= 0 and not is_named_key(text_of(buf, ks, ke)):
        return  # get_key("..."), sense_key("..."): a key read, not a secret set
    if (
        group in ("vdq", "vsq")
        and buf[ks - 1 : ks] == buf[vs - 1 : vs]
        and buf[ke : ke + 1] != buf[vs - 1 : vs]
    ):
        return  # "Password:","...": the value's quote closes the string the key is in
    query = _in_query(buf, ks)
    if group == "vbare":  # a URL's query, a form: the value ends at the next parameter
        ve = bare_end(buf, sp, g)
    value = text_of(buf, vs, ve)
    if group == "vbare":
        # Prose punctuation after a bare value is not part of it.
        stripped = value.rstrip(".)")
        if stripped.endswith("}") and "{" not in stripped and _in_flow(buf, ks):
            stripped = stripped[:-1]  # "db: {user: app, password: X}": the mapping's end
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
        if known_values.yaml_tag(buf, value, ve) or is_yaml_anchor(buf, value, ve):
            return
        scheme = buf[sp[g["scheme"]][0] : sp[g["scheme"]][1]].lower()
    else:
        # A quoted value may carry its own auth scheme: "Bearer abc".
        head, _, rest = value.partition(" ")
        scheme = b""
        if rest and head.lower() in ("bearer", "basic", "token", "bot"):
            vs += len(head) + 1
            value = rest
            scheme = head.lower().encode()
    if scheme == b"aws4-hmac-sha256" or value.lower().endswith(
        ("/aws4_request", "%2faws4_request")
    ):
        # AWS Signature Version 4: its credential is a key id and a scope (date, region,
        # service), the signature after it is the token rules'; only the key id is secret.
        found = list(tokens_in(buf, vs, ve, tokens))
        yield from found or [(*span, kind) for span in known_values.sigv4_key_id(buf, vs, ve)]
    elif scheme == b"basic" and is_basic_credential(value.encode()):
        yield (vs, ve, "basic-auth")
    elif (accept_query if query else accept_keyed)(text_of(buf, ks, ke), value, group != "vbare"):
        if group == "vbare" and sp[g["block"]][0] >= 0:
            ve = block_scalar_end(buf, vs, ve)
        yield from inner_spans(buf, vs, ve, kind, tokens)
    elif not query and _accept_wrapped(text_of(buf, ks, ke), value):
        yield (vs, ve, kind)  # a Kubernetes Secret's data: the value's base64
    else:
        # Not a secret, but it may still hold a provider token: scan it (once).
        yield from tokens_in(buf, vs, ve, tokens)
