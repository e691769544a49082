"""`memtrails serve` and `memtrails mcp`: the lines their loggers print through the escaping
handler (uvicorn's, the service's, the MCP SDK's) keep the level, as uvicorn's own handler
writes it (``WARNING:  Invalid HTTP request received.``), escaped as before."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

from memtrails.cli._terminal import log_to_terminal

NAMES = ("memtrails", "uvicorn", "mcp")


@pytest.fixture
def handled() -> Iterator[None]:
    """The handler is set in each test: it binds the stderr of its making, and capsys swaps
    stderr between a fixture's setup and the test."""
    try:
        yield
    finally:
        for name in NAMES:
            for handler in logging.getLogger(name).handlers[:]:
                logging.getLogger(name).removeHandler(handler)


@pytest.mark.parametrize(
    ("logger", "level", "prefix"),
    [
        ("uvicorn.error", logging.WARNING, "WARNING:  "),
        ("uvicorn.error", logging.ERROR, "ERROR:    "),
        ("uvicorn.error", logging.CRITICAL, "CRITICAL: "),
        ("memtrails.service", logging.WARNING, "WARNING:  "),
        ("mcp.server", logging.ERROR, "ERROR:    "),
    ],
)
def test_a_line_keeps_its_level(
    handled: None,
    capsys: pytest.CaptureFixture[str],
    logger: str,
    level: int,
    prefix: str,
) -> None:
    log_to_terminal(*NAMES)
    logging.getLogger(logger).log(level, "Invalid HTTP request received.")
    lines = capsys.readouterr().err.splitlines(keepends=True)
    assert lines == [f"{prefix}Invalid HTTP request received.\n"]


def test_the_level_is_not_escaped_and_the_message_still_is(
    handled: None, capsys: pytest.CaptureFixture[str]
) -> None:
    log_to_terminal(*NAMES)
    logging.getLogger("uvicorn.error").warning("bad path %s", "/x\x1b]0;owned\x07")
    assert capsys.readouterr().err == "WARNING:  bad path /x\\x1b]0;owned\\x07\n"


def test_a_traceback_follows_its_level_line(
    handled: None, capsys: pytest.CaptureFixture[str]
) -> None:
    log_to_terminal(*NAMES)
    try:
        raise RuntimeError("boom\x1b[2J")
    except RuntimeError:
        logging.getLogger("memtrails.service").exception("GET /v1/x failed")
    err = capsys.readouterr().err
    first, *rest = err.splitlines()
    assert first == "ERROR:    GET /v1/x failed"
    assert rest[0] == "Traceback (most recent call last):"
    assert rest[-1] == "RuntimeError: boom\\x1b[2J"
