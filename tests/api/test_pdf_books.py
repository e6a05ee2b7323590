"""A book of PDFs through the API: citations carry the page and open the viewer at it; the viewer
and the file are served, only inside the book's folder, and a private book's need its token."""

import hashlib
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from backend.config import Settings
from backend.registry import reader_token
from tests.support import pdfs
from tests.support.books import app_client, copy_data_dir, ingest_into


@pytest.fixture(scope="module")
def pdf_book(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """A data dir with the book "acme": the handbook PDF (in policies/) and one markdown page."""
    root = tmp_path_factory.mktemp("pdf-book")
    docs = root / "docs"
    (docs / "policies").mkdir(parents=True)
    placed = pdfs.handbook(docs / "policies" / "handbook.pdf")
    (docs / "contact.md").write_text("# Contact\n\nThe claims office is open on weekdays from nine to five.\n")
    ingest_into(root / "data", docs, "acme")
    return root / "data", placed


def test_a_pdf_citation_names_its_page_and_links_the_viewer_there(pdf_book, tmp_path: Path) -> None:
    data, placed = pdf_book
    with app_client(copy_data_dir(data, tmp_path / "data"), book="acme") as client:
        body = client.post("/api/chat/query", json={"query": "When are mould damages excluded?"}).json()
        assert body["status"] in ("found", "partial")
        first = body["sources"][0]
        assert (first["module"], first["lesson"], first["section"]) == ("Acme Flood Policy Handbook", "Exclusions", "Mould")
        mould = next(p for p in placed if p.startswith("Mould"))
        assert first["page"] == placed[mould] and len(first["excerpt"]) <= 240
        link = urlsplit(first["url"])
        assert f"{link.scheme}://{link.netloc}{link.path}" == "http://testserver/books/acme/files/policies/handbook.pdf"
        query = parse_qs(link.query)
        assert query["page"] == [str(first["page"])] and query["highlight"][0] in mould

        viewer = client.get(first["url"])
        assert viewer.status_code == 200 and viewer.headers["content-type"].startswith("text/html")
        assert "worker-src 'self'" in viewer.headers["content-security-policy"]
        assert 'data-file="/books/acme/files/policies/handbook.pdf?format=pdf"' in viewer.text
        original = client.get("/books/acme/files/policies/handbook.pdf?format=pdf")
        assert original.headers["content-type"] == "application/pdf"
        # never shown by the browser on the service's origin, where a PDF's JavaScript could run
        assert original.headers["content-security-policy"] == "sandbox"
        assert original.headers["content-disposition"].startswith("attachment")
        assert original.content == (tmp_path / "data" / "files" / "acme" / "policies" / "handbook.pdf").read_bytes()


def test_a_suggested_chapter_of_a_pdf_opens_at_its_first_page(pdf_book, tmp_path: Path) -> None:
    data, placed = pdf_book
    with app_client(copy_data_dir(data, tmp_path / "data"), book="acme") as client:
        body = client.post("/api/chat/query", json={"query": "Does the policy pay for earthquake damage to a garden shed?"}).json()
    assert body["status"] == "not_found"
    first_pages = {chapter: min(placed[p] for section in sections.values() for p in section)
                   for chapter, sections in pdfs.CHAPTERS.items()}
    links = re.findall(r"^- \[(\w+)\]\((\S+)\)", body["response"], re.MULTILINE)
    assert links and {chapter for chapter, _ in links} <= set(first_pages)
    for chapter, url in links:
        assert url == f"http://testserver/books/acme/files/policies/handbook.pdf?page={first_pages[chapter]}"


def test_only_the_books_own_pdfs_are_served(pdf_book, tmp_path: Path) -> None:
    data, _ = pdf_book
    with app_client(copy_data_dir(data, tmp_path / "data"), book="acme") as client:
        for path in ["/books/acme/files/policies/missing.pdf", "/books/acme/files/..%2F..%2Fqdrant%2Fmeta.json",
                     "/books/acme/files/%2E%2E/%2E%2E/qdrant/meta.json", "/books/Bad!/files/x.pdf",
                     "/books/other/files/policies/handbook.pdf"]:
            response = client.get(path)
            assert response.status_code == 404, path
            assert "detail" in response.json()


def test_a_private_books_files_need_its_reader_token(pdf_book, tmp_path: Path, monkeypatch) -> None:
    data, _ = pdf_book
    books = tmp_path / "books.toml"
    books.write_text(f'[books.acme]\nmaintainer_token_sha256 = "{hashlib.sha256(b"t").hexdigest()}"\n'
                     'reader_secret_env = "ACME_READER_SECRET"\n')
    monkeypatch.setenv("ACME_READER_SECRET", "acme-secret")
    token = reader_token(b"acme-secret", "acme", int(time.time()) + 600)
    with app_client(copy_data_dir(data, tmp_path / "data"), book="acme", LECTERN_BOOKS=books) as client:
        url = "/books/acme/files/policies/handbook.pdf"
        assert client.get(url).status_code == 401
        assert client.get(f"{url}?format=pdf&reader_token=0.{'0' * 64}").status_code == 401
        viewer = client.get(f"{url}?reader_token={token}")
        assert viewer.status_code == 200 and f"reader_token={token}" in viewer.text
        assert client.get(f"{url}?format=pdf", headers={"X-Reader-Token": token}).status_code == 200


def test_re_ingesting_without_a_pdf_stops_serving_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    pdfs.handbook(docs / "handbook.pdf")
    (docs / "notes.md").write_text("# Notes\n\nThe boiler is serviced every spring by the landlord.\n")
    ingest_into(tmp_path / "data", docs, "acme")
    served = Settings(LECTERN_DATA_DIR=tmp_path / "data").files_dir("acme")
    assert (served / "handbook.pdf").read_bytes() == (docs / "handbook.pdf").read_bytes()
    (docs / "handbook.pdf").unlink()
    ingest_into(tmp_path / "data", docs, "acme")
    assert not (served / "handbook.pdf").exists()
