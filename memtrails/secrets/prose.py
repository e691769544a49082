"""The prose rule's pattern: a word for a password or a key, a link, then the value."""

from __future__ import annotations

from .pieces import PROSE_QUOTED, value_of_class

__all__ = ["PROSE"]

# Prose: a word that names a password or a key, then the value, with no separator of an
# assignment: "the password is hunter2!", "my password for the VPN is ...", "pwd X",
# "Datadog API key: ...", "use this token for staging:" and the value on the next (quoted)
# line, "credentials: ann / X", "| password | X |". Up to four words (digits, paths,
# addresses too) may stand between the word and its link: "is", "was", "be", "to", "as" (and
# "ist", "est", "es"), ":", " =", "->", an arrow, a dash, a table's "|". The value may be
# quoted or in backticks. Its check (values.prose_secret) asks much more of it than an
# assignment's: a password needs a digit or a symbol, a key 16+ random characters.
# (\b is ASCII's word boundary: the words in other scripts go without it.)
PW_WORDS = (
    r"(?P<pkey>\b(?i:passw(?:or)?ds?|passphrases?|passcodes?|pwd|pw|credentials?|creds|login"
    r"|passwort|kennwort|wachtwoord|senha|contrase(?:n|ñ)a|mot de passe|mdp|hasło|heslo"
    r"|lösenord|passord|adgangskode|salasana|jelszó|geslo|lozinka|kata sandi|mật khẩu)"
    r"|(?i:пароль|şifre|κωδικός πρόσβασης|סיסמה|كلمة المرور|पासवर्ड)"
    r"|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호)"
)
KEY_WORDS = (
    r"(?P<tkey>\b(?i:tokens?|secrets?|(?:api|access|secret|private|licen[cs]e|auth|account"
    r"|storage|app|admin|sdk|master|signing)[ _-]?keys?|keys?|pats?|chaves?|clés?|clef"
    r"|chiave|clave|sleutel)|(?i:schlüssel|токен|ключ)|令牌|密钥|秘钥|密鑰|金鑰|トークン|토큰)"
)
GAP = (
    r"(?:(?:[ \t]+[A-Za-z0-9(/~.][A-Za-z0-9_'.@/()-]{0,31}){0,4}?[ \t]*(?:[ \t](?i:is|was|are|were|be|to|as"
    r"|ist|est|es|é)|:|[ \t]=|[ \t]\||->|=>|\x{2192}|\x{FF1A}|[ \t](?:-|\x{2013}|\x{2014}))[ \t]*(?:\r?\n[ \t>]*){0,2}"
    r"|[ \t]*[:=]?[ \t]*[A-Za-z0-9._@-]{1,64}[ \t]+/[ \t]+"
    r"|[ \t]+)"
)
# A bare password holds a digit or a symbol, a bare key 16+ characters: a phrase whose next
# word is neither ("the password is stored", "token count") is not even a match.
# The value's characters (A), those that make a password out of a word (S), and the first
# character when it is not one of those, nor a placeholder's (N): six or more characters,
# one of them an S, not starting like a placeholder.
PW_A = r"[^\s`'\"<>]"
PW_S = r"[0-9!#$%&*+=?@^~_|\\]"
PW_N = r"[^\s`'\"<>$%{\[@0-9!#&*+=?^~_|\\-]"
PW_VALUE = (
    rf"(?:[0-9!#&*+=?@^~_|\\]{PW_A}{{5,}}|[$%][^\s`'\"<>{{(A-Za-z_]{PW_A}{{4,}}"
    rf"|\{{[^\s`'\"<>{{]{PW_A}{{4,}}|\[[^\s`'\"<>A-Za-z]{PW_A}{{4,}}"
    rf"|{PW_N}(?:{PW_S}{PW_A}{{4,}}|{PW_A}{PW_S}{PW_A}{{3,}}"
    rf"|{PW_A}{{2}}{PW_S}{PW_A}{{2,}}|{PW_A}{{3}}{PW_S}{PW_A}+|{PW_A}{{4,}}{PW_S}{PW_A}*))"
)
KEY_VALUE = value_of_class(r"\s`'\"<>", 16, not_first=r"\-")
PROSE = (
    rf"{PW_WORDS}{GAP}(?:[`'\"](?P<vq>{value_of_class(PROSE_QUOTED, 4)})[`'\"]"
    rf"|(?P<v>{PW_VALUE}))"
    rf"|{KEY_WORDS}{GAP}(?:[`'\"](?P<vq2>{value_of_class(PROSE_QUOTED, 16)})[`'\"]"
    rf"|(?P<v2>{KEY_VALUE}))"
)
