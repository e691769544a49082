"""Held-out contexts for ``secret_survivors.py`` (rule set 12): shapes that survived rule set 11.

Passwords named in prose by their context in English and five other languages ("use ann / X
to log in", "login is ann, pass is X", "creds: ann:X", a Wi-Fi passphrase of words joined by
"-"), credential files named before their lines (``.pgpass``, rsync's secrets, Postfix's
``sasl_passwd``, exim's ``passwd.client``, davfs2's secrets, s3fs' passwd file, ``.netrc``,
``~/.aws/credentials``), provider tokens glued to words and punctuation, and IBM Cloud API
keys. Each returns the text and the secret in it. ``NEAR_MISSES_12`` are the same shapes
without a secret: a "/" between words and a word with digits ("account billing /
invoices2024"), generated. Not a package module.
"""

from __future__ import annotations

from collections.abc import Callable

from _secret_families import ALNUM, B64, DIG, FAMILIES, HEX, LOW, URLSAFE, Gen

__all__ = ["HELD_OUT_12", "NEAR_MISSES_12"]

Made = tuple[str, str]  # (text, secret)

_USERS = ("ann", "admin", "deploy", "jdoe", "svc_backup", "ops@example.com", "root")
_WORDS = (
    *("correct", "horse", "battery", "staple", "orange", "window", "marble", "tiger"),
    *("velvet", "rocket", "garden", "piano", "coffee", "meadow", "silver", "falcon"),
)


def _password(g: Gen) -> str:
    """A password with a digit or a symbol, no quotes, spaces, slashes, commas or colons."""
    return g.password_without("\"'\\`/ \t,:;")


def _passphrase(g: Gen) -> str:
    """Three to five lowercase words joined by "-", perhaps a digit among them ("blue-7-sky")."""
    words = [g.pick(_WORDS) for _ in range(g.rng.randint(3, 5))]
    if g.rng.random() < 0.4:
        words.insert(g.rng.randint(1, len(words) - 1), g.pick(DIG))
    return "-".join(words)


def _secret(g: Gen) -> str:
    return _passphrase(g) if g.rng.random() < 0.3 else _password(g)


_EN = (
    "use {u} / {p} to log in",
    "you can log in with {u} / {p}",
    "sign in as {u} / {p} on the staging box",
    "login is {u}, pass is {p}",
    "username is {u} and the pass is {p}",
    "creds: {u}:{p}",
    "[09:14] bob: creds are {u}:{p} for grafana",
    "the wifi password is {pp}",
    "Guest wifi passphrase: {pp}",
    "the password is {pp} (all lowercase)",
)
_INTL = (
    # German
    "Melde dich mit {u} / {p} an",
    "Login ist {u}, Passwort ist {p}",
    "Zugangsdaten: {u}:{p}",
    "das WLAN-Passwort ist {pp}",
    # French
    "connecte-toi avec {u} / {p}",
    "identifiant {u}, mot de passe {p}",
    "identifiants : {u}:{p}",
    "le mot de passe du wifi est {pp}",
    # Spanish
    "entra con {u} / {p} para iniciar sesión",
    "usuario {u}, contraseña {p}",
    "credenciales: {u}:{p}",
    "la contraseña del wifi es {pp}",
    # Italian, Portuguese, Dutch
    "accedi con {u} / {p}",
    "credenziali: {u}:{p}",
    "a senha do wifi é {pp}",
    "log in met {u} / {p}",
    "het wachtwoord is {pp}",
)


def _prose(forms: tuple[str, ...]) -> Callable[[Gen], Made]:
    def make(g: Gen) -> Made:
        form = g.pick(forms)
        if "{pp}" in form:
            secret = _passphrase(g)
            return form.format(pp=secret), secret
        secret = _secret(g) if "pass" in form.lower() else _password(g)
        return form.format(u=g.pick(_USERS), p=secret), secret

    return make


def _credential_file(g: Gen) -> Made:
    p, u = _password(g), g.pick(("ann", "app", "backup", "replica"))
    host = g.pick(("db.internal", "10.0.4.12", "*", "pg-prod.example.com"))
    kind = g.rng.randrange(8)
    if kind == 0:
        head = g.pick(("here is my .pgpass:\n", "$ cat ~/.pgpass\n", "~/.pgpass contents:\n\n"))
        text = f"{head}{host}:5432:*:postgres:{_password(g)}\n{host}:5432:app:{u}:{p}\n"
    elif kind == 1:
        head = g.pick(("/etc/rsyncd.secrets:\n", "$ sudo cat /etc/rsyncd.secrets\n"))
        text = f"{head}{u}:{p}\n"
    elif kind == 2:
        relay = g.pick(("[smtp.gmail.com]:587", "[email-smtp.us-east-1.amazonaws.com]:587"))
        head = g.pick(("# /etc/postfix/sasl_passwd\n", "$ cat /etc/postfix/sasl_passwd\n"))
        text = f"{head}{relay} {u}@example.com:{p}\n$ postmap /etc/postfix/sasl_passwd\n"
    elif kind == 3:
        text = f"/etc/exim4/passwd.client:\n*.example.com:{u}@example.com:{p}\n"
    elif kind == 4:
        head = g.pick(("/etc/davfs2/secrets\n", "added to ~/.davfs2/secrets:\n"))
        text = f"{head}https://dav.example.com/remote.php/webdav {u} {p}\n"
    elif kind == 5:
        p = g.s(B64, 40)
        head = g.pick(("echo into ~/.passwd-s3fs:\n", "/etc/passwd-s3fs\n"))
        text = f"{head}AKIA{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}:{p}\n"
    elif kind == 6:
        head = g.pick(("~/.netrc contents below\n\n", "my .netrc:\n"))
        text = f"{head}machine api.example.com login {u} password {p}\n"
    else:
        p = g.s(B64, 40)
        text = (
            "$ cat ~/.aws/credentials\n[default]\n"
            f"aws_access_key_id = AKIA{g.s('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\n"
            f"aws_secret_access_key = {p}\n$ "
        )
    return text, p


# Tokens whose own shape says what they are (the prefixed families), glued to what stands
# around them with no separator a word boundary gives.
_PREFIXED = [make for _, _, _, make, prefixed in FAMILIES if prefixed]


def _glued(g: Gen) -> Made:
    v = g.pick(_PREFIXED)(g)
    if "\n" in v:
        v = g.pick(_PREFIXED)(g)
    form = g.pick(
        (
            "notes/backup-{v}.txt",
            "saved as key-{v}.json",
            '{{"ts":1,"msg":"auth ok token={v},user=ann"}}',
            "client = Client(key='{v}')",
            'login("{v}"))',
            "GET /cb?state=1&code=x&k={v}&page=2 HTTP/1.1",
            "<td>{v}</td>",
            "[{v}]",
            "(key:{v})",
        )
    )
    return form.format(v=v), v


def _ibm(g: Gen) -> Made:
    k = g.s(URLSAFE, 44)
    form = g.pick(
        (
            "ibmcloud login --apikey {k} -r us-south",
            "ibmcloud login -a https://cloud.ibm.com --apikey {k}",
            '{{"name": "ci-key", "description": "", "createdAt": "2024-05-01T10:00+0000", "apikey": "{k}"}}',
            "On Tue, Bob wrote:\n> the IBM Cloud API key for staging:\n>\n> {k}\n>\n> cheers",
            "ibm cloud apikey -> {k}",
            'ibmcloud_api_key = "{k}"',
            "export IC_API_KEY={k}",
            "watson apikey {k}",
            "> use this IAM API key for staging:\n>\n> {k}\n>\n> cheers",
        )
    )
    return form.format(k=k), k


HELD_OUT_12: dict[str, Callable[[Gen], Made]] = {
    "prose-password-en": _prose(_EN),
    "prose-password-intl": _prose(_INTL),
    "credential-file-named": _credential_file,
    "glued-token": _glued,
    "ibm-cloud-key": _ibm,
}


def _near_misses(g: Gen) -> list[str]:
    """A "/" between a word and a word with digits, with no word of a login or a password."""
    names = ("billing", "reports", "finance", "sales", "admin", "ops", "marketing", "hr")
    items = ("invoices", "reports", "budget", "exports", "backups", "q", "archive", "sprint")
    heads = ("account", "user", "folder", "team", "project", "see", "under", "the shared account")
    out = []
    for _ in range(24):
        year = str(g.rng.randint(1998, 2031))
        # A word glued to one digit ("archive2") is a password's shape since rule set 14; a
        # word, "-" or "_" and one digit stays a folder's ("sprint_4").
        item = g.pick(items) + g.pick((year, "-" + year, "_" + year, f"_{g.rng.randint(1, 4)}"))
        out.append(f"{g.pick(heads)} {g.pick(names)} / {item}")
    out += [
        f"see account {g.pick(names)} / {g.pick(items)}{g.rng.randint(2000, 2030)} for the totals",
        "files under user admin / reports2023 are read-only",
        "IBM Cloud API keys are 44 characters long",
        "ibmcloud login --sso",
        "ibmcloud login --apikey @~/apikey.json",
        "the wifi password is on the fridge",
        "the password is case-sensitive",
        "Passwort vergessen? Klicke auf den Link",
        "le mot de passe est trop court",
        "la contraseña es obligatoria",
        "here is my .pgpass: it's empty",
        "$ cat ~/.aws/credentials\ncat: /home/ann/.aws/credentials: No such file or directory",
        "backup-2024-05-01-full.tar.gz",
        "notes/backup-" + g.s(HEX, 12) + ".txt",
        f"integrity sha512-{g.s(B64, 86)}==",
        "state-of-the-art-token-handling",
        "creds: see the vault",
        "login is broken on staging",
        "use admin / the usual to log in",
        "user " + g.s(LOW, 6) + " / " + g.s(ALNUM, 4),
    ]
    return out


#: The same shapes without a secret: they must come out as they went in.
NEAR_MISSES_12: tuple[str, ...] = tuple(_near_misses(Gen(1212)))
