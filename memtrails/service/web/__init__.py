"""The service's web pages: search, a record, the sources with their imports, the timeline.

Served by ``memtrails serve`` at its root, behind the same guard as the API (the login link
``/login?token=...`` keeps a session cookie). Server-rendered with Jinja2, autoescaped;
no script at all; the only markup added to a record's text is ``<mark>``, around escaped
words (see ``render.marked``).
"""

from __future__ import annotations

from .pages import Pages

__all__ = ["Pages"]
