"""Markup that is no element (DOCTYPE subsets, processing instructions, CDATA, conditional
and unclosed comments): none of its syntax reaches a record's text, the text around it does."""

from __future__ import annotations

from contextlib import aclosing
from pathlib import Path

import pytest
from helpers import records

from memtrails.importers.documents._html import html_to_text, read_html
from memtrails.importers.files import from_files

# Pieces of syntax that are never a page's text.
_SYNTAX = ("]>", "<!", "<?", "?>", "ENTITY", "CDATA", "]]>", "endif", "-->", "<!--", "[if")

CASES = {
    # An XHTML page with an internal subset declaring entities: "]>" used to leak.
    "subset": (
        '<!DOCTYPE html [ <!ENTITY product "Otter"> <!ENTITY v "2.0"> ]>'
        "<html><body><p>Release notes</p></body></html>",
        ["Release notes"],
    ),
    # Quoted values and comments in a subset may hold "]" and ">".
    "subset-quoted": (
        "<!DOCTYPE doc [\n  <!ENTITY a \"x]>y\">\n  <!-- a ] > comment -->\n  <!ENTITY b 'q>'>\n]>"
        "<p>Before</p><p>After the subset</p>",
        ["Before", "After the subset"],
    ),
    "subset-mid-page": (
        '<p>first page</p><!DOCTYPE x [ <!ENTITY a "b"> ]> second page',
        ["first page", "second page"],
    ),
    "processing-instructions": (
        '<?xml version="1.0" encoding="utf-8"?><?xml-stylesheet href="a.xsl"?>'
        "<p>Hello</p><?php if ($a > 1) { echo 'x'; } ?>world <?= $name ?>end",
        ["Hello", "world", "end"],
    ),
    "cdata": (
        "<p>before<![CDATA[ inner words ]]>after</p>",
        ["before", "inner words", "after"],
    ),
    "conditional-comments": (
        "<p>a1</p><!--[if IE]><p>old browser</p><![endif]-->"
        "<!--[if !IE]><!--><p>b2</p><!--<![endif]-->"
        "<![if !mso]><p>c3</p><![endif]><p>d4</p>",
        ["a1", "b2", "c3", "d4"],
    ),
    # Comments end as a browser ends them: at "--!>" too; "<!-->" and "<!--->" are empty.
    "comment-ends": (
        "<p>one<!-- x --!>two</p><p>three<!-->four<!--->five<!-- y -->six</p>",
        ["one", "two", "three", "four", "five", "six"],
    ),
    "unclosed-comment": ("<p>kept text</p><!-- a comment never closed <p>hidden", ["kept text"]),
    "unclosed-pi": ("<p>kept text</p><?php echo 'never closed';", ["kept text"]),
    "unclosed-cdata": ("<p>kept text</p><![CDATA[ never closed", ["kept text"]),
    "unclosed-subset": ('<p>kept text</p><!DOCTYPE x [ <!ENTITY a "b"', ["kept text"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_syntax_reaches_the_text(name: str) -> None:
    markup, words = CASES[name]
    text = html_to_text(markup)
    for piece in _SYNTAX:
        assert piece not in text, (piece, text)
    for word in words:
        assert word in text
    assert "hidden" not in text and "old browser" not in text and "never closed" not in text


def test_a_long_unclosed_comment_is_no_text_either() -> None:
    # Past the length read apart from the parser (html.parser's quadratic tail).
    text = html_to_text("<p>kept text</p><!-- " + "commented out words " * 2000)
    assert text == "kept text"


def test_markup_after_a_long_open_tag_is_no_text_either() -> None:
    # An attribute quote never closed: the rest of the page is that attribute's value, as
    # a browser reads it; none of it (the tag's start included) is text.
    tail = "<!DOCTYPE x [ <!ENTITY a b> ]><?php echo 1 > 0 ?><![CDATA[ inner ]]><!-- c --!>after"
    text = html_to_text('<p>kept</p><a title="' + "word " * 3000 + tail)
    assert text == "kept"


def test_a_page_s_own_entities_read_as_their_values() -> None:
    page = (
        "<!DOCTYPE html [ <!ENTITY product \"Otter\"> <!ENTITY v '2.0 &#169;'> ]>"
        "<p>&product; &v; is out; &amp;product; is how it is written</p>"
    )
    assert html_to_text(page) == "Otter 2.0 \u00a9 is out; &product; is how it is written"
    # Expanded once, never the value's own references: no entity bomb.
    bomb = '<!DOCTYPE x [ <!ENTITY a "&b;&b;&b;&b;"> <!ENTITY b "&a;&a;&a;&a;"> ]><p>&a;</p>'
    assert html_to_text(bomb) == "&b;&b;&b;&b;"
    assert read_html(bomb.encode())[0] == "&b;&b;&b;&b;"


def test_many_constructs_each_end_where_their_syntax_says() -> None:
    many = "<p>x</p>" + "<? a > b ?> c " * 2000 + '<!DOCTYPE y [ <!ENTITY z "w"> ]> v ' * 2000
    text = html_to_text(many)
    assert "<?" not in text and "]>" not in text and "ENTITY" not in text
    assert text.split() == ["x", *["c"] * 2000, *["v"] * 2000]


async def test_an_xhtml_page_in_a_notes_folder(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "page.xhtml").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<!DOCTYPE html [\n  <!ENTITY company "Acme">\n]>\n'
        '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>&company; plan</title></head>'
        "<body><p>Quarterly plan</p><p>&company; ships</p><![CDATA[ raw notes ]]><!-- draft -->"
        "<p>Ship it</p></body></html>",
        encoding="utf-8",
    )
    async with aclosing(from_files(notes)) as items:
        (record,) = records([item async for item in items])
    assert "Quarterly plan" in record.text and "Ship it" in record.text
    assert record.title == "Acme plan" and "Acme ships" in record.text
    for piece in _SYNTAX:
        assert piece not in record.text
