"""Sources in the console, in Chromium: upload a markdown file and a PDF to a new book, see them
indexed and answered from, delete one; a bad file's message is shown."""

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, expect
from typer.testing import CliRunner

from backend.app import create_app
from backend.cli import app
from tests.e2e.conftest import ARTIFACTS
from tests.fakes.servers import FakeServer
from tests.support import pdfs
from tests.support.books import app_settings

pytestmark = pytest.mark.e2e
TOKEN = "console-sources-token"


def test_upload_index_answer_and_delete_sources(browser: Browser, tmp_path: Path) -> None:
    (tmp_path / "boiler.md").write_text("# Boiler\n\n## Servicing\n\nThe boiler is serviced every spring by a "
                                        "registered engineer, who checks the flue and the pressure.\n")
    pdfs.handbook(tmp_path / "handbook.pdf")
    (tmp_path / "notes.exe").write_bytes(b"MZ")
    settings = app_settings(tmp_path / "data", book="notes", LECTERN_ADMIN_TOKEN=TOKEN)
    with FakeServer(create_app(settings)) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/admin")
        page.get_by_test_id("token").fill(TOKEN)
        page.get_by_test_id("token").press("Enter")
        sources = page.get_by_test_id("sources")
        page.get_by_test_id("s-file").set_input_files([str(tmp_path / "boiler.md"), str(tmp_path / "handbook.pdf")])
        page.get_by_test_id("s-upload").click()
        expect(page.get_by_test_id("s-status")).to_contain_text("Indexed: 4 pages", timeout=60_000)
        expect(sources.locator("tbody tr")).to_have_count(2)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "console-sources.png"), full_page=True)

        answer = httpx.post(f"{server.url}/api/chat/query", json={"query": "Is mould excluded?"}).json()
        assert answer["sources"][0]["page"] == 3

        page.get_by_test_id("s-file").set_input_files(str(tmp_path / "notes.exe"))
        page.get_by_test_id("s-upload").click()
        expect(page.get_by_test_id("s-status")).to_contain_text("ending in .md, .txt, .pdf")

        sources.locator("tbody tr", has_text="handbook.pdf").get_by_test_id("s-delete").click()
        expect(page.get_by_test_id("s-status")).to_contain_text("Indexed: 1 pages")
        expect(sources.locator("tbody tr")).to_have_count(1)
        answer = httpx.post(f"{server.url}/api/chat/query", json={"query": "How often is the boiler serviced?"}).json()
        assert answer["sources"][0]["url"] == f"{server.url}/books/notes/pages/boiler.md#servicing"


def test_a_book_ingested_from_a_folder_lists_its_files_and_how_to_change_them(browser: Browser, tmp_path: Path) -> None:
    docs = tmp_path / "house"
    docs.mkdir()
    (docs / "boiler.md").write_text("# Boiler\n\n## Servicing\n\nThe boiler is serviced every spring.\n")
    pdfs.handbook(docs / "handbook.pdf")
    ingested = CliRunner().invoke(app, ["ingest", str(docs), "--book", "house", "--data-dir", str(tmp_path / "data")])
    assert ingested.exit_code == 0, ingested.stderr
    with FakeServer(create_app(app_settings(tmp_path / "data", book="house", LECTERN_ADMIN_TOKEN=TOKEN))) as server:
        page = browser.new_page()
        page.goto(f"{server.url}/admin")
        page.get_by_test_id("token").fill(TOKEN)
        page.get_by_test_id("token").press("Enter")
        sources = page.get_by_test_id("sources")
        handbook = sources.locator("tbody tr", has_text="handbook.pdf")
        expect(handbook).to_contain_text("Acme Flood Policy Handbook")
        expect(handbook).to_contain_text("3 chapters")
        expect(sources.locator("tbody tr", has_text="boiler.md")).to_contain_text("Boiler")
        expect(handbook.get_by_role("link", name="Open")).to_have_attribute("href", "/books/house/files/handbook.pdf")
        expect(page.get_by_test_id("s-folder").locator("code")).to_have_text([str(docs.resolve()), "lectern ingest", "lectern ingest"])
        expect(page.get_by_test_id("s-file")).to_be_hidden()
        assert "`" not in sources.inner_text() and "Nothing yet" not in sources.inner_text()
        page.screenshot(path=str(ARTIFACTS / "console-sources-ingested.png"), full_page=True)
