"""The scanner: the rules' RE2 passes over a text's UTF-8 bytes, and the replacement of what they find.

What each part does lives in its own module: ``scan.py`` compiles the passes and runs one
(remembering the outcome of a match seen before), ``checks.py`` decides what a match
replaces (``assignment.py`` for a ``key = value``), ``inner.py`` gives a provider's token
inside an accepted value its own kind.
"""

from __future__ import annotations

from collections import Counter

from . import inner
from .copies import Values, copy_spans, values_of
from .credential_files import credential_file_values
from .encoded import encoded_spans
from .keys import KEY_NAME
from .markers import markers_in
from .pem import pem_middles, pem_tails
from .scan import ASSIGNMENTS as _ASSIGNMENTS
from .scan import COMMAND_FLAGS as _COMMAND_FLAGS
from .scan import HEADERS as _HEADERS
from .scan import TOKENS as _TOKENS
from .scan import UNKNOWN_TOKENS as _UNKNOWN_TOKENS
from .scan import compile_rules, tokens
from .scan import matches as _matches
from .spans import Span, merge, replace_spans
from .tables import table_values

__all__ = [
    "KEY_NAME",
    "find_spans",
    "inner_spans",
    "replace_spans",
    "scrub_found",
    "scrub_text",
]

_compile = compile_rules  # the tests compile a rule of their own
_RESCANS = 3  # scans of a scrubbed text at most, each finding what the one before exposed
_AROUND = 2048  # bytes on either side of a marker that a rescan reads: whole lines


def inner_spans(buf: bytes, start: int, end: int, kind: str) -> list[Span]:
    """Return the replacements inside an accepted value [start, end) (see :mod:`inner`)."""
    return inner.inner_spans(buf, start, end, kind, tokens)


def find_spans(buf: bytes) -> list[tuple[int, int, str]]:
    """Return what :func:`scrub_text` replaces in UTF-8 ``buf``: (start, end, kind), in order.

    A kind of ``""`` marks a span kept as it is (a base64 data URI). Secrets in encoded
    text (percent-encoding, base64) are found too: see encoded.py.
    """
    spans = merge(
        list(_matches(_TOKENS, buf, 0, len(buf))),
        list(_matches(_ASSIGNMENTS, buf, 0, len(buf)))
        + list(_matches(_HEADERS, buf, 0, len(buf)))
        + list(_matches(_COMMAND_FLAGS, buf, 0, len(buf)))
        + list(_matches(_UNKNOWN_TOKENS, buf, 0, len(buf)))
        + [span for s, e in table_values(buf) for span in inner_spans(buf, s, e, "password")]
        + [s for v in credential_file_values(buf) for s in inner_spans(buf, *v, "password")]
        + pem_tails(buf)
        + pem_middles(buf),
    )
    return merge(spans, encoded_spans(buf, spans, find_spans))


def _scrub_once(
    buf: bytes, known: Values | None, counts: Counter[str]
) -> tuple[bytes | None, Values]:
    """Replace what one scan of ``buf`` finds (and every copy of it and of ``known``)."""
    spans = find_spans(buf)
    found = values_of(buf, spans)
    wanted = {**known, **found} if known else found
    if wanted:
        # Every copy of a secret goes, not only the one whose context gave it away.
        spans = merge(spans, copy_spans(buf, wanted, spans))
    marked = markers_in(buf)
    if marked is not None:  # none cuts into one of our markers: scrubbed text stays as it is
        spans = [span for span in spans if not marked.cuts(span[0], span[1])]
        found = {v: k for v, k in found.items() if v in values_of(buf, spans)}
    return replace_spans(buf, iter(spans), counts), found


def scrub_found(text: str, known: Values | None = None) -> tuple[str, Counter[str], Values]:
    """Scrub ``text`` as :func:`scrub_text` does, and also replace every copy of ``known``.

    Returns:
        The scrubbed text (``text`` itself when nothing was replaced), the replacements per
        kind, and the secrets found in ``text`` itself (bytes -> kind), for the caller to
        look for in the other strings of the same record.
    """
    counts: Counter[str] = Counter()
    if not text:
        return text, counts, {}
    # Work on UTF-8 bytes: the scan can restart at any offset without re-encoding the text
    # (re2's str API re-encodes on every call). surrogatepass keeps lone surrogates intact.
    out, found = _scrub_once(text.encode("utf-8", "surrogatepass"), known, counts)
    if out is None:
        return text, counts, found
    # A secret whose context a match swallowed ("--token <token>-x.set_password('V')", the
    # token's value running into the call) shows once that match is a marker: the lines
    # around the markers are scanned again until nothing more is found (three times at
    # most), so scrubbing the text again finds nothing.
    for _ in range(_RESCANS):
        again, more = _rescan(out, counts)
        if again is None:
            break
        out = again
        found = {**more, **found}
    return out.decode("utf-8", "surrogatepass"), counts, found


def _lines_around(buf: bytes, ms: int, me: int, size: int) -> tuple[int, int] | None:
    """Return the marker's line [ms, me) with the line before and after it (as far as
    _AROUND bytes reach), or None when its own line is longer than that."""
    lo, hi = max(ms - _AROUND, 0), min(me + _AROUND, size)
    p1 = buf.rfind(b"\n", lo, ms)
    if p1 < 0:
        if lo:
            return None
        ws = 0
    else:
        p0 = buf.rfind(b"\n", lo, p1)
        ws = p0 + 1 if p0 >= 0 else (0 if not lo else p1 + 1)
    q1 = buf.find(b"\n", me, hi)
    if q1 < 0:
        if hi < size:
            return None
        return ws, size
    q2 = buf.find(b"\n", q1 + 1, hi)
    return ws, (q2 if q2 >= 0 else (size if hi == size else q1))


def _rescan(buf: bytes, counts: Counter[str]) -> tuple[bytes | None, Values]:
    """Scan the lines of a scrubbed ``buf`` that hold a marker again, with the line on either
    side (what a replacement exposes stands beside it), and replace what they hold, and every
    copy of it. Whole lines only, up to _AROUND bytes together: a line cut anywhere else would
    read another context (a command word's line); a longer one is not scanned again."""
    marked = markers_in(buf)
    if marked is None:
        return None, {}
    windows: list[tuple[int, int]] = []
    size = len(buf)
    for ms, me in zip(marked.starts, marked.ends, strict=True):
        window = _lines_around(buf, ms, me, size)
        if window is None:
            continue  # a line longer than _AROUND: not scanned again
        if windows and window[0] <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(window[1], windows[-1][1]))
        else:
            windows.append(window)
    spans = [(s + ws, e + ws, kind) for ws, we in windows for s, e, kind in find_spans(buf[ws:we])]
    spans = [span for span in spans if not marked.cuts(span[0], span[1])]
    if not spans:
        return None, {}
    found = values_of(buf, spans)
    if found:
        spans = merge(spans, copy_spans(buf, found, spans))
        spans = [span for span in spans if not marked.cuts(span[0], span[1])]
    return replace_spans(buf, iter(spans), counts), found


def scrub_text(text: str) -> tuple[str, Counter[str]]:
    """Replace the secrets in ``text`` with typed markers.

    Every copy of a value found as a secret is replaced, wherever it stands in the text.

    Args:
        text: any text: a mail body, a chat message, a config file, a diff.

    Returns:
        The scrubbed text (``text`` itself when nothing was found) and the number of
        replacements per kind.

    Example:
        >>> scrub_text("export GITHUB_TOKEN=ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8")
        ('export GITHUB_TOKEN=[secret:github-token]', Counter({'github-token': 1}))
    """
    clean, counts, _ = scrub_found(text)
    return clean, counts
