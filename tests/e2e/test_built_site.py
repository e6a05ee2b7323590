"""Any static site with one script tag: a real MkDocs build, served as it is, ingested as
HTML; a reader asks in the widget, follows the citation to the built page, its section's id
and the passage its text fragment highlights."""

import re
from collections.abc import Iterator
from urllib.parse import unquote

import pytest
from playwright.sync_api import Browser, Page, expect
from starlette.staticfiles import StaticFiles

from backend.app import create_app
from backend.config import Settings
from tests.e2e.conftest import ask, last_answer
from tests.fakes.servers import FakeServer
from tests.support.books import ingest_into, mkdocs_build, write_book
from tests.unit.test_html_site import MKDOCS

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the static site's URL, the API's URL): the built site with the widget's script tag."""
    root = tmp_path_factory.mktemp("built-site")
    project = write_book(root / "project", MKDOCS)
    built = root / "site"
    mkdocs_build(project, built)
    static = FakeServer(StaticFiles(directory=built, html=True))  # its port is chosen now
    ingest_into(root / "data", built, "widgets", base_url=static.url)
    settings = Settings(LECTERN_DATA_DIR=root / "data", LECTERN_BOOK="widgets",
                        LECTERN_CORS_ORIGINS=[static.url])
    with static, FakeServer(create_app(settings)) as api:
        tag = (f'<script src="{api.url}/widget.js" defer data-api-url="{api.url}" '
               f'data-book-id="widgets"></script></body>')
        for page in built.rglob("*.html"):
            page.write_text(page.read_text(encoding="utf-8").replace("</body>", tag), encoding="utf-8")
        yield static.url, api.url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []  # the widget's; the theme's own scripts want a CDN this machine lacks
    page.on("pageerror", lambda error: errors.append(str(error)) if "widget.js" in (error.stack or "") else None)
    yield page
    context.close()
    assert not errors, errors


def test_a_citation_opens_the_built_page_at_the_passage(page: Page, site: tuple[str, str]) -> None:
    static, _ = site
    page.goto(f"{static}/")
    page.get_by_test_id("launcher").click()
    ask(page, "What may change how anchors look?")
    answer = last_answer(page)
    expect(answer).to_contain_text("Themes may change how anchors look.")
    citation = answer.get_by_test_id("citation").first
    href = citation.get_attribute("href") or ""
    assert href.startswith(f"{static}/guide/configuration/#options:~:text="), href
    citation.click()
    page.wait_for_url(re.compile(r".*/guide/configuration/.*"))
    expect(page.locator("[id='options']")).to_be_attached()
    words = unquote(href.split(":~:text=", 1)[1]).split(",")[0]
    shown = " ".join(page.evaluate("document.body.innerText").split())
    assert words in shown  # the text fragment names words the page shows, so it highlights them
