"""The checks of a match: what its rule's check decides it replaces, and where the scan resumes."""

from __future__ import annotations

from typing import Final

import re2

from . import values as known_values
from .assignment import assignment, bare_end
from .commands import Commands, flag_of, password_of
from .encoded import wrapped_kind
from .identifiers import (
    login_identifier,
    pass_phrase,
    public_jwk_member,
    reads_as_no_password,
    word_and_digits,
    word_and_number,
    words_then_number,
)
from .inner import Tokens, inner_spans, tokens_in
from .keys import accept_keyed, glued_key_start, is_random
from .passes import Spans, first_set, text_of
from .plain import for_what, given_letters, is_yaml_anchor, letter_password, ticket_pass
from .rule import Rule
from .shapes import has_digit_and_letter, is_basic_credential, rstrip_separators, shaped
from .spans import Span
from .values import is_mask, is_placeholder, label_line, phrase_ends, prose_secret
from .web import cookie_values
from .wrapped import jwt_end

__all__ = ["check_command", "check_match"]

_KEY_MATERIAL = re2.compile(r"[A-Za-z0-9+/]{16}")


# How far back of a match's end the scan may resume to read what the match swallowed: a
# bound, so that a megabyte of "k=v&k=v&..." is read once, not once per parameter.
_REREAD = 256


# A path's part in a value after "root/": another "/" or "\\", or a file's extension.
_PATH_PART = re2.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,4}\z")


# Words for a user and its password both: a value after one and then "/" is the user.
_PAIR_WORDS = (
    *(
        "cred",
        "login",
        "logon",
        "log-on",
        "sign-in",
        "signin",
        "zugangsdaten",
        "anmeldedaten",
        "identifiants",
        "credenciales",
    ),
    *("credenziali", "credenciais", "inloggegevens"),
)
# "/" and a password after a user: what stands there, up to a space or a quote.
_AFTER_USER = re2.compile(rb"[ \t]*/[ \t]*[`'\"]?([^\s`'\"]{1,128})")


def _password_after_user(buf: bytes, us: int, ue: int) -> tuple[int, int] | None:
    """Return the span of the password after ``buf[us:ue]`` and "/" ("creds: deploy01 / X",
    "login: svc_backup / X"): empty when what follows is no password, None when no "/"
    follows (the value is no user)."""
    m = _AFTER_USER.match(buf, ue, min(ue + 160, len(buf)))
    if m is None:
        return None
    s, e = m.span(1)
    password = prose_secret("", "", text_of(buf, s, e), True, False)
    if not known_values.user_and_password(text_of(buf, us, ue), password):
        return s, s
    if password is None or not phrase_ends(buf, s, password):
        return s, s
    return s, s + len(password.encode("utf-8", "surrogatepass"))


# A user's name before "/" and its password in one value ("Login for the router: ann/X").
_USER_NAME = re2.compile(r"[A-Za-z0-9._@+-]{1,64}")


def _user_kept(vs: int, value: str) -> tuple[int, str]:
    """Return where the password of a value read after a word for logging in starts, and
    the password: after its user and "/" ("ann/X" -> "X", rule set 16) when the part before
    is a user's name and the part after a password (letters only will do); else ``value``."""
    user, _, rest = value.partition("/")
    password = prose_secret("", "", rest, True, False) if rest else None
    password = password or (rest if letter_password(rest) else None)
    try:
        named = _USER_NAME.fullmatch(user) is not None
    except UnicodeEncodeError:
        named = False
    if password != rest or not named or not known_values.user_and_password(user, password):
        return vs, value
    return vs + len(user.encode("utf-8", "surrogatepass")) + 1, rest


# Wi-Fi security types, which a card's "Key:" may name instead of the key (rule set 17).
_SECURITY: Final = ("WPA", "WEP", "OPEN", "NONE", "AES", "TKIP", "SAE", "OWE")


def check_match(
    buf: bytes,
    rule: Rule,
    sp: Spans,
    g: dict[str, int],
    tokens: Tokens,
    commands: Commands | None = None,
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
        out.extend(assignment(buf, sp, g, rule.kind, tokens))
        if out:  # a block scalar's value may run past the match: resume after it
            resume = max(resume, out[-1][1])
        cut = bare_end(buf, sp, g)
        if 0 <= cut < sp[g["vbare"]][1] and resume == me and me - cut <= _REREAD:
            resume = cut  # "?key=V&page=2&$apiKey .= ...": the next parameter on its own
        # An accepted YAML block scalar's value runs over the lines after it, as far as they
        # go: that outcome read past the memo's window.
        bounded = not out or "block" not in g or sp[g["block"]][0] < 0
    elif check == "command":
        commands = commands or Commands(buf)
        word = commands.before(flag_of(sp, g)[0])
        out, resume, bounded = check_command(buf, sp, g, rule.kind, word, tokens)
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
            out = inner_spans(buf, vs, ve, rule.kind, tokens)
    elif check == "prose":
        vs, ve, group = first_set(
            sp, g, ("vq", "v", "vq2", "v2", "vl", "vl2", "vp", "vp2", "vw", "vf")
        )
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
            if group == "vf" and not for_what(text_of(buf, *sp[g["fw"]]), found_value or ""):
                found_value = None  # "password for user ann2024": no password given
            if group == "vw":  # letters only: "the password is calvin", "login pi/raspberry"
                us, ue = sp[g["wu"]]
                user = text_of(buf, us, ue) if us >= 0 else ""
                gap = text_of(buf, ke, us if us >= 0 else vs)
                letters = text_of(buf, vs, ve)
                found_value = None
                if (
                    given_letters(text_of(buf, ks, ke), gap, user, letters)
                    and not is_placeholder(letters)  # "newpassword", "tbd"
                    and known_values.prose_about_the_secret(words[0], gap)
                    and (not user or known_values.user_and_password(user, letters))
                ):
                    found_value = letters
            if group in ("vl", "vl2") and not label_line(buf, ks, ke):
                found_value = None  # a key word ending a line of prose, not a label
            user = text_of(buf, *first_set(sp, g, ("user", "user2"))[:2])
            if group in ("vp", "vp2") and not known_values.user_and_password(user, found_value):
                found_value = None  # "login to db01", "creds rotated 2024-01-05"
            bare = found_value if group in ("v", "vp", "vf") else None  # "login server01"
            key_word = text_of(buf, ks, ke).lower()
            # After a user ("login ann / X", the user read in the gap): its password.
            after_user = group == "vp" or "/" in words[1]
            if bare and login_identifier(key_word, bare, after_user):
                found_value = None
            elif (
                bare
                and key_word[:5] in ("pass ", "pass\t")
                and reads_as_no_password(bare)
                and not word_and_digits(bare)  # "the db pass is <word>-<digits>" goes
                and not pass_phrase(bare)  # a passphrase after "pass is"
            ):
                found_value = None  # "the bus pass is $45/month"
            elif bare and key_word[:5] in ("pass ", "pass\t") and ticket_pass(words[0]):
                found_value = None  # "my boarding pass is gate-B12": a ticket's (rule set 16)
            if found_value and not phrase_ends(buf, vs, found_value):
                found_value = None  # "the password file is notes-for-ann.txt"
            tag = found_value is not None and found_value.isascii()
            if tag and known_values.yaml_tag(buf, found_value or "", vs + len(found_value or "")):
                found_value = None
            if tag and is_yaml_anchor(buf, found_value or "", vs + len(found_value or "")):
                found_value = None  # "password: &db_pw X": the anchor's name, X the value
            if group == "v" and key_word.startswith(_PAIR_WORDS):
                pair = _password_after_user(buf, vs, ve)
                if pair is not None:  # "creds: deploy01 / X": the value was the user
                    bounded = False  # read past the memo's window
                    found_value = None
                    if pair[1] > pair[0]:
                        vs, ve = pair
                        found_value = text_of(buf, vs, ve)
                elif found_value and "/" in found_value:  # "login: ann/X": the user stays
                    vs, found_value = _user_kept(vs, found_value)
        if found_value is not None:
            ve = vs + len(found_value.encode("utf-8", "surrogatepass"))
            out = inner_spans(buf, vs, ve, rule.kind, tokens)
            resume = ve
        elif me - ms <= 256:  # a rejected phrase may hold the next one: look after its word
            resume = ke
        else:
            resume = ve
    elif check == "pair":  # "account ann / X", "log in with ann / X": the password after "/"
        vs, ve, group = first_set(sp, g, ("v", "v2"))
        password = prose_secret("", "", text_of(buf, vs, ve), True, False)
        login = "akey" not in g  # a verb for logging in names a password; "account" does not
        if (
            password
            and not login
            and reads_as_no_password(password)
            and not word_and_digits(password)  # "account ann / <word>-<digits>" goes
            and not (rule.name == "admin_pair" and words_then_number(password))
        ):
            password = None  # "account aws / us-east-1", "ssid HomeNet / WPA2-PSK"
        if password and not login and word_and_number(password):
            password = None  # "account billing / invoices2024": a folder, a report
        if password and not phrase_ends(buf, vs, password):
            password = None  # a file's name: "log in with ann / see-the-notes.txt"
        if password and rule.name == "wifi_card" and password.upper().startswith(_SECURITY):
            password = None  # "SSID: HomeNet / Key: WPA2-PSK": the security type
        if password and rule.name == "admin_pair" and _PATH_PART.search(password) is not None:
            password = None  # "root/lib/x86_64", "admin/settings_v2.py": a path
        user = text_of(buf, *first_set(sp, g, ("user", "user2"))[:2])
        if known_values.user_and_password(user, password):
            ve = vs + len((password or "").encode("utf-8", "surrogatepass"))
            out = inner_spans(buf, vs, ve, rule.kind, tokens)
        resume = ve
    elif check == "cookies":  # a cookie header's pairs: each one's name and value decide
        out, resume = cookie_values(buf, *sp[g["v"]], rule.kind), sp[g["v"]][1]
    elif check == "bearer":
        vs, ve = sp[g["v"]]
        ve = glued_key_start(buf, vs, ve)
        value = text_of(buf, vs, ve)
        if has_digit_and_letter(value) and not is_placeholder(value):
            out = inner_spans(buf, vs, ve, rule.kind, tokens)
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
            out = inner_spans(buf, vs, ve, rule.kind, tokens)
        if "user" in g and sp[g["user"]][0] >= 0:  # a key id as the user: s3://AKIA...:V@
            out = [*tokens_in(buf, *sp[g["user"]], tokens), *out]
        resume = ve
    elif check == "jwt":  # perhaps wrapped over lines: its signature ends as long as it is
        vs, ve = sp[g["v"]]
        ve = jwt_end(buf, vs, ve)
        if not is_mask(text_of(buf, vs, ve)):
            out.append((vs, ve, rule.kind))
        resume = ve
    elif check == "b64":
        vs, ve = sp[g["v"]]
        kind = wrapped_kind(buf[vs:ve], lambda b: list(tokens(b, 0, len(b))))
        if kind:
            out.append((vs, ve, kind))
        resume = ve
    elif check == "random_string":  # a quoted random string: a provider's kind if it is one
        vs, ve = sp[g["v"]]
        if shaped(buf[vs:ve], check) and not public_jwk_member(buf, vs - 1):
            # Up to the closing quote: the token rules read the byte after a token.
            found = tokens(buf, vs, min(ve + 1, len(buf)))
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


def check_command(
    buf: bytes, sp: Spans, g: dict[str, int], kind: str, word: int, tokens: Tokens
) -> tuple[list[Span], int, bool]:
    """Return the replacements for a command-line flag's match (see
    :func:`commands.password_of`), where to resume, and whether the outcome is bounded."""
    password, resume, bounded = password_of(buf, sp, g, word)
    out = [] if password is None else inner_spans(buf, *password, kind, tokens)
    return out, resume, bounded
