"""Railway's deploy from a clean clone: railway.toml's exact build command in a fresh venv, its
exact start command, and everything a reader and a maintainer open is served: the widget, the
console, the API docs and a PDF citation's viewer (in Chromium, every other host refused).
About two to three minutes, most of it pip installing from its cache."""

import os
import socket
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import browser, offline_page  # noqa: F401 (their fixtures)
from tests.support import pdfs

ROOT = Path(__file__).resolve().parents[2]
RAILWAY = tomllib.loads((ROOT / "railway.toml").read_text())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("railway")
    clone = root / "app"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", head.stdout.strip()], check=True)
    subprocess.run([sys.executable, "-m", "venv", str(root / "venv")], check=True)
    env = {**os.environ, "PATH": f"{root / 'venv' / 'bin'}:{os.environ['PATH']}", "HOME": str(root / "home")}
    env.pop("VIRTUAL_ENV", None)
    # pip's cache as the machine has it (HOME is new); no bytecode compiled, which would take a
    # third of the install's time and changes nothing the test looks at.
    env.update(PIP_CACHE_DIR=os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip")), PIP_NO_COMPILE="1")
    subprocess.run(["bash", "-c", RAILWAY["build"]["buildCommand"]], cwd=clone, env=env, check=True,
                   stdout=subprocess.DEVNULL, timeout=600)
    assert not (root / "venv" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
                / "site-packages" / "torch").exists()

    docs = root / "docs"
    docs.mkdir()
    pdfs.handbook(docs / "handbook.pdf")
    env.update(LECTERN_DATA_DIR=str(root / "data"), LECTERN_BOOK="acme", LECTERN_ADMIN_TOKEN="deploy-token")
    subprocess.run(["lectern", "ingest", str(docs), "--book", "acme"], cwd=clone, env=env, check=True,
                   capture_output=True, timeout=300)
    env["PORT"] = str(free_port())
    server = subprocess.Popen(["bash", "-c", RAILWAY["deploy"]["startCommand"]], cwd=clone, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    url = f"http://127.0.0.1:{env['PORT']}"
    try:
        deadline = time.monotonic() + RAILWAY["deploy"]["healthcheckTimeout"]
        while True:
            try:
                if httpx.get(url + RAILWAY["deploy"]["healthcheckPath"]).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, server.stderr and server.stderr.read()
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_the_deploy_serves_the_widget_console_docs_and_viewer(deployed: str) -> None:
    for path in ("/", "/widget.js", "/admin", "/docs", "/docs/swagger-ui-bundle.js", "/redoc", "/favicon.ico",
                 "/viewer/viewer.js", "/viewer/pdf.worker.mjs", "/viewer/viewer.css"):
        assert httpx.get(deployed + path, follow_redirects=True).status_code == 200, path
    answer = httpx.post(deployed + "/api/chat/query", json={"query": "When are mould damages excluded?"}).json()
    assert answer["sources"] and "/books/acme/files/handbook.pdf" in answer["sources"][0]["url"]


def test_a_pdf_citation_opens_in_the_viewer_offline(deployed: str, offline_page: tuple[Page, list[str]]) -> None:  # noqa: F811
    answer = httpx.post(deployed + "/api/chat/query", json={"query": "When are mould damages excluded?"}).json()
    link = urlsplit(answer["sources"][0]["url"])
    page, refused = offline_page
    page.goto(f"{deployed}{link.path}?{link.query}")
    expect(page.locator("body")).to_have_attribute("data-highlight", "found", timeout=20_000)
    expect(page.locator(".textLayer .highlight").first).to_be_visible()
    assert refused == []
