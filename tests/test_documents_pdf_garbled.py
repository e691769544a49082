"""A PDF whose text comes out as other characters (fonts without a Unicode map: the
alphabet shifted, letters in each other's places, runs of symbols) is a named error that
says so and how to read it (OCR), not a record of gibberish; a PDF of prose in any
language, a table of contents with dot leaders, a page of keys and hashes still read."""

# ruff: noqa: RUF001 (mathematical signs and Greek letters, on purpose)

from __future__ import annotations

import base64
import random
import string
from pathlib import Path

import pytest

from memtrails.importers.documents._extract import Failed, extract

_PROSE = (
    "The quick brown fox jumps over the lazy dog while the committee reviews the annual "
    "budget. Everyone agreed that the new library should open before the winter holidays, "
    "and the mayor promised to find money for longer opening hours on weekends."
)
_FRENCH = (
    "Le comité a examiné le budget annuel pendant que les enfants jouaient dans le jardin. "
    "Tout le monde était d'accord pour que la nouvelle bibliothèque ouvre avant les fêtes, "
    "et le maire a promis de trouver de l'argent pour des horaires plus longs le dimanche."
)


def _shift(text: str, k: int) -> str:
    table = str.maketrans(
        string.ascii_lowercase + string.ascii_uppercase,
        string.ascii_lowercase[k:]
        + string.ascii_lowercase[:k]
        + string.ascii_uppercase[k:]
        + string.ascii_uppercase[:k],
    )
    return text.translate(table)


def _swap(text: str, seed: int) -> str:
    order = list(string.ascii_lowercase)
    random.Random(seed).shuffle(order)
    return text.translate(str.maketrans(string.ascii_lowercase, "".join(order)))


def _symbols() -> list[str]:
    """What an Identity-encoded font's codes read as: signs in no order."""
    rng = random.Random(2)
    return [
        "".join(rng.choice("!\"#$%&'()*+,/:;<=>?@[]^{|}~") for _ in range(80)) for _ in range(6)
    ]


def _pdf(tmp_path: Path, lines: list[str]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = tmp_path / "doc.pdf"
    c = canvas.Canvas(str(path), pagesize=A4)
    y = 800
    for line in lines:
        c.drawString(40, y, line)
        y -= 14
        if y < 40:
            c.showPage()
            y = 800
    c.save()
    return path.read_bytes()


def _wrapped(text: str, times: int = 2) -> list[str]:
    words = (text + " ") * times
    return [words[i : i + 90] for i in range(0, len(words), 90)]


@pytest.mark.parametrize(
    "lines",
    [
        _wrapped(_shift(_PROSE, 3)),  # "Wkh txlfn eurzq ira"
        _wrapped(_shift(_FRENCH, 11)),
        _wrapped(_swap(_PROSE, 5)),  # a subset font's own order of letters
        _symbols(),
    ],
    ids=["shifted-3", "french-shifted-11", "letters-swapped", "symbols"],
)
def test_garbled_pdf_text_is_an_error_naming_why(tmp_path: Path, lines: list[str]) -> None:
    with pytest.raises(Failed) as info:
        extract(_pdf(tmp_path, lines), ".pdf", 100 << 20)
    assert str(info.value).startswith("text unreadable: fonts without a Unicode map")
    assert "OCR" in str(info.value)


def test_readable_pdfs_are_read(tmp_path: Path) -> None:
    rng = random.Random(3)
    keys = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(12)]
    hashes = [" ".join(rng.randbytes(8).hex() for _ in range(5)) for _ in range(8)]
    contents = [
        "Chapter 1 Introduction " + "." * 60 + " 3",
        "Chapter 2 The Budget Debate " + "." * 55 + " 17",
        "Appendix A Tables " + "." * 64 + " 41",
    ]
    for lines in (_wrapped(_PROSE), _wrapped(_FRENCH), contents * 3, keys + hashes):
        text = str(extract(_pdf(tmp_path, lines), ".pdf", 100 << 20)["text"])
        assert lines[0].split()[0] in text


_FORMULAS = [
    "∀ε > 0 ∃δ > 0 : |x − a| < δ ⇒ |f(x) − f(a)| < ε",
    "∑ᵢ₌₁ⁿ i = n(n+1)/2 and ∫₀^∞ e^(−x²) dx = √π/2",
    "A ⊆ B ⇔ ∀x (x ∈ A → x ∈ B); ¬(p ∧ q) ≡ ¬p ∨ ¬q",
    "∇·E = ρ/ε₀, ∇×B = μ₀J + μ₀ε₀ ∂E/∂t, (a+b)² = a² + 2ab + b²",
]


def test_a_page_of_formulas_is_text_not_garble() -> None:
    """Mathematical operators, arrows, sub- and superscripts are signs a font without a
    Unicode map does not give: a page of them is formulas (before: 'mostly symbols')."""
    from memtrails.importers.documents._garbled import unreadable

    assert [unreadable("\n".join(_FORMULAS[k:] + _FORMULAS[:k])) for k in range(4)] == [None] * 4
    # codes read as ASCII signs, controls or private-use characters stay garble, a
    # formula's sign or two among them or not
    for garble in _symbols():
        assert unreadable(garble) is not None
        assert unreadable(garble + " → ∑ ") is not None
