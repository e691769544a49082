"""Measure the secret scrubber: MB/s on normal text, seconds per 1 MB of hostile input.

Usage: .venv/bin/python benchmarks/scrub_speed.py [--corpora PATH] [--quick]

Prints a table, then one JSON line with every figure. For each hostile input it also scrubs
the same input at twice the size and prints the time ratio: linear time shows as about 2
(anything above ~3 means a rule looks too far past its matches and should be rewritten).
Last, in CPU seconds, 1 MB of near-misses against 1 MB of prose: per rule family (the kind
a hostile input's name starts with), then every family's near-misses mixed in equal shares,
the ratio to keep under 3. ``--headline`` prints only those; ``--no-memo`` measures as if
no two near-misses were alike (the scan remembers the outcome of a match seen before). Kinds of rules without a
near-miss input are named (a new rule needs one).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtrails.secrets import engine, rules, scan

MB = 1 << 20
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = Path(os.environ.get("MEMTRAILS_CORPORA", ROOT.parent / "shared" / "corpora"))


def _fill(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


# Near-misses per rule family: almost a secret, over and over, or one secret-start that never
# ends. Each entry builds an input of the given size in characters (ASCII, so bytes too).
HOSTILE: dict[str, Callable[[int], str]] = {
    "aws-access-key: AKIA repeated": lambda n: _fill("AKIA", n),
    "aws-access-key: AKIA + 15 chars": lambda n: _fill("AKIA" + "B" * 15 + " ", n),
    "aws-secret-key: key name repeated": lambda n: _fill("aws_secret_access_key=", n),
    "aws-secret-key: 39 chars": lambda n: _fill(
        "aws_secret_access_key = " + "aB1/" * 9 + "aB1 ", n
    ),
    "github-token: ghp_ + 35 chars": lambda n: _fill("ghp_" + "aB3" * 11 + "cD ", n),
    "github-token: ghp_ glued": lambda n: _fill("ghp_" + "aB3" * 11 + "cD", n),
    "gitlab-token: glpat- + 19 chars": lambda n: _fill("glpat-" + "x" * 19 + " ", n),
    "slack-token: xoxb- + 9 chars": lambda n: _fill("xoxb-" + "1" * 9 + " ", n),
    "slack-webhook: prefix repeated": lambda n: _fill("https://hooks.slack.com/services/ ", n),
    "stripe-key: sk_live_ + 15": lambda n: _fill("sk_live_" + "a" * 15 + " ", n),
    "google-api-key: AIza + 34": lambda n: _fill("AIza" + "b" * 34 + " ", n),
    "openai-key: sk- + 47": lambda n: _fill("sk-" + "c" * 47 + " ", n),
    "openai-key: sk-proj- repeated": lambda n: _fill("sk-proj-", n),
    "anthropic-key: sk-ant-api03- + 19": lambda n: _fill("sk-ant-api03-" + "d" * 19 + " ", n),
    "jwt: eyJ repeated": lambda n: _fill("eyJ", n),
    "jwt: eyJ chains with dots": lambda n: _fill("eyJhbGciOi.", n),
    "jwt: short segments": lambda n: _fill("eyJab.eyJcd.", n),
    # Partial matches that could stay alive across other rules' matches (quadratic if so).
    "jwt: tokens inside a long segment": lambda n: _fill("eyJabcde-AKIAQX7RT2ZK9PLM4WNB-", n),
    "url-password: tokens in the user part": lambda n: (
        "https://" + _fill("u-AKIAQX7RT2ZK9PLM4WNB-", n - 8)
    ),
    "private-key: tokens in a base64 line": lambda n: (
        "-----BEGIN RSA PRIVATE KEY-----\n" + _fill("+AKIAQX7RT2ZK9PLM4WNB+", n - 33) + "."
    ),
    "password: tokens in an open quote": lambda n: (
        'password: "' + _fill(" ghp_" + "aB3" * 12, n - 11)
    ),
    "private-key: BEGIN, no newline": lambda n: _fill("-----BEGIN RSA PRIVATE KEY-----", n),
    "private-key: BEGIN lines, no END": lambda n: _fill("-----BEGIN RSA PRIVATE KEY-----\n", n),
    "private-key: one BEGIN + base64": lambda n: (
        "-----BEGIN RSA PRIVATE KEY-----\n" + _fill("QUJD", n - 32)
    ),
    "private-key: BEGIN + short lines": lambda n: _fill("-----BEGIN EC PRIVATE KEY-----\nAb\n", n),
    "url-password: https://a: no @": lambda n: _fill("https://a:", n),
    "url-password: one https://a: + run": lambda n: "https://a:" + "b" * (n - 10),
    "url-password: @ far away": lambda n: "https://a:" + "b" * (n - 15) + "@host",
    "password: password= repeated": lambda n: _fill("password=", n),
    "password: password: repeated": lambda n: _fill("password: ", n),
    "password: placeholders": lambda n: _fill("token=${", n),
    "password: unterminated quote": lambda n: '"password": "' + "x" * (n - 13),
    "password: keys glued": lambda n: _fill("DB_PASSWORD_", n),
    "password: Bearer repeated": lambda n: _fill("Bearer ", n),
    "password: --password repeated": lambda n: _fill("--password ", n),
    "data-uri: prefix repeated": lambda n: _fill("data:image/png;base64,", n),
    "azure-key: AccountKey= short": lambda n: _fill("AccountKey=" + "Ab1+" * 9 + ";", n),
    "azure-key: client secret, one short": lambda n: _fill("ab18Q~" + "c" * 30 + " ", n),
    "google-oauth: ya29. repeated": lambda n: _fill("ya29.", n),
    "gcp-key: private_key_id, 39 hex": lambda n: _fill(
        '"private_key_id": "' + "a1" * 19 + 'b" ', n
    ),
    "atlassian-token: ATBB + 27": lambda n: _fill("ATBB" + "x" * 27 + " ", n),
    "webhook: discord prefix repeated": lambda n: _fill("https://discord.com/api/webhooks/1/", n),
    "discord-token: two segments": lambda n: _fill("M" + "a" * 24 + "." + "b" * 6 + ".", n),
    "telegram-token: digits and colons": lambda n: _fill("123456789:", n),
    "twilio-key: SK + 31 hex": lambda n: _fill("SK" + "a1" * 15 + "b ", n),
    "sendgrid-key: SG. + 22.": lambda n: _fill("SG." + "a" * 22 + ".", n),
    "mailgun-key: key- + 31": lambda n: _fill("key-" + "a1" * 15 + "b ", n),
    "mailchimp-key: 32 hex -u": lambda n: _fill("a1" * 16 + "-u ", n),
    "square-token: EAAA + 59": lambda n: _fill("EAAA" + "b" * 59 + " ", n),
    "paypal-token: prefix repeated": lambda n: _fill("access_token$production$", n),
    "npm-token: :_authToken= repeated": lambda n: _fill(":_authToken=", n),
    "pypi-token: pypi-AgE repeated": lambda n: _fill("pypi-AgE", n),
    "rubygems-key: prefix + 47": lambda n: _fill("rubygems_" + "a1" * 23 + "b ", n),
    "nuget-key: oy2 + 42": lambda n: _fill("oy2" + "a1" * 21 + " ", n),
    'docker-auth: "auth": repeated': lambda n: _fill('"auth": "', n),
    "registry-token: AKCp repeated": lambda n: _fill("AKCp", n),
    "huggingface-token: hf_ + 33": lambda n: _fill("hf_" + "aB" * 16 + "c ", n),
    "ai-key: gsk_ + 51": lambda n: _fill("gsk_" + "a1" * 25 + "b ", n),
    "service-token: hvs. repeated": lambda n: _fill("hvs.", n),
    "basic-auth: Basic + base64 without colon": lambda n: _fill("Basic QUJDREVGR0g= ", n),
    "password: mysql -p on a long line": lambda n: "mysql" + _fill(" -pX", n - 5),
    "password: -p without a command": lambda n: _fill(" -pXYZ", n),
    "password: mysql, then curl flags": lambda n: "mysql" + _fill(" -u a:bcd", n - 5),
    "password: prose word + is, repeated": lambda n: _fill("password is ", n),
    "password: prose word + short value": lambda n: _fill("the password is abc12 ", n),
    "password: prose token + 15 chars": lambda n: _fill("token aB3dE5gH7jK9mN1 ", n),
    "password: prose fillers, no link word": lambda n: _fill("key for the new demo ", n),
    "password: prose colon, quoted lines": lambda n: _fill("key for staging:\n> ", n),
    "password: prose user / and a word": lambda n: _fill("login: ann / abc ", n),
    "password: block scalar, no value": lambda n: _fill("password: |\n  ", n),
    "password: name: KEY, no value": lambda n: _fill("- name: DB_PASSWORD\n  ", n),
    "password: mysql, then a long line": lambda n: "mysql" + _fill(" --opt=1", n - 5),
    "password: htpasswd -b repeated": lambda n: _fill("htpasswd -b ", n),
    "password: net user repeated": lambda n: _fill("net user ", n),
    "service-token: A3- + short": lambda n: _fill("A3-ABCDEF-", n),
    "service-token: sl. + 129": lambda n: _fill("sl." + "a1" * 64 + "b ", n),
    # Near-misses of the rules that check a match in Python: each one is a match to reject.
    "password: quoted pair, placeholder": lambda n: _fill('("password", "${PASSWORD}") ', n),
    "password: XML element, placeholder": lambda n: _fill("<password>${PASS}</password>", n),
    "password: netrc, placeholder": lambda n: _fill("machine h login u password ${PW}\n", n),
    "password: Bearer without a digit": lambda n: _fill("Bearer abcdefghijklmnopqrst ", n),
    "password: quoted name under token": lambda n: _fill('token: "send_message" ', n),
    "password: code values": lambda n: _fill("password = getpass() ", n),
    "password: 600-byte quoted phrases": lambda n: _fill('password: "' + "x1 " * 200 + '" ', n),
    "password: mysql -p placeholder": lambda n: _fill("mysql -p${PASS} ", n),
    "url-password: placeholder password": lambda n: _fill("https://u:${PASS}@host ", n),
    "private-key: Private-Lines, short lines": lambda n: _fill("Private-Lines: 2\nAb\n", n),
    "private-key: age key, one short": lambda n: _fill("AGE-SECRET-KEY-1" + "Q" * 57 + " ", n),
    "private-key: client-key-data, short": lambda n: _fill("client-key-data: QUJDRA==\n", n),
    "google-oauth: GOCSPX- + 27": lambda n: _fill("GOCSPX-" + "a" * 27 + " ", n),
    "docker-auth: dckr_pat_ + 19": lambda n: _fill("dckr_pat_" + "b" * 19 + " ", n),
    # Rule set 4: values that start like a placeholder, presigned URLs, FCM keys, SSWS.
    "password: $VAR values": lambda n: _fill("DB_PASSWORD=$DB_PASSWORD\n", n),
    "password: %(name)s values": lambda n: _fill('password = "%(db_password)s"\n', n),
    "url-password: short signature": lambda n: _fill("https://h/f?X-Amz-Signature=abc123&x=1 ", n),
    "google-api-key: FCM key, short": lambda n: _fill("AAAAb0ANApR:APA91b" + "x" * 40 + " ", n),
    "password: SSWS placeholder": lambda n: _fill("Authorization: SSWS ${OKTA_TOKEN}\n", n),
    "password: Wi-Fi QR, placeholder": lambda n: _fill("WIFI:T:WPA;S:x;P:${PASS};;", n),
    # A command word then a flag it does not take, over and over on one line: a pattern that
    # read from the command to its flag made this quadratic.
    "password: mysql -u a:bcd repeated": lambda n: _fill("mysql -u a:bcd ", n),
    "password: docker run -p repeated": lambda n: _fill("docker run -p 8080:80 ", n),
    # Rule set 5: password hashes cut short, base64 that starts like a wrapped token but holds
    # none, prefixed identifiers made of words, names of any key with values of words.
    "password-hash: $6$ + short hash": lambda n: _fill("$6$saltsalt$" + "aB3." * 5 + " ", n),
    "password-hash: $krb5asrep$ short": lambda n: _fill("$krb5asrep$23$" + "ab" * 19 + " ", n),
    "jwt: base64 of eyJ, no token": lambda n: _fill("ZXlK" + "QUJD" * 8 + " ", n),
    "token: prefix_ + words": lambda n: _fill("acme_getUserAccountSettings2 ", n),
    "token: prefix_ + 19": lambda n: _fill("acme_" + "aB3" * 6 + "c ", n),
    "password: any key, word values": lambda n: _fill("cacheKey = 'users_page_2'\n", n),
    "password: query key= values": lambda n: _fill("?key=value&apikey=abc&", n),
    "password: xml key on its own line": lambda n: _fill("<apiKey>\n  ${API_KEY}\n</apiKey>\n", n),
    # Rule set 10: a Sentry DSN's key whose path never ends in a number, cookie headers of
    # short or word values, one long cookie header, a user and a value of words after
    # "creds", SMTP capability lines and AUTH with words, 64-wide base64 lines of one case.
    "sentry-dsn: key, no project": lambda n: _fill("https://" + "a1" * 16 + "@o1.sentry.io/x ", n),
    "password: cookie pairs, short": lambda n: _fill("Cookie: sid=ab1; theme=dark\n", n),
    "password: one long cookie header": lambda n: "Cookie: " + _fill("lang=en; ", n - 8),
    "password: creds + user + word": lambda n: _fill("creds are ann / sunshine ", n),
    "password: SMTP capabilities": lambda n: _fill("250-AUTH PLAIN LOGIN CRAM-MD5\n", n),
    "password: AUTH PLAIN + word": lambda n: _fill("AUTH PLAIN capability ", n),
    "private-key: 64-wide lines, one case": lambda n: _fill("ABCDEFGH" * 8 + "\n", n),
    "private-key: JWK d, one case": lambda n: _fill('"d": "' + "abcdefgh" * 5 + '", ', n),
    "password: snmpwalk -c on a long line": lambda n: "snmpwalk" + _fill(" -c public", n - 8),
    "password: openssl, then -k flags": lambda n: _fill("openssl enc -k $K ", n),
    "password: USER lines, no PASS": lambda n: _fill("USER ann\n", n),
    "password: lftp -u without a comma": lambda n: "lftp" + _fill(" -u ann", n - 4),
    "password: DSN without @tcp(": lambda n: _fill('"ann:abc123@tcp', n),
    # Rule set 9: a password piped to sudo as a variable, a short signature, a question with
    # no answer after it, a PEM block's END line alone.
    "password: echo $VAR | sudo -S": lambda n: _fill("echo $PW | sudo -S ls\n", n),
    "url-password: Signature= short": lambda n: _fill("Signature=abc123 ", n),
    "password: question, no answer": lambda n: _fill("what's the db password?\nno idea\n", n),
    "private-key: END line alone": lambda n: _fill("-----END PRIVATE KEY-----\n", n),
    # Rule set 11: a user or a network and a value that is no password after "/", "pass is"
    # and an amount, a host after "login", a public JWK member, md5 cut short, a secrets
    # file's name and lines of words after it.
    "password: account ann / repeated": lambda n: _fill("account ann / ", n),
    "password: wifi is Net / WPA2-PSK": lambda n: _fill("wifi is Net / WPA2-PSK ", n),
    "password: pass is an amount": lambda n: _fill("the bus pass is $45/month ", n),
    "password: login + host": lambda n: _fill("login gpu-02 ", n),
    "private-key: public JWK x": lambda n: _fill('"x": "' + "aB3" * 14 + 'c", ', n),
    "password-hash: md5 + 31 hex": lambda n: _fill("md5" + "a1" * 15 + "b ", n),
    "password: chap-secrets, words": lambda n: "chap-secrets\n" + _fill("a b c\n", n - 13),
    # Rule set 12: a verb for logging in and a user and a word, "use" without "to log in",
    # a word and a number after "account", hyphenated words after a password word, "login
    # is ann, pass" repeated, the credential files' names and lines of their shape that hold
    # no password, tokens cut short after a word and "-", a dash run after "api key".
    "password: log in with ann / word": lambda n: _fill("log in with ann / sunshine ", n),
    "password: use ann / X, no login": lambda n: _fill("use ann / Tr0ub4dor&3 for now ", n),
    "password: account / word2024": lambda n: _fill("account billing / invoices2024 ", n),
    "password: hyphen run after a word": lambda n: "the password is " + _fill("abc-de-", n - 16),
    "password: hyphenated file names": lambda n: _fill("password file is notes-of-ann.txt ", n),
    "password: login is ann, pass": lambda n: _fill("login is ann, pass ", n),
    "password: rsyncd.secrets, words": lambda n: (
        "rsyncd.secrets\n" + _fill("note:abcdef\n", n - 15)
    ),
    "password: passwd.client, times": lambda n: "passwd.client\n" + _fill("12:30:45\n", n - 14),
    "password: davfs2, fstab lines": lambda n: "davfs2\n" + _fill("/mnt/dav user noauto\n", n - 7),
    "password: sasl_passwd, no user": lambda n: (
        "sasl_passwd\n" + _fill("[h.example]:587 x\n", n - 12)
    ),
    "service-token: backup-ico- short": lambda n: _fill("backup-ico-" + "a1" * 15 + " ", n),
    "jwt: /backup-eyJ, one segment": lambda n: _fill("/backup-eyJ" + "a1" * 10 + " ", n),
    "password: api key: -dash run": lambda n: _fill("api key: -" + "a-" * 14 + " ", n),
    # Rule set 16's shapes, near: a bracket and letters with no digit, a predicate after "is"
    # and more words, "password for" and words with no value at a line's end, a PIN's word
    # and a short number, a backup code's word and words, a Redis prompt's AUTH alone.
    "password: bracket and letters": lambda n: _fill("password=<abcdefghij ", n),
    "password: letters then words": lambda n: _fill("the password is incorrect and ", n),
    "password: for the wifi, no value": lambda n: _fill("пароль от wifi network ok ", n),
    "password: PIN, short number": lambda n: _fill("PIN for the door is 1234 ", n),
    "password: backup codes, words": lambda n: _fill("backup codes: well-known ", n),
    "password: AUTH at a prompt": lambda n: _fill("127.0.0.1:6379> AUTH abc&\n", n),
    "generic: base64 run": lambda n: _fill("QUJDRGVm+/0123", n),
    "generic: hex run": lambda n: _fill("0123456789abcdef", n),
    "generic: one letter": lambda n: "a" * n,
    "generic: punctuation": lambda n: _fill("-:=@/.'\"_", n),
}


def near_misses() -> list[str]:
    """Return the hostile inputs that hold (almost) no secret: the near-misses.

    The others (a secret every few bytes) measure the cost of replacing, not of scanning.
    """
    return [
        name
        for name, build in HOSTILE.items()
        if sum(engine.scrub_text(build(64 << 10))[1].values()) <= 1
    ]


def family(name: str) -> str:
    """Return the rule family (the kind, or "generic") a hostile input's name starts with."""
    return name.split(":")[0]


def mixed_near_misses(size: int, names: list[str] | None = None) -> str:
    """Return ``size`` characters made of the near-misses ``names`` (default: all), in equal shares."""
    names = near_misses() if names is None else names
    return "".join(HOSTILE[name](size // len(names)) for name in names)


def _unit(text: str) -> str:
    """Return the shortest piece ``text`` repeats (all of it when it is not a repetition)."""
    for period in range(1, len(text) // 2 + 1):
        if text[period:] == text[:-period]:
            return text[:period]
    return text


def shuffled_near_misses(size: int, names: list[str], seed: int = 13, lines: bool = True) -> str:
    """Return ``size`` characters of the near-misses ``names``' repeating units in random order
    (seeded): the same near-misses as the mix, but what stands before and after each one
    changes every time, as in a file a person wrote. ``lines``: one unit per line (without
    its own leading and trailing blanks); else glued, so that a unit ending in a key name
    ("--password ") takes the next one as its value. An input that is one near-miss running
    on (not a repetition) is a unit of 300 characters."""
    units = [_unit(HOSTILE[name](600))[:300] for name in names]
    if lines:
        units = [unit.strip() + "\n" for unit in units]
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        unit = rng.choice(units)
        out.append(unit)
        total += len(unit)
    return "".join(out)[:size]


def _normal_text(corpora: Path, limit: int) -> str:
    """Read up to ``limit`` characters of real mail, chat and JSON Lines from the corpora."""
    parts: list[str] = []
    size = 0
    for sub in ("mbox", "eml", "slack", "jsonl"):
        for path in sorted((corpora / sub).rglob("*")):
            if size >= limit:
                break
            if path.is_file() and path.suffix not in (".md", ".tsv"):
                text = path.read_text("utf-8", errors="replace")
                parts.append(text)
                size += len(text)
    if not parts:  # no corpora: synthetic prose with code-ish lines
        line = "Hi Bob, the deploy of 3f2a9c1 failed; see config.yaml (timeout: 30) and retry.\n"
        return _fill(line, limit)
    return "".join(parts)[:limit]


def _time(
    fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA)
    parser.add_argument("--quick", action="store_true", help="one run each instead of three")
    parser.add_argument(
        "--headline", action="store_true", help="only the families and the mix against prose"
    )
    parser.add_argument(
        "--no-memo",
        action="store_true",
        help="forget every match's outcome: as if no two near-misses were alike",
    )
    args = parser.parse_args()
    if args.no_memo:  # matches longer than -1 bytes are not remembered: none is
        scan._MEMO_LONGEST = -1  # type: ignore[misc]
    repeat = 1 if args.quick else 3
    cpu = time.process_time  # steadier than wall time on a shared, loaded machine

    text = _normal_text(args.corpora, 8 * MB)
    nbytes = len(text.encode("utf-8", "surrogatepass"))
    buf = text.encode("utf-8", "surrogatepass")
    results: dict[str, object] = {"normal_bytes": nbytes}

    # The real thing: scrub_text, every pass and the merge.
    sec = _time(lambda: engine.scrub_text(text), repeat)
    _, found = engine.scrub_text(text)
    results["normal_scrub_text_mb_s"] = round(nbytes / MB / sec, 1)
    results["normal_found"] = dict(sorted(found.items()))
    print(
        f"normal text: {nbytes / MB:.1f} MB, scrub_text (every pass): {nbytes / MB / sec:.1f} MB/s"
    )
    print(f"  found: {dict(sorted(found.items()))}")

    near = near_misses()
    missing = sorted(set(rules.KINDS) - {family(name) for name in near})
    results["kinds_without_near_misses"] = missing
    if missing:
        print(f"  no near-miss input for the kinds: {', '.join(missing)} (add them to HOSTILE)")

    if not args.headline:
        # Each rule alone (what separate passes would cost): MB/s per rule.
        per_rule: dict[str, float] = {}
        total = 0.0
        for rule in rules.RULES:
            compiled = engine._compile((rule,))
            sec = _time(lambda c=compiled: list(engine._matches(c, buf, 0, len(buf))), repeat)
            per_rule[rule.name] = round(nbytes / MB / sec, 1)
            total += sec
            print(f"  rule {rule.name:<16} alone: {nbytes / MB / sec:8.1f} MB/s")
        print(f"  all rules as separate passes: {nbytes / MB / total:.1f} MB/s")
        results["normal_per_rule_mb_s"] = per_rule
        results["normal_separate_passes_mb_s"] = round(nbytes / MB / total, 1)

        # Hostile inputs: CPU seconds for 1 MB, and the ratio 2 MB / 1 MB.
        hostile: dict[str, dict[str, float]] = {}
        print("hostile inputs (1 MB each, CPU seconds):")
        for name, build in HOSTILE.items():
            one, two = build(MB), build(2 * MB)
            s1 = _time(lambda t=one: engine.scrub_text(t), repeat, cpu)
            s2 = _time(lambda t=two: engine.scrub_text(t), repeat, cpu)
            _, found = engine.scrub_text(one)
            hostile[name] = {
                "cpu_seconds_1mb": round(s1, 4),
                "ratio_2mb_1mb": round(s2 / s1, 2),
                "found": sum(found.values()),
            }
            print(
                f"  {name:<42} {s1:7.4f} s  x2 size: {s2 / s1:4.2f}x"
                f"  replaced: {sum(found.values())}"
            )
        results["hostile"] = hostile

    # The headline: 1 MB of near-misses against 1 MB of prose, both warm, in CPU seconds; per
    # rule family (1 MB of that family's near-misses), then all families mixed (an equal
    # share each). Each is the best of several runs, prose measured between them.
    prose = text[:MB]
    runs = max(repeat, 5)
    s_prose = _time(lambda: engine.scrub_text(prose), runs, cpu)
    families: dict[str, dict[str, float]] = {}
    print(f"1 MB of near-misses per rule family against 1 MB of prose ({s_prose:.4f} CPU s):")
    for fam in sorted({family(name) for name in near}):
        chunk = mixed_near_misses(MB, [name for name in near if family(name) == fam])
        sec = _time(lambda t=chunk: engine.scrub_text(t), runs, cpu)
        families[fam] = {"cpu_seconds": round(sec, 4), "vs_prose": round(sec / s_prose, 1)}
        print(f"  {fam:<20} {sec:7.4f} s  {sec / s_prose:6.1f}x")
    worst = max(families, key=lambda fam: families[fam]["cpu_seconds"])
    results["families"] = families
    results["worst_family"] = worst
    mixed = mixed_near_misses(MB, near)
    cpu_mixed = _time(lambda: engine.scrub_text(mixed), runs, cpu)
    cpu_prose = _time(lambda: engine.scrub_text(prose), runs, cpu)
    s_mixed = _time(lambda: engine.scrub_text(mixed), runs)
    s_wall_prose = _time(lambda: engine.scrub_text(prose), runs)
    ratio = cpu_mixed / min(cpu_prose, s_prose)
    results["prose_1mb_cpu_seconds"] = round(min(cpu_prose, s_prose), 4)
    results["mixed_near_misses_1mb_cpu_seconds"] = round(cpu_mixed, 4)
    results["mixed_vs_prose_cpu_ratio"] = round(ratio, 2)
    results["mixed_vs_prose_wall_ratio"] = round(s_mixed / s_wall_prose, 2)
    results["near_miss_inputs"] = len(near)
    print(
        f"worst family: {worst} ({families[worst]['vs_prose']}x);"
        f" 1 MB of near-misses ({len(near)} inputs, {len(families)} families):"
        f" {cpu_mixed:.4f} CPU s, 1 MB of prose {min(cpu_prose, s_prose):.4f} CPU s,"
        f" ratio {ratio:.2f}x (wall clock {s_mixed / s_wall_prose:.2f}x)"
    )
    # The same near-misses in random order: the engine's memo keys on the bytes around a
    # match, and its DFA meets states no periodic input leads it to. The first run builds
    # those states; the best of the runs is the figure comparable to the others.
    base = min(cpu_prose, s_prose)
    for label, lines in (("one per line", True), ("glued", False)):
        shuffled = shuffled_near_misses(MB, near, lines=lines)
        first = _time(lambda t=shuffled: engine.scrub_text(t), 1, cpu)
        best = _time(lambda t=shuffled: engine.scrub_text(t), runs, cpu)
        name = "lines" if lines else "glued"
        results[f"shuffled_{name}_1mb_cpu_seconds"] = round(best, 4)
        results[f"shuffled_{name}_first_run_cpu_seconds"] = round(first, 4)
        results[f"shuffled_{name}_vs_prose_cpu_ratio"] = round(best / base, 2)
        print(
            f"the same near-misses in random order, {label}: {best:.4f} CPU s,"
            f" {best / base:.2f}x prose (first run {first:.4f} s, {first / base:.1f}x)"
        )
    # Each near-miss alone, 1 MB of it: a dense one (a match every few bytes) costs a step
    # of the engine per match, however quickly each is recognised.
    alone: dict[str, float] = {}
    for name in near:
        chunk = HOSTILE[name](MB)
        alone[name] = round(_time(lambda t=chunk: engine.scrub_text(t), 3, cpu) / base, 1)
    over = sorted((x, name) for name, x in alone.items() if x > 3)
    results["near_misses_alone_vs_prose"] = alone
    results["near_misses_alone_over_3x"] = len(over)
    print(f"each near-miss alone, 1 MB: {len(over)} of {len(alone)} above 3x prose")
    for x, name in sorted(over, reverse=True):
        print(f"  {name:<44} {x:5.1f}x")
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main()
