"""What a rule is, and the marker a secret becomes."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rule", "marker"]


def marker(kind: str) -> str:
    """Return the text that replaces a secret of ``kind`` (one of ``KINDS``).

    >>> from memtrails.secrets import marker
    >>> marker("jwt")
    '[secret:jwt]'
    """
    return f"[secret:{kind}]"


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule: an RE2 pattern, the kind of marker it writes, the pass it runs in.

    Rules run in four passes, each one RE2 expression scanned once: RE2's DFA keeps one
    state per combination of live partial matches, and rules that start alike (key names,
    auth scheme words) multiply each other's states, so they are kept in separate passes.

    The pattern's named group ``v`` (or the first set of ``v2``, ``v3``) is what gets
    replaced; the rest is context that stays. ``check`` names the test the engine applies
    to a match before replacing it:

    - ``""``: none, the shape is proof enough;
    - ``"alnum"``: the value holds a letter and a digit (random, not a word or a number);
    - ``"mixed"``: the value holds upper and lower case letters;
    - ``"pem"``, ``"assignment"``, ``"bearer"``, ``"basic"``, ``"command"``, ``"prose"``:
      the structural rules' own checks (see :mod:`memtrails.secrets.engine`);
    - ``"url"``: any value that is not a placeholder (a URL's password, and the password of
      a command or a statement whose shape already says it is one: ``IDENTIFIED BY '...'``).

    The rule set is ``memtrails.secrets.RULES``; read it to see what is caught, and how:

        >>> from memtrails.secrets import RULES
        >>> rule = next(rule for rule in RULES if rule.name == "github_token")
        >>> rule.kind, rule.scan, rule.check
        ('github-token', 'tokens', '')
    """

    name: str  # unique; the group name in the combined expression
    kind: str  # the marker's kind; "" for a span to keep as it is (data: URIs)
    pattern: str
    # its pass: "tokens" (also run inside values), "assignments", "headers", "commands",
    # "unknown" (tokens of services no rule names)
    scan: str
    check: str = ""
