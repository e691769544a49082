"""The web pages of `memtrails serve`, through the ASGI app: login, the guard's pages, the
security headers, and record text (anyone's mail) rendered as text, never as markup."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from helpers import Served, web_app

from memtrails import Memory
from memtrails.service.auth import cookie_name, session_value
from memtrails.service.jobs import Job
from memtrails.testing import HashingEmbedder

TOKEN = "t0ken-" + "a" * 40
PORT = 8765
PAYLOAD = "<script>alert(1)</script><img src=x onerror=alert(2)>"
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"
ROWS = [
    {
        "id": "evil",
        "kind": "mail",
        "title": PAYLOAD,
        "author": PAYLOAD,
        "at": "2024-03-05T10:00:00Z",
        "thread": "budget",
        "text": f"About the quarterly budget review. {PAYLOAD} Regards.",
    },
    {
        "id": "reply",
        "kind": "mail",
        "title": "Re: budget",
        "author": "ann@example.org",
        "at": "2024-03-06T09:00:00Z",
        "thread": "budget",
        "text": "The quarterly budget review is moved to Friday.",
    },
    {
        "id": "note",
        "kind": "note",
        "title": "groceries",
        "at": "2024-05-01",
        "text": "eggs, milk & bread",
    },
]


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Served]:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(ROWS, name="inbox")
        await memory.ingest([{"id": "w", "text": "a wiki page", "at": "2023-11-02"}], name="wiki")
        async with web_app(memory, TOKEN, PORT) as served:
            yield served


async def logged_in(served: Served) -> httpx.AsyncClient:
    response = await served.http.get("/login", params={"token": TOKEN})
    assert response.status_code == 303 and response.headers["location"] == "/"
    return served.http


async def test_the_login_link_sets_a_strict_httponly_cookie_and_drops_the_token(
    served: Served,
) -> None:
    response = await served.http.get("/login", params={"token": TOKEN})
    assert response.status_code == 303
    assert response.headers["location"] == "/"  # the token is gone from the address
    cookie = response.headers["set-cookie"]
    parts = [p.strip() for p in cookie.split(";")]
    assert parts[0] == f"{cookie_name(PORT)}={session_value(TOKEN)}"
    assert TOKEN not in cookie  # the cookie is not the API's bearer token
    assert "HttpOnly" in parts and "SameSite=Strict" in parts and "Path=/" in parts
    page = await served.http.get("/")
    assert page.status_code == 200 and "<form" in page.text


async def test_without_the_cookie_the_pages_say_how_to_log_in(served: Served) -> None:
    for path in ("/", "/sources", "/timeline", "/record?uid=x", "/static/style.css"):
        response = await served.http.get(path)
        assert response.status_code == 401, path
        assert response.headers["content-type"].startswith("text/html")
        assert "/login?token=" in response.text and "service.token" in response.text
    wrong = await served.http.get("/login", params={"token": "nope"})
    assert wrong.status_code == 303 and "set-cookie" not in wrong.headers
    assert "nope" not in wrong.headers["location"]  # a wrong token leaves the address too
    forged = await served.http.get("/", headers={"Cookie": f"{cookie_name(PORT)}={TOKEN}"})
    assert forged.status_code == 401  # the bearer token is not the session
    # The bearer token opens the pages too (a script, curl).
    bearer = await served.http.get("/sources", headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.status_code == 200


async def test_the_cookie_never_opens_the_api(served: Served) -> None:
    http = await logged_in(served)
    assert (await http.get("/")).status_code == 200
    for method, path in (("GET", "/v1/status"), ("POST", "/v1/search"), ("POST", "/mcp")):
        response = await http.request(method, path, json={"query": "budget"})
        assert response.status_code == 401, path
        assert response.headers["content-type"] == "application/json"
    # A page asked from another site's page is refused, cookie or not.
    foreign = await http.get("/", headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403


async def test_every_answer_has_the_security_headers(served: Served) -> None:
    http = await logged_in(served)
    answers = [
        await http.get("/"),
        await http.get("/timeline"),
        await served.http.get("/login"),
        await http.get("/v1/status"),
    ]
    for response in answers:
        csp = response.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "script-src 'self'" in csp and "'unsafe-inline'" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"


def assert_no_payload_markup(html: str) -> None:
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "onerror=alert" not in html.replace(ESCAPED, "")


async def test_a_script_payload_renders_as_text_on_every_page(served: Served) -> None:
    http = await logged_in(served)
    found = await http.get("/", params={"q": "quarterly budget review"})
    assert found.status_code == 200
    assert ESCAPED in found.text  # the title, the author and the passage, as text
    assert found.text.count(ESCAPED) >= 2
    assert_no_payload_markup(found.text)
    # The query's words are marked, in escaped text.
    assert "<mark>budget</mark>" in found.text and "<mark>quarterly</mark>" in found.text
    uid = re.search(r'href="/record\?uid=([0-9a-f]{32})', found.text)
    assert uid is not None
    record = await http.get("/record", params={"uid": uid.group(1)})
    assert record.status_code == 200
    assert_no_payload_markup(record.text)
    assert ESCAPED in record.text
    sources = await http.get("/sources")
    assert_no_payload_markup(sources.text)
    timeline = await http.get("/timeline")
    assert_no_payload_markup(timeline.text)


async def test_a_payload_in_the_query_and_in_a_source_name_stays_text(served: Served) -> None:
    await served.memory.ingest([{"id": "s", "text": "hello there"}], name=PAYLOAD)
    http = await logged_in(served)
    found = await http.get("/", params={"q": PAYLOAD, "author": PAYLOAD})
    assert found.status_code == 200
    assert_no_payload_markup(found.text)
    sources = await http.get("/sources")
    assert ESCAPED in sources.text
    assert_no_payload_markup(sources.text)
    timeline = await http.get("/timeline")
    assert ESCAPED in timeline.text
    assert_no_payload_markup(timeline.text)


async def test_the_record_page_shows_the_whole_text_its_thread_and_place(served: Served) -> None:
    http = await logged_in(served)
    record = await http.get("/record", params={"uid": "reply", "source": "inbox"})
    assert record.status_code == 200
    assert "The quarterly budget review is moved to Friday." in record.text
    assert "its thread (2 records nearby)" in record.text
    assert "beside it in <bdi>inbox</bdi>" in record.text and "groceries" in record.text
    assert (await http.get("/record", params={"uid": "gone"})).status_code == 404


async def test_search_filters_and_a_bad_date_say_what_is_wrong(served: Served) -> None:
    http = await logged_in(served)
    notes = await http.get("/", params={"q": "eggs milk", "kind": "note"})
    assert "groceries" in notes.text
    assert "<mark>eggs</mark>, <mark>milk</mark> &amp; bread" in notes.text
    none = await http.get("/", params={"q": "eggs milk", "kind": "mail", "source": "wiki"})
    assert "0 results" in none.text
    later = await http.get("/", params={"q": "budget", "since": "2024-04-01"})
    assert "quarterly" not in later.text
    bad = await http.get("/", params={"q": "budget", "since": "not a date at all"})
    assert bad.status_code == 200 and 'class="error"' in bad.text


async def test_sources_and_timeline_count_what_the_folder_holds(served: Served) -> None:
    http = await logged_in(served)
    sources = await http.get("/sources")
    assert "4 records in 2 sources" in sources.text
    assert re.search(r">inbox</a></td>\s*<td class=\"n\">3<", sources.text)
    timeline = await http.get("/timeline")
    assert "4 records, 2023-11 to 2024-05, by month" in timeline.text
    assert "<svg" in timeline.text and "2024-03, \u2068inbox\u2069: 2" in timeline.text
    months = dict(re.findall(r"<tr><td>(\d{4}-\d\d)</td><td class=\"n\">(\d+)</td>", timeline.text))
    assert months == {"2023-11": "1", "2024-03": "2", "2024-05": "1"}
    # A record added later is counted from its line alone, the others read before.
    await served.memory.ingest([{"id": "n2", "text": "more", "at": "2024-05-09"}], name="wiki")
    again = await http.get("/timeline")
    assert "5 records" in again.text and "2024-05, \u2068wiki\u2069: 1" in again.text
    assert await served.memory.forget("note", source="inbox") == 1
    after = await http.get("/timeline")
    assert "4 records" in after.text and "2024-05, \u2068inbox" not in after.text


async def test_an_import_in_progress_shows_its_bar_then_its_errors(served: Served) -> None:
    from memtrails.records import ImportReport, RecordError

    release = asyncio.Event()

    async def run(job: Job) -> ImportReport:
        report = ImportReport(added=7)
        report.add_error(RecordError("big.mbox", "message 3", f"unreadable {PAYLOAD}"))
        job.progress(report, part="big.mbox", size=1000, position=400)
        await release.wait()
        return report

    job = served.jobs.start("import", "big.mbox", ("big.mbox",), run)
    http = await logged_in(served)
    await asyncio.sleep(0)  # the job reports its progress
    running = await http.get("/sources")
    assert '<progress max="100" value="40">' in running.text and "40%" in running.text
    assert "added 7" in running.text and "reading <bdi>big.mbox</bdi>" in running.text
    assert '<meta http-equiv="refresh" content="2">' in running.text  # it follows the import
    release.set()
    await served.jobs.wait(job)
    done = await http.get("/sources")
    assert "<progress" not in done.text and 'http-equiv="refresh"' not in done.text
    assert "state-done" in done.text and "message 3" in done.text
    assert f"unreadable {ESCAPED}" in done.text
    assert_no_payload_markup(done.text)


async def test_unknown_pages_answer_html_and_the_api_json(served: Served) -> None:
    http = await logged_in(served)
    page = await http.get("/nothing/here")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "no such endpoint /nothing/here" in page.text
    api = await http.get("/v1/nothing", headers={"Authorization": f"Bearer {TOKEN}"})
    assert api.status_code == 404 and "the API is under /v1" in api.json()["error"]


async def test_neighbours_are_found_past_long_mails(served: Served) -> None:
    long = [
        {
            "id": f"long{n}",
            "kind": "mail",
            "title": f"long mail {n}",
            "thread": "long",
            "at": f"2024-06-0{n + 1}",
            "text": f"part {n} " + "word " * 12_000,  # 60 KB: past the log's 16 KiB look
        }
        for n in range(3)
    ]
    await served.memory.ingest(long, name="long")
    http = await logged_in(served)
    middle = await http.get("/record", params={"uid": "long1", "source": "long"})
    assert "its thread (3 records nearby)" in middle.text
    before = middle.text.split("<h3>before</h3>")[1].split("<h3>after</h3>")
    assert "long mail 0" in before[0] and "long mail 2" in before[1]


async def test_a_record_beside_damaged_log_lines_still_shows_its_neighbours(
    served: Served,
) -> None:
    chain = [
        {"id": f"c{n}", "title": f"chain part {n}", "thread": "chain", "text": f"link {n}"}
        for n in range(5)
    ]
    report = await served.memory.ingest(chain, name="chain")
    assert report.added == 5
    log = served.memory.path / "records.jsonl"
    data = log.read_bytes()
    for n in (1, 3):  # a disk error in the lines just before and after c2's: same length
        at = data.index(b'"title":"chain part %d"' % n)
        data = data[:at] + b"\x00" * 10 + data[at + 10 :]
    log.write_bytes(data)
    http = await logged_in(served)
    page = await http.get("/record", params={"uid": "c2", "source": "chain"})
    assert page.status_code == 200, page.text
    before, after = page.text.split("<h3>before</h3>")[1].split("<h3>after</h3>")
    assert "chain part 0" in before and "chain part 4" in after
    assert "chain part 1" not in page.text and "chain part 3" not in page.text
