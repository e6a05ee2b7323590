"""A PDF book in Chromium: the sample book printed to PDF by Chromium itself, ingested, asked in the
widget on a host site; clicking the citation opens Lectern's viewer at the cited page with the
passage highlighted (screenshot in test-artifacts/)."""

import re
from collections.abc import Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from markdown_it import MarkdownIt
from playwright.sync_api import Browser, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from backend.app import create_app
from ingest_scripts.markdown import split_front_matter
from ingest_scripts.pipeline import plan_book
from tests.e2e.conftest import ARTIFACTS, ask, last_answer
from tests.fakes.servers import FakeServer
from tests.support.books import SAMPLE_BOOK, app_settings, ingest_into

pytestmark = pytest.mark.e2e
_HOST: dict[str, str] = {}


def _printed_book(browser: Browser, out: Path) -> None:
    """The sample book as one PDF, each lesson from a new page, with an outline and page numbers."""
    render = MarkdownIt("commonmark", {"html": False}).enable("table")
    parts = []
    for page in plan_book(SAMPLE_BOOK, "lectern-guide").pages:
        source = (SAMPLE_BOOK / page.source_path).read_text(encoding="utf-8")
        _, start = split_front_matter(source, page.source_path)
        body = re.sub(r"^(?:# .*|import .*|:::.*)$", "", source[start:], flags=re.MULTILINE)
        parts.append(f"<h1>{page.title}</h1>{render.render(body)}")
    tab = browser.new_page()
    tab.set_content("<!doctype html><title>The Lectern Guide</title><style>h1 { break-before: page; }</style>"
                    + "".join(parts))
    tab.pdf(path=str(out), outline=True, tagged=True, display_header_footer=True,
            header_template="<span></span>",
            footer_template="<div style='font-size:8px;width:100%;text-align:center'><span class='pageNumber'></span></div>",
            margin={"top": "50px", "bottom": "50px"})
    tab.close()


@pytest.fixture(scope="module")
def pdf_site(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("pdf-site")
    (root / "docs").mkdir()
    _printed_book(browser, root / "docs" / "lectern-guide.pdf")
    ingest_into(root / "data", root / "docs", "guide")
    host = FakeServer(Starlette(routes=[Route("/manual", _host_page)]))
    settings = app_settings(root / "data", book="guide", LECTERN_CORS_ORIGINS=[host.url])
    with FakeServer(create_app(settings)) as server, host:
        _HOST["api"], _HOST["page"] = server.url, f"{host.url}/manual"
        yield root / "docs" / "lectern-guide.pdf"


async def _host_page(request: Request) -> HTMLResponse:
    api = _HOST["api"]
    return HTMLResponse(f'<!doctype html><title>Manual</title><h1>Our manual</h1>'
                        f'<script src="{api}/widget.js" data-api-url="{api}" data-book-id="guide"></script>')


def test_clicking_a_pdf_citation_opens_the_page_with_the_passage_highlighted(
    browser: Browser, pdf_site: Path
) -> None:
    page = browser.new_page()
    page.goto(_HOST["page"])
    page.get_by_test_id("launcher").click()
    ask(page, "Which services does Lectern use in production?")
    answer = last_answer(page)
    citation = answer.get_by_test_id("citation").first
    expect(citation).to_contain_text("p. ")
    cited_page = int(re.search(r"p\. (\d+)", citation.inner_text()).group(1))
    excerpt = citation.get_attribute("title") or ""
    document = pdfium.PdfDocument(str(pdf_site))
    printed = document[cited_page - 1].get_textpage().get_text_range()
    document.close()
    assert re.sub(r"\s+", " ", excerpt.removesuffix("…"))[:40] in re.sub(r"\s+", " ", printed)

    with page.context.expect_page() as opened:
        citation.click()
    viewer = opened.value
    expect(viewer.locator("body")).to_have_attribute("data-highlight", "found", timeout=20_000)
    highlighted = viewer.locator(f'.page[data-page-number="{cited_page}"] .textLayer .highlight')
    expect(highlighted.first).to_be_visible()
    assert excerpt.split()[0] in " ".join(highlighted.all_inner_texts())
    ARTIFACTS.mkdir(exist_ok=True)
    viewer.screenshot(path=str(ARTIFACTS / "pdf-viewer-citation.png"))
    download = viewer.get_by_role("link", name="Download PDF")
    assert "format=pdf" in (download.get_attribute("href") or "")
