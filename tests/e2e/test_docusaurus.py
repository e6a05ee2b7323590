"""The Docusaurus plugin: the example site built over the real book, its permalink manifest, and
the widget it injects, answering from a live backend in a real Chromium."""

import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from backend.app import create_app
from backend.config import Settings
from ingest_scripts.manifest import Manifest
from ingest_scripts.pipeline import plan_book
from tests.e2e.conftest import ARTIFACTS, ask, last_answer
from tests.fakes.servers import FakeServer
from tests.support.books import SHARED_BOOK, ingest_into

pytestmark = pytest.mark.e2e
EXAMPLE = Path(__file__).resolve().parents[2] / "docs_site_plugin" / "example"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The example site built over the shared book, pointing its widget at `api_port`."""
    if not (EXAMPLE / "node_modules").exists():
        pytest.fail("the example site's npm packages are missing: `make test` installs them")
    out = tmp_path_factory.mktemp("site") / "build"
    api_port = free_port()
    env = os.environ | {
        "LECTERN_DOCS_PATH": str(SHARED_BOOK),
        "LECTERN_API_URL": f"http://127.0.0.1:{api_port}",
        "LECTERN_BOOK": "physical-ai",
    }
    build = subprocess.run(
        ["npx", "docusaurus", "build", "--out-dir", str(out)],
        cwd=EXAMPLE, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:] or build.stdout[-3000:]
    return {"out": out, "api_port": api_port}


def test_manifest_matches_lecterns_own_permalinks_and_anchors(site: dict[str, object]) -> None:
    manifest_path = Path(site["out"]) / "lectern-manifest.json"  # type: ignore[arg-type]
    entries = json.loads(manifest_path.read_text())
    plan = plan_book(SHARED_BOOK, "physical-ai")
    assert len(entries) == len(plan.pages) == 52
    manifest = Manifest.load(manifest_path)
    for page in plan.pages:
        entry = manifest.entry(page.source_path)
        assert entry is not None and entry.permalink == page.url and entry.id == page.lesson_id
    for chunk in plan.chunks:
        if chunk.anchor:
            published = {h.anchor for h in manifest.entry(chunk.source_path).headings}  # type: ignore[union-attr]
            assert chunk.anchor in published, (chunk.source_path, chunk.heading)


@pytest.fixture(scope="module")
def live_site(site: dict[str, object], real_book_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built site on one port, the backend (real book, manifest links) on another."""
    out = Path(site["out"])  # type: ignore[arg-type]
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    handler.log_message = lambda *args: None  # type: ignore[assignment]
    static = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    origin = f"http://127.0.0.1:{static.server_address[1]}"
    threading.Thread(target=static.serve_forever, daemon=True).start()

    data = tmp_path_factory.mktemp("docusaurus") / "data"
    shutil.copytree(real_book_template, data)  # re-ingest below re-uses every vector
    ingest_into(data, SHARED_BOOK, "physical-ai", base_url=origin, manifest=Manifest.load(out / "lectern-manifest.json"))
    app = create_app(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="physical-ai", LECTERN_CORS_ORIGINS=[origin]))
    with FakeServer(app, port=site["api_port"]):  # type: ignore[arg-type]  (the port the site was built with)
        yield origin
    static.shutdown()


def test_plugin_widget_answers_and_links_into_the_site(browser: Browser, live_site: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    sent: list[dict] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data or "{}")) if r.method == "POST" and r.url.endswith("/api/chat/stream") else None)
    page.goto(f"{live_site}/docs/Physical-AI-Humanoid-Robotics/sensors-perception/imu-proprioception")
    page.get_by_test_id("launcher").click()
    ask(page, "How much will a gyroscope drifting 1 degree per hour be off after a day?")
    answer = last_answer(page)
    expect(answer).to_contain_text("24 degrees")
    assert sent[-1]["lesson_id"] == "Physical-AI-Humanoid-Robotics/sensors-perception/imu-proprioception"
    citation = answer.get_by_test_id("citation").first
    href = citation.get_attribute("href") or ""
    assert href.startswith(f"{live_site}/docs/Physical-AI-Humanoid-Robotics/sensors-perception/imu-proprioception#")
    citation.click()
    anchor = href.split("#", 1)[1].split(":~:", 1)[0]
    expect(page.locator(f"[id='{anchor}']")).to_be_attached()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "docusaurus-site.png"))
    context.close()


def test_selection_and_theme_on_the_docusaurus_site(browser: Browser, live_site: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{live_site}/docs/Physical-AI-Humanoid-Robotics/ros2-nervous-system/nodes-topics-services")
    page.evaluate(
        """() => { const p = [...document.querySelectorAll('article p')].find((el) => el.textContent.includes('independent process'));
        const range = document.createRange(); range.selectNodeContents(p);
        getSelection().removeAllRanges(); getSelection().addRange(range);
        document.dispatchEvent(new MouseEvent('mouseup')); }"""
    )
    page.get_by_test_id("ask-tooltip").click()
    expect(page.get_by_test_id("selection-quote")).to_contain_text("independent process")
    ask(page, "Why is that useful?")
    expect(last_answer(page).get_by_test_id("citation").first).to_contain_text("Nodes, Topics, and Services")
    root = page.locator("#lectern-widget >> .root")
    page.evaluate("document.documentElement.setAttribute('data-theme', 'dark')")  # Docusaurus's own switch
    expect(root).to_have_attribute("data-theme", "dark")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "docusaurus-selection-dark.png"))
    context.close()
