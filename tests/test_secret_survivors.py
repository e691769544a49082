"""Held-out-style check: generated secrets of every scanner family, in context, are scrubbed.

The cases come from ``benchmarks/secret_survivors.py`` (values made from the providers'
documented formats with a fixed seed, written into prose, quoted mail, config files, YAML
block scalars, JSON, shell history, URLs, DSNs, chat, authors and file names).
"""

from __future__ import annotations

import pytest
from helpers import benchmark

from memtrails.secrets import scrub_text

BENCH = benchmark("secret_survivors")


@pytest.mark.slow
def test_generated_secrets_do_not_survive() -> None:
    """Every generated secret is gone: tokens glued to a file name by '-' too (rule set 12).
    Config files, log lines and code (rule set 8's contexts) and the held-out shapes of rule
    sets 10-12 are among them."""
    cases = BENCH.cases(2026, 1)  # another seed than the benchmark's figure
    assert len({c.family for c in cases}) >= 150  # every family, not a sample
    assert {"config", "log", "code", "held-out-12"} <= {c.family for c in cases}
    left = BENCH.survivors(cases)
    assert [(c.family, c.context, c.text[:120]) for c in left] == []


def test_near_misses_stay() -> None:
    """Hashes, ids, checksums, images and prose about secrets come out unchanged."""
    texts = BENCH.near_misses(13)
    assert len(texts) > 250
    marked = {t[:80]: dict(found) for t in texts if (found := scrub_text(t)[1])}
    assert marked == {}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("The password is hunter2! for the router.", "hunter2!"),
        ("pwd hunter22", "hunter22"),
        ("my password for the VPN is Gr8-Escape_71.", "Gr8-Escape_71"),
        ("the token: eK3vQ9zLm2Xp7Rt4Wn8Yb6Hc", "eK3vQ9zLm2Xp7Rt4Wn8Yb6Hc"),
        ("Bearer eK3vQ9zLm2Xp7Rt4Wn8Yb6Hc", "eK3vQ9zLm2Xp7Rt4Wn8Yb6Hc"),
        ("api key 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"),
        ("private_key: |\n  q8Zr2LkV7wNx4TbP\n  a1B2c3D4e5F6g7H8\nnext: 1", "a1B2c3D4e5F6g7H8"),
        ("password: >-\n  monkey!4723\nport: 1", "monkey!4723"),
        ("mysql " + "--opt=1 " * 60 + "-pS3cr3t!x db", "S3cr3t!x"),
        ("das Passwort ist Geheim123!", "Geheim123!"),
        ("пароль: Qwerty!234", "Qwerty!234"),
        ("the token → Zq81LmN0pWx7Rt5Vb3Yc", "Zq81LmN0pWx7Rt5Vb3Yc"),
        ("| host | db1 |\n| password | S3cret!9 |", "S3cret!9"),
        ("CREATE USER 'app'@'%' IDENTIFIED BY 'S3cret!pw';", "S3cret!pw"),
    ],
)
def test_the_known_gaps_are_closed(text: str, secret: str) -> None:
    out, found = scrub_text(text)
    assert secret not in out
    assert sum(found.values()) == 1


@pytest.mark.parametrize(
    "text",
    [
        "the password is stored in the vault",
        "token: see below",
        "the password is incorrect, try again",
        "Bearer authentication is described in RFC 6750",
        "api key rotation runs every 90 days",
        "the key length is 2048 bits",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixes the token refresh",
        "request 550e8400-e29b-41d4-a716-446655440000 failed",
        "mysql -u root -p app",
        "forgot my password, can you reset it please?",
        "Passwort vergessen?",
        "my password manager is 1Password",
        "| password | see the vault |",
    ],
)
def test_prose_about_secrets_stays(text: str) -> None:
    out, found = scrub_text(text)
    assert out is text and not found
