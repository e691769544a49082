"""The rules: what each kind of secret looks like, as RE2 patterns, in priority order."""

from __future__ import annotations

from typing import Final

from .answers import ANSWER_RULES
from .clients import CLIENT_RULES
from .formats import FORMAT_RULES
from .handouts import HANDOUT_RULES
from .pieces import (
    ATTR,
    BACKSLASH,
    BLOCK,
    CDATA_VALUE,
    CONF,
    DQ_VALUE,
    KEY,
    NAMED_KEY,
    OPERATOR,
    PAIRED,
    QUOTED_VALUE,
    SET_COMMAND,
    URL,
    VALUE,
    WIFI_VALUE,
    WORD_VALUE,
    XML_VALUE,
    value_of_class,
)
from .pins import PIN_RULES
from .prose import ADMIN_PAIR, CHAT_PAIR, HOST_PAIR, LOGIN_PAIR, PROSE
from .providers import GLUED_WORD, PROVIDER_RULES
from .rule import Rule
from .shell import SHELL_RULES
from .tools import TOOL_RULES
from .web import WEB_RULES
from .wrapped import BREAK

__all__ = ["KEY", "KINDS", "NAMED_KEY", "PEM_BEGIN", "PEM_END", "RULES", "RULES_VERSION"]

#: The version of the rule set. It changes whenever a rule changes what gets scrubbed, so a
#: folder can say which rules its records were scrubbed with (1: the first fourteen kinds;
#: 2: the families of the common scanners; 3: passwords and keys in prose, YAML block
#: scalars, commands' passwords anywhere on their line, 30 more prefixed tokens; 4: session
#: ids, "PAT" keys, Okta's SSWS scheme, signatures of presigned URLs, Firebase server keys,
#: eight more prefixed tokens, SSH2 and OpenVPN static keys, Wi-Fi QR codes; values that
#: start like a placeholder are no match; 5: every copy of a secret in a record, any name
#: ending in "key" (with a random value), typed declarations, backticks, make's and PHP's
#: operators, XML values on their own lines, .NET settings, Terraform defaults, query
#: parameters, password hashes, base64-wrapped tokens, prefixed tokens of unknown services,
#: PsExec and its kin; masks, documented examples, package versions, UI labels, string
#: escapes and hashed asset names kept; 6: secrets inside percent-encoded runs and
#: base64-wrapped text, password and key words of more languages, an AWS secret key after
#: its key id or aws configure's prompt, XML CDATA values, PEM blocks with "\\n" or spaces
#: for line breaks, a cookie's value in a Cookie or Set-Cookie header; 7: the value of a
#: command that sets a variable with a space, set -x NAME value, setx, setenv; prose in
#: other languages' links and scripts without spaces; a value alone on the line after its
#: label, a .netrc password on the next line or after account and port; a key id as a
#: URL's user, an AWS secret key with '/' as its password, a token alone as its user; a
#: query's value percent-decoded, a short password in a query, a form's field ending at
#: the next "&name="; a JWT wrapped over lines; a secret column's values in CSV, TSV and
#: Markdown tables and SQL's INSERT and COPY, tables.py; 8: a URL's password holding '/', a
#: wrapped JWT of an unknown algorithm by its lines' width, a CSV field quoted over lines, an
#: index or a YAML tag around an assignment, setters, credential constructors, Oracle's
#: user/password@db, .pgpass lines, HTTP Digest responses, Ansible vaults, HTTPie's -a,
#: curl -u user:'X', mysql's -p= glued, npm's _auth alone, "auth" with a random value, PEM
#: blocks concatenated over string literals; "auth": "required" and "@Mixed1Case@..." no
#: longer; 11: "pass is X", "the password's X", an account's user or a Wi-Fi network, "/"
#: and its password; pgbouncer's userlist, pppd's chap-secrets and OpenVPN's auth-user-pass
#: file after their names; PostgreSQL's SCRAM and md5 hashes; "login server01", an id
#: after "login ann" and a JSON Web Key's public members no longer; 12: a user and its
#: password after a verb for logging in ("log in with ann / X", "use ann / X to log in", in
#: five more languages), "login is ann, pass is X", words for credentials in other
#: languages, passphrases of words joined by "-" after a word for a password, an address
#: as the user ("creds: ann@example.com:X"), rsync's, Postfix's, exim's, davfs2's and
#: s3fs' credential files after their names, a key that starts with "-" (IBM Cloud), tokens
#: glued to a word by "-", Authress and Defined Networking keys; "account billing /
#: invoices2024" (a lowercase word and a number, no word for a password) no longer; 13:
#: Vault's legacy and recovery tokens and Yandex Cloud's static key secrets and OAuth tokens
#: anywhere, a random key's letter runs between "_" no words, a tool's "login -p X",
#: Redis' --requirepass and CONFIG SET requirepass, AWS's --secret-string and put-parameter
#: --value, wpa_passphrase, npm config set _authToken X, a secret's base64 under its name (a
#: Kubernetes Secret's data), "account ann / X" of a word and 2+ digits (no year), "ann:X@host"
#: with no scheme; 14: scrubbing is idempotent (no match starts inside a marker, a rescan
#: takes what a replacement exposed, a query's next parameter and a name glued after a
#: bearer token are read on their own), "account ann / <word><digit>",
#: "creds for <up to six words>: ann / X" (a user with digits too), a value starting with "-" and a symbol, a
#: quoted chap-secrets line without the file's name, a password starting "%" and a letter,
#: "the db pass is <word>-<digits>"); 15: a user and its password after "login:", "logins",
#: "logon", "sign-in" and "login =>" whatever the password's shape (a word and digits, an
#: "@", a passphrase), "login: ann / pass X", "the admin pass is <passphrase>", a password
#: starting with "%" and a letter, "~" or "-" in prose or after a client's flag, a flow mapping's "}" no part of a
#: value, Redis MONITOR's '"AUTH" "X"'; a pointer where a password would stand ("see-the-wiki",
#: "ask-bob", "in-1password", "TBD", "same-as-before") no longer; "root/X" (an
#: administrator's user and a password, no word before) and "- key: db_password", "value: X";
#: 16: a password opening with "(", "<" or "[" it leaves open, one of letters only where
#: prose hands it out ("the password is calvin", "login root/calvin"), "password for the
#: NAS X" with no link (in other languages too), a PIN or a door code, the user before "/"
#: kept ("login: ann/X"), AUTH X&Y at a Redis prompt, "-" first after sqlcmd's -P, NVIDIA,
#: Cerebras, Pinecone and Resend keys, password words of ten more languages, one-time and
#: recovery codes; a ticket's pass ("boarding pass is gate-B12") no longer; 17: Wi-Fi cards,
#: "basic auth is ann:X", letters only after any user ("login ann/kangaroo"), in six more
#: languages or before "for now", RAR's -hpX, quoted passphrases, htpasswd's other flags,
#: IDENTIFIED WITH/BY, login(user, X), Gradle's and plists' passwords, YAML anchors, seed
#: phrases, verification codes in more languages (tools.py, handouts.py).
RULES_VERSION: Final = 17

# Line breaks inside a PEM block: real ones, the two-character "\n" escapes of a key
# pasted from JSON (Google service-account files, Kubernetes secrets), the "\\n" of that
# JSON inside another JSON string (a log line's), a string literal's lines concatenated in
# code ("...\n" +, then "..." on the next line: Go, Java, JavaScript, C#; C's and Python's
# strings side by side), each optionally followed by the "> " of a
# quoted mail reply (nested: "> > "). A key whose line breaks a form or a one-line variable
# turned into spaces has its lines (16+ characters, so words are not) after a space.
_SEP = (
    r"(?:\r?\n|\\r\\n|\\n|\\\\r\\\\n|\\\\n"
    r"|(?:\\n)?[\"'][ \t]*\+?[ \t]*\r?\n[ \t]*\+?[ \t]*[\"'])"
)
_QUOTED = r"[ \t]*(?:>[ \t]*)*"
#: The first and last lines of a PEM block of a private key (an SSH2 key file's, RFC 4716,
#: and an OpenVPN static key's have the same shape).
PEM_BEGIN: Final = (
    r"(?:-----BEGIN[ A-Z0-9]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----"
    r"|---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----|-----BEGIN OpenVPN Static key V1-----)"
)
PEM_END: Final = (
    r"(?:-----END[ A-Z0-9]*(?:PRIVATE|SECRET) KEY(?: BLOCK)?-----"
    r"|---- END SSH2 ENCRYPTED PRIVATE KEY ----|-----END OpenVPN Static key V1-----)"
)


# Base64 that decodes to bytes holding a colon (user:password): whole groups of four
# characters, then a group that encodes ":" (0x3a) as its first, second or third byte, then
# the rest. "Basic" before any other word ("Basic configuration", a token without a colon) is
# then no match at all, instead of a match the engine decodes and rejects.
_B64 = "[A-Za-z0-9+/]"
_SEGMENT = "[A-Za-z0-9_-]"  # a character of a JWT's segment (base64url)
_B64_WITH_COLON = (
    rf"(?:{_B64}{{4}})*(?:O[g-v]|{_B64}[DTjz][o-r]|{_B64}{{2}}[AEIMQUYcgkosw048]6){_B64}*={{0,2}}"
)

# A URL password holding '/' or '?': a first part that is no port (digits, then a character
# other than a digit), then up to four parts after a '/' or a '?'; 64 characters each at
# most, so that a long run after "scheme://a:" keeps no more partial matches alive.
_NOT_URL = r"\s/?\"'<>"
_SLASHED = (
    rf"[0-9]{{0,8}}[^{_NOT_URL}$%{{\[0-9][^{_NOT_URL}]{{0,63}}(?:[/?][^{_NOT_URL}]{{0,64}}){{1,4}}"
)

_KEYS: Final[tuple[Rule, ...]] = (
    # Base64 images and attachments: skipped whole, so nothing inside them is read as a key.
    # A payload of fewer than 16 characters holds no key to mistake, so it is not a match
    # (each match costs the engine a step of its own).
    Rule(
        "data_uri",
        "",
        r"data:[A-Za-z0-9.+-]+/[A-Za-z0-9.+-]+(?:;[A-Za-z0-9=.+-]+)*;base64,[A-Za-z0-9+/=]{16,}",
        "tokens",
    ),
    # A PEM block (PKCS#1/#8, EC, DSA, OpenSSH, PGP): header, then lines of base64 or
    # "Name: value" headers, then the END line, or, when there is none, up to the last such
    # line (the tail separator is kept). Lines may be quoted ("> ") as in a mail reply.
    Rule(
        "private_key",
        "private-key",
        rf"(?P<hdr>{PEM_BEGIN})"
        rf"(?P<body>(?:{_SEP}{_QUOTED}(?:[A-Za-z0-9+/=]+|[A-Za-z][A-Za-z0-9-]*:[^\r\n\\]*)?"
        r"[ \t]*| [A-Za-z0-9+/=]{16,})*)"
        rf"(?:(?:{_SEP}{_QUOTED}| )(?P<end>{PEM_END})|{_SEP}|\z)",
        "tokens",
        "pem",
    ),
    # A PuTTY key file's private lines, an age secret key, a kubeconfig's client key (a
    # base64 PEM block).
    Rule(
        "private_key_other",
        "private-key",
        rf"Private-Lines:[ \t]*[0-9]+(?P<v>(?:{_SEP}{_QUOTED}[A-Za-z0-9+/=]{{4,}})+)"
        r"|\b(?P<v2>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})\b"
        r"|client-key-data\\?\"?[ \t]*:[ \t]*\\?\"?(?P<v3>[A-Za-z0-9+/]{20,}={0,2})",
        "tokens",
    ),
    # An Ansible Vault's encrypted value (a vault file, a "!vault |" YAML value): the
    # header stays, the lines of hex under it go (offline, they can be cracked for the
    # vault's password).
    Rule(
        "ansible_vault",
        "password",
        r"\$ANSIBLE_VAULT;[0-9.]{1,8};[A-Za-z0-9]{1,16}(?:;[A-Za-z0-9_.-]{1,64})?[ \t]*\r?\n[ \t]*"
        r"(?P<v>[0-9a-fA-F]{16,}(?:[ \t]*\r?\n[ \t]*[0-9a-fA-F]{2,})*)",
        "tokens",
    ),
    # 40 base64 characters are only an AWS secret key next to a name that says so.
    Rule(
        "aws_secret_key",
        "aws-secret-key",
        r"(?i:aws[_. -]?secret[_. -]?(?:access[_. -]?)?key|secret[_. -]?access[_. -]?key)"
        # aws configure's prompt shows the current value: "AWS Secret Access Key [None]: ".
        r"(?:[ \t]*\[[^\]\r\n]{0,40}\])?"
        r"\\?[\"']?[ \t]*(?:=>|:=|=|:)[ \t]*\\?[\"']?"
        r"(?P<v>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        "tokens",
        "aws",
    ),
)

_JWT = (
    rf"eyJ(?:{BREAK}?{_SEGMENT}){{5,}}{BREAK}?\.{BREAK}?"
    rf"e{BREAK}?y{BREAK}?J(?:{BREAK}?{_SEGMENT}){{5,}}{BREAK}?\.(?:{BREAK}?{_SEGMENT})*"
)

_STRUCTURE: Final[tuple[Rule, ...]] = (
    # Header and payload both start with '{"' in base64 ("eyJ"); the signature may be empty.
    # It starts after a character that cannot be inside a segment (one consumed character,
    # not \b): with \b, every "-eyJ" inside a long segment would start a new partial match
    # that lives to the segment's end, and tokens between them made the scan quadratic. A
    # token wrapped over lines (a mail's width, a shell's "\", quoted-printable's "=") may
    # hold line breaks anywhere; the engine ends its signature (wrapped.jwt_end).
    Rule(
        "jwt",
        "jwt",
        rf"(?:^|[^A-Za-z0-9_-])(?P<v>{_JWT})",
        "tokens",
        "jwt",
    ),
    # The same glued to one word by "-" after a space or a "/" ("notes/backup-eyJ...",
    # GLUED_WORD, rule set 12): no segment holds a space or a "/", so no partial match starts
    # inside one. In a pass of its own: among the token rules, a partial match alive after
    # every word of prose cost prose 20% of its time.
    Rule("jwt_glued", "jwt", rf"{GLUED_WORD}(?P<v>{_JWT})", "unknown", "jwt"),
    # scheme://user:pass@host: the password may hold '@' (greedy to the last one before the
    # host) and '#' (pasted unencoded). A '/' or a '?' ends the user-info for a URL parser
    # (RFC 3986, WHATWG, urllib, libpq), but one pasted unencoded in a password still gives
    # it away when the part before it is no port (not all digits, not a port's placeholder):
    # "host:8080/path/@scope" is a host, a port and a path, "host:6379?db=0&to=a@b" a query.
    # A password with '/' or '?' is taken only when the shape without one does not match. An AWS secret key's 40
    # characters hold '/' and '+' too (s3://AKIA...:SECRET@bucket). A key id as the user goes
    # too (the engine runs the token rules over the user), and a token alone before the '@'
    # (https://TOKEN@host: 20+ random characters, digits and both cases; not an id in hex).
    Rule(
        "url_password",
        "url-password",
        r"\b[A-Za-z][A-Za-z0-9]*(?:[+.-][A-Za-z0-9]+){0,2}://(?:(?P<user>[^\s:/?#@\[\]\"'<>]*):"
        rf"(?:(?P<v>{value_of_class(URL, 1)})|(?P<v2>[A-Za-z0-9/+]{{40}})|(?P<v6>{_SLASHED}))"
        r"|(?P<vu>[A-Za-z0-9_-]{20,}))@[A-Za-z0-9_\[]",
        "tokens",
        "url",
    ),
    # A container's environment in Kubernetes and Compose YAML: "- name: DB_PASSWORD" and, on
    # the next line, "value: ..."; a list of pairs' "- key: db_password" (rule set 15: before
    # the assignments, which read "key: db_password" as a key and its value).
    Rule(
        "name_value",
        "password",
        rf"\b(?:name|key):[ \t]*[\"']?{KEY}[\"']?[ \t]*\r?\n[ \t]*(?:-[ \t]*)?value:[ \t]*{BLOCK}{VALUE}",
        "assignments",
        "assignment",
    ),
    # A declaration with a type between the name and its quoted value: Go's var xToken
    # string = "...", Kotlin's val apiKey: String = "...", TypeScript's const apiKey: string,
    # Rust's let api_key: &str = "...".
    Rule(
        "typed_assignment",
        "password",
        rf"{KEY}(?:[ \t]+|[ \t]*:[ \t]*)&?(?:'[a-z]+[ \t]+)?[A-Za-z][A-Za-z0-9_.]*(?:<[A-Za-z0-9_, ]*>)?"
        rf"\??[ \t]*=[ \t]*(?:{QUOTED_VALUE})",
        "assignments",
        "assignment",
    ),
    # A setter or a builder's method named like a password, a token or a secret, given a
    # quoted value: Java's setPassword("..."), .password("..."), withApiToken('...') (not
    # any name ending in "key": sense_key("..."), get_key("...") read a key, they set none).
    Rule(
        "call_assignment",
        "password",
        rf"{KEY}[ \t]*(?P<call>\()[ \t]*(?:{QUOTED_VALUE})[ \t]*[,)]",
        "assignments",
        "assignment",
    ),
    # key = value, key: value, "key": "value", key => value, KEY=value (env), prose, an
    # index: $config['password'] = ..., ENV['API_KEY'] = ..., config[:password] = ...;
    # command-line flags: --password hunter2, --api-key=...; and the commands that set a
    # variable with a space: set -x KEY value, setx, setenv (one rule: a smaller program).
    Rule(
        "assignment",
        "password",
        rf"(?:--{KEY.replace('<key>', '<fkey>')}(?:=|[ \t]+)|{SET_COMMAND}"
        rf"|{KEY}\\?[\"']?\]?[ \t]*{OPERATOR}[ \t]*{BLOCK}){VALUE}",
        "assignments",
        "assignment",
    ),
    # The same in JSON: a container's env ({"name": "DB_PASSWORD", "value": "..."}), a HAR
    # file's headers and query ({"name": "X-Api-Key", "value": "..."}), a Postman
    # collection's auth and variables ({"key": "token", "value": "..."}, rule set 14), a
    # CloudFormation parameter ({"ParameterKey": "DbPassword", "ParameterValue": "..."}).
    Rule(
        "json_name_value",
        "password",
        rf"\"(?:name|key|Name|Key|ParameterKey)\"[ \t]*:[ \t]*\"{KEY}\"[ \t]*,[ \t\r\n]*"
        rf"\"(?:value|Value|ParameterValue)\"[ \t]*:[ \t]*{VALUE}",
        "assignments",
        "assignment",
    ),
    # A quoted pair: PHP's define('DB_PASSWORD', '...'), a tuple ("api_key", "..."). The value
    # must be quoted: unquoted, it is code (T.input(type='password', name=key)); and not a
    # JSON object's next key ({"name": "DB_PASSWORD", "valueFrom": {...}}).
    Rule(
        "quoted_pair",
        "password",
        rf"{KEY}[\"'][ \t]*,[ \t]*[\"'](?:\\[\"'])?(?P<v>{value_of_class(PAIRED + BACKSLASH, 6)})[\"'\\]"
        r"(?:(?P<more>[ \t]*,[ \t]*[\"'])|(?P<colon>[ \t]*:))?",
        "assignments",
        "keyed",
    ),
    # An XML element named like a secret (Maven's settings.xml, .NET configs, Android's
    # strings), its value perhaps on a line of its own; .NET's settings (<setting
    # name="AuthToken"><value>...</value>) and appSettings (<add key="StripeApiKey"
    # value="..." />, NuGet.Config's ClearTextPassword).
    Rule(
        "xml_element",
        "password",
        r"<(?P<key>(?:[A-Za-z][A-Za-z0-9_.:-]{0,40})?(?i:passw(?:or)?d|pwd|pass|secret|token|key|passphrase"
        r"|pat|authorization|credentials?))"
        r"(?:[ \t][^<>\r\n]{0,200})?>[ \t]*(?:\r?\n[ \t]*)?"
        rf"(?:(?P<v>{XML_VALUE})|<!\[CDATA\[(?P<v3>{CDATA_VALUE})\]\]>)"
        r"[ \t]*(?:\r?\n[ \t]*)?</"
        r"|<setting[ \t]+name=\"(?P<key2>[A-Za-z0-9_.:-]{1,60})\"[^<>\r\n]{0,100}>[ \t\r\n]*<value>"
        rf"[ \t]*(?P<v2>{XML_VALUE})[ \t]*</value>",
        "headers",
        "keyed",
    ),
    Rule(
        "xml_add_key",
        "password",
        r"<add[ \t]+key=\"(?P<key>[A-Za-z0-9_.:-]{1,60})\"[ \t]+value=\""
        rf"(?P<v>{value_of_class(ATTR, 6)})\"",
        "headers",
        "keyed",
    ),
    # A Terraform variable's default: variable "api_token" { default = "..." }.
    Rule(
        "hcl_variable",
        "password",
        r"\bvariable[ \t]+\"(?P<key>[A-Za-z0-9_-]{1,60})\"[ \t]*\{[^{}]{0,200}?\bdefault[ \t]*=[ \t]*\""
        rf"(?P<v>{DQ_VALUE})\"",
        "headers",
        "keyed",
    ),
    # A user and a password handed to a credential's constructor or an HTTP client: Python's
    # auth=("ann", "..."), HTTPBasicAuth, .NET's NetworkCredential (PowerShell's ::new), Java's
    # PasswordAuthentication and UsernamePasswordCredentials, Rust's basic_auth("ann",
    # Some("...")), PHP's new PDO($dsn, 'root', '...'); Oracle's user/password@db (sqlplus,
    # a thin JDBC URL); a .pgpass line (host:port:database:user:password).
    Rule(
        "credential_pair",
        "password",
        r"\b(?:HTTPBasicAuth|HTTPDigestAuth|HTTPProxyAuth|NetworkCredential|BasicAuth"
        r"|PasswordAuthentication|UsernamePasswordCredentials|UsernamePasswordAuthenticationToken"
        r"|basic_auth|BasicAuthentication|PDO|auth[ \t]*=)(?:\]::new)?[ \t]*\([ \t]*"
        r"(?:[^,()\r\n]{1,200},[ \t]*)?[\"'][^\"'\r\n]{1,100}[\"'][ \t]*,[ \t]*(?:Some\([ \t]*)?"
        r"(?:&?new[ \t]+String\([ \t]*)?[\"'](?P<v>" + value_of_class(PAIRED, 6) + r")[\"']"
        r"|\b(?:sqlplus|rman|expdp|impdp|sqlldr|dgmgrl)(?:[ \t]+-[A-Za-z]+)*[ \t]+[^\s/@'\"]+/"
        r"(?P<v2>[^\s/@'\"]{3,})@"
        r"|\bjdbc:oracle:[a-z]+:[^\s/@:'\"]+/(?P<v3>[^\s/@'\"]{3,})@"
        r"|(?:^|\n)[ \t]*(?:[A-Za-z0-9.*_-]*[A-Za-z*][A-Za-z0-9.*_-]*|[0-9]{1,3}(?:\.[0-9]{1,3}){3})"
        r":(?:[0-9]{1,5}|\*):[^\s:]+:"
        r"[^\s:]+:(?P<v4>[^\s]{3,})[ \t]*(?:\r?\n|\z)",
        "headers",
        "url",
    ),
    # Bundler's credentials for a gem source, in its config or the environment:
    # BUNDLE_GEMS__EXAMPLE__COM: "user:password" (the host's dots as "__").
    Rule(
        "bundler_credentials",
        "password",
        r"\bBUNDLE_[A-Z0-9_]*__[A-Z0-9_]+[\"']?[ \t]*[:=][ \t]*[\"']?[^\s:\"']{1,100}:"
        r"(?P<v>" + value_of_class(r"\s\"'", 3) + ")",
        "headers",
        "url",
    ),
    # HTTP Digest credentials: the response (a hash of the password, the nonce and the
    # request: cracked offline, replayed while the nonce lasts) among the header's fields.
    Rule(
        "digest_auth",
        "password",
        r"\b(?i:digest)[ \t]+(?:[A-Za-z][A-Za-z0-9_-]*[ \t]*=[ \t]*(?:\"[^\"\r\n]*\"|[^\s,\"]*)"
        r"[ \t]*,[ \t]*){0,15}(?i:response)[ \t]*=[ \t]*\"?(?P<v>[0-9a-fA-F]{32,128})\b",
        "headers",
        "url",
    ),
    # SQL's CREATE/ALTER USER ... IDENTIFIED BY 'x' (MySQL, Oracle), PowerShell's
    # ConvertTo-SecureString "x" -AsPlainText, redis.conf's requirepass/masterauth x.
    Rule(
        "statements",
        "password",
        r"\b(?i:identified)[ \t]+(?i:by)[ \t]+(?:(?i:password)[ \t]+)?['\"]"
        rf"(?P<v>{value_of_class(PAIRED, 3)})['\"]"
        r"|\b(?i:ConvertTo-SecureString)[ \t]+(?:-String[ \t]+)?['\"]"
        rf"(?P<v2>{value_of_class(PAIRED, 3)})['\"]"
        r"|(?:^|\n)[ \t]*(?:requirepass|masterauth)[ \t]+"
        rf"(?P<v3>{value_of_class(CONF, 4)})",
        "headers",
        "url",
    ),
    # The password of a Wi-Fi QR code: WIFI:T:WPA;S:home;P:secret;;
    Rule(
        "wifi_qr",
        "password",
        rf"\bWIFI:(?:[A-Z]:(?:[^;\\\r\n]|\\.)*;){{0,4}}P:(?P<v>{WIFI_VALUE});",
        "headers",
        "url",
    ),
    # A .netrc entry: machine HOST (or default), then login, account or port tokens, then
    # password SECRET (on one line or several, the value perhaps on the next line).
    Rule(
        "netrc",
        "password",
        r"\b(?:machine[ \t\r\n]+[^\s]+|default)(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+[^\s]+){0,3}"
        rf"[ \t\r\n]+(?P<key>password)[ \t\r\n]+(?P<v>{WORD_VALUE})",
        "headers",
        "keyed",
    ),
    # Passwords and keys in prose, after the word that names them (see PROSE).
    Rule("prose", "password", PROSE, "headers", "prose"),
    # A user or a Wi-Fi network, "/", its password, after a word for either (see CHAT_PAIR).
    Rule("chat_pair", "password", CHAT_PAIR, "headers", "pair"),
    # An administrator's user, "/" and its password with no word before them (see ADMIN_PAIR).
    Rule("admin_pair", "password", ADMIN_PAIR, "headers", "pair"),
    # A user, "/" and its password after a verb for logging in (see LOGIN_PAIR).
    Rule("login_pair", "password", LOGIN_PAIR, "headers", "pair"),
    # A user, ":" and its password before "@" and a host, no scheme (see HOST_PAIR).
    Rule("host_pair", "password", HOST_PAIR, "headers", "pair"),
    # A bearer token on its own ("curl -H 'Bearer ...'"): stricter shape checks in Python.
    Rule(
        "bearer",
        "password",
        r"\b(?i:bearer|ssws)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)",
        "assignments",
        "bearer",
    ),
    # HTTP basic credentials on their own: base64 that decodes to "user:password".
    Rule(
        "basic_auth",
        "basic-auth",
        rf"\b(?i:basic)[ \t]+(?P<v>{_B64_WITH_COLON})",
        "headers",
        "basic",
    ),
    # Passwords on command lines: mysql -pSECRET, sshpass -p SECRET, az login -p SECRET,
    # docker login -p SECRET, redis-cli -a SECRET, curl -u user:SECRET, smbclient -U
    # user%SECRET. The flag's command, the nearest before it on its line, is found in Python
    # (each line searched once, commands.Commands), so "-p" elsewhere ("ssh -p 2222", "mkdir
    # -p x", "docker run -p 80:80") is left alone. (A pattern that reads from the command to
    # the flag, "mysql[^\n]*?-p", keeps a partial match alive to the end of a line without
    # one: a line of "mysql -u a:b" repeated made every search run to its end, quadratic.)
    Rule(
        "command_line",
        "password",
        # -p and -a carry the password itself, which cannot start like a placeholder; -u and
        # -U carry "user:password" or "user%password", checked after the separator (the
        # password perhaps quoted on its own, without spaces: -u ann:'X').
        r"(?:^|[ \t])(?:(?P<flag>-p|-a|-w|-P)(?P<gap>=|[ \t]*)(?:'(?P<vsq>"
        + value_of_class(r"'\r\n", 3)
        + r")'|\"(?P<vdq>"
        + value_of_class(r"\"\r\n", 3)
        + r")\"|(?P<vbare>"
        + value_of_class(r"\s'\"", 3, not_first=r"\-")
        # A generated password may start with "-" (rule set 16, after sqlcmd's flag); the
        # check wants 8+ characters and a digit of it, as of any value so starting.
        + r"|-[^\s'\"\-][^\s'\"]{6,}"
        + r"))|(?P<uflag>-u|-U|--user|--auth)(?P<ugap>=|[ \t]*)(?:'(?P<usq>[^'\r\n]{3,})'"
        r"|\"(?P<udq>[^\"\r\n]{3,})\"|(?P<ubare>[^\s'\"-](?:[^\s'\":]*:(?:'[^'\s]{3,}'"
        r"|\"[^\"\s]{3,}\")|[^\s'\"]{2,}))))",
        "commands",
        "command",
    ),
)

#: The rules, in priority order: at one position the first rule that matches wins.
RULES: Final[tuple[Rule, ...]] = (
    _KEYS
    + PROVIDER_RULES
    + FORMAT_RULES
    + TOOL_RULES  # before the XML element rule: a plist's <key> and its <string>
    + _STRUCTURE
    + SHELL_RULES
    + WEB_RULES
    + ANSWER_RULES
    + CLIENT_RULES
    + PIN_RULES
    + HANDOUT_RULES
)

#: Every kind of marker the scrubber can write, in a stable order.
KINDS: Final[tuple[str, ...]] = tuple(dict.fromkeys(r.kind for r in RULES if r.kind))
