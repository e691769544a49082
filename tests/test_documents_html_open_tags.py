"""HTML whose last tag is never closed (a page cut short, a 100 KB ``style`` or ``data:``
URI that a size limit cut) shows nothing of that tag, as a browser does (the tag runs to
the end of the page); a CDATA section (XHTML, SVG or MathML in HTML) shows its text, even
when it is never closed, and a title written as one reads as its text."""

from __future__ import annotations

import pytest

from memtrails.importers.documents._html import html_to_text, read_html

OPEN_TAGS = [
    '<div style="' + "color:red;" * 10_000,  # 100 KB
    '<div style="' + "color:red;" * 20,  # short: html.parser's close() gave it as text
    '<img src="data:image/png;base64,' + "QUJD" * 25_000,
    "<a href=x title='" + "long " * 3000,
    "</div" + " " * 9000,
    "<svg><path d='" + "M1 2L3 4" * 2000,
]


@pytest.mark.parametrize("tail", OPEN_TAGS, ids=lambda t: f"{t[:8]}...{len(t)}")
def test_an_open_tag_at_the_end_shows_nothing(tail: str) -> None:
    text = html_to_text("<p>Before it.</p><p>Read this</p>" + tail)
    assert text == "Before it.\n\nRead this"


def test_a_page_cut_inside_a_tag_keeps_its_text(tmp_path: object) -> None:
    page = "<html><head><title>Cut</title></head><body><p>Kept text</p>"
    page += '<img alt="x" src="data:image/png;base64,' + "iVBORw0KGgo" * 20_000
    text, meta = read_html(page.encode())
    assert (text, meta) == ("Kept text", {"title": "Cut"})


@pytest.mark.parametrize(
    ("markup", "shown"),
    [
        ("<p>a</p><svg><text><![CDATA[x < y && z]]></text></svg>", "a\n\nx < y && z"),
        ("<p>a</p><svg><text><![CDATA[the rest, never closed", "a\n\nthe rest, never closed"),
        ("<p>a</p><math><mi><![CDATA[" + "word " * 3000, "a\n\n" + " ".join(["word"] * 3000)),
        ("<p>x<![CDATA[ab]]>y</p>", "xaby"),
    ],
)
def test_cdata_shows_its_text(markup: str, shown: str) -> None:
    assert html_to_text(markup) == shown


def test_an_xhtml_title_in_cdata_reads_as_its_text() -> None:
    page = (
        '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
        "<title><![CDATA[Q&A: x < y]]></title></head><body><p>Body</p></body></html>"
    )
    assert read_html(page.encode()) == ("Body", {"title": "Q&A: x < y"})
