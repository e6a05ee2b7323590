"""The demo site (`/demo/`, the sample book with the widget on it) in a real Chromium: each
page under its title, the lessons menu on a phone, the quiz's answers behind their buttons."""

from collections.abc import Iterator

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


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from _page(browser, 375, 740)


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


def test_on_a_phone_a_menu_button_opens_the_lessons(phone: Page, server: str) -> None:
    phone.goto(f"{server}{PRIVACY}")
    menu = phone.get_by_role("button", name="Lessons", exact=True)
    lessons = phone.get_by_role("navigation", name="Lessons")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(lessons).to_be_hidden()

    menu.click()
    expect(menu).to_have_attribute("aria-expanded", "true")
    expect(lessons).to_be_visible()
    current = lessons.locator("a[aria-current=page]")
    expect(current).to_have_text("Privacy and History")
    expect(current).to_be_focused()  # the focus goes to the reader's place in the book
    box = lessons.bounding_box()
    assert box and box["x"] == 0 and box["width"] <= 375

    phone.keyboard.press("Escape")
    expect(lessons).to_be_hidden()
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()

    phone.keyboard.press("Enter")  # the button, focused again, opens it from the keyboard
    expect(lessons).to_be_visible()
    phone.mouse.click(360, 400)  # a tap beside the panel closes it
    expect(lessons).to_be_hidden()

    menu.click()
    lessons.get_by_role("link", name="Asking Questions").click()
    phone.wait_for_url("**/asking-questions")
    expect(phone.locator("article h1")).to_have_text("Asking Questions")
    expect(phone.get_by_role("navigation", name="Lessons")).to_be_hidden()


def test_on_a_wide_screen_the_lessons_are_always_shown(desktop: Page, server: str) -> None:
    desktop.goto(f"{server}{PRIVACY}")
    expect(desktop.get_by_role("navigation", name="Lessons")).to_be_visible()
    expect(desktop.get_by_role("button", name="Lessons")).to_be_hidden()


def test_the_quizs_answers_are_behind_closed_collapsibles(desktop: Page, server: str) -> None:
    desktop.goto(f"{server}{QUIZ}")
    answers = desktop.locator("article details")
    expect(answers).to_have_count(2)
    for i in range(2):
        expect(answers.nth(i)).not_to_have_attribute("open", "")
        expect(answers.nth(i).locator("summary")).to_have_text("Reveal Answer")
    first = desktop.get_by_text("At least ten characters.")
    expect(first).to_be_hidden()
    expect(desktop.locator("article p").filter(has_text="Reveal Answer")).to_have_count(0)  # a label, not text
    answers.first.locator("summary").click()
    expect(first).to_be_visible()
    expect(desktop.get_by_text("Seven days.")).to_be_hidden()
