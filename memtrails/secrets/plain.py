"""Passwords that read like something else: one opening with a bracket, one of letters only.

A password may open with "(", "<" or "[" ("(Kx9!aa7", "<tango548!"): a placeholder or code
opening so closes it ("(optional)", "<your-password>", "[REDACTED]", "getpass()") or holds
no digit. A password of letters only ("calvin", "sunshine") is given in prose only where
the sentence ends with it and it is no word that says what a password is ("the password is
incorrect", "password: required").
"""

from __future__ import annotations

from itertools import pairwise
from typing import Final

import re2

__all__ = ["bracket_password", "cjk_at", "is_yaml_anchor", "letter_password"]

_CLOSER: Final = {"(": ")", "<": ">", "[": "]"}
# A version or a number after the bracket: "(v1.2.3", "[2024-01-05", "(10.0.0.7:5432".
_NUMBERISH: Final = re2.compile(r"v?[0-9][0-9.:/_-]*")


def bracket_password(value: str) -> bool:
    """Tell whether ``value`` is a password that opens with a bracket it leaves open: 7+
    characters, a digit and a letter, no space and no other opening bracket, not a version
    or a number ("(Kx9!aa7",
    "[Willow536?"; not "(optional)", "<redacted>", "[1]", "(v1.2.3")."""
    closer = _CLOSER.get(value[:1])
    if closer is None or len(value) < 7 or any(c.isspace() for c in value):
        return False
    if closer in value or any(c in "([{<" for c in value[1:]):
        return False  # closed, or code: "(keys[1][0]", "([a-z0-9]+"; "[mtw4IUjBL)" is none
    rest = value[1:].rstrip(".,;:!?")
    if not any(map(str.isdigit, rest)) or not any(map(str.isalpha, rest)):
        return False
    try:
        return _NUMBERISH.fullmatch(rest) is None
    except UnicodeEncodeError:  # a lone surrogate: no number RE2 can read
        return True


# Words that say what a password is, or where, not what it is ("the password is
# incorrect", "password: required", "my password is different"): kept as they are.
_PREDICATES: Final = frozenset(
    {
        *("correct", "incorrect", "secure", "insecure", "strong", "stronger", "weaker", "simple"),
        *("simpler", "complex", "random", "unique", "common", "obvious", "public", "private"),
        *("secret", "confidential", "sensitive", "visible", "invisible", "hidden", "blank"),
        *("empty", "unset", "unknown", "invalid", "valid", "expired", "required", "optional"),
        *("missing", "different", "changed", "locked", "disabled", "enabled", "active"),
        *("inactive", "protected", "longer", "shorter", "better", "easier", "harder", "safer"),
        *("there", "below", "above", "attached", "enclosed", "inside", "elsewhere", "nothing"),
        *("something", "anything", "everything", "whatever", "yours", "theirs", "please"),
        *("thanks", "again", "already", "today", "tomorrow", "yesterday", "later", "broken"),
        *("useless", "annoying", "stupid", "terrible", "horrible", "awful", "tricky", "default"),
        *("generic", "standard", "typical", "unchanged", "identical", "static", "dynamic"),
        *("current", "updated", "temporary", "permanent", "needed", "necessary", "leaked"),
        *("exposed", "shared", "reused", "plaintext", "cleartext", "mandatory", "internal"),
        *("personal", "original", "normal", "special", "critical", "official", "general"),
        *("universal", "external", "local", "global", "manual", "initial", "lowercase"),
        *("uppercase", "numeric", "alphanumeric", "case", "different", "okay", "fine", "right"),
        *("wrong", "bogus", "outdated", "stale", "compromised", "weak", "short", "long"),
        *("none", "null", "undefined", "redacted", "masked", "removed", "omitted", "hashed"),
        *("encrypted", "encoded", "stored", "saved", "written", "printed", "shown", "sent"),
        *("given", "taken", "known", "forgotten", "lost", "same", "similar", "unavailable"),
        *("available", "ignored", "accepted", "rejected", "optional", "needed", "pending"),
        *("password", "passwords", "passwd", "token", "tokens", "string", "text", "empty"),
        *("being", "still", "also", "actually", "probably", "definitely", "really", "always"),
        *("never", "usually", "somewhere", "nowhere", "here", "provided", "supplied", "set"),
        *("too", "very", "quite", "pretty", "mine", "ours", "theirs", "his", "hers", "their"),
        *("your", "our", "this", "that", "these", "those", "what", "which", "where", "when"),
        *("because", "unless", "until", "since", "while", "though", "although", "whether"),
        *("reset", "rotated", "revoked", "generated", "configured", "managed", "handled"),
        # Rule set 17: the same in the other languages whose word for a password hands out
        # one of letters only (German, French, Spanish, Portuguese, Italian, Dutch).
        *("falsch", "richtig", "korrekt", "ungueltig", "abgelaufen", "geheim", "leer"),
        *("sicher", "unsicher", "bekannt", "vergessen", "gesperrt", "erforderlich", "neu"),
        *("anders", "gleich", "hier", "unten", "oben", "incorrecte", "invalide", "expire"),
        *("oublie", "vide", "change", "requis", "obligatoire", "faux", "mauvais", "identique"),
        *("pareil", "nouveau", "perdu", "ici", "incorrecta", "incorrecto", "correcta"),
        *("correcto", "invalida", "invalido", "caducada", "olvidada", "vacia", "requerida"),
        *("obligatoria", "igual", "nueva", "diferente", "segura", "mala", "buena", "falsa"),
        *("errada", "errado", "incorreta", "incorreto", "correta", "correto", "vazia"),
        *("obrigatoria", "nova", "fraca", "forte", "sbagliata", "errata", "corretta"),
        *("scaduta", "vuota", "nuova", "uguale", "diversa", "debole", "sicura", "onjuist"),
        *("fout", "verkeerd", "juist", "geldig", "ongeldig", "leeg", "verlopen", "vereist"),
        *("nieuw", "zwak", "sterk", "veilig", "dieselbe", "derselbe", "lamisma", "elmismo"),
        *("modifie", "bloque", "reinitialise", "perime", "anders", "hetzelfde", "dezelfde"),
    }
)
# Parts of a name of a variable or a field (a field named "username" after "password:" in code).
_NAMES: Final = ("user", "name", "pass", "word", "login", "token", "secret", "key", "mail")
# Endings of participles, adjectives and adverbs ("rotated", "expiring", "guessable",
# "predictable", "insufficient"): a word that describes the password, no password.
_ENDINGS: Final = (
    "ed",
    "ing",
    "able",
    "ible",
    "ive",
    "ous",
    "ful",
    "less",
    "ent",
    "ant",
    "ary",
    "ory",
    "ally",
    "ness",
    "ment",
    "tion",
    "sion",
)


def letter_password(value: str) -> bool:
    """Tell whether ``value``, a run of ASCII letters that ends a sentence after a word for a
    password ("the password is calvin", "login pi/raspberry"), is that password: 6 to 32
    letters, no word that says what a password is or how ("incorrect", "required",
    "rotated", "different")."""
    low = value.lower()
    camel = any(a.islower() and b.isupper() for a, b in pairwise(value))
    return (
        not camel  # "hashedPassword", "newPass": a variable's name
        and 6 <= len(value) <= 32
        and value.isascii()
        and value.isalpha()
        and low not in _PREDICATES
        and not any(w in low for w in _NAMES)
        and not low.endswith(_ENDINGS)
    )


# Words for a password that may hand out one of letters only: English's, and (rule set 17)
# German's, French's, Spanish's, Portuguese's, Italian's and Dutch's, whose words for what
# a password is ("das Passwort ist falsch") are _PREDICATES too.
_ENGLISH_WORDS: Final = ("password", "passwd", "passphrase", "passcode", "pwd", "pw")
_PASSWORD_WORDS: Final = (
    *_ENGLISH_WORDS,
    *("passwort", "kennwort", "mot de passe", "mdp", "contraseña", "contrasena", "senha"),
    *("wachtwoord", "clave"),
    # Words of scripts whose words for what a password is are no ASCII letters: a value of
    # ASCII letters after them is a password ("пароль: sunflower").
    *("пароль", "密码", "密碼", "パスワード", "비밀번호"),
)
# The links between such a word and its value (English's first).
_ENGLISH_LINKS: Final = (":", "=", " is", " was", "->", "=>", "\uff1a")
_LINKS: Final = (
    *_ENGLISH_LINKS,
    *(" ist", " lautet", " est", " es", " é", " è", " e", " -", " \u2013", " \u2014"),
)
# Words for logging in, and users an administrator's account goes by, before "user/X".
_LOGIN_WORDS: Final = ("login", "logon", "log-on", "sign-in", "signin", "cred")
_ADMINS: Final = frozenset(
    {"root", "admin", "administrator", "sa", "postgres", "pi", "ubuntu", "guest", "sysadmin"}
)


# Pages and folders after "admin/" or "root/" ("login admin/settings", "root/projects"),
# and (rule set 17) what else "login X/Y" names: a sign-in's service, a page, a screen.
_PAGES: Final = frozenset(
    {
        *("google", "facebook", "github", "gitlab", "microsoft", "twitter", "apple", "amazon"),
        *("linkedin", "discord", "slack", "okta", "azure", "keycloak", "bitbucket", "outlook"),
        *("office", "signup", "register", "callback", "redirect", "index", "portal", "success"),
        *("failure", "error", "verify", "recover", "forgot", "welcome", "oauth", "logout"),
        *("page", "screen", "form", "flow", "dialog", "button", "route", "view", "modal"),
        *("window", "field", "endpoint", "module", "component", "service", "handler"),
        *("settings", "config", "configuration", "dashboard", "console", "profile", "panel"),
        *("accounts", "logout", "system", "security", "network", "status", "reports", "pages"),
        *("plugins", "themes", "options", "preferences", "advanced", "projects", "public"),
        *("images", "uploads", "backups", "private", "scripts", "modules", "content", "users"),
    }
)


# Participles of the other languages' verbs, which say what was done to a password, by
# the language its word or its link is in: Spanish's and Portuguese's ("cambiada",
# "errada"), Italian's ("scaduta"), German's and Dutch's (a prefix and "-t", "-d", "-en":
# "gesperrt", "veranderd"). French's and other scripts' lose their accents or letters in
# ASCII and are _PREDICATES.
_IBERIAN: Final = (("contraseña", "contrasena", "senha", "clave"), (" es", " é"))
_ITALIAN: Final = ((), (" è", " e"))
_GERMANIC: Final = (("passwort", "kennwort", "wachtwoord"), (" ist", " lautet", " is"))
_GERMANIC_PREFIXES: Final = ("ge", "ver", "be", "ont", "zer", "er", "ab", "aus", "zu")


def _participle(low: str, word: str, gap: str) -> bool:
    def speaks(language: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
        return word in language[0] or gap.endswith(language[1])

    stem = low.rstrip("s")
    if speaks(_IBERIAN) and stem.endswith(("ado", "ada", "ido", "ida")):
        return True
    if speaks(_ITALIAN) and stem.endswith(("ato", "ata", "ito", "ita", "uto", "uta")):
        return True
    germanic = word in _GERMANIC[0] or (word not in _ENGLISH_WORDS and gap.endswith(_GERMANIC[1]))
    return germanic and low.startswith(_GERMANIC_PREFIXES) and low.endswith(("d", "t", "en"))


def given_letters(key_word: str, gap: str, user: str, value: str) -> bool:
    """Tell whether a run of letters after a key word is a password handed out: after a
    word for a password and a link ("the password is calvin"), or as a
    user's password after a word for logging in ("login root/calvin", "creds are
    ann/sunshine"; a user other than an administrator's needs a link: "login ann/projects"
    stays).

    Args:
        key_word: the key word, as written.
        gap: the text between the key word and the user, or the value when there is none.
        user: the user before "/", or "".
        value: the letters.
    """
    if not letter_password(value):
        return False
    key = key_word.lower()
    link = gap.rstrip().lower().endswith((*_LINKS, " are", " were"))
    if not user:
        word = key.rstrip("s").replace("'", "")
        if _participle(value.lower(), word, gap.rstrip().lower()):
            return False  # "het wachtwoord is veranderd", "la contraseña es cambiada"
        return link and word in _PASSWORD_WORDS
    if value.lower() in _PAGES or user.lower() in _PAGES:
        return False  # "login admin/settings": a page of an admin's site
    # Rule set 17: any user's, unless the letters read as a folder's or a list's ("login
    # ann/projects"): "login ann/kangaroo" hands out a password as "login root/calvin" does.
    plural = value.lower().endswith("s")
    return key.startswith(_LOGIN_WORDS) and (link or user.lower() in _ADMINS or not plural)


# Words before "pass" that make it a ticket, not a password ("my boarding pass is gate-B12",
# "the season pass is summer-2024").
_TICKETS: Final = frozenset(
    {
        *("boarding", "bus", "season", "ski", "day", "week", "weekly", "month", "monthly"),
        *("annual", "train", "rail", "metro", "transit", "museum", "park", "parking", "gym"),
        *("festival", "press", "backstage", "visitor", "hall", "travel", "ferry", "lift"),
        *("membership", "event", "conference", "vip", "backstage", "stadium", "concert"),
        *("student", "senior", "family", "zoo", "theme", "wallet", "apple", "google"),
    }
)


def ticket_pass(before: str) -> bool:
    """Tell whether the word before "pass" (the end of ``before``) makes it a ticket or a
    card ("boarding pass", "season pass", "Wallet pass"), which no password is."""
    words = before.split()
    return before[-1:].isspace() and bool(words) and words[-1].lower().strip("(\"'`") in _TICKETS


# Words after "password for" that make the value no password of that thing: a user's or an
# account's name ("password for user ann2024"), or, last, a word the value is the object of
# ("password for accounts in v2.3.1", "password for root changed 2024X").
_USERS: Final = frozenset(
    {"user", "users", "account", "accounts", "login", "username", "id", "email", "member"}
)
_LAST: Final = frozenset(
    {
        *("in", "on", "at", "since", "from", "to", "of", "with", "by", "until", "after"),
        *("before", "is", "was", "are", "were", "be", "changed", "reset", "updated", "set"),
        *("rotated", "expires", "expired", "version", "release", "ticket", "issue", "the"),
        *("a", "an", "and", "or", "see", "use", "v", "build", "pr", "commit", "line", "page"),
    }
)
# A date, a number or a version: no password ("password for root changed 2024-01-05").
_DATED: Final = re2.compile(r"v?[0-9][0-9.:/_-]*")


def for_what(words: str, value: str) -> bool:
    """Tell whether ``words`` (what a password is for: "wifi", "the NAS") and ``value``
    after them read as that password ("password for the NAS Kx9!aa7")."""
    parts = [p.strip(".,:") for p in words.lower().split()]
    try:
        dated = _DATED.fullmatch(value.rstrip(".!")) is not None
    except UnicodeEncodeError:
        dated = False
    return (
        not dated and not _USERS.intersection(parts) and parts[-1:] != [] and parts[-1] not in _LAST
    )


# A character of the scripts written without spaces (as prose._CJK), in UTF-8.
_CJK_START: Final = re2.compile(
    r"[\x{3000}-\x{30FF}\x{3400}-\x{4DBF}\x{4E00}-\x{9FFF}\x{AC00}-\x{D7AF}]"
)


def cjk_at(buf: bytes, at: int) -> bool:
    """Tell whether a character of a script written without spaces starts at ``buf[at]``
    (where a value glued to such text ends: before "です")."""
    return at < len(buf) and buf[at] >= 0xE3 and _CJK_START.match(buf, at) is not None


# A YAML anchor's name (rule set 17).
_ANCHOR: Final = re2.compile(rb"&[A-Za-z0-9_.-]{1,64}")


def is_yaml_anchor(buf: bytes, value: str, ve: int) -> bool:
    """Tell whether a bare ``value`` ending at ``ve`` is a YAML anchor before the value it
    names ("password: &db_pw X"); a password starting with "&" alone is none."""
    raw = value.encode("utf-8", "surrogatepass")
    return (
        _ANCHOR.fullmatch(raw) is not None
        and buf[ve : ve + 1] in (b" ", b"\t", b"\n", b"\r")
        and buf[ve : ve + 64].strip() != b""
    )
