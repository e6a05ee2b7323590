"""A Docsify site (markdown Chromium renders with Docsify, served as it is): every page and
heading Lectern links to is where Docsify shows it, at `#/page?id=slug`."""

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from starlette.staticfiles import StaticFiles

from ingest_scripts.layouts import Docsify, detect_layout
from ingest_scripts.pipeline import plan_book
from tests.fakes.servers import FakeServer
from tests.support.books import write_book
from tests.unit.test_layouts import PROSE

pytestmark = pytest.mark.e2e

DOCSIFY_JS = Path(__file__).parents[1] / "support" / "site-generators" / "node_modules" / "docsify" / "lib" / "docsify.min.js"
SITE = {
    "index.html": (
        '<!DOCTYPE html><html><head><meta charset="UTF-8"></head><body><div id="app"></div>'
        "<script>window.$docsify = { name: 'Widgets', loadSidebar: true }</script>"
        '<script src="docsify.min.js"></script></body></html>\n'
    ),
    "_sidebar.md": (
        "- Getting started\n  - [Quick start](quickstart.md)\n  - [Install](guide/install.md)\n"
        "- Reference\n  - [Settings](reference/)\n- [Home](/)\n"
    ),
    "README.md": f"# Widgets\n\nWidgets make dashboards. {PROSE}\n",
    "quickstart.md": f"# Quick start\n\n## Before you start: `widgetd`!\n\nNeeds Python. {PROSE}\n\n"
                     f"## Before you start: `widgetd`!\n\nThe same heading twice. {PROSE}\n",
    "guide/install.md": f"# Install\n\n## 1. Download\n\nA number first. {PROSE}\n\n"
                        f"## Café déjà Vu\n\nAccents and a capital. {PROSE}\n\n## Pinned :id=pinned-id\n\nIts own id. {PROSE}\n",
    "reference/README.md": f"# Settings\n\n## Colours\n\nPick colours. {PROSE}\n",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    root = write_book(tmp_path_factory.mktemp("docsify") / "docs", SITE)
    shutil.copy(DOCSIFY_JS, root / "docsify.min.js")
    with FakeServer(StaticFiles(directory=root, html=True)) as static:
        yield root, static.url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    yield context.new_page()
    context.close()


def test_every_page_and_heading_lectern_links_to_is_where_docsify_shows_it(page: Page, site: tuple[Path, str]) -> None:
    root, url = site
    assert isinstance(detect_layout(root), Docsify)
    plan = plan_book(root, "widgets")
    assert [(p.source_path, p.title, p.module, p.url) for p in plan.pages] == [
        ("quickstart.md", "Quick start", "Getting started", "/#/quickstart"),
        ("guide/install.md", "Install", "Getting started", "/#/guide/install"),
        ("reference/README.md", "Settings", "Reference", "/#/reference/"),
        ("README.md", "Widgets", "", "/#/"),
    ]
    titles = {p.source_path: p.title for p in plan.pages}
    checked = 0
    for chunk in plan.chunks:
        anchor = chunk.url.partition("?id=")[2]
        page.goto(url + chunk.url)
        title = titles[chunk.source_path]
        page.wait_for_function("t => document.querySelector('#main h1')?.textContent === t", arg=title)
        if anchor:
            assert page.locator(f'[id="{anchor}"]').count() == 1, (chunk.url, page.content()[:500])
            checked += 1
    assert checked >= 5
    anchors = {c.url.partition("?id=")[2] for c in plan.chunks}
    assert {"before-you-start-widgetd-1", "_1-download", "café-déjà-vu", "pinned-id", "colours"} <= anchors
