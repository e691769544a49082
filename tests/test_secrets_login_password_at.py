"""A password holding "@" after "login" and a user is a password, not where to log in.

"login ann P@ssw0rd2024" survived the held-out secrets (seed 90210 of held-out-14): the value
read as an SSH target ("login root@db01"), though the user is already given. After a user,
only an address whose host is a domain or an IP address is read as one.
"""

from __future__ import annotations

import pytest

from memtrails.secrets import scrub_text


@pytest.mark.parametrize(
    "text",
    [
        "login ann P@ssw0rd2024",
        "login ann Tig@rs2024 for the vpn",
        "login deploy Xq@zz0rd-77",
        "use login ann S3cr@t!x to get in",
    ],
)
def test_a_password_with_an_at_after_login_and_a_user_goes(text: str) -> None:
    scrubbed, found = scrub_text(text)
    assert sum(found.values()) == 1, scrubbed
    assert "@" not in scrubbed.split("login ", 1)[1].split()[1], scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "ssh login root@10.0.0.5",
        "login root@db01 and check the logs",
        "login ann deploy@db01.example.org",
        "login ann ann@10.1.2.3:2222",
        "login bob mary@example.org",
    ],
)
def test_where_to_log_in_stays(text: str) -> None:
    scrubbed, found = scrub_text(text)
    assert scrubbed == text and not found
