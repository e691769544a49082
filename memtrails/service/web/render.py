"""Rendering the web pages: the Jinja2 templates (autoescaped), and the query's words marked in
escaped text."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse

from ...records import At
from ...words import words
from .plain import isolated, neutral, shortened

__all__ = ["environment", "marked", "page", "query_terms", "when"]

# Words too common to be worth marking in a passage.
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "with",
        "that",
        "this",
        "from",
        "have",
        "has",
        "had",
        "not",
        "but",
        "you",
        "your",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "why",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "about",
        "into",
        "than",
        "then",
        "them",
        "they",
        "there",
        "their",
        "our",
        "its",
    ]
)
_MAX_TERMS = 32


def query_terms(query: str) -> list[str]:
    """Return the words of ``query`` worth marking in a result (longest first)."""
    found = {w for w in words(query) if (len(w) >= 3 or w.isdigit()) and w not in _COMMON}
    return sorted(found, key=lambda w: (-len(w), w))[:_MAX_TERMS]


def marked(text: str, terms: Iterable[str]) -> Markup:
    """Return ``text`` as HTML with each word starting with one of ``terms`` in ``<mark>``.

    The words are found in the plain text and every piece of it, marked or not, is escaped
    on its own: the only markup in the result is the ``<mark>`` elements added here, so a
    record's text can never add an element or an attribute (and a term such as ``amp`` never
    lands inside an entity).
    """
    pattern = _pattern(tuple(terms))
    if pattern is None:
        return Markup(escape(text))
    out: list[str] = []
    last = 0
    for found in pattern.finditer(text):
        out.append(str(escape(text[last : found.start()])))
        out.append(f"<mark>{escape(found.group())}</mark>")
        last = found.end()
    out.append(str(escape(text[last:])))
    return Markup("".join(out))


@lru_cache(maxsize=64)
def _pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    if not terms:
        return None
    alternatives = "|".join(re.escape(t) for t in terms)
    return re.compile(rf"(?<!\w)(?:{alternatives})\w*", re.IGNORECASE)


def when(value: At | float | None) -> str:
    """Return a date as pages show it: ``2003-04-05 14:03 UTC`` (an At, or epoch seconds)."""
    if value is None:
        return "-"
    seconds = value.ms / 1000 if isinstance(value, At) else float(value)
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):  # beyond what the C library formats
        return value.iso() if isinstance(value, At) else str(value)


@lru_cache(maxsize=1)
def environment() -> Environment:
    """Return the pages' Jinja2 environment: templates from the package, autoescape on."""
    env = Environment(
        loader=PackageLoader("memtrails.service.web", "templates"),
        autoescape=True,  # every template, whatever its name
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["marked"] = marked
    env.filters["when"] = when
    env.filters["isolated"] = isolated
    env.filters["neutral"] = neutral
    env.filters["shortened"] = shortened
    return env


def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render the template ``name`` into an HTML answer (never cached: it shows live state)."""
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})
