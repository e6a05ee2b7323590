"""What a deployer meets first: `/` leads somewhere, a favicon is served, and the API docs
(Swagger UI and Redoc) render in Chromium with every request to another host blocked."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Page, expect

from backend.app import create_app
from tests.e2e.conftest import ARTIFACTS, browser, offline_page  # noqa: F401 (their fixtures)
from tests.fakes.servers import FakeServer
from tests.support.books import SAMPLE_BOOK, app_client, app_settings, copy_data_dir, ingest_into


@pytest.fixture(scope="module")
def docs_server(motors_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = copy_data_dir(motors_template, tmp_path_factory.mktemp("docs") / "data")
    with FakeServer(create_app(app_settings(data))) as server:
        yield server.url


@pytest.mark.e2e
def test_swagger_ui_renders_the_operations_offline(offline_page: tuple[Page, list[str]], docs_server: str) -> None:  # noqa: F811
    page, refused = offline_page
    page.goto(f"{docs_server}/docs")
    operations = page.locator(".opblock")
    expect(operations.filter(has_text="/api/chat/query")).to_have_count(1, timeout=15_000)
    assert operations.count() > 10
    operations.filter(has_text="/api/health").first.locator(".opblock-summary").click()
    expect(page.get_by_role("button", name="Try it out")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "api-docs-offline.png"))
    icon = page.locator("link[rel~=icon]").first.get_attribute("href")
    assert icon == "/favicon.ico" and refused == []


@pytest.mark.e2e
def test_redoc_renders_the_operations_offline(offline_page: tuple[Page, list[str]], docs_server: str) -> None:  # noqa: F811
    page, refused = offline_page
    page.goto(f"{docs_server}/redoc")
    expect(page.locator("h1").filter(has_text="Lectern (0.1.0)")).to_be_visible(timeout=15_000)
    expect(page.get_by_text("/api/chat/query").first).to_be_attached()
    expect(page.locator("[data-section-id^='operation/']")).not_to_have_count(0)
    assert refused == []


@pytest.mark.e2e
def test_the_home_page_links_to_docs_console_and_health(offline_page: tuple[Page, list[str]], docs_server: str) -> None:  # noqa: F811
    page, refused = offline_page
    icons: list[str] = []
    page.on("response", lambda response: icons.append(response.url) if "favicon" in response.url else None)
    page.goto(f"{docs_server}/")
    expect(page.get_by_role("heading", name="Lectern")).to_be_visible()
    for name, path in (("API documentation", "/docs"), ("Maintainer console", "/admin"), ("Health", "/api/health")):
        link = page.get_by_role("link", name=name, exact=True)
        assert link.get_attribute("href") == path
        assert page.request.get(f"{docs_server}{path}").status == 200, path
    assert refused == []
    page.get_by_role("link", name="API documentation").click()
    expect(page.locator(".opblock").first).to_be_visible(timeout=15_000)


def test_favicons_are_served(motors: TestClient) -> None:
    ico = motors.get("/favicon.ico")
    assert ico.status_code == 200 and ico.headers["content-type"] == "image/x-icon"
    assert ico.content[:4] == b"\x00\x00\x01\x00"  # an ICO file's header
    svg = motors.get("/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert svg.text.startswith("<svg")


def test_home_leads_to_the_demo_when_the_book_is_ingested_for_it(tmp_path: Path) -> None:
    ingest_into(tmp_path / "data", SAMPLE_BOOK, "guide", base_url="http://127.0.0.1:8000/demo")
    with app_client(tmp_path / "data", book="guide") as client:
        home = client.get("/", follow_redirects=False)
        assert home.status_code == 307 and home.headers["location"] == "/demo/"
        lesson = client.get("/", follow_redirects=True)
        assert lesson.status_code == 200 and "/widget.js" in lesson.text


def test_home_is_a_page_of_links_without_a_demo(motors: TestClient, tmp_path: Path) -> None:
    home = motors.get("/", follow_redirects=False)  # the motors book has no /demo base URL
    assert home.status_code == 200 and home.headers["content-type"].startswith("text/html")
    assert 'href="/docs"' in home.text and 'href="/admin"' in home.text and 'href="/api/health"' in home.text
    assert "<code>motors</code>" in home.text
    with app_client(tmp_path / "empty") as client:  # nothing ingested yet: still the page, no error
        assert client.get("/", follow_redirects=False).status_code == 200
