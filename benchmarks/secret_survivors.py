"""Count the secrets that survive the scrubber: generated secrets of every family, in context.

Usage: .venv/bin/python benchmarks/secret_survivors.py [--seed N] [--per-family N] [--show N]

A held-out-style check. Every family of gitleaks' default rules and every detect-secrets plugin
(public IP addresses aside: not a credential) gets values made from the format its provider
documents, with random characters from a fixed seed, and each value is written into contexts
people leak them in: prose, a mail reply quoted with "> ", .env, INI, YAML (block scalars too),
JSON, kubeconfig, Docker config, shell history, URLs, DSNs, chat, author names, file names.
A secret survives when its value (or, for multi-line values, any line of it) is still in the
scrubbed text. Near-misses that must stay (commit hashes, UUIDs, checksums, base64 images,
prose about passwords and tokens) are scrubbed too, and every marker in them is counted.

Prints survivors by family with a sample, then the near-misses that got a marker, then one
JSON line with every figure. ``tests/test_secret_survivors.py`` runs the same cases.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _secret_contexts import CONTEXTS, NEAR_MISSES
from _secret_families import (  # the benchmarks folder is not a package: sys.path above
    ALNUM,
    B64,
    DIG,
    FAMILIES,
    HEX,
    UP,
    Gen,
)
from _secret_held_out_10 import HELD_OUT_10, NEAR_MISSES_10
from _secret_held_out_11 import HELD_OUT_11, NEAR_MISSES_11
from _secret_held_out_12 import HELD_OUT_12, NEAR_MISSES_12
from _secret_held_out_13 import HELD_OUT_13, NEAR_MISSES_13
from _secret_held_out_14 import HELD_OUT_14, NEAR_MISSES_14
from _secret_held_out_15 import HELD_OUT_15, NEAR_MISSES_15
from _secret_held_out_16 import HELD_OUT_16, NEAR_MISSES_16
from _secret_held_out_17 import HELD_OUT_17, NEAR_MISSES_17

from memtrails.secrets import RULES_VERSION, scrub_text


@dataclass(frozen=True)
class Case:
    """One generated text: the family, the context it was written in, the secret inside."""

    family: str
    context: str
    text: str
    secret: str


# --- Contexts ---------------------------------------------------------------------------------


def _low(name: str) -> str:
    return name.lower()


def _camel(name: str) -> str:
    head, *rest = name.lower().split("_")
    return head + "".join(p.title() for p in rest)


Ctx = Callable[[Gen, str, str, str], str]  # (gen, label, NAME, value) -> text

# Contexts for any value: a name or a word next to it says it is a secret.
KEYED: dict[str, Ctx] = {
    "env": lambda g, lab, n, v: f"# prod\n{n}={v}\nLOG_LEVEL=info",
    "env-export": lambda g, lab, n, v: f'export {n}="{v}"',
    "ini": lambda g, lab, n, v: f"[default]\nregion = eu-west-1\n{_low(n)} = {v}\n",
    "yaml": lambda g, lab, n, v: f"env:\n  - name: {n}\n    value: {v}\n",
    "yaml-key": lambda g, lab, n, v: f"settings:\n  {_low(n)}: {v}\n  timeout: 30\n",
    "yaml-block": lambda g, lab, n, v: f"settings:\n  {_low(n)}: |\n    {v}\n  timeout: 30\n",
    "yaml-folded": lambda g, lab, n, v: f"{_low(n)}: >-\n  {v}\nnext: 1\n",
    "json": lambda g, lab, n, v: json.dumps({"name": "prod", _camel(n): v}, indent=2),
    "toml": lambda g, lab, n, v: f'[auth]\n{_low(n)} = "{v}"\n',
    "prose-is": lambda g, lab, n, v: f"Hi Ann, the new {lab} is {v} (rotated this morning).",
    "prose-colon": lambda g, lab, n, v: f"Here is the {lab}: {v}\nThanks!",
    "prose-bare": lambda g, lab, n, v: f"can you try with {lab} {v} and tell me if it works",
    "mail-quote": lambda g, lab, n, v: (
        f"On Tue, Bob wrote:\n> use this {lab} for staging:\n>\n> {v}\n>\n> cheers\n\nworks, thanks"
    ),
    "chat": lambda g, lab, n, v: f"@channel {lab} for the demo -> `{v}` (don't share)",
    "shell": lambda g, lab, n, v: f"$ {n}={v} ./deploy.sh --env prod",
    "header": lambda g, lab, n, v: (
        f"GET /v1/items HTTP/1.1\nHost: api.example.com\nX-Api-Key: {v}\nAccept: */*"
    ),
    "curl-bearer": lambda g, lab, n, v: (
        f'curl -s -H "Authorization: Bearer {v}" https://api.example.com/v2/me'
    ),
    "url-query": lambda g, lab, n, v: (
        f"GET https://api.example.com/v1/data?format=json&api_key={v}&page=2"
    ),
    "cli-flag": lambda g, lab, n, v: f"terraform apply -var 'region=eu' --token {v}",
    # Rule set 5: the syntaxes of more languages and formats, logs, query parameters.
    "xml-own-line": lambda g, lab, n, v: (
        f"<config>\n  <{_camel(n)}>\n    {v}\n  </{_camel(n)}>\n</config>"
    ),
    "xml-add-key": lambda g, lab, n, v: f'<appSettings>\n  <add key="{_camel(n)}" value="{v}" />',
    "go-var": lambda g, lab, n, v: f'var {_camel(n)} string = "{v}"',
    "go-backtick": lambda g, lab, n, v: f"{_camel(n)} := `{v}`",
    "kotlin-val": lambda g, lab, n, v: f'val {_camel(n)}: String = "{v}"',
    "php-append": lambda g, lab, n, v: f'${_camel(n)} .= "{v}";',
    "make": lambda g, lab, n, v: f"{n} {g.pick(['?=', '::=', ':::=', '+='])} {v}\nall:\n\t./build",
    "systemd": lambda g, lab, n, v: f'[Service]\nEnvironment="{n}={v}"\nExecStart=/usr/bin/app',
    "compose-env": lambda g, lab, n, v: f"services:\n  app:\n    environment:\n      - {n}={v}\n",
    "hcl-default": lambda g, lab, n, v: f'variable "{_low(n)}" {{\n  default = "{v}"\n}}',
    "log-key": lambda g, lab, n, v: f"2024-05-01 12:00:01 [DEBUG] Using Key={v} for the upload",
    "camel-key": lambda g, lab, n, v: f'const {_camel(n.rsplit("_", 1)[0])}Key = "{v}";',
    "snake-key": lambda g, lab, n, v: f'{{"{_low(n.rsplit("_", 1)[0])}_key": "{v}"}}',
    "query-key": lambda g, lab, n, v: f"GET https://api.example.com/v1/items?key={v}&page=2",
    "copy-twice": lambda g, lab, n, v: f"{n}='{v}'\n> quoted reply:\n> '{v}'",
}

# Contexts for values whose own shape says what they are: no name needed.
BARE: dict[str, Ctx] = {
    "prose": lambda g, lab, n, v: f"I pasted {v} into the ticket by mistake, please revoke it.",
    "mail-quote": lambda g, lab, n, v: f"> > It failed with {v}\n> did you rotate it?\nyes",
    "chat": lambda g, lab, n, v: f"oops {v} lol",
    "author": lambda g, lab, n, v: f"deploy-bot ({v}) <bot@example.com>",
    "file-name": lambda g, lab, n, v: f"notes/backup-{v}.txt",
    "json-list": lambda g, lab, n, v: json.dumps({"items": ["a", v, "b"]}),
}

# Passwords: prose without a separator, YAML block scalars, DSNs, commands, config files.
PASSWORD_CONTEXTS: dict[str, Callable[[Gen, str], str]] = {
    "prose-is": lambda g, p: f"The password is {p} for the new router.",
    "prose-my": lambda g, p: f"fyi my password for the VPN is {p} until Friday",
    "prose-pwd": lambda g, p: f"login: admin pwd {p}",
    "prose-pw-colon": lambda g, p: f"wifi: CoffeeShop / pw: {p}",
    "prose-passwd": lambda g, p: f"ssh in as deploy, passwd {p}",
    "prose-wifi": lambda g, p: f"The wifi password is {p}.",
    "prose-set-to": lambda g, p: f"I set the admin password to {p} for now.",
    "prose-slash": lambda g, p: f"credentials: ann / {p}",
    "prose-quoted": lambda g, p: f'use password "{p}" to open the zip',
    "mail-quote": lambda g, p: f"> the root password is {p}\n> please change it\n\nDone.",
    "chat-pass": lambda g, p: f"pass: {p}",
    "yaml-block": lambda g, p: f"db:\n  user: app\n  password: |\n    {p}\n  host: db.local\n",
    "yaml-folded": lambda g, p: f"db:\n  password: >-\n    {p}\n  port: 5432\n",
    "yaml-quoted": lambda g, p: f"spring:\n  datasource:\n    password: '{p}'\n",
    "ini": lambda g, p: f"[client]\nuser = root\npassword = {p}\n",
    "env": lambda g, p: f"DB_USER=app\nDB_PASS={p}\n",
    "json": lambda g, p: json.dumps({"user": "app", "passwd": p}),
    "xml": lambda g, p: (
        f"<server><id>repo</id><username>ci</username><password>{p}</password></server>"
    ),
    "nuget": lambda g, p: f'<add key="ClearTextPassword" value="{p}" />',
    "dsn-postgres": lambda g, p: f"DATABASE_URL=postgresql://app:{p}@db.internal:5432/app",
    "dsn-mongo": lambda g, p: (
        f"mongodb+srv://admin:{p}@cluster0.abcde.mongodb.net/?retryWrites=true"
    ),
    "dsn-ado": lambda g, p: (
        f"Server=tcp:sql.database.windows.net,1433;Database=app;User ID=app;Password={p};Encrypt=True;"
    ),
    "dsn-odbc": lambda g, p: f"DRIVER={{ODBC Driver 18}};SERVER=db;UID=sa;PWD={p};",
    "dsn-jdbc": lambda g, p: f"jdbc:mysql://db:3306/app?user=app&password={p}&useSSL=true",
    "cmd-mysql": lambda g, p: f"mysql -h db -u root -p{p} app < dump.sql",
    "cmd-mysql-far": lambda g, p: (
        "mysql --host=db.internal.example.com --port=3306 --user=app "
        + " ".join(f'--init-command="SET SESSION option_{i} = {i}"' for i in range(9))
        + f" -p{p} app"
    ),
    "cmd-sshpass": lambda g, p: f"sshpass -p '{p}' ssh deploy@web1",
    "cmd-pgpassword": lambda g, p: f"PGPASSWORD={p} psql -h db -U app",
    "cmd-docker-login": lambda g, p: f"docker login -u ci -p {p} registry.example.com",
    "cmd-curl-user": lambda g, p: f"curl -u admin:{p} https://jenkins.local/api/json",
    "cmd-htpasswd": lambda g, p: f"htpasswd -b .htpasswd admin {p}",
    "cmd-openssl": lambda g, p: f"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{p}",
    "cmd-smbclient": lambda g, p: f"smbclient //nas/share -U ann%{p}",
    "cmd-net-user": lambda g, p: f"net user svc_backup {p} /add",
    "cmd-wget": lambda g, p: f"wget --user=ci --password={p} https://files.local/a.tgz",
    "url-git": lambda g, p: f"git clone https://ann:{p}@git.example.com/team/repo.git",
    "netrc": lambda g, p: f"machine api.example.com\n  login ann\n  password {p}\n",
    "kubeconfig-pw": lambda g, p: (
        f"users:\n- name: admin\n  user:\n    username: admin\n    password: {p}\n"
    ),
    "docker-config": lambda g, p: json.dumps(
        {"auths": {"registry.example.com": {"auth": base64.b64encode(f"ci:{p}".encode()).decode()}}}
    ),
    "htaccess-basic": lambda g, p: (
        "Authorization: Basic " + base64.b64encode(f"ann:{p}".encode()).decode()
    ),
}

# Multi-line secrets: PEM blocks in places they are pasted.
PEM_CONTEXTS: dict[str, Callable[[str], str]] = {
    "bare": lambda v: f"here you go:\n{v}\nbye",
    "mail-quote": lambda v: "> " + v.replace("\n", "\n> ") + "\n\nthanks",
    "yaml-block": lambda v: "tls:\n  key: |\n    " + v.replace("\n", "\n    ") + "\n  cert: x\n",
    "json-escaped": lambda v: json.dumps({"type": "service_account", "private_key": v + "\n"}),
    "kubeconfig": lambda v: (
        "users:\n- name: a\n  user:\n    client-key-data: "
        + base64.b64encode(v.encode()).decode()
        + "\n"
    ),
    "chat-code": lambda v: f"```\n{v}\n```",
}


# Rule set N's held-out shapes (``_secret_held_out_N.py``), by N: 10; 11; 12; 13 (secrets in
# code and logs); 14 (infrastructure files, tool exports, chat in six languages); 15 (service
# configs, package credentials, command lines, logs, chat); 16 (credential files, connection
# strings, infrastructure code, command lines, chat in nine languages, provider keys); 17
# (notebooks, service files, SQL, client code, app configs, key files, Wi-Fi cards, archive
# commands, chat in many scripts, cookies, new providers' keys).
HELD_OUT_BY_SET = {
    10: HELD_OUT_10,
    11: HELD_OUT_11,
    12: HELD_OUT_12,
    13: HELD_OUT_13,
    14: HELD_OUT_14,
    15: HELD_OUT_15,
    16: HELD_OUT_16,
    17: HELD_OUT_17,
}


def cases(seed: int = 13, per_family: int = 3) -> list[Case]:
    """Return the generated cases: each family's values in each of its contexts."""
    g = Gen(seed)
    out: list[Case] = []
    for family, label, name, make, prefixed in FAMILIES:
        if family.startswith("private-key"):
            for ctx, wrap in PEM_CONTEXTS.items():
                value = make(g)
                out.append(Case(family, ctx, wrap(value), value))
            continue
        contexts = dict(KEYED)
        if prefixed:
            contexts.update({f"bare-{k}": c for k, c in BARE.items()})
        if family == "k8s-secret-data":  # a Secret's data: base64 of the value, under its name
            for _ in range(per_family):
                v = make(g)
                text = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: {v}\n  username: YWRtaW4=\n"
                out.append(Case(family, "k8s-secret", text, v))
                text = f"kind: Secret\ndata:\n  api-key: {make(g)}\n  db-password: |\n    {v}\n"
                out.append(Case(family, "k8s-secret-block", text, v))
            continue
        if family == "gcp-service-account":
            for _ in range(per_family):
                v = make(g)
                text = json.dumps(
                    {"type": "service_account", "project_id": "p", "private_key_id": v}
                )
                out.append(Case(family, "service-account-json", text, v))
            continue
        for ctx, write in contexts.items():
            for _ in range(per_family):
                value = make(g)
                out.append(Case(family, ctx, write(g, label, name, value), value))
    for ctx, write_pw in PASSWORD_CONTEXTS.items():
        for _ in range(per_family * 2):
            p = g.password()
            out.append(Case("password", ctx, write_pw(g, p), p))
    # Rule set 8: config files, log lines and code (_secret_contexts.py), from a generator of
    # their own so that the cases above stay the same for a seed.
    h = Gen(seed + 8)
    for group, contexts in CONTEXTS.items():
        for ctx, make in contexts.items():
            for _ in range(per_family * 4):
                text, secret = make(h)
                out.append(Case(group, ctx, text, secret))
    # Each rule set's held-out shapes (``HELD_OUT_BY_SET``), from a generator of their own
    # (seed + N), so that shapes added later leave the cases before them the same for a seed.
    for n, shapes in HELD_OUT_BY_SET.items():
        g = Gen(seed + n)
        for ctx, make in shapes.items():
            for _ in range(per_family * 4):
                text, secret = make(g)
                out.append(Case(f"held-out-{n}", ctx, text, secret))
    return out


# Texts that hold no secret and must come out unchanged.
def near_misses(seed: int = 13) -> list[str]:
    """Return realistic texts that hold no secret: hashes, ids, images, prose about secrets."""
    g = Gen(seed + 1)
    png = base64.b64encode(bytes(g.rng.randrange(256) for _ in range(600))).decode()
    texts = [
        "The password is stored in the vault, ask Ann for access.",
        "token: see below",
        "api key: ask the platform team",
        "Your password is incorrect. Please try again.",
        "The password is required and must be at least 12 characters.",
        "the secret is to keep it simple",
        "Bearer authentication is described in RFC 6750.",
        "The token is valid for 3600 seconds.",
        "password: ********",
        "password = os.environ['DB_PASSWORD']",
        "Enter your password: ",
        "I forgot my password again, can you reset it?",
        "My password for the VPN is the same as last year's.",
        "pwd\n/home/ann/projects",
        "Set the token to the value from the dashboard.",
        "See the secret key section in the docs.",
        "We rotate the api key every 90 days.",
        "The password is expired.",
        "secret: |\n  {{ .Values.secret }}\n",
        "password: >-\n  ${DB_PASSWORD}\n",
        "private_key: |\n  see the vault entry\n",
        "Accept-Encoding: gzip, deflate",
        f"data:image/png;base64,{png}",
        "Released 2.4.1 (sha256 checksum below)",
        "Content-Transfer-Encoding: base64",
        "If the token is missing, the request fails with 401.",
        "The password is at least 8 characters long.",
        "token refresh handler rewritten in v2",
        "Fix token refresh\n\ncommit 3f786850e387550fdab836ed7e6dc881de23001b",
        "secret key: see 1Password",
        "password reset link: https://example.com/reset?id=42",
        "I sent the password to ann2@example.com yesterday.",
        "signed with key 0x1A2B3C4D5E6F7A8B",
        "ssh key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq2dP7nG5k9Z2yqzF8Jr0cMvQ7m8i ann@laptop",
        "the license key is in the drawer",
        "the primary key is user_id",
        "max tokens: 128000",
        "The API key is 32 characters long.",
        "Token count was 4096 for that prompt.",
        "Passwords were rotated on 2024-05-01.",
        "use the token from step 2 of the guide",
        "secrets are stored in vault_path_v2 now",
        "password: ${{ secrets.DB_PASSWORD }}",
        "pw = getpass.getpass()",
        "my password manager is 1Password",
        "the key is to rotate them often",
        "mysql -u root -p app   # prompts for the password",
        "ssh -p 2222 deploy@host",
        "mkdir -p build/output",
        "The authorization header carries a bearer token.",
        "pass the flag --password-file to read it from a file",
        *NEAR_MISSES,  # config files, logs and code without a secret (rule set 8)
        *NEAR_MISSES_10,  # the shapes of rule set 10 without a secret
        *NEAR_MISSES_11,  # rule set 11's, and its false alarms
        *NEAR_MISSES_12,  # rule set 12's: a '/' between words and a word with digits
        *NEAR_MISSES_13,  # rule set 13's: code and logs without a secret, "a/b" prose
        *NEAR_MISSES_14,  # rule set 14's: the same infrastructure files with references
        *NEAR_MISSES_15,  # rule set 15's: pointers where a password would stand
        *NEAR_MISSES_16,  # rule set 16's: the same files and commands without a secret
        *NEAR_MISSES_17,  # rule set 17's: notebooks, units, SQL, cards and commands without one
    ]
    for _ in range(20):
        texts += [
            f"commit {g.s(HEX, 40)}\nAuthor: Ann <ann@example.com>\n\n    Fix the token refresh",
            f"Merged in {g.s(HEX, 7)}; see {g.s(HEX, 40)} for the password reset change.",
            f"request id {g.uuid()} failed; trace {g.uuid(upper=True)}",
            f"sha256: {g.s(HEX, 64)}  memtrails-0.1.tar.gz",
            f"md5sum {g.s(HEX, 32)} backup.tgz",
            f"Message-ID: <{g.s(ALNUM, 20)}.{g.digits(10)}@mail.example.com>",
            f"integrity sha512-{g.s(B64, 86)}==",
            f"docker pull registry/app@sha256:{g.s(HEX, 64)}",
            f"The session id is {g.uuid()} in the logs.",
            f"version: 1.{g.rng.randint(0, 30)}.{g.rng.randint(0, 9)}  # token bucket limiter",
            f"key fingerprint = {' '.join(g.s(UP[:6] + DIG, 4) for _ in range(10))}",
            f"https://github.com/acme/app/blob/{g.s(HEX, 40)}/src/token.py#L{g.rng.randint(1, 400)}",
        ]
    return texts


def survivors(found: list[Case]) -> list[Case]:
    """Return the cases whose secret (or any long line of it) is still in the scrubbed text."""
    out = []
    for case in found:
        clean, _ = scrub_text(case.text)
        lines = [ln for ln in case.secret.splitlines() if len(ln) >= 8] or [case.secret]
        if any(ln in clean for ln in lines):
            out.append(case)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--per-family", type=int, default=3)
    parser.add_argument("--show", type=int, default=40, help="survivors to print")
    args = parser.parse_args()

    all_cases = cases(args.seed, args.per_family)
    left = survivors(all_cases)
    total = Counter(c.family for c in all_cases)
    by_family = Counter(c.family for c in left)
    by_context = Counter(c.context for c in left)
    print(
        f"rule set {RULES_VERSION}; seed {args.seed}; {len(all_cases)} cases in {len(total)} families"
    )
    print(f"survivors: {len(left)} of {len(all_cases)}")
    for family in sorted(total):
        if by_family[family]:
            print(f"  {family:<24} {by_family[family]:4d} / {total[family]}")
    print("by context:", dict(by_context.most_common()))
    made = Counter((c.family, c.context) for c in all_cases if c.family in CONTEXTS)
    lost = Counter((c.family, c.context) for c in left if c.family in CONTEXTS)
    print(f"config, log, code contexts: {sum(lost.values())} of {sum(made.values())} survive")
    for (group, ctx), n in sorted(made.items()):
        print(f"  {group}/{ctx:<20} {lost[group, ctx]:3d} / {n}")
    sample = random.Random(0).sample(left, min(args.show, len(left)))
    for case in sample:
        print(f"  [{case.family}/{case.context}] {case.text[:160]!r}")
    misses = near_misses(args.seed)
    marked = [(t, scrub_text(t)) for t in misses]
    bad = [(t, out, found) for t, (out, found) in marked if found]
    print(f"near-misses marked: {len(bad)} of {len(misses)}")
    for _text, out, found in bad:
        print(f"  {dict(found)} {out[:160]!r}")
    print(
        json.dumps(
            {
                "rules_version": RULES_VERSION,
                "seed": args.seed,
                "cases": len(all_cases),
                "survivors": len(left),
                "by_family": dict(sorted(by_family.items())),
                "near_misses": len(misses),
                "near_misses_marked": len(bad),
                "contexts": sum(made.values()),
                "contexts_survivors": sum(lost.values()),
            },
            sort_keys=True,
        )
    )


if __name__ == "__main__":
    main()
