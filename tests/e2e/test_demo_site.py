"""The demo site (`/demo/`, the sample book with the widget on it) in a real Chromium: each
page under its title."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from backend.app import create_app
from backend.config import Settings
from tests.fakes.servers import FakeServer
from tests.support.books import SAMPLE_BOOK, ingest_into

pytestmark = pytest.mark.e2e
PRIVACY = "/demo/docs/for-readers/privacy-and-history"
QUIZ = "/demo/docs/for-readers/quiz"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("demo-site") / "data"
    ingest_into(data, SAMPLE_BOOK, "guide", base_url="/demo")
    with FakeServer(create_app(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="guide"))) as live:
        yield live.url


def _page(browser: Browser, width: int, height: int) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def desktop(browser: Browser) -> Iterator[Page]:
    yield from _page(browser, 1280, 800)


@pytest.mark.parametrize(("path", "title"), [
    (PRIVACY, "Privacy and History"),  # its `# Title` is followed at once by a `##`
    ("/demo/docs/for-readers/asking-questions", "Asking Questions"),
    (QUIZ, "Reader Quiz"),  # text between its `# Title` and the first `##`
])
def test_every_page_shows_its_title_once(desktop: Page, server: str, path: str, title: str) -> None:
    desktop.goto(f"{server}{path}")
    expect(desktop.locator("article h1")).to_have_count(1)
    expect(desktop.locator("article h1")).to_have_text(title)
    expect(desktop.locator("article :is(h1, h2, h3)").first).to_have_text(title)  # above its sections
