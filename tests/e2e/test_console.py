"""The maintainer console in Chromium: log in with the token, read the charts and the content
gaps after readers asked 60 questions (some unanswerable, some voted down), export the log."""

import csv
import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from backend.app import create_app
from tests.e2e.conftest import ARTIFACTS, ask, last_answer
from tests.fakes.servers import FakeServer
from tests.support.books import app_settings, copy_data_dir

pytestmark = pytest.mark.e2e
TOKEN = "console-token-for-tests"
ANSWERABLE = ["How does a servo hold its position?", "What does a stepper motor do?",
              "How do I set the servo's bus settings?", "What is open-loop control?"]
UNANSWERABLE = ["How do jet engines produce thrust?", "How do jet engines make thrust?",
                "What is the best pizza topping?", "Which pizza topping is the best?"]


@pytest.fixture(scope="module")
def console(motors_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """(the app's URL, how many of the 60 answers were "not found"); a host site with the
    widget runs beside it (see host_site)."""
    data = copy_data_dir(motors_template, tmp_path_factory.mktemp("console") / "data")
    host = FakeServer(Starlette(routes=[Route("/docs/motors", _host_page)]))
    settings = app_settings(data, LECTERN_ADMIN_TOKEN=TOKEN, LECTERN_RATE_LIMIT="1000/minute",
                            LECTERN_RATE_LIMIT_FEEDBACK="1000/minute", LECTERN_CORS_ORIGINS=[host.url])
    not_found = 0
    with FakeServer(create_app(settings)) as server, host, httpx.Client(base_url=server.url) as readers:
        _HOST["api"], _HOST["page"] = server.url, f"{host.url}/docs/motors"
        for number in range(60):
            pool = UNANSWERABLE if number % 4 == 3 else ANSWERABLE
            answer = readers.post("/api/chat/query", json={"query": pool[(number // 4) % len(pool)]},
                                  headers={"X-Session-Id": f"reader-{number}"}).json()
            not_found += answer["status"] == "not_found"
            if number % 10 == 1:  # some readers vote an answer down
                readers.post("/api/feedback", json={"message_id": answer["message_id"], "helpful": False,
                                                    "comment": f"not what I needed ({number})"},
                             headers={"X-Session-Id": f"reader-{number}"})
        yield server.url, not_found


def test_log_in_read_the_charts_and_gaps_and_export(browser: Browser, console: tuple[str, int], tmp_path: Path) -> None:
    url, not_found = console
    assert not_found >= 15  # the unanswerable questions at least
    page = browser.new_page(accept_downloads=True)
    refused = refusals(page)
    page.goto(f"{url}/admin")
    page.get_by_test_id("token").fill("wrong token")
    page.get_by_test_id("token").press("Enter")
    expect(page.get_by_test_id("login-error")).to_have_text("That token does not open this console.")

    page.get_by_test_id("token").fill(TOKEN)
    page.get_by_test_id("token").press("Enter")
    kpis = page.get_by_test_id("kpis")
    expect(kpis).to_contain_text("60questions")
    share = round(100 * not_found / 60)
    expect(kpis).to_contain_text(f"{share}%not found in the book")
    bars = page.get_by_test_id("chart-per-day").locator("rect")
    expect(bars.first).to_be_visible()
    assert {bars.nth(i).get_attribute("data-status") for i in range(bars.count())} == {"found", "not_found"}
    expect(page.get_by_test_id("chart-status")).to_contain_text(f"not found {not_found} ({share}%)")
    expect(page.get_by_test_id("top-questions")).to_contain_text("How does a servo hold its position?")
    expect(page.get_by_test_id("feedback")).to_contain_text("not what I needed (1)")

    gaps = page.get_by_test_id("gap")
    expect(gaps.first).to_be_visible(timeout=30_000)
    texts = [gaps.nth(i).inner_text() for i in range(gaps.count())]
    open_loop = [text for text in texts if "open-loop control" in text]
    assert len(open_loop) == 1 and "Closest lessons: Motors" in open_loop[0]
    # jet engines and pizza are no nearer to a book on motors than everyday questions: listed apart
    assert not any("pizza" in text or "jet engines" in text for text in texts)
    off_topic = page.get_by_test_id("off-topic")
    for question in UNANSWERABLE:
        expect(off_topic).to_contain_text(question)
    # Copy a maintainer can act on: the numbers wait behind "How questions are grouped".
    expect(page.locator("#c-level")).to_contain_text("at least 0.")
    shown = page.locator("main").inner_text()
    assert "cosine" not in shown and "92%" not in shown and not re.search(r"\b0\.\d\d\b", shown)
    page.get_by_test_id("gap-details").locator("summary").click()
    expect(page.locator("#gap-method")).to_contain_text(re.compile(r"92% of pairs.*at least 0\.\d\d"))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "console.png"), full_page=True)

    with page.expect_download() as download:
        page.get_by_test_id("export-csv").click()
    week = f"{(datetime.now(UTC) - timedelta(days=30)).date()}-to-{datetime.now(UTC).date()}"
    assert download.value.suggested_filename == f"lectern-motors-questions-{week}.csv"
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8"))))
    assert len(rows) == 60 and sum(row["status"] == "not_found" for row in rows) == not_found

    page.reload()  # the token is kept for this tab
    expect(page.get_by_test_id("kpis")).to_contain_text("60questions")
    assert refused == []
    page.close()


def test_signing_in_lasts_into_a_new_tab_until_signing_out_and_no_script_can_read_the_token(
    browser: Browser, console: tuple[str, int]
) -> None:
    url, _ = console
    context = browser.new_context()
    first = context.new_page()
    first.goto(f"{url}/admin")
    first.get_by_test_id("token").fill(TOKEN)
    first.get_by_test_id("token").press("Enter")
    expect(first.get_by_test_id("kpis")).to_contain_text("60questions")
    kept = first.evaluate("() => document.cookie + JSON.stringify({...localStorage}) + JSON.stringify({...sessionStorage})")
    assert TOKEN not in kept

    second = context.new_page()  # a new tab: signed in, no form
    refused = refusals(second)
    second.goto(f"{url}/admin")
    expect(second.get_by_test_id("kpis")).to_contain_text("60questions")
    expect(second.get_by_test_id("login")).to_be_hidden()
    second.get_by_test_id("sign-out").click()
    expect(second.get_by_test_id("token")).to_be_visible()
    expect(second.get_by_test_id("login-error")).to_have_text("")
    first.reload()
    expect(first.get_by_test_id("token")).to_be_visible()
    expect(first.get_by_test_id("kpis")).to_be_hidden()
    assert refused == []
    context.close()


QUESTIONNAIRE_QUESTIONS = [*ANSWERABLE, *UNANSWERABLE] * 2 + ["Does the servo report its temperature?",
                                                             "How fast can the stepper turn?", "", "Who maintains the motors?"]


def test_a_questionnaire_is_answered_reviewed_and_exported(browser: Browser, console: tuple[str, int], tmp_path: Path) -> None:
    url, _ = console
    source = tmp_path / "Vendor security review.csv"
    with source.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["Ref", "Question text", "Notes"])
        for number, question in enumerate(QUESTIONNAIRE_QUESTIONS, start=1):
            writer.writerow([f"Q{number}", question, f"note {number}"])
    assert len(QUESTIONNAIRE_QUESTIONS) == 20
    page = browser.new_page(accept_downloads=True)
    refused = refusals(page)
    page.goto(f"{url}/admin")
    page.get_by_test_id("token").fill(TOKEN)
    page.get_by_test_id("token").press("Enter")
    expect(page.get_by_test_id("q-file")).to_be_visible()  # signed in: the book list has loaded
    page.get_by_test_id("q-file").set_input_files(str(source))
    expect(page.get_by_test_id("q-column")).to_have_value("Question text")
    page.get_by_test_id("q-upload").click()
    expect(page.locator("#q-title")).to_contain_text("19 of 20 answered, 0 approved", timeout=30_000)
    expect(page.locator("#q-title")).not_to_contain_text("answering")

    first = page.locator("[data-testid=q-row][data-position='1']")
    expect(first.locator(".status")).to_have_text("FOUND")
    for cell in first.locator("td").all():  # every cell, the actions' too, spans its row exactly
        row, box = first.bounding_box(), cell.bounding_box()
        assert row and box and abs(box["y"] - row["y"]) < 1 and abs(box["height"] - row["height"]) < 1
    first.get_by_test_id("approve").click()
    expect(first).to_contain_text("✓ approved")
    second = page.locator("[data-testid=q-row][data-position='2']")
    second.get_by_test_id("edit").click()
    second.get_by_test_id("edit-text").fill("Steppers move in exact steps without feedback.")
    second.get_by_test_id("save").click()
    expect(second).to_contain_text("✓ approved")
    expect(page.locator("#q-title")).to_contain_text("2 approved")
    second.get_by_test_id("serve-row").click()  # the approved row, offered to readers
    expect(page.get_by_test_id("c-answer")).to_have_value("Steppers move in exact steps without feedback.")
    expect(page.get_by_test_id("c-passage").first).to_be_visible()
    page.locator("#c-cancel").click()

    page.get_by_test_id("q-filter").select_option("status=NOT_FOUND")
    statuses = page.locator("[data-testid=q-row] .status")
    expect(statuses.first).to_have_text("NOT_FOUND")
    assert set(statuses.all_inner_texts()) == {"NOT_FOUND"}
    page.screenshot(path=str(ARTIFACTS / "console-questionnaire.png"), full_page=True)

    exports, names = {}, {}
    for mode in ("prefer_approved", "approved_only", "generated"):
        page.get_by_test_id("q-mode").select_option(mode)
        with page.expect_download() as download:
            page.get_by_test_id("q-export").click()
        names[mode] = download.value.suggested_filename
        saved = tmp_path / f"{mode}.csv"
        download.value.save_as(saved)
        exports[mode] = list(csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8"))))
    today = datetime.now(UTC).date()
    assert names == {"prefer_approved": f"Vendor-security-review-motors-approved-else-generated-{today}.csv",
                     "approved_only": f"Vendor-security-review-motors-approved-only-{today}.csv",
                     "generated": f"Vendor-security-review-motors-generated-only-{today}.csv"}
    assert all(len(rows) == 20 for rows in exports.values())
    assert exports["prefer_approved"][1]["Answer"] == "Steppers move in exact steps without feedback."
    assert exports["generated"][1]["Answer"] != "Steppers move in exact steps without feedback."
    assert [bool(row["Answer"]) for row in exports["approved_only"]] == [True, True] + [False] * 18
    assert exports["prefer_approved"][4]["Notes"] == "note 5" and exports["prefer_approved"][18]["Status"] == ""
    assert refused == []
    page.close()


EDITED = "A servo keeps its position with a feedback loop that compares where it is with where it should be."
_HOST: dict[str, str] = {}  # the API's and the host page's URLs, once the console fixture runs


def refusals(page: Page) -> list[str]:
    """What the page's content security policy refused, and scripts that failed, as they come."""
    seen: list[str] = []
    page.on("console", lambda message: seen.append(message.text) if "Content Security Policy" in message.text else None)
    page.on("pageerror", lambda error: seen.append(str(error)))
    return seen


async def _host_page(request: Request) -> HTMLResponse:
    """A docs page of some site with the widget's one script tag."""
    api = _HOST["api"]
    return HTMLResponse(f'<!doctype html><title>Motors</title><h1>Servo Motors</h1>'
                        f'<script src="{api}/widget.js" data-api-url="{api}" data-book-id="motors"></script>')


def test_an_edited_answer_is_approved_and_a_paraphrase_gets_it_in_the_widget(
    browser: Browser, console: tuple[str, int]
) -> None:
    url, _ = console
    page = browser.new_page()
    page.goto(f"{url}/admin")
    page.get_by_test_id("token").fill(TOKEN)
    page.get_by_test_id("token").press("Enter")
    asked = page.get_by_test_id("top-questions").locator("tr", has_text="How does a servo hold its position?")
    asked.get_by_test_id("write-answer").click()
    expect(page.get_by_test_id("c-question")).to_have_value("How does a servo hold its position?")
    expect(page.get_by_test_id("c-passage").first).to_be_checked()
    offered = page.get_by_test_id("c-passages").inner_text()  # what a reader sees of each, no markdown
    assert "Servo Motors › Holding Position: A servo motor holds its position" in offered
    assert not re.search(r"[`|*]|^#|\btop\b", offered, flags=re.MULTILINE)
    expect(page.get_by_test_id("c-passages").locator("code").first).to_have_text("servo_bus:")
    page.get_by_test_id("c-answer").fill(EDITED)
    page.get_by_test_id("c-save").click()
    approved = page.get_by_test_id("c-list").locator("tr", has_text=EDITED)
    expect(approved.get_by_test_id("c-state")).to_have_text("active")
    expect(page.locator("#c-level")).to_contain_text("at least 0.")
    page.close()

    reader = browser.new_page()
    reader.goto(_HOST["page"])
    reader.get_by_test_id("launcher").click()
    ask(reader, "How does a servo motor keep its position?")
    answer = last_answer(reader)
    expect(answer).to_contain_text(EDITED)
    expect(answer.get_by_test_id("reviewed")).to_have_text("Reviewed by the maintainers")
    expect(answer.get_by_test_id("citation").first).to_contain_text("Servo Motors")
    reader.screenshot(path=str(ARTIFACTS / "widget-reviewed-answer.png"))
    reader.close()


def test_search_mode_lists_highlighted_passages_and_follows_one_by_keyboard(
    browser: Browser, console: tuple[str, int]
) -> None:
    reader = browser.new_page()
    reader.goto(_HOST["page"])
    reader.get_by_test_id("launcher").click()
    reader.get_by_test_id("mode").click()
    search = reader.get_by_test_id("search-input")
    expect(search).to_be_focused()
    search.press_sequentially("servo position")
    results = reader.get_by_test_id("search-result")
    expect(results.first).to_contain_text("Servo Motors")
    marked = results.first.locator("mark").all_inner_texts()
    assert marked and {word.lower() for word in marked} <= {"servo", "servos", "position", "positions"}
    reader.screenshot(path=str(ARTIFACTS / "widget-search.png"))
    search.press("ArrowDown")
    expect(reader.locator("[role=option]").first).to_have_attribute("aria-selected", "true")
    target = results.first.get_attribute("href") or ""
    search.press("Enter")
    reader.wait_for_url(f"**{target.split('#', 1)[0]}**")
    reader.close()
