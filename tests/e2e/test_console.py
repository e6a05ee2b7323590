"""The maintainer console in Chromium: log in with the token, read the charts and the content
gaps after readers asked 60 questions (some unanswerable, some voted down), export the log."""

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect

from backend.app import create_app
from tests.e2e.conftest import ARTIFACTS
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
    """(the app's URL, how many of the 60 answers were "not found")."""
    data = copy_data_dir(motors_template, tmp_path_factory.mktemp("console") / "data")
    settings = app_settings(data, LECTERN_ADMIN_TOKEN=TOKEN, LECTERN_RATE_LIMIT="1000/minute",
                            LECTERN_RATE_LIMIT_FEEDBACK="1000/minute")
    not_found = 0
    with FakeServer(create_app(settings)) as server, httpx.Client(base_url=server.url) as readers:
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
    jets = [text for text in texts if "jet engines" in text]
    assert len(jets) == 1 and "How do jet engines make thrust?" in jets[0]  # both wordings, one gap
    assert "Closest lessons" in jets[0]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "console.png"), full_page=True)

    with page.expect_download() as download:
        page.get_by_test_id("export-csv").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text(encoding="utf-8"))))
    assert len(rows) == 60 and sum(row["status"] == "not_found" for row in rows) == not_found

    page.reload()  # the token is kept for this tab
    expect(page.get_by_test_id("kpis")).to_contain_text("60questions")
    page.close()
