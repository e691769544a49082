"""Hostile record text on the web pages: bidi overrides and control characters in titles,
authors, sources, paths and meta cannot reorder what a reader sees (Trojan Source), in the
page's body, its attributes, its tab title and its tooltips."""

from __future__ import annotations

import asyncio
import html
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from helpers import Served, web_app

from memtrails import Memory
from memtrails.records import ImportReport, RecordError
from memtrails.service.jobs import Job
from memtrails.service.web.plain import BIDI_CONTROLS, isolated, neutral, shortened
from memtrails.testing import HashingEmbedder

TOKEN = "t0ken-" + "c" * 40
PORT = 8767
RLO, PDF, LRI, PDI, FSI = "\u202e", "\u202c", "\u2066", "\u2069", "\u2068"
# Each reads one way and is stored another: "invoice_fdp.exe" shows as "invoice_exe.pdf".
EVIL = {
    "title": f"invoice {RLO}fdp.exe",
    "author": f"eve {RLO}moc.knab@ecnanif",
    "source": f"inbox {RLO}lanoitan{PDI}{LRI}",
    "kind": f"mail{RLO}",
    "thread": f"t{RLO}1",
    "path": f"/mail/{RLO}fdp.exe",
}
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: a ZWJ sequence
REORDERING = BIDI_CONTROLS - {FSI, PDI}  # the isolate pair is what the page adds


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        rows = [
            {
                "id": "evil",
                "kind": EVIL["kind"],
                "title": EVIL["title"],
                "author": EVIL["author"],
                "at": "2024-03-05T10:00:00Z",
                "thread": EVIL["thread"],
                "text": f"Pay the budget invoice to {RLO}0001 tnuocca before Friday.",
                "meta": {"path": EVIL["path"], f"x{RLO}key": "v"},
            },
            {
                "id": "next",
                "title": f"bell\x07 and escape\x1b[31m {FAMILY} budget",
                "author": "ann",
                "at": "2024-03-06",
                "thread": EVIL["thread"],
                "text": "The budget review moved.",
            },
        ]
        await memory.ingest(rows, name=EVIL["source"])
        async with web_app(memory, TOKEN, PORT, session=True) as served:
            yield served


@dataclass
class Page(HTMLParser):
    """What a reader meets in a page: each text with the elements around it, each attribute,
    and the tab's title."""

    texts: list[tuple[str, list[tuple[str, dict[str, str | None]]]]] = field(default_factory=list)
    attributes: list[tuple[str, str, str]] = field(default_factory=list)
    stack: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))
        if tag not in ("meta", "link", "input", "br", "line", "img"):
            self.stack.append((tag, dict(attrs)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            self.attributes.append((tag, name, value or ""))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        self.texts.append((data, list(self.stack)))

    def title(self) -> str:
        return "".join(t for t, around in self.texts if around and around[-1][0] == "title")


def read(text: str) -> Page:
    page = Page()
    page.feed(text)
    page.close()
    return page


def assert_contained(text: str) -> None:
    """Record text on the page cannot reorder what is around it: in the body, each text
    holding a bidi control sits in an isolating element (``<bdi>``, or one with ``dir``),
    and where no element can isolate (the tab title, attributes, ``<option>``, SVG
    ``<title>``) the reordering controls are gone and the isolates the page adds pair up."""
    page = read(text)
    unisolated = {"title", "option"}  # text only: no element inside them
    for data, around in page.texts:
        if not REORDERING & set(data):
            continue
        tags = [tag for tag, _ in around]
        assert not unisolated & set(tags) and "svg" not in tags, (data, tags)
        assert any(tag == "bdi" or "dir" in attrs for tag, attrs in around), (data, tags)
    for data, around in page.texts:
        if around and around[-1][0] in ("title", "option"):
            assert_balanced(data)
    for tag, name, value in page.attributes:
        if (tag, name) == ("option", "value"):
            continue  # never shown: it names the source exactly, for the filter
        assert not REORDERING & set(value), (tag, name, value)


def assert_balanced(data: str) -> None:
    depth = 0
    for char in data:
        if char in REORDERING:
            raise AssertionError(f"a reordering control in {data!r}")
        if char == FSI:
            depth += 1
        elif char == PDI:
            depth -= 1
            assert depth >= 0, data
    assert depth == 0, data


async def test_bidi_controls_in_record_fields_stay_in_their_place_on_every_page(
    served: Served,
) -> None:
    http = served.http
    pages = {
        "search": await http.get("/", params={"q": "budget invoice", "author": EVIL["author"]}),
        "search by source": await http.get("/", params={"q": "budget", "source": EVIL["source"]}),
        "record": await http.get("/record", params={"uid": "evil", "source": EVIL["source"]}),
        "next": await http.get("/record", params={"uid": "next", "source": EVIL["source"]}),
        "sources": await http.get("/sources"),
        "timeline": await http.get("/timeline"),
    }
    for name, response in pages.items():
        assert response.status_code == 200, name
        assert_contained(response.text)
    # The filter still names the source exactly, and finds its records.
    assert "invoice" in pages["search by source"].text
    # The tab title: the record's title, its override gone, isolated from " - record".
    record_title = read(pages["record"].text).title()
    assert record_title == f"{FSI}invoice fdp.exe{PDI} - record · memtrails"
    # The timeline's tooltips name the source without its controls.
    tooltips = [t for t, around in read(pages["timeline"].text).texts if ("rect" in dict(around))]
    assert tooltips and all("lanoitan" in t for t in tooltips)


async def test_control_characters_never_reach_the_tab_title(served: Served) -> None:
    response = await served.http.get("/record", params={"uid": "next", "source": EVIL["source"]})
    title = read(response.text).title()
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in title), ascii(title)
    assert FAMILY in title  # the joined emoji stays whole
    assert "\ufffd[31m" in title  # the escape is shown as a replacement character


async def test_an_import_error_with_bidi_controls_stays_in_its_line(served: Served) -> None:
    release = asyncio.Event()

    async def run(job: Job) -> ImportReport:
        report = ImportReport(added=1)
        report.add_error(RecordError(EVIL["path"], f"message {RLO}3", f"bad {RLO}date"))
        job.progress(report, part=EVIL["path"], size=10, position=5)
        await release.wait()
        return report

    job = served.jobs.start("import", EVIL["path"], (EVIL["source"],), run)
    await asyncio.sleep(0)
    assert_contained((await served.http.get("/sources")).text)
    release.set()
    await served.jobs.wait(job)
    done = await served.http.get("/sources")
    assert "bad" in done.text
    assert_contained(done.text)


def test_neutral_text_keeps_what_is_not_a_control() -> None:
    kept = f"שלום {FAMILY} e\u0301 \u200e\u200f 🇫🇷"
    assert neutral(kept) == kept
    assert neutral(f"a{RLO}b{PDF}c\u2067d\u2069\x00e\x1bf\ng\u2029h") == "abcd\ufffde\ufffdf g h"
    assert isolated(f"x{PDI}{RLO}y") == f"{FSI}xy{PDI}"


@pytest.mark.parametrize(
    "text",
    [FAMILY * 5, "e\u0301" * 20, "🇫🇷🇩🇪🇮🇹" * 3, "👍🏽" * 9, "a" * 30 + FAMILY],
)
def test_shortened_text_never_splits_a_character(text: str) -> None:
    for limit in range(1, len(text)):
        cut = shortened(text, limit)
        assert cut.endswith("…") and len(cut) <= limit
        kept = cut[:-1]
        assert text.startswith(kept)
        rest = text[len(kept) :]
        assert not rest or rest[0] not in "\u200d\u0301\U0001f3fd", (limit, ascii(cut))
        if text.startswith("🇫🇷"):
            assert len(kept) % 2 == 0  # flags are pairs of regional indicators
        if FAMILY in text and text.startswith(FAMILY):
            assert len(kept) % len(FAMILY) == 0


def test_the_escaped_page_shows_the_characters_of_a_payload() -> None:
    # A sanity check of the reader: an entity in a title is read back as its character.
    assert read("<title>a &lt;b&gt; &#x202e;</title>").title() == html.unescape("a <b> \u202e")
