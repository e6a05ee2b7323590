"""Browser fixtures: Debian's Chromium driven by Playwright."""

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Route, expect, sync_playwright

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="module")  # sync Playwright holds the main thread's event loop while open
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: `make test` installs Debian's chromium package")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def offline_page(browser: Browser) -> Iterator[tuple[Page, list[str]]]:
    """A page whose requests to any host but this machine are refused (and listed)."""
    context = browser.new_context()
    refused: list[str] = []

    def only_local(route: Route) -> None:
        if urlsplit(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort("internetdisconnected")

    context.route("**/*", only_local)
    yield context.new_page(), refused
    context.close()


def ask(page: Page, question: str) -> None:
    page.get_by_test_id("input").fill(question)
    page.get_by_test_id("input").press("Enter")


def last_answer(page: Page):
    answer = page.get_by_test_id("message-assistant").last
    expect(answer.get_by_test_id("confidence")).to_be_visible(timeout=20_000)
    return answer
