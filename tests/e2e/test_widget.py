"""The widget in a real Chromium against a live backend serving the real book's demo pages."""

import asyncio
import io
import json
import shutil
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from backend.app import create_app
from backend.config import Settings
from backend.store.models import FeedbackEntry
from backend.store.sql import SQLiteStore
from tests.e2e.conftest import ARTIFACTS, ask, last_answer
from tests.fakes.servers import FakeServer
from tests.support.books import ingest_into, write_book

pytestmark = pytest.mark.e2e
LESSON = "/demo/docs/Physical-AI-Humanoid-Robotics/ros2-nervous-system/nodes-topics-services"


@pytest.fixture(scope="module")
def served_data(real_book_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("e2e") / "data"
    shutil.copytree(real_book_template, data)
    return data


@pytest.fixture(scope="module")
def server(served_data: Path) -> Iterator[str]:
    app = create_app(Settings(LECTERN_DATA_DIR=served_data, LECTERN_BOOK="physical-ai"))
    with FakeServer(app) as live:  # a real uvicorn on a free port, lifespan included
        yield live.url


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()
    assert not errors, errors


def test_ask_stream_and_follow_a_citation(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    expect(page.get_by_test_id("panel")).to_be_visible()
    ask(page, "How fast does a 2D LiDAR scan?")
    expect(page.get_by_test_id("message-user")).to_have_text("How fast does a 2D LiDAR scan?")
    answer = last_answer(page)
    expect(answer).to_contain_text("10-40 times per second")
    citation = answer.get_by_test_id("citation").first
    expect(citation).to_contain_text("Depth Sensing")
    href = citation.get_attribute("href") or ""
    assert "/sensors-perception/depth-sensing#" in href and ":~:text=" in href
    citation.click()
    page.wait_for_url("**/depth-sensing**")
    anchor = href.split("#", 1)[1].split(":~:", 1)[0]
    expect(page.locator(f"[id='{anchor}']")).to_be_attached()


def test_starter_questions_answer_from_the_book(page: Page, server: str) -> None:
    """The first thing a new reader clicks: the default starters."""
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    page.get_by_test_id("starter").filter(has_text="key ideas of this page").click()
    answer = last_answer(page)
    citations = answer.get_by_test_id("citation")
    expect(citations.first).to_be_visible()
    hrefs = [citations.nth(i).get_attribute("href") or "" for i in range(citations.count())]
    assert hrefs and all("/nodes-topics-services#" in href for href in hrefs)

    page.get_by_test_id("new-chat").click()
    page.get_by_test_id("starter").filter(has_text="What does this book cover?").click()
    topics = last_answer(page)
    expect(topics).to_contain_text("Module 2: Sensors and Perception for Humanoid Robots")
    expect(topics.get_by_test_id("confidence")).not_to_contain_text("Not found")
    expect(topics.get_by_test_id("citation")).to_have_count(4)


def test_selection_tooltip_flow(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    requests: list[dict] = []
    page.on("request", lambda r: requests.append(json.loads(r.post_data or "{}")) if r.url.endswith("/api/chat/stream") else None)
    delay_ms = page.evaluate(
        """() => new Promise((resolve) => {
            const p = [...document.querySelectorAll('article p')].find((el) => el.textContent.includes('independent process'));
            const range = document.createRange();
            range.selectNodeContents(p);
            const tooltip = document.querySelector('#lectern-widget').shadowRoot.querySelector('[data-testid=ask-tooltip]');
            const started = performance.now();
            new MutationObserver(() => { if (!tooltip.hidden) resolve(performance.now() - started); })
              .observe(tooltip, { attributes: true });
            getSelection().removeAllRanges();
            getSelection().addRange(range);
            document.dispatchEvent(new MouseEvent('mouseup'));
        })"""
    )
    assert delay_ms < 50, f"tooltip took {delay_ms:.1f} ms"
    (ARTIFACTS / "tooltip-delay.txt").parent.mkdir(exist_ok=True)
    (ARTIFACTS / "tooltip-delay.txt").write_text(f"{delay_ms:.1f} ms\n")
    page.get_by_test_id("ask-tooltip").click()
    expect(page.get_by_test_id("selection-quote")).to_contain_text("independent process")
    ask(page, "Why is that useful?")
    answer = last_answer(page)
    expect(answer.get_by_test_id("citation").first).to_contain_text("Nodes, Topics, and Services")
    sent = requests[-1]
    assert "independent process" in sent["selected_text"]
    assert len(sent["surrounding_text"]) > len(sent["selected_text"])
    assert sent["lesson_id"].endswith("nodes-topics-services")


def test_short_selections_and_widget_text_get_no_tooltip(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.evaluate(
        """() => { const p = document.querySelector('article p'); const r = document.createRange();
        r.setStart(p.firstChild, 0); r.setEnd(p.firstChild, 5); getSelection().addRange(r);
        document.dispatchEvent(new MouseEvent('mouseup')); }"""
    )
    page.wait_for_timeout(100)
    expect(page.get_by_test_id("ask-tooltip")).to_be_hidden()


def test_follow_up_and_history_survive_reload_then_expire(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    ask(page, "What is a ToF camera?")
    last_answer(page)
    ask(page, "What is its effective range?")
    expect(last_answer(page)).to_contain_text("0.5-10 meters")
    page.reload()
    expect(page.get_by_test_id("panel")).to_be_visible()  # open state kept for the tab
    expect(page.get_by_test_id("message-user")).to_have_count(2)
    page.evaluate(
        """() => { for (const key of Object.keys(localStorage).filter((k) => k.startsWith('lectern:conv:'))) {
            const saved = JSON.parse(localStorage.getItem(key)); saved.updated -= 8 * 24 * 3600 * 1000;
            localStorage.setItem(key, JSON.stringify(saved)); } }"""
    )
    page.reload()
    expect(page.get_by_test_id("message-user")).to_have_count(0)


def test_dark_mode_follows_the_site(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    root = page.locator("#lectern-widget >> .root")
    expect(root).to_have_attribute("data-theme", "light")
    page.evaluate("document.documentElement.setAttribute('data-theme', 'dark')")
    expect(root).to_have_attribute("data-theme", "dark")
    page.get_by_test_id("launcher").click()
    background = page.get_by_test_id("panel").evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert background == "rgb(27, 27, 29)"


def test_mobile_viewport_is_full_screen(browser: Browser, server: str) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 667}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").tap()
    box = page.get_by_test_id("panel").bounding_box()
    assert box and box["width"] == 375 and box["height"] == 667
    for target in ("send", "close", "new-chat"):
        size = page.get_by_test_id(target).bounding_box()
        assert size and size["width"] >= 44 and size["height"] >= 44, target
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "mobile.png"))
    context.close()


def test_keyboard_only(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("input")).to_be_focused()
    page.keyboard.type("What is cuVSLAM?")
    page.keyboard.press("Enter")
    last_answer(page)
    for _ in range(12):  # focus stays trapped inside the open dialog
        page.keyboard.press("Tab")
        inside = page.evaluate("() => document.querySelector('#lectern-widget').shadowRoot.activeElement?.closest('[role=dialog]') !== null")
        assert inside
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("panel")).to_be_hidden()
    expect(page.get_by_test_id("launcher")).to_be_focused()


def test_xss_in_question_and_answer_executes_nothing(page: Page, server: str) -> None:
    payload = "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>"
    sse = "".join(
        f"event: {name}\ndata: {json.dumps(data)}\n\n"
        for name, data in [
            ("text", {"delta": f"Evil {payload} [1] [link](javascript:window.__pwned=3)"}),
            ("source", {"module": payload, "lesson": "L", "section": "S", "url": "javascript:window.__pwned=4", "excerpt": payload, "score": 1}),
            ("confidence", {"status": "found", "confidence": "high"}),
            ("done", {"conversation_id": "c", "message_id": "m"}),
        ]
    )
    page.goto(f"{server}{LESSON}")
    page.route("**/api/chat/stream", lambda route: route.fulfill(status=200, headers={"content-type": "text/event-stream"}, body=sse))
    page.get_by_test_id("launcher").click()
    ask(page, payload)
    answer = last_answer(page)
    expect(answer).to_contain_text("Evil <img")
    for link in answer.locator("a").all():
        page.evaluate("(a) => a.click()", link.element_handle())
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    expect(page.get_by_test_id("message-user")).to_contain_text("<script>")


def test_xss_in_book_text_executes_nothing(browser: Browser, tmp_path: Path) -> None:
    book = write_book(tmp_path / "docs", {"01-m/01-evil.md": (
        "# Evil Lesson\n\n## Payloads\n\n<script>window.__pwned = 1</script>\n\n"
        "Servos hold position <img src=x onerror=\"window.__pwned=2\"> using a feedback loop of sensors.\n"
    )})
    ingest_into(tmp_path / "data", book, "evil", base_url="/demo")
    app = create_app(Settings(LECTERN_DATA_DIR=tmp_path / "data", LECTERN_BOOK="evil"))
    with FakeServer(app) as live:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{live.url}/demo/")
        page.get_by_test_id("launcher").click()
        ask(page, "How do servos hold position with a feedback loop?")
        last_answer(page)
        time.sleep(0.2)
        assert page.evaluate("window.__pwned") is None
        context.close()


def test_search_says_when_no_passage_matches(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    page.get_by_test_id("mode").click()
    page.get_by_test_id("search-input").fill("xylophone kubernetes")
    expect(page.get_by_test_id("search-empty")).to_contain_text("No passage of this book matches “xylophone kubernetes”")
    expect(page.get_by_test_id("search-result")).to_have_count(0)
    page.get_by_test_id("search-input").fill("sensor fusion")
    expect(page.get_by_test_id("search-result").first).to_contain_text("Sensor Fusion")
    expect(page.get_by_test_id("search-empty")).to_have_count(0)


def stored_feedback(data: Path) -> list[FeedbackEntry]:
    async def read() -> list[FeedbackEntry]:
        store = SQLiteStore(data / "lectern.sqlite3")
        try:
            return await store.feedback("physical-ai")
        finally:
            await store.close()

    with ThreadPoolExecutor(1) as thread:  # sync Playwright holds this thread's event loop
        return thread.submit(asyncio.run, read()).result()


def test_thumbs_down_asks_for_a_comment_by_keyboard(page: Page, server: str, served_data: Path) -> None:
    question = "What does a depth camera measure?"
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    ask(page, question)
    answer = last_answer(page)
    down = answer.get_by_test_id("feedback-down")
    down.focus()
    page.keyboard.press("Enter")
    box = answer.get_by_test_id("comment-box")
    expect(box).to_be_visible()
    expect(answer.get_by_test_id("comment-input")).to_be_focused()
    expect(answer.get_by_role("textbox", name="What was wrong or missing?")).to_be_visible()  # labelled
    page.keyboard.press("Escape")  # skips the comment, keeps the vote and the panel
    expect(box).to_have_count(0)
    expect(page.get_by_test_id("panel")).to_be_visible()
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(down).to_be_focused()
    votes = [(e.question, e.helpful, e.comment) for e in stored_feedback(served_data)]
    assert (question, False, None) in votes

    page.keyboard.press("Enter")  # the pressed thumbs-down opens the box again
    expect(answer.get_by_test_id("comment-send")).to_be_disabled()
    page.keyboard.type("It never says how far it can see.")
    page.keyboard.press("Enter")
    expect(answer.get_by_test_id("comment-sent")).to_be_visible()
    expect(box).to_have_count(0)
    votes = [(e.question, e.helpful, e.comment) for e in stored_feedback(served_data)]
    assert votes.count((question, False, "It never says how far it can see.")) == 1
    assert (question, False, None) not in votes  # the comment replaced the vote, one per reader
    page.reload()  # the sent comment is remembered with the conversation
    expect(page.get_by_test_id("comment-sent")).to_be_visible()


def test_comment_box_cancel_keeps_the_vote(page: Page, server: str, served_data: Path) -> None:
    question = "How does a LiDAR sensor measure distance?"
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    ask(page, question)
    answer = last_answer(page)
    answer.get_by_test_id("feedback-down").click()
    answer.get_by_test_id("comment-input").fill("half typed")
    answer.get_by_test_id("feedback-down").click()  # again, with the box open: what is typed stays
    expect(answer.get_by_test_id("comment-input")).to_have_value("half typed")
    expect(answer.get_by_test_id("comment-input")).to_be_focused()
    answer.get_by_test_id("comment-cancel").click()
    expect(answer.get_by_test_id("comment-box")).to_have_count(0)
    expect(answer.get_by_test_id("feedback-down")).to_have_attribute("aria-pressed", "true")
    assert (question, False, None) in [(e.question, e.helpful, e.comment) for e in stored_feedback(served_data)]


def test_ctrl_i_opens_the_widget_but_not_inside_the_pages_editors(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    launcher = page.get_by_test_id("launcher")
    expect(launcher).to_have_attribute("aria-keyshortcuts", "Control+I")  # Chromium on Linux: Ctrl
    expect(launcher).to_have_accessible_name("Open Ask this book (Ctrl+I)")
    page.keyboard.press("Control+i")
    expect(page.get_by_test_id("panel")).to_be_visible()
    expect(page.get_by_test_id("input")).to_be_focused()
    page.keyboard.press("Control+i")  # from inside, the same keys close it
    expect(page.get_by_test_id("panel")).to_be_hidden()
    expect(launcher).to_be_focused()

    page.evaluate("""() => document.querySelector('article').insertAdjacentHTML('afterbegin',
        '<div contenteditable="true" id="editor">Draft</div><input id="field">')""")
    for field in ("#editor", "#field"):  # a rich editor's Ctrl+I is italic: the keys stay the reader's
        page.locator(field).focus()
        page.keyboard.press("Control+i")
        expect(page.get_by_test_id("panel")).to_be_hidden()
        expect(page.locator(field)).to_be_focused()


@pytest.mark.parametrize(("shortcut", "keys", "announced"), [("alt+k", "Alt+k", "Alt+K"), ("off", None, None)])
def test_the_shortcut_is_configurable_and_can_be_turned_off(
    page: Page, server: str, shortcut: str, keys: str | None, announced: str | None,
) -> None:
    html = f'<!doctype html><p>Host page</p><script src="/widget.js" data-shortcut="{shortcut}"></script>'
    page.route(f"{server}/host.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(f"{server}/host.html")
    launcher = page.get_by_test_id("launcher")
    expect(launcher).to_be_visible()
    page.keyboard.press("Control+i")  # the default is replaced
    expect(page.get_by_test_id("panel")).to_be_hidden()
    if keys is None:
        assert launcher.get_attribute("aria-keyshortcuts") is None
        expect(launcher).to_have_accessible_name("Open Ask this book")
        return
    expect(launcher).to_have_attribute("aria-keyshortcuts", announced)
    page.keyboard.press(keys)
    expect(page.get_by_test_id("panel")).to_be_visible()


WORD_BOX = """([excerpt, last]) => {
    const block = [...document.querySelectorAll('article p, article li, article td')]
      .find((el) => el.textContent.replace(/\\s+/g, ' ').includes(excerpt));
    block.scrollIntoView({ block: 'center' });
    // the block's text with its blanks collapsed as the excerpt's are, and where each character is
    const chars = [];
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const blank = /\\s/.test(node.data[i]);
        if (!(blank && chars.at(-1)?.[0] === ' ')) chars.push([blank ? ' ' : node.data[i], node, i]);
      }
    }
    const start = chars.map(([c]) => c).join('').indexOf(excerpt);
    const word = last ? excerpt.split(' ').at(-1) : excerpt.split(' ')[0];
    const from = chars[last ? start + excerpt.length - word.length : start];
    const to = chars[(last ? start + excerpt.length : start + word.length) - 1];
    const range = document.createRange();
    range.setStart(from[1], from[2]);
    range.setEnd(to[1], to[2] + 1);
    const r = range.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
}"""


def highlighted_share(page: Page, excerpt: str, last: bool) -> float:
    """The share of the pixels of the excerpt's first (or last) word painted in the
    ::target-text colour the test sets."""
    box = page.evaluate(WORD_BOX, [excerpt, last])
    shot = Image.open(io.BytesIO(page.screenshot(clip=box))).convert("RGB")
    pixels = list(shot.getdata())
    return sum(1 for r, g, b in pixels if r > 200 and g < 60 and b > 200) / len(pixels)


def test_a_citation_highlights_its_whole_excerpt(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    ask(page, "How fast does a 2D LiDAR scan?")
    citation = last_answer(page).get_by_test_id("citation").first
    excerpt = " ".join((citation.get_attribute("title") or "").replace("`", "").removesuffix("…").split())
    assert len(excerpt.split()) > 10, excerpt  # longer than a fragment's first words
    page.get_by_test_id("close").click()
    citation.evaluate("(a) => a.click()")  # as a reader's click, with the panel closed
    page.wait_for_url("**/depth-sensing**")
    page.add_style_tag(content="::target-text { background-color: rgb(255, 0, 255); color: rgb(255, 0, 255); }")
    page.wait_for_timeout(200)
    first, last = highlighted_share(page, excerpt, last=False), highlighted_share(page, excerpt, last=True)
    assert first > 0.3 and last > 0.3, (excerpt, first, last)


# Every visible text of the widget (text nodes, and typed values) whose contrast with what is
# painted behind it is under WCAG AA's 4.5:1. Disabled controls are exempt, as WCAG says.
LOW_CONTRAST = """() => {
    const root = document.querySelector('#lectern-widget').shadowRoot;
    const parse = (css) => {
      const srgb = css.match(/color\\(srgb ([^)]+)\\)/);
      const numbers = (srgb ? srgb[1] : css.match(/rgba?\\(([^)]+)\\)/)[1]).split(/[\\s,\\/]+/).filter(Boolean).map(Number);
      const scale = srgb ? 255 : 1;
      return [numbers[0] * scale, numbers[1] * scale, numbers[2] * scale, numbers[3] ?? 1];
    };
    const over = (top, below) => [0, 1, 2].map((i) => top[i] * top[3] + below[i] * (1 - top[3]));
    const luminance = (rgb) => {
      const [r, g, b] = rgb.map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const ratio = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const page = parse(getComputedStyle(document.body).backgroundColor)[3] ? parse(getComputedStyle(document.body).backgroundColor)
      : (matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18, 1] : [255, 255, 255, 1]);
    const behind = (element) => {
      const layers = [];
      for (let node = element; node instanceof Element; node = node.parentElement) {
        const color = parse(getComputedStyle(node).backgroundColor);
        if (color[3] > 0) layers.push(color);
        if (color[3] === 1) break;
      }
      return layers.reverse().reduce((below, top) => over(top, below), page.slice(0, 3));
    };
    const opacity = (element) => {
      let product = 1;
      for (let node = element; node instanceof Element; node = node.parentElement) product *= Number(getComputedStyle(node).opacity);
      return product;
    };
    const failures = [];
    for (const element of root.querySelectorAll('*')) {
      const typed = (element.matches('input, textarea') && element.value.trim()) || '';
      const text = typed || [...element.childNodes].filter((n) => n.nodeType === 3).map((n) => n.data).join('').trim();
      if (!text || !element.checkVisibility() || element.closest('.sr-only, :disabled')) continue;
      const style = getComputedStyle(element);
      const background = behind(element);
      const color = parse(style.color);
      const painted = over([color[0], color[1], color[2], color[3] * opacity(element)], background);
      const contrast = ratio(painted, background);
      if (contrast < 4.5) failures.push({ text: text.slice(0, 60), color: style.color, contrast: Math.round(contrast * 100) / 100 });
    }
    return failures;
}"""


def visible_texts(page: Page) -> int:
    return page.evaluate(
        """() => [...document.querySelector('#lectern-widget').shadowRoot.querySelectorAll('*')]
            .filter((el) => el.checkVisibility() && [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim())).length"""
    )


def assert_readable_in_both_themes(page: Page, what: str) -> None:
    """Checks the open widget in the OS's light and dark themes, switched live."""
    root = page.locator("#lectern-widget >> .root")
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        expect(root).to_have_attribute("data-theme", theme)
        assert visible_texts(page) >= 3, what
        failures = page.evaluate(LOW_CONTRAST)
        assert not failures, f"{what} in the {theme} theme: {failures}"


def test_every_text_reads_at_wcag_aa_in_light_and_dark(page: Page, server: str) -> None:
    page.goto(f"{server}{LESSON}")
    page.get_by_test_id("launcher").click()
    assert_readable_in_both_themes(page, "the starters")

    ask(page, "How fast does a 2D LiDAR scan?")
    answer = last_answer(page)
    expect(answer.get_by_test_id("citation").first).to_be_visible()
    answer.get_by_test_id("feedback-down").click()
    answer.get_by_test_id("comment-input").fill("More on range, please.")
    ask(page, "How does ROS2 compare to Jotai?")
    declined = last_answer(page)
    expect(declined.get_by_test_id("confidence")).to_have_text("Not found in the book")
    expect(declined.locator("a").first).to_be_visible()  # the closest lessons, suggested
    page.route("**/api/chat/stream", lambda route: route.fulfill(status=503, json={"detail": "The assistant is resting."}))
    ask(page, "And in simulation?")
    expect(page.get_by_test_id("error")).to_have_text("The assistant is resting.")
    assert_readable_in_both_themes(page, "an answer with citations, a comment box, suggestions and an error")

    page.get_by_test_id("mode").click()
    page.get_by_test_id("search-input").fill("sensor fusion")
    expect(page.get_by_test_id("search-result").first).to_be_visible()
    page.get_by_test_id("search-input").press("ArrowDown")  # a selected result, on its highlight
    assert_readable_in_both_themes(page, "search results")
    page.get_by_test_id("search-input").fill("xylophone kubernetes")
    expect(page.get_by_test_id("search-empty")).to_be_visible()
    assert_readable_in_both_themes(page, "no passage matches")


def test_the_demo_and_the_widget_follow_the_os_and_docusaurus_live(page: Page, server: str) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto(f"{server}{LESSON}")
    root = page.locator("#lectern-widget >> .root")
    expect(root).to_have_attribute("data-theme", "dark")  # the demo no longer pins the light theme
    assert page.evaluate("getComputedStyle(document.body).color") != "rgb(0, 0, 0)"  # and the page is dark too
    page.evaluate("document.documentElement.setAttribute('data-theme', 'light')")  # Docusaurus' toggle wins
    expect(root).to_have_attribute("data-theme", "light")
    page.evaluate("document.documentElement.removeAttribute('data-theme')")
    expect(root).to_have_attribute("data-theme", "dark")
    page.emulate_media(color_scheme="light")
    expect(root).to_have_attribute("data-theme", "light")


@pytest.mark.parametrize("accent", ["#ffd400", "#7fdbff", "rebeccapurple"])
def test_any_accent_keeps_text_readable(browser: Browser, server: str, accent: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    html = (f'<!doctype html><p>Host page</p><script src="/widget.js" data-accent="{accent}" '
            'data-starter-questions="What are nodes?"></script>')
    page.route(f"{server}/host.html", lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    page.goto(f"{server}/host.html")
    page.get_by_test_id("launcher").click()
    page.route("**/api/chat/stream", lambda route: route.fulfill(status=200, content_type="text/event-stream", body=(
        'event: text\ndata: {"delta": "Nodes are processes [1]."}\n\n'
        'event: source\ndata: {"module": "M", "lesson": "Nodes", "section": "Basics", "url": "/demo/x#basics", "excerpt": "Nodes are processes."}\n\n'
        'event: confidence\ndata: {"status": "found", "confidence": "high"}\n\n'
        'event: done\ndata: {"conversation_id": "c", "message_id": "m"}\n\n')))
    ask(page, "What are nodes?")
    expect(last_answer(page).get_by_test_id("citation")).to_be_visible()
    page.get_by_test_id("input").fill("typed")  # Send enabled: its label on the accent
    assert_readable_in_both_themes(page, f"accent {accent}")
    context.close()
