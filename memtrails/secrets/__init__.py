"""Secret scrubbing: replace credentials in text with typed markers, in linear time.

The API is pure, synchronous, deterministic functions::

    from memtrails.secrets import scrub_record, scrub_text

    clean, found = scrub_text("aws_access_key_id = AKIAQX7RT2ZK9PLM4WNB")
    # clean == "aws_access_key_id = [secret:aws-access-key]"
    # found == Counter({"aws-access-key": 1})

    record2, found = scrub_record(record)
    # record2 is record (the same object) when nothing was found, so callers can skip work.

``scrub_record`` scrubs every string a record carries: ``id``, ``title``, ``text``,
``author``, ``thread`` and every string anywhere inside ``meta`` (keys too, recursively
through mappings, lists and tuples; a key named like ``password`` or ``api_key`` marks its
string value as a secret). ``source`` and ``kind`` are the caller's and stay. The uid is
the caller's to take from the raw id (``conformance/README.md``). ``scrub_error`` and
``scrub_state`` do the same for what memtrails writes or prints from input: an error's place
and reason, an importer's position. Same input, same output: the fingerprint is computed
after scrubbing. Scrubbing an already scrubbed text finds nothing. :data:`RULES_VERSION`
names the rule set; a folder's manifest lists the ones its records were scrubbed with.

The rules (``rules.py``, ``providers.py``) are data; ``engine.py`` scans them.

Each secret becomes ``[secret:KIND]`` (see :data:`KINDS`); for ``url-password`` only the
password is replaced (``https://bob:[secret:url-password]@host``; a key id as the user goes
too: ``s3://[secret:aws-access-key]:[secret:url-password]@bucket``; a password holding an
unencoded ``/`` or ``?`` goes whole when the part before it is no port) and for ``password``
assignments only the value (``password: [secret:password]``). A value that is itself a
provider token gets the provider's kind (``Authorization: Bearer [secret:jwt]``). A JWT
wrapped over lines (at a mail's width, by a shell's ``\\`` or quoted-printable's ``=``) goes
whole: its signature runs over a line break as far as the header's algorithm says it is long,
or, when the header names no algorithm known here, over every line as wide as the token's
wrapped lines before it.

Every copy of a value found as a secret goes too, wherever it stands in the record: a key
pasted into a message and again in the quoted reply, a token in the title and the text,
the id (see ``copies.py``).

Assignments (kind ``password``): a key ending in password, passwd, pwd, pw, pass, secret,
token, api_key/apikey/api-key, access_key, private_key, secret_key or authorization (with
an optional prefix of up to three words: ``DB_PASSWORD``, ``clientSecret``), then ``=``,
``:``, ``=>``, ``:=``, ``==``, make's ``::=``/``:::=``/``?=``/``+=``, PHP's ``.=`` or a
space after ``--key`` or after a command that sets a variable (``set -x KEY``, ``setx``,
``setenv``, ``Set-Item Env:KEY``), then a value, quoted (backticks too) or bare; an index may
close the name (``$config['password'] =``, ``config[:password] =``), a YAML tag open the value
(``!!str``; ``password: !secret NAME`` names one kept elsewhere: a name, no secret); a setter
given a quoted value counts too (``setPassword("...")``, ``.password("...")``, under a name
of a password, a token or a secret); a type may stand
between the name and ``=`` when the value is quoted (``var xToken string = "..."``,
``val apiKey: String = "..."``). Any other name ending in "key" (``STRIPE_KEY``,
``app.api.key``, ``apiMaticKey``, ``Key`` in a log line; ``auth`` alone, ``&auth=``) needs a
random value (16+
characters with letters and digits, no words), and never a table's, a cache's or a public
key (``primary_key``, ``cacheKey``, ``publicKeyToken``). The same holds for XML elements
(the value perhaps on its own line), .NET ``<setting name=...><value>`` and ``<add key=...
value=...>``, Terraform's ``variable "x" { default = "..." }`` and URL query parameters
(``?key=``, ``&apikey=``; the value ends at the next ``&name=``, as a form's field does
anywhere; it is checked percent-decoded, and under a password's name 3+ characters with a
digit or a symbol will do, percent-encoded: ``?password=a%26b``). Only the value is
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
value check applies to a string in ``meta`` under a key named like that. A YAML block scalar
(``password: |``, ``token: >-``) takes the indented lines after it as the value, and a
Kubernetes/Compose ``- name: DB_PASSWORD`` names the ``value:`` on the next line.

Prose (kind ``password``): a word for a password (password, passwd, pwd, pw, passphrase,
passcode, credentials, login; Passwort, mot de passe, contraseña, senha, пароль, 密码, ...)
or a key (token, secret, key, api key, access key, license key, ...), then up to four words
and ``is``/``was``/``will be``/``to``/``as``/``:``/`` = ``/``->``/`` - ``/a table cell's
``|`` (or nothing), then the value, perhaps quoted or on the next (``> `` quoted) line after
a colon, or alone on the line after a label alone on its (three words at most: "Password",
then "hunter2-Secret9"; "API key", then the key): "the password is hunter2!", "my password for the VPN is X", "pwd X", "Datadog API
key: X", "credentials: ann / X", "| password | X |"; in other languages their own links
("Das Passwort lautet X", "la password è X", "пароль от почты: X"), glued in the scripts
written without spaces, where the value ends at their first character ("パスワードはXです",
"密码是X", "비밀번호는 X입니다"), and their quotes (「X」, « X », “X”). A password there needs 6+ characters with a digit or a symbol; a key 16+ characters with
letters and digits that are not a run of words; never a URL, a path, an address, code or a
placeholder, and not when the words say it is something else ("password manager is",
"publishable key", "key length is").

Linear time: the rules are alternatives of three RE2 expressions (google-re2, no
backtracking), each scanned once over the UTF-8 bytes of the text. RE2 makes each search
linear; finding *all* matches stays linear because no rule can keep a partial match alive
far past a place where another match may start (key prefixes and URL schemes are at most
three words, the other open-ended parts start with a literal that cannot recur inside
them), and a match rejected by the checks above never sends the scan back more than its
own length. ``benchmarks/scrub_speed.py`` measures it, doubling every hostile input.

Tables (``tables.py``): a header row naming a column like a secret (``password``, ``api_key``,
``Client Secret``; CSV, TSV, ``;`` or Markdown), then that column's values in the rows under
it (a row's quoted field may span lines), with an assignment's value checks; SQL's ``INSERT INTO t (..., password) VALUES (...),
(...)`` (a call's first string too: ``crypt('X', ...)``) and pg_dump's ``COPY t (...) FROM
stdin;`` rows.

Commands: ``mysql -pX``, ``sshpass -p X``, ``psexec -p X`` (and PAExec, CrackMapExec,
NetExec, evil-winrm, smbmap, rdesktop), ``redis-cli -a X``, ``curl -u user:X`` (or
``user:'X'``), HTTPie's ``http -a user:X`` and ``--auth`` within
300 bytes of the command; the MySQL clients' ``-pX``, ``docker login -p X``, ``htpasswd -b
FILE USER X``, ``smbclient -U user%X`` and ``net user NAME X`` anywhere on the command's line;
SQL's ``IDENTIFIED BY 'X'``, PowerShell's ``ConvertTo-SecureString 'X'``, redis.conf's
``requirepass X``/``masterauth X``. Credentials handed to a constructor or a client
(``auth=("ann", "X")``, ``HTTPBasicAuth``, ``NetworkCredential``, ``PasswordAuthentication``,
``basic_auth("ann", Some("X"))``, ``new PDO($dsn, 'root', 'X')``), Oracle's ``user/X@db``
(``sqlplus``, a thin JDBC URL), a ``.pgpass`` line (``host:port:db:user:X``), Bundler's
``BUNDLE_HOST__COM: user:X``, Yarn's ``npmAuthIdent``, a JSON ``{"name": "X-Api-Key", "value":
...}`` pair (a HAR file, a container's env), an HTTP Digest
header's ``response=``, an Ansible Vault's encrypted lines (a vault file, ``!vault |``), an
``.npmrc``'s ``_auth``/``_password`` on a line of its own, a PEM block concatenated over
string literals in code (``"...\\n" +`` then ``"..."``).

Rule set 9: an AWS Signature Version 4 ``Authorization`` header's ``Signature=`` (64 hex,
botocore's ``Signature:`` line too; the key id goes, the scheme word and the credential's
scope stay); a password piped or fed to a command that reads its standard input
(``shell.py``: ``echo X | sudo -S``, ``| docker login --password-stdin``, ``| kinit``,
``echo 'ann:X' | chpasswd``, ``sudo -S cmd <<< X``, a here-document to ``passwd``, ``read -r
DB_PASSWORD <<< X``, ``mysql -p"$(cat <<< X)"``), more commands' passwords: mongo's ``-p``,
the OpenLDAP clients' ``-w``, 7-Zip's glued ``-p``, zip's, unzip's, sqlcmd's and bcp's ``-P``,
keytool's ``-storepass``/``-keypass``, ``rabbitmqctl add_user NAME PASSWORD``,
``SSHPASS=PASSWORD``, ``AUTH [NAME] PASSWORD`` (Redis, SMTP), ``net use ... /user:NAME
PASSWORD``, expect's ``send`` after a password prompt; a HAR file's ``{"name": ..., "value": ...}``
object named like a session, a CSRF token or an auth value (``web.py``), and a ``Cookie``
header given as such an object; the base64 lines and END line of a private key's PEM block
with no BEGIN line (``pem.py``: the second of two chat messages); a password or a key
that is the whole answer on the line after a question naming it (``answers.py``: "what's
the db password?", then "bob: it's X"; letters and digits, no URL; a key 16+ random).

Rule set 10: a SASL mechanism's name and SMTP's AUTH LOGIN prompts in base64 are no
secrets (``250-AUTH PLAIN LOGIN CRAM-MD5``, ``AUTH CRAM-MD5``); ``AUTH PLAIN <base64>`` goes
anywhere on a line (both cases in the base64), and so does the answer to ``334
UGFzc3dvcmQ6``; a user and its password after a word for both ("creds are ann / X", "login
ann X", "username ann pass X", "creds: `ann`, `X`"; the user no function word, the password
no date or number); every cookie of a ``Cookie``/``Set-Cookie`` header, curl's ``-b`` and
``document.cookie`` named like a session, a token, an auth or a CSRF value with 6+
characters (``web.py``; others 16+, analytics ids aside); Sentry DSNs (kind ``sentry-dsn``);
3+ lines of a private key's PEM body with neither BEGIN nor END line (``pem.py``); passwords
clients take in a fixed place (``clients.py``: SNMP communities, ``openssl -k``,
``ssh-keygen -N``, ``mosquitto_pub -P``, the macOS keychain's ``-w``, FreeRDP's ``/p:``,
``schtasks /rp X``, ``lftp -u user,X``, ``curl --proxy-user``, Go's ``user:X@tcp(...)``,
ngrok's authtoken, an IPsec PSK, POP3/FTP ``PASS`` after ``USER``, ``htpasswd -i`` and
``docker secret create`` from stdin) and a JSON Web Key's private members.

Rule set 11: passwords named by their context only ("pass is X", "the password's X",
"account ann / X", "wifi is Net / X"); pgbouncer's userlist, pppd's chap-secrets and
pap-secrets and OpenVPN's auth-user-pass file after the file's name
(``credential_files.py``); PostgreSQL's SCRAM-SHA-256 and md5 hashes; a host or an id after
"login" and a JSON Web Key's public members are no secrets (``identifiers.py``).

Rule set 12: a user, "/" and its password after a verb for logging in ("log in with ann /
X", "use ann / X to log in", in German, French, Spanish, Italian, Portuguese and Dutch too;
``prose.LOGIN_PAIR``), "login is ann, pass is X", words for credentials in other languages,
passphrases of three or more words joined by "-" after a word for a password
(``values.is_passphrase``; not a file's name), an address as the user ("creds:
ann@example.com:X"); rsync's, Postfix's, exim's, davfs2's and s3fs' credential files after
their names; a key that starts with "-" (IBM Cloud); tokens glued to a word by "-"; Authress
and Defined Networking keys. After "account NAME /" with no verb for logging in, a
lowercase word and a number ("invoices2024") is a folder, not a password.

Rule set 13: tokens with a short prefix anywhere, random ones only (Vault's legacy ``s.``,
``b.`` and ``r.`` tokens and its ``hvr.`` recovery tokens, a Yandex Cloud static key's
``YC`` secret, Yandex OAuth's ``y0_``); a long run of random letters between ``_`` is no
word (``Key=<random>_fRz_25``); the ``-p`` of a tool's login (``oc login``, ``cf login``,
``helm registry login``; not a number), ``redis-server --requirepass X``,
``CONFIG SET requirepass X``, AWS's ``--secret-string X`` and ``ssm put-parameter --value
X``, ``wpa_passphrase NET X``, ``npm config set //host/:_authToken X``; a value under a
secret's name that is base64 of what that name takes (a Kubernetes Secret's ``data:``);
base64 that starts with ``/`` under any key's name (not a path: three ``/`` at most); after
"account NAME /", a lowercase word and 2+ digits that are no year (``tigers`` and ``66``)
goes, a word and a year or one digit (``invoices2024``, ``archive2``) stays; a user, ``:``
and a password before ``@`` and a host with no scheme (``ann:X@ftp.example.com``; not
``mailto:``, a header's name or ``git@host:path``).

Rule set 14: scrubbing is idempotent, ``scrub(scrub(x)) == scrub(x)``: a match that starts
inside one of the scrubber's markers is no match and no replacement cuts into one
(``markers.py``), the lines around a replacement (whole lines, 2 KB at most) are scanned
again (three times at most) for what it exposed, a query's next parameter and a secret's name glued after a bearer
token are read on their own. After "account NAME /", a word glued to one digit
(``tigers6``) goes, a word, ``-`` or ``_`` and one digit (``sprint_4``) stays; "creds for
<up to six words>: ann / X"; a user with digits or ``_`` after a word for credentials
("creds: deploy01 / X"); a value starting with ``-`` and a symbol; a quoted chap-secrets
line (``"ann" * "X" *``) without the file's name; a password starting with ``%`` and a
letter (``%NAME%``, ``%s`` stay); "the db pass is" and a word, "-" and digits; Postman's and
CloudFormation's key/value pair objects.

Rule set 15: a user and its password after "login:", "logins", "logon", "sign-in" or
"login =>" whatever the password's shape (a word and digits, an ``@``, a passphrase; "login:
ann / pass X"; a host or an id such as ``web-01-east`` stays); a passphrase after "pass is"
(not what a ticket is good for: ``valid-for-30-days``); a password starting with ``%`` and a
letter anywhere (``%NAME%``, ``%s``, ``%5d`` stay), with ``~`` in prose (not a home folder),
with ``-`` after a word for a password or a client's flag (``--value -k9...``; not a flag such
as ``-aes256``); a flow mapping's ``}`` is no part of its last value;
Redis MONITOR's ``"AUTH" "X"``; an administrator's user (root, admin, sa, postgres, ...),
"/" and a password with no word before them ("root/X on the switch"; not a path, a region or
a folder); a YAML list's ``- key: db_password`` then ``value: X``. A pointer where a password would stand is none
(``pointers.py``): a lead word and words ("see-the-wiki", "ask_bob", "in-1password") or a
phrase saying none is given ("TBD", "same-as-before").

Rule set 16 (``plain.py``, ``pins.py``): a password opening with ``(``, ``<`` or ``[`` it
leaves open, with a digit (``<tango548!`` or ``[qy7f8o?`` as a value, a flag's or ``pass:``'s;
``(optional)``, ``<password1>``, ``[REDACTED]``, ``getpass()`` stay); a password of letters
only where prose hands it out and the sentence ends with it ("the password is calvin", "login root/calvin", "creds are admin/sunshine"; not a
word that says what it is: "incorrect", "required", "rotated", "different", nor a variable's
name, nor after another language's word: "das Passwort ist falsch"); "password for the NAS X"
with no link, ending its line, in other languages too ("пароль от wifi X", "mot de passe du
wifi X", "Passwort für das WLAN X"; not "password for user ann2024", a version or a date);
the user before "/" stays ("Login for the router: ann/X"); a PIN or a door code of 6-12
digits ("the PIN for the door is 696087", "le code PIN est X", "код от домофона X");
``AUTH X&Y`` at a Redis prompt; ``-`` first after sqlcmd's ``-P``; NVIDIA (``nvapi-``),
Cerebras (``csk-``), Pinecone (``pcsk_``) and Resend (``re_``) keys; words for a password
in more languages (Arabic, Persian, Hebrew, Hindi, Thai, Greek, Romanian, Turkish's and
Hungarian's possessives, Malay) and their "is"; a one-time code after its word ("OTP: X",
"your verification code is X", "2FA code X"); an account's backup or recovery codes ("backup
codes: 48291-38472 19283-48271", the list as one); a passphrase glued to the Japanese,
Chinese or Korean text after it. A ticket's pass is no password ("my boarding pass is
gate-B12").

Formats (``formats.py``): password hashes (crypt's ``$1$``/``$5$``/``$6$``, bcrypt,
yescrypt, Argon2, PBKDF2, phpass, Drupal, MySQL, LDAP ``{SSHA}``, Kerberos ``$krb5asrep$``
and ``$krb5tgs$``, pwdump lines), kind ``password-hash``; base64 that decodes to a token
of a known format (a JWT, a GitHub token, a PEM block), with that token's kind; and, kind
``token``, a token of a service no rule names: a lower-case prefix of one or two words
joined by ``_`` and 20+ random characters (``acme_a1B2...``), or a quoted string of 20-64
random characters on its own (``mite 'V' 'host'``). Random: digits and both cases, not a
name made of words (``PydanticDeprecatedSince20``), not an alphabet written out, not base64
of a sentence. Masks and documented examples are no tokens: ``ghp_xxxx...``,
``AKIAXXXXXXXXXXXXXXXX``, AWS's ``AKIAIOSFODNN7EXAMPLE``.

Known gaps: camelCase short keys (``dbPass``), Stripe publishable keys (``pk_``: public by
design), a password of letters only followed by more words ("the password is sunshine for
now"), ending in a word's suffix ("elephant", "-ed", "-ing") or after a user other than an
administrator's with no link ("login ann/kangaroo": "login ann/projects" reads the same), a
folded YAML scalar's line starting with ``&``, a query's key starting with ``--``, a JWT or a
Discord token glued by ``-`` to a word that follows no space or ``/`` (``a-b-eyJ...``), a
password after "account NAME /" (no word for a password or a login near it) of a lowercase
word and a year, or a word, ``-`` or ``_`` and one digit (read as a folder), a word and a
year after "pass is" ("the season pass is summer-2024" names a pass), a password starting
with a bracket it closes again (``<Hunter2>``: a placeholder's shape), ``<`` or ``[``
in a URL's user information (RFC 3986 wants them encoded), an unencoded ``/`` or ``?`` in a URL's
password right after digits only (read as a port), a URL's password that is a placeholder word
(``user:pass``, ``user:password``), a wrapped JWT of an unknown algorithm whose last line
happens to fill the width (the next line's first word goes with it), unprefixed tokens of
unknown services with no word before them and no quotes around them. By design, PINs of 4-5 digits and any value shorter than 6 characters under a secret's name are kept (``PIN:
4711``, ``password: 1234``; a query's password aside): too short to tell from a count or a
code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from .._lazy import lazy_names as _lazy_names
from .rule import Rule, marker
from .rules import KINDS, RULES, RULES_VERSION

if _TYPE_CHECKING:
    from .engine import scrub_text
    from .fields import scrub_error, scrub_record, scrub_state

__all__ = [
    "KINDS",
    "RULES",
    "RULES_VERSION",
    "Rule",
    "marker",
    "scrub_error",
    "scrub_record",
    "scrub_state",
    "scrub_text",
]

# The scanner compiles its patterns when imported (0.2-0.3 s): a folder that only needs
# RULES_VERSION (opening one, `memtrails status`) does not load it.
_LAZY = {
    "scrub_error": ".fields",
    "scrub_record": ".fields",
    "scrub_state": ".fields",
    "scrub_text": ".engine",
}


__getattr__ = _lazy_names(__name__, _LAZY, globals())
