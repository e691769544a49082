"""The scanner: four RE2 passes over a text's UTF-8 bytes, the checks of what they find, its replacement."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any, Final

import re2

from . import values as known_values
from .commands import Commands, flag_of, password_of
from .copies import Values, copy_spans, values_of
from .encoded import encoded_spans, wrapped_kind
from .keys import KEY_NAME, accept_keyed, accept_query, is_named_key, is_random
from .passes import UNANCHORED, Pass, Spans, around, compile_pass, first_set, parse, text_of
from .pem import pem_middles, pem_tails
from .rule import Rule
from .rules import RULES
from .shapes import (
    has_digit_and_letter,
    is_basic_credential,
    pem_groups,
    rstrip_separators,
    shaped,
)
from .spans import UNKNOWN, Span, merge, replace_spans
from .tables import table_values
from .values import block_scalar_end, is_mask, is_placeholder, label_line, prose_secret
from .web import cookie_values
from .wrapped import jwt_end

__all__ = [
    "KEY_NAME",
    "find_spans",
    "inner_spans",
    "replace_spans",
    "scrub_found",
    "scrub_text",
]


def _compile(rules: tuple[Rule, ...], public: bool = False) -> Pass:
    """Compile ``rules`` into one pass (``public``: with re2's public API only)."""
    return compile_pass(rules, {"pem": pem_groups}, public)


# Several passes, not one: RE2's DFA builds a state per combination of live partial matches,
# and the assignment rules (a key of any identifier) combined with the URL rule (a scheme of
# any word) multiply into so many states that one combined pass ran at ~20 MB/s; the key
# names of XML elements and the flags of command lines did the same to the assignment pass
# (360 -> 95 MB/s), so they scan on their own. The token pass also runs inside assignment and
# URL-password values, so that "token: ghp_..." is counted as a github-token, not a password.
_TOKENS = _compile(tuple(r for r in RULES if r.scan == "tokens"))
_ASSIGNMENTS = _compile(tuple(r for r in RULES if r.scan == "assignments"))
_HEADERS = _compile(tuple(r for r in RULES if r.scan == "headers"))
# Command-line flags on their own: a flag with no command before it skips the rest of its
# line up to the next command word, which is safe only where no other rule can match there.
_COMMAND_FLAGS = _compile(tuple(r for r in RULES if r.scan == "commands"))
# Tokens of services no rule names, on their own: their prefixes are any word, which in the
# token pass multiplied its DFA's states (232 -> 130 MB/s), and a value's kind says more.
_UNKNOWN_TOKENS = _compile(tuple(r for r in RULES if r.scan == "unknown"))
_KEY_MATERIAL = re2.compile(r"[A-Za-z0-9+/]{16}")
# Where a query parameter's value ends: the next "&name=" (HTML's "&amp;name=") or the
# fragment ("#"); a lone "&" may be part of an unencoded password. A form's field (a bare
# value anywhere else) ends at the next "&name=" too.
_NEXT_PARAMETER = re2.compile(rb"&(?:amp;)?[A-Za-z_][A-Za-z0-9_.\[\]-]*=|#")
_NEXT_FIELD = re2.compile(rb"&(?:amp;)?[A-Za-z_][A-Za-z0-9_.\[\]-]*=")


def _tokens_in(buf: bytes, start: int, end: int) -> Iterator[Span]:
    """Run the token pass over a value, unless it is too short to hold any token."""
    # The shortest token ("xoxb-" + 10) has 15 bytes; a URL password needs "://". From one
    # byte before: the jwt rule reads the character before a token.
    if end - start >= 15 or b"://" in buf[start:end]:
        for s, e, kind in _matches(_TOKENS, buf, max(start - 1, 0), end):
            yield (max(s, start), e, kind)


def inner_spans(buf: bytes, start: int, end: int, kind: str) -> list[Span]:
    """Return the replacements inside an accepted value [start, end).

    Provider tokens inside it keep their own kinds when they cover the value (all but a few
    characters of quoting or escapes); otherwise the whole value becomes one ``kind``.
    """
    # The kind of a token of no known service says less than the value's own kind.
    spans = [span for span in _tokens_in(buf, start, end) if span[2] != UNKNOWN]
    covered = sum(e - s for s, e, _ in spans)
    if spans and (end - start) - covered <= 3:
        return spans
    return [(start, end, kind)]


# How far each check reads around its match (bytes before, after), on top of the byte on
# either side that RE2's assertions read: what the outcome memo of _matches keys on. A check
# not listed here is never remembered, nor is an outcome for which _check says it read
# further. A check that starts reading further must say so here. The command rule's check
# reads the nearest command word before the flag on its line (commands.Commands): its outcome is
# remembered with that command instead (see _matches).
_READS: Final = {
    "": (0, 0),  # the value group, or the span kept as it is
    "alnum": (0, 0),
    "mixed": (0, 0),
    "aws": (0, 0),
    "random": (0, 0),
    "random_string": (0, 0),
    "b64": (0, 0),
    "jwt": (0, 0),
    "pem": (0, 0),
    "basic": (0, 0),
    "cookies": (0, 0),
    # inner_spans runs the token pass from one byte before the value, and RE2 reads one more
    # before that: inside the match, or its shape, since these rules' values never start
    # the match (a key, a scheme word or a URL's user comes first).
    "keyed": (0, 0),
    "bearer": (0, 0),
    "url": (0, 0),
    "assignment": (3, 24),  # "://" before the key, the word after a bare value
    "prose": (48, 24),  # the words before the key word, a label's line, a YAML tag's block
}
# Per check, the bytes around a match its outcome is remembered by: what it reads, and at
# least the byte on either side that RE2's assertions read (the match's shape, below).
_WINDOWS: Final = {check: (max(1, b), max(1, a)) for check, (b, a) in _READS.items()}
# Those that read past the shape: their outcomes go to the second memo.
_WIDE: Final = {check: window for check, window in _WINDOWS.items() if window != (1, 1)}
_MEMO_LONGEST: Final = 1024  # longer matches are not remembered
_MEMO_SIZE: Final = 4096  # different matches remembered per text and memo (then forgotten)


def _matches(compiled: Pass, buf: bytes, start: int, end: int) -> Iterator[Span]:
    """Yield the replacements in ``buf[start:end]``, in order and without overlaps.

    Memos, per text, spare the work on a match seen before. Its rule and groups depend on its
    bytes and the byte on either side (all that RE2's assertions read): its *shape*. Its
    check's outcome depends on the bytes around it as far as the check reads (see _READS):
    for most token rules no further than the shape, so the shape's memo holds it too; for the
    others, a second memo keyed by the rule and its window; for the command rule, by the
    shape and the command found on the flag's line. Near-misses repeated a thousand times
    cost one parse and one check, not a thousand, whatever stands between them.
    """
    pos = start
    size = len(buf)
    # shape -> [rule, its groups' spans relative to the match start, the check's outcome
    # when the check reads no further than the shape (else None)]
    shapes: dict[Any, list[Any]] = {}
    outcomes: dict[Any, tuple[tuple[Span, ...], int]] = {}
    commands = Commands(buf)  # the command words of the text's lines, as flags need them
    match = compiled.find.Match  # one RE2 call per match: this loop is the scan's hot path
    while pos < end:
        ((ms, me),) = match(UNANCHORED, buf, pos, end)
        if ms < 0:
            return
        if me - ms > _MEMO_LONGEST:
            entry, long = parse(compiled, buf, ms, me)
            out, resume, _ = _check(buf, entry.rule, long, entry.groups, commands)
            yield from out
            pos = max(resume, pos + 1)
            continue
        shape = buf[ms - 1 : me + 1] if ms and me < size else around(buf, ms, me, 1, 1)
        known = shapes.get(shape)
        sp: Spans | None = None
        if known is None:
            entry, parsed = parse(compiled, buf, ms, me)
            sp = parsed
            if len(shapes) >= _MEMO_SIZE:
                shapes.clear()
            known = [entry, tuple([(s - ms, e - ms) for s, e in parsed]), None]
            shapes[shape] = known
        elif known[2] is not None:
            relative, resume = known[2]
            for s, e, kind in relative:
                yield (s + ms, e + ms, kind)
            resume += ms
            pos = resume if resume > pos else pos + 1
            continue
        else:
            entry = known[0]
        check = entry.rule.check
        key: Any = None
        command = 0
        if check == "command":
            command = commands.before(ms + flag_of(known[1], entry.groups)[0])
            if command:  # else the check reads on to the next command: not remembered
                key = (entry.index, shape, command)
        elif (wide := _WIDE.get(check)) is not None:
            key = (entry.index, around(buf, ms, me, *wide))
        if key is not None:
            hit = outcomes.get(key)
            if hit is not None:
                relative, resume = hit
                for s, e, kind in relative:
                    yield (s + ms, e + ms, kind)
                resume += ms
                if command and not relative:
                    resume = commands.skip(resume, ms)
                pos = resume if resume > pos else pos + 1
                continue
        if sp is None:
            sp = [(s + ms, e + ms) if s >= 0 else (-1, -1) for s, e in known[1]]
        if check == "command":
            out, resume, bounded = _command(buf, sp, entry.groups, entry.rule.kind, command)
        else:
            out, resume, bounded = _check(buf, entry.rule, sp, entry.groups)
        yield from out
        if bounded and (key is not None or check in _WINDOWS):
            # Tuples of numbers and strings: the garbage collector stops tracking them.
            outcome = tuple([(s - ms, e - ms, kind) for s, e, kind in out]), resume - ms
            if key is None:
                known[2] = outcome
            else:
                if len(outcomes) >= _MEMO_SIZE:
                    outcomes.clear()
                outcomes[key] = outcome
        if command and not out:
            resume = commands.skip(resume, ms)
        pos = max(resume, pos + 1)


def _check(
    buf: bytes, rule: Rule, sp: Spans, g: dict[str, int], commands: Commands | None = None
) -> tuple[list[Span], int, bool]:
    """Return the replacements for one match of ``rule`` (its groups' spans ``sp``), where
    the scan resumes, and whether the check read no further than its _READS say."""
    ms, me = sp[0]
    resume = me
    bounded = True
    check = rule.check
    out: list[Span] = []
    if not rule.kind:  # a span to keep as it is
        out.append((ms, me, ""))
    elif check == "pem":
        body_s, body_e = sp[g["body"]]
        end_s, end_e = sp[g["end"]]
        if _KEY_MATERIAL.search(buf, body_s, body_e) is not None:
            stop = end_e if end_s >= 0 else rstrip_separators(buf, body_s, body_e)
            out.append((ms, stop, rule.kind))
            resume = stop
        else:  # a header without key material ("-----BEGIN ... KEY-----\n...")
            resume = sp[g["hdr"]][1]
    elif check == "assignment":
        out.extend(_assignment(buf, sp, g, rule.kind))
        if out:  # a block scalar's value may run past the match: resume after it
            resume = max(resume, out[-1][1])
        # An accepted YAML block scalar's value runs over the lines after it, as far as they
        # go: that outcome read past the memo's window.
        bounded = not out or "block" not in g or sp[g["block"]][0] < 0
    elif check == "command":
        commands = commands or Commands(buf)
        out, resume, bounded = _command(buf, sp, g, rule.kind, commands.before(flag_of(sp, g)[0]))
    elif check == "keyed":
        vs, ve, _ = first_set(sp, g, ("v", "v2", "v3"))
        key_name = text_of(buf, *first_set(sp, g, ("key", "key2"))[:2])
        value = text_of(buf, vs, ve)
        listed = "more" in g and sp[g["more"]][0] >= 0 and value.isidentifier()
        json_key = "colon" in g and sp[g["colon"]][0] >= 0  # "DB_PASSWORD", "valueFrom": {
        # 'pass', 'return', 'match': a list of words, not a name and its password.
        if (
            not json_key
            and not (listed and not any(map(str.isdigit, value)))
            and accept_keyed(key_name, value, True)
        ):
            out = inner_spans(buf, vs, ve, rule.kind)
    elif check == "prose":
        vs, ve, group = first_set(sp, g, ("vq", "v", "vq2", "v2", "vl", "vl2", "vp", "vp2"))
        pkey, tkey = sp[g["pkey"]], sp[g["tkey"]]
        ks, ke = pkey if pkey[0] >= 0 else tkey
        words = (text_of(buf, max(ks - 16, 0), ks), text_of(buf, ke, vs))
        found_value = None
        quoted = group in ("vq", "vq2", "vp2")
        # Not one of our own markers, nor a key word inside a string that the value's quote
        # closes ('"Password:","Remember me"': a UI label and the next one).
        if buf[ks - 1 : ke + 1] != b"[secret:" and not (
            quoted and buf[ks - 1 : ks] == buf[vs - 1 : vs] and buf[vs - 1] in b"\"'`"
        ):
            found_value = prose_secret(*words, text_of(buf, vs, ve), pkey[0] >= 0, quoted)
            if group in ("vl", "vl2") and not label_line(buf, ks, ke):
                found_value = None  # a key word ending a line of prose, not a label
            user = text_of(buf, *first_set(sp, g, ("user", "user2"))[:2])
            if group in ("vp", "vp2") and not known_values.user_and_password(user, found_value):
                found_value = None  # "login to db01", "creds rotated 2024-01-05"
            tag = found_value is not None and found_value.isascii()
            if tag and known_values.yaml_tag(buf, found_value or "", vs + len(found_value or "")):
                found_value = None
        if found_value is not None:
            ve = vs + len(found_value.encode("utf-8", "surrogatepass"))
            out = inner_spans(buf, vs, ve, rule.kind)
            resume = ve
        elif me - ms <= 256:  # a rejected phrase may hold the next one: look after its word
            resume = ke
        else:
            resume = ve
    elif check == "cookies":  # a cookie header's pairs: each one's name and value decide
        out, resume = cookie_values(buf, *sp[g["v"]], rule.kind), sp[g["v"]][1]
    elif check == "bearer":
        vs, ve = sp[g["v"]]
        value = text_of(buf, vs, ve)
        if has_digit_and_letter(value) and not is_placeholder(value):
            out = inner_spans(buf, vs, ve, rule.kind)
        resume = ve
    elif check == "basic":
        vs, ve = sp[g["v"]]
        raw = buf[vs:ve]
        if len(raw.rstrip(b"=")) >= 6 and is_basic_credential(raw):
            out.append((vs, ve, rule.kind))
        resume = ve
    elif check == "url":  # a URL's password, a command's: any value but a placeholder
        vs, ve, group = first_set(sp, g, ("v", "v2", "v3", "v4", "v5", "v6", "vu", "vm"))
        value = text_of(buf, vs, ve)
        # A token alone as the user: random (digits, both cases), not an id in hex.
        # "vm": both cases will do (SMTP's AUTH PLAIN base64, not "AUTH PLAIN capability").
        mixed = group not in ("vu", "vm") or shaped(buf[vs:ve], "mixed")
        random = mixed and (group != "vu" or is_random(value, False))
        if group == "v6":  # scheme://host:PORT/path@...: a placeholder's port, no password
            random = not known_values.port_word(value.replace("?", "/").split("/", 1)[0])
        if random and not is_placeholder(value):
            out = inner_spans(buf, vs, ve, rule.kind)
        if "user" in g and sp[g["user"]][0] >= 0:  # a key id as the user: s3://AKIA...:V@
            out = [*_tokens_in(buf, *sp[g["user"]]), *out]
        resume = ve
    elif check == "jwt":  # perhaps wrapped over lines: its signature ends as long as it is
        vs, ve = sp[g["v"]]
        ve = jwt_end(buf, vs, ve)
        if not is_mask(text_of(buf, vs, ve)):
            out.append((vs, ve, rule.kind))
        resume = ve
    elif check == "b64":
        vs, ve = sp[g["v"]]
        kind = wrapped_kind(buf[vs:ve], lambda b: list(_matches(_TOKENS, b, 0, len(b))))
        if kind:
            out.append((vs, ve, kind))
        resume = ve
    elif check == "random_string":  # a quoted random string: a provider's kind if it is one
        vs, ve = sp[g["v"]]
        if shaped(buf[vs:ve], check):
            # Up to the closing quote: the token rules read the byte after a token.
            found = _matches(_TOKENS, buf, vs, min(ve + 1, len(buf)))
            inner = [span for span in found if span[2] != rule.kind and span[1] <= ve]
            covered = sum(e - s for s, e, _ in inner)
            out = inner if inner and covered >= ve - vs - 3 else [(vs, ve, rule.kind)]
            resume = ve
        else:  # the provider rules may still match inside the quotes (from the quote on)
            resume = vs - 1
    else:  # a provider token: its value group ("v", or "v2", "v3" for other shapes)
        vs, ve, _ = first_set(sp, g, ("v", "v2", "v3"))
        token = buf[vs:ve]
        if (not check or shaped(token, check)) and not is_mask(token.decode("utf-8", "replace")):
            out.append((vs, ve, rule.kind))
            resume = ve
            if "pair" in g and sp[g["pair"]][0] >= 0:  # an AWS secret key after its key id
                out.append((*sp[g["pair"]], "aws-secret-key"))
                resume = sp[g["pair"]][1]
        elif check == "aws":  # a short match: look again one byte on
            resume = ms + 1
        else:
            resume = ve
    return out, resume, bounded


def _command(
    buf: bytes, sp: Spans, g: dict[str, int], kind: str, word: int
) -> tuple[list[Span], int, bool]:
    """Return the replacements for a command-line flag's match (see
    :func:`commands.password_of`), where to resume, and whether the outcome is bounded."""
    password, resume, bounded = password_of(buf, sp, g, word)
    return ([] if password is None else inner_spans(buf, *password, kind)), resume, bounded


def _assignment(buf: bytes, sp: Spans, g: dict[str, int], kind: str) -> Iterator[Span]:
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
    query = buf[ks - 1 : ks] in (b"?", b"&") or buf[max(ks - 5, 0) : ks] == b"&amp;"
    query = query or (buf[ks - 1 : ks] == b"#" and buf[ks - 2 : ks - 1] not in b" \t\r\n")
    if group == "vbare":  # a URL's query, a form: the value ends at the next parameter
        nxt = (_NEXT_PARAMETER if query else _NEXT_FIELD).search(buf, vs, ve)
        ve = ve if nxt is None else nxt.start()
    value = text_of(buf, vs, ve)
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
        if known_values.yaml_tag(buf, value, ve):
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
        found = list(_tokens_in(buf, vs, ve))
        yield from found or [(*span, kind) for span in known_values.sigv4_key_id(buf, vs, ve)]
    elif scheme == b"basic" and is_basic_credential(value.encode()):
        yield (vs, ve, "basic-auth")
    elif (accept_query if query else accept_keyed)(text_of(buf, ks, ke), value, group != "vbare"):
        if group == "vbare" and sp[g["block"]][0] >= 0:
            ve = block_scalar_end(buf, vs, ve)
        yield from inner_spans(buf, vs, ve, kind)
    else:
        # Not a secret, but it may still hold a provider token: scan it (once).
        yield from _tokens_in(buf, vs, ve)


def find_spans(buf: bytes) -> list[tuple[int, int, str]]:
    """Return what :func:`scrub_text` replaces in UTF-8 ``buf``: (start, end, kind), in order.

    A kind of ``""`` marks a span kept as it is (a base64 data URI). Secrets in encoded
    text (percent-encoding, base64) are found too: see encoded.py.
    """
    spans = merge(
        list(_matches(_TOKENS, buf, 0, len(buf))),
        list(_matches(_ASSIGNMENTS, buf, 0, len(buf)))
        + list(_matches(_HEADERS, buf, 0, len(buf)))
        + list(_matches(_COMMAND_FLAGS, buf, 0, len(buf)))
        + list(_matches(_UNKNOWN_TOKENS, buf, 0, len(buf)))
        + [span for s, e in table_values(buf) for span in inner_spans(buf, s, e, "password")]
        + pem_tails(buf)
        + pem_middles(buf),
    )
    return merge(spans, encoded_spans(buf, spans, find_spans))


def scrub_found(text: str, known: Values | None = None) -> tuple[str, Counter[str], Values]:
    """Scrub ``text`` as :func:`scrub_text` does, and also replace every copy of ``known``.

    Returns:
        The scrubbed text (``text`` itself when nothing was replaced), the replacements per
        kind, and the secrets found in ``text`` itself (bytes -> kind), for the caller to
        look for in the other strings of the same record.
    """
    counts: Counter[str] = Counter()
    if not text:
        return text, counts, {}
    # Work on UTF-8 bytes: the scan can restart at any offset without re-encoding the text
    # (re2's str API re-encodes on every call). surrogatepass keeps lone surrogates intact.
    buf = text.encode("utf-8", "surrogatepass")
    spans = find_spans(buf)
    found = values_of(buf, spans)
    wanted = {**known, **found} if known else found
    if wanted:
        # Every copy of a secret goes, not only the one whose context gave it away.
        spans = merge(spans, copy_spans(buf, wanted, spans))
    out = replace_spans(buf, iter(spans), counts)
    if out is None:
        return text, counts, found
    return out.decode("utf-8", "surrogatepass"), counts, found


def scrub_text(text: str) -> tuple[str, Counter[str]]:
    """Replace the secrets in ``text`` with typed markers.

    Every copy of a value found as a secret is replaced, wherever it stands in the text.

    Args:
        text: any text: a mail body, a chat message, a config file, a diff.

    Returns:
        The scrubbed text (``text`` itself when nothing was found) and the number of
        replacements per kind.

    Example:
        >>> scrub_text("export GITHUB_TOKEN=ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8")
        ('export GITHUB_TOKEN=[secret:github-token]', Counter({'github-token': 1}))
    """
    clean, counts, _ = scrub_found(text)
    return clean, counts
