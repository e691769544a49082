"""The prose rule's pattern: a word for a password or a key, a link, then the value."""

from __future__ import annotations

from .pieces import PROSE_QUOTED, value_of_class

__all__ = ["ADMIN_PAIR", "CHAT_PAIR", "DASHED_PW", "LOGIN_PAIR", "PROSE"]

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
    r"(?P<pkey>\b(?i:(?:user(?:[ _]?name)?|login|u)[ \t]*[/+&][ \t]*(?:passw(?:or)?d|pass|pwd?|p)\b"
    # "username ann pass X", "u: ann p: X": a user named, then "pass" or "p" for its password.
    # Rule set 12: "login is ann, pass is X", "username is ann and the pass is X".
    r"|(?:user(?:[ _]?name)?|login|u)(?:[ \t]+is|[ \t]*[:=])?[ \t]+[A-Za-z0-9._@+-]{1,64}[ \t]*[,;/]?"
    r"(?:[ \t]+and)?(?:[ \t]+(?:the|my|its))?[ \t]+(?:pass\b|p[ \t]*[:=])"
    r"|passw(?:or)?ds?|passphrases?|passcodes?|pwd|pw|credentials?|creds|logins?|log-?on|sign-?in"
    # "pass is X" (rule set 11): "pass" alone is a verb or a ticket too often to name a
    # password before any other link.
    r"|pass[ \t]+(?:is|was)\b"
    # "the password's X" (rule set 11; not "the token's C1/NEL/separator characters").
    r"|passw(?:or)?d['\x{2019}]s\b"
    r"|passwort|kennwort|wachtwoord|senha|contrase(?:n|ñ)a|mot de passe|mdp|has(?:ło|ła|łem)"
    r"|heslo(?:[ \t]+je)?|lösenord(?:et)?|passord(?:et)?(?:[ \t]+er)?|adgangskoden?(?:[ \t]+er)?"
    r"|salasana(?:[ \t]+on)?|jelszó|geslo|lozinka|kata sandi|mật khẩu|clave"
    # Rule set 16: Romanian's and Turkish's "parola", Hungarian's "jelszava" (its password),
    # Malay's "kata laluan".
    r"|parol(?:a|ă|ei)|jelszav(?:a|am|ad|unk)|kata laluan"
    # Words for credentials (rule set 12): "Zugangsdaten: ann:X", "identifiants : ann:X".
    r"|zugangsdaten|anmeldedaten|identifiants|credenciales|credenziali|credenciais"
    r"|inloggegevens)"
    # Rule set 16: Turkish's "şifresi" (its password), Greek's "κωδικός" alone, Arabic's
    # "كلمة السر", Persian's "رمز عبور" and "گذرواژه", Thai's "รหัสผ่าน".
    r"|(?i:пароль|şifre(?:si|m|n|niz|miz)?|κωδικ(?:ός|ό|ού)(?:[ \t]+πρόσβασης)?|סיסמה"
    r"|كلمة المرور|كلمة السر|كلمة سر|الرقم السري|رمز(?:[ \t]+(?:عبور|ورود))?|گذرواژه|पासवर्ड"
    r"|รหัสผ่าน)"
    r"|密码|密碼|口令|パスワード|暗証番号|비밀번호|비번|암호)"
)
KEY_WORDS = (
    r"(?P<tkey>\b(?i:tokens?|secrets?|(?:api|access|secret|private|licen[cs]e|auth|account"
    r"|storage|app|admin|sdk|master|signing)[ _-]?keys?|keys?|pats?|chaves?|clés?|clef"
    r"|chiave|sleutel)|(?i:schlüssel|токен|ключ)|令牌|密钥|秘钥|密鑰|金鑰|トークン|토큰"
    r"|キー|秘密鍵|키)"
)
# Scripts that write words without spaces (Chinese, Japanese, Korean's particles): a value
# ends where their characters start ("パスワードはVです"), and their words for "is" (Thai's
# คือ too, rule set 16),
# "to", "as" link a key word to its value without a space: は, が, を, 是, 为, 為, 는, 은,
# 를, 을, 이, 가, and "changed to", "set to" (改为, 改成, 设为, 设置为, 設為, 設定為).
_CJK = r"\x{3000}-\x{30FF}\x{3400}-\x{4DBF}\x{4E00}-\x{9FFF}\x{AC00}-\x{D7AF}\x{FF00}-\x{FFEF}"
_CJK_LINK = (
    r"(?:\x{306F}|\x{304C}|\x{3092}|\x{662F}|\x{4E3A}|\x{70BA}|\x{B294}|\x{C740}|\x{B97C}"
    r"|\x{0E04}\x{0E37}\x{0E2D}|\x{C744}|\x{C774}|\x{AC00}|\x{6539}\x{4E3A}|\x{6539}\x{6210}|\x{8BBE}\x{4E3A}"
    r"|\x{8BBE}\x{7F6E}\x{4E3A}|\x{8A2D}\x{70BA}|\x{8A2D}\x{5B9A}\x{70BA})"
)
# Opening and closing quotes of prose: ASCII's, typographic ones, Japanese brackets, French
# guillemets (with the space French puts inside them).
_OPEN = r"(?:[`'\"\x{201C}\x{2018}\x{300C}\x{300E}]|\x{00AB}[ \x{00A0}\x{202F}]?)"
_CLOSE = r"(?:[`'\"\x{201D}\x{2019}\x{300D}\x{300F}]|[ \x{00A0}\x{202F}]?\x{00BB})"
_CLOSERS = r"\x{201D}\x{2019}\x{300D}\x{300F}\x{00BB}"
# A word between the key word and its link: Latin, Greek or Cyrillic letters, digits, a path
# or an address ("пароль от почты:", "password for the VPN is").
_LETTER = r"\x{00C0}-\x{024F}\x{0370}-\x{03FF}\x{0400}-\x{04FF}"
GAP = (
    rf"(?:(?:[ \t]+[A-Za-z0-9(/~.{_LETTER}][A-Za-z0-9_'.@/(){_LETTER}-]{{0,31}}){{0,4}}?[ \t]*"
    r"(?:[ \t](?i:is|was|are|were|be|to|as|ist|lautet|est|es|é|è|är|jest|adalah|là|это|este|ay"
    # Rule set 16: Greek's, Hebrew's, Arabic's, Persian's and Hindi's "is".
    r"|είναι|היא|הוא|هي|هو|است|है)"
    r"|:|[ \t]=|[ \t]\||->|=>|\x{2192}|\x{FF1A}|[ \t](?:-|\x{2013}|\x{2014}))"
    r"[ \t]*(?:\r?\n[ \t>]*){0,2}"
    rf"|[ \t]*{_CJK_LINK}[ \t\x{{3001}}\x{{FF0C}},]*"
    r"|[ \t]*[:=]?[ \t]*[A-Za-z0-9._@-]{1,64}[ \t]+/[ \t]+"
    r"|[ \t]+)"
)

# A bare password holds a digit or a symbol, a bare key 16+ characters: a phrase whose next
# word is neither ("the password is stored", "token count") is not even a match.
# The value's characters (A), those that make a password out of a word (S), and the first
# character when it is not one of those, nor a placeholder's (N): six or more characters,
# one of them an S, not starting like a placeholder.
_STOP = rf"\s`'\"<>\x{{2018}}-\x{{201D}}\x{{00AB}}\x{{00BB}}{_CJK}"
PW_A = rf"[^{_STOP}]"
PW_S = r"[0-9!#$%&*+=?@^~_|\\]"
PW_N = rf"[^{_STOP}$%{{\[@0-9!#&*+=?^~_|\\-]"
# A passphrase of words joined by "-" ("correct-horse-battery", "blue-7-sky"), perhaps after
# its user ("ann:correct-horse-battery"): no digit or symbol, so an alternative of its own;
# tried last; the engine wants three words or more, the phrase's end a word's end
# (values.is_passphrase).
_PHRASE = r"(?:[A-Za-z0-9._@+]{1,64}:)?[A-Za-z]{3,16}(?:-[A-Za-z0-9]{1,16}){2,7}"
PW_VALUE = (
    rf"(?:[0-9!#&*+=?@^~_|\\]{PW_A}{{5,}}|\$[^{_STOP}{{(A-Za-z_]{PW_A}{{4,}}|%[^{_STOP}{{(]{PW_A}{{4,}}"
    rf"|\{{[^{_STOP}{{]{PW_A}{{4,}}|\[[^{_STOP}A-Za-z]{PW_A}{{4,}}"
    # "<" or "[" and a letter, then a digit or a symbol soon (rule set 16): "<tango548!".
    rf"|[<\[][A-Za-z]{{1,24}}[0-9!#&*+=?@^~%]{PW_A}*"
    rf"|{PW_N}(?:{PW_S}{PW_A}{{4,}}|{PW_A}{PW_S}{PW_A}{{3,}}"
    rf"|{PW_A}{{2}}{PW_S}{PW_A}{{2,}}|{PW_A}{{3}}{PW_S}{PW_A}+|{PW_A}{{4,}}{PW_S}{PW_A}*)"
    rf"|{_PHRASE})"
)
# A key's value never starts with "-" (a flag, a list's item), but an IBM Cloud API key's 44
# characters of base64url may (rule set 12): "-" and 30+ of those, no space.
KEY_VALUE = value_of_class(_STOP, 16, not_first=r"\-") + r"|-[A-Za-z0-9_][A-Za-z0-9_-]{30,80}"
# A user and its password after a word for both (rule set 10): "creds are ann / X", "creds
# for grafana: admin / X" (up to six words between: "creds for the staging grafana box:",
# rule set 14), "login ann X", "credentials: `ann`, `X`". The engine wants the
# user no function word ("login to db01") and the password no date or number (values.py).
_PAIR = (
    r"(?:(?:[ \t]+[A-Za-z0-9(/~.][A-Za-z0-9_'.@/()-]{0,31}){0,6}?[ \t]*"
    r"(?:[ \t](?i:are|is|were|was)|:|[ \t]=>?|->|[ \t](?:-|\x{2013}|\x{2014}))[ \t]*|[ \t]+)"
    r"(?P<user>[`'\"]?[A-Za-z0-9._@+-]{1,64}[`'\"]?)"
    r"(?:[ \t]*[/,][ \t]*|[ \t]+(?i:and|&)[ \t]+|[ \t]+)[`'\"]?"
)
# The same with both quoted ("creds: `deploy`, `X`"), tried before a quoted value
# alone: a quoted user is no password.
_PAIR_QUOTED = (
    r"[ \t]*(?:[ \t](?i:are|is)|:|[ \t]=|->|[ \t](?:-|\x{2013}|\x{2014}))[ \t]*"
    r"(?P<user2>[`'\"][A-Za-z0-9._@+-]{1,64}[`'\"])(?:[ \t]*[/,][ \t]*|[ \t]+(?i:and|&)[ \t]+)"
)
# A label on a line of its own and the value alone on the next line (a form or a config
# dump copied as text: "Password", then "hunter2-Secret9"; "API key", then the key). The
# engine wants the label's line short (values.label_line): up to three words may follow the
# key word ("Password for db01", "API token (staging)").
_NEXT_LINE = (
    r"(?:[ \t]+[A-Za-z0-9(/~.][A-Za-z0-9_'.@/()-]{0,31}){0,3}[ \t]*(?:\r?\n[ \t>]*){1,2}"
    r"(?:[-=]{3,}[ \t]*\r?\n[ \t>]*(?:\r?\n[ \t>]*)?)?"  # a heading's underline
)
_LINE_END = r"[ \t]*(?:\r?\n|\z)"
# A generated password may start with "-" ("-QTX2ro_Zp8k"); after a user (and "/" that is no
# flag or list item (rule set 13; after "login: ann /", rule set 15). The engine asks it for a digit (values.is_placeholder).
_DASHED = rf"-[^{_STOP}\-]{PW_A}{{6,}}"
# The same after a word for a password, which is no user (rule set 15): "pw = " or "login:
# ann / " and a password starting with "-"; a digit or a symbol in it, as PW_VALUE asks, so
# that "password --password" is not even a match.
DASHED_PW = (
    rf"-{PW_N}(?:{PW_S}{PW_A}{{4,}}|{PW_A}{PW_S}{PW_A}{{3,}}|{PW_A}{{2}}{PW_S}{PW_A}{{2,}}"
    rf"|{PW_A}{{3}}{PW_S}{PW_A}+|{PW_A}{{4,}}{PW_S}{PW_A}*)"
)
# A password of letters only, perhaps after its user and "/", where the sentence ends with
# it (rule set 16): "the password is calvin" at a sentence's end, "login pi/raspberry" too;
# the engine wants a word for a password and a link, or a word for logging in
# (plain.given_letters), and no word that says what the password is ("incorrect").
# Rule set 17: a few words may close the sentence after it ("the password is sunshine for
# now", "... btw"): they say for how long or by the way, nothing of the password.
_TAIL = (
    r"[ \t]+(?i:for[ \t]+(?:now|today|the[ \t]+moment|the[ \t]+time[ \t]+being)|btw|fyi"
    r"|until[ \t]+(?:tomorrow|monday|friday|further[ \t]+notice))"
)
_LETTERS = (
    r"(?:(?P<wu>[A-Za-z0-9._@+-]{1,32})/)?(?P<vw>[A-Za-z]{6,32})"
    rf"(?:{_TAIL})?(?:[.!]?[ \t]*(?:\r?\n|\z)|[.,;!)](?:[ \t]|\r?\n|\z))"
)
# "for" and what the password is for, then the value with no link, ending its line (rule set
# 16): "пароль от wifi X", "password for the NAS X", "mot de passe du wifi X", "Passwort für
# das WLAN X"; the engine wants no user among the words and no preposition last
# (plain.for_what): "password for user ann2024", "password for accounts in v2.3.1" stay.
_FOR = (
    r"[ \t]+(?i:for|от|для|f(?:ü|u)r|vom|du|de|del|des|da|do|di|dla|van|voor|f(?:ö|o)r|til)"
    rf"(?P<fw>(?:[ \t]+[A-Za-z0-9{_LETTER}][A-Za-z0-9_.{_LETTER}-]{{0,31}}){{1,3}})[ \t]+"
    rf"(?P<vf>{PW_VALUE}|{DASHED_PW})[ \t]*(?:\r?\n|\z)"
)
PROSE = (
    rf"{PW_WORDS}(?:{_PAIR_QUOTED}{_OPEN}(?P<vp2>{value_of_class(PROSE_QUOTED + _CLOSERS, 4)}){_CLOSE}"
    rf"|{GAP}(?:{_OPEN}(?P<vq>{value_of_class(PROSE_QUOTED + _CLOSERS, 4)}){_CLOSE}"
    rf"|(?P<v>{PW_VALUE}|{DASHED_PW})|{_LETTERS})|{_NEXT_LINE}(?P<vl>{PW_VALUE}){_LINE_END}|{_PAIR}(?P<vp>{PW_VALUE}|{DASHED_PW})|{_FOR})"
    rf"|{KEY_WORDS}(?:{GAP}(?:{_OPEN}(?P<vq2>{value_of_class(PROSE_QUOTED + _CLOSERS, 16)}){_CLOSE}"
    rf"|(?P<v2>{KEY_VALUE}))|{_NEXT_LINE}(?P<vl2>{KEY_VALUE}){_LINE_END})"
)
# A word for an account or a Wi-Fi network, its user or network name, "/", the password
# (rule set 11): "account ann / X", "wifi is CoffeeNet / X", "guest wifi: Cafe-5G / X".
# No word for a password stands there, so the "/" between the two is required, and the
# engine asks the password what it asks of "login ann X" (values.user_and_password).
PAIR_WORDS = r"\b(?i:accounts?|wi-?fi|wlan|ssid|hotspot)"
CHAT_PAIR = (
    rf"(?P<akey>{PAIR_WORDS})"
    r"(?:(?:[ \t]+[A-Za-z0-9(][A-Za-z0-9_'.()-]{0,31}){0,3}?[ \t]*"
    r"(?:[ \t](?i:is|was|are)|:|[ \t]=|->|[ \t](?:-|\x{2013}|\x{2014}))[ \t]*|[ \t]+)"
    r"(?P<user>[`'\"]?[A-Za-z0-9._@+-]{1,64}[`'\"]?)[ \t]*/[ \t]*[`'\"]?"
    rf"(?P<v>{PW_VALUE}|{_DASHED})"
)
# A user, "/" and its password after a verb for logging in (rule set 12): "log in with ann /
# X", "sign in as ann / X", "Melde dich mit ann / X an", "connecte-toi avec ann / X", "entra
# con ann / X", "accedi con ann / X", "log in met ann / X"; after "use" only when the words
# after the password say what for ("use ann / X to log in"). The engine asks the pair what it
# asks of "account ann / X" (values.user_and_password), and takes a passphrase too.
_LOGIN_VERBS = (
    r"\b(?i:(?:log[ \t-]?in|sign[ \t-]?in|log[ \t-]?on)(?:[ \t]+(?:as|with|using|met))?"
    r"|melde[ \t]+dich[ \t]+mit|(?:anmelden|einloggen)[ \t]+mit"
    r"|connecte[sz]?-(?:toi|vous)[ \t]+avec|connexion[ \t]+avec"
    r"|entra[ \t]+con|inicia[ \t]+sesi(?:o|ó)n[ \t]+con|accedi[ \t]+con|entra[ \t]+com"
    r"|inloggen[ \t]+met)"
)
_LOGIN_AFTER = (
    r"[ \t]+(?i:to|for|para|pour|per|um|zum)[ \t]+(?i:log[ \t-]?in|sign[ \t-]?in|login"
    r"|iniciar[ \t]+sesi(?:o|ó)n|entrar|se[ \t]+connecter|accedere|einzuloggen|anmelden|einloggen)"
)
_USER_SLASH = r"[`'\"]?[A-Za-z0-9._@+-]{1,64}[`'\"]?)[ \t]*/[ \t]*[`'\"]?"
LOGIN_PAIR = (
    rf"(?P<lkey>{_LOGIN_VERBS})[ \t]+(?P<user>{_USER_SLASH}(?P<v>{PW_VALUE})"
    rf"|(?P<ukey>\b(?i:use))[ \t]+(?P<user2>{_USER_SLASH}(?P<v2>{PW_VALUE})[`'\"]?{_LOGIN_AFTER}"
)
# An administrator's user, "/" and its password with no word before them (rule set 15): "use
# root/X on the switch", "admin / X for the router", "sa/X". The user starts a word (not a
# path's part: "/root/x", "~admin/x"); the engine asks the password what it asks of
# "account ann / X" (no version, no region, no folder) and takes no file's name or path.
# The empty group "akey" makes the check the account's, not a login's.
ADMIN_PAIR = (
    r"(?:^|[\s(\[<'\"`,;])(?P<akey>)(?P<user>(?i:root|admin|administrator|sa|postgres|sysadmin"
    r"|superuser|ubuntu|pi|guest))[ \t]*/[ \t]*[`'\"]?"
    rf"(?P<v>{PW_VALUE})"
)
# A user, ":" and its password before "@" and a host, with no scheme before them (rule set
# 13): "ann:X@ftp.example.com", "lftp deploy:X@files" (with a scheme it is a URL's password,
# the url-password rule's). The engine asks the pair what it asks of "login ann X"
# (values.user_and_password): no scheme or header name as the user ("mailto:ann2024@x").
HOST_PAIR = (
    r"(?:^|[\s(\[<'\"=,;`])(?P<user>[A-Za-z_][A-Za-z0-9._-]{0,31}):(?P<v>[^\s:@/'\"`<>]{6,64})"
    r"@(?:[A-Za-z0-9-]{1,63}\.){0,8}[A-Za-z0-9-]{1,63}(?:[\s:/'\"`<>),;]|\z)"
)
