"""Sources uploaded from the console (issue 14): markdown, text and PDF files added and deleted
through /api/admin/books/{book}/sources, each change re-indexed incrementally; bad files are
refused with a message and change nothing; a book ingested from a folder is left alone."""

import resource
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from backend.cli import app
from tests.support import pdfs
from tests.support.books import app_client, copy_data_dir

TOKEN = {"Authorization": "Bearer sources-token"}
BOILER = b"""# Boiler

## Servicing

The boiler is serviced every spring by a registered engineer, who checks the flue and the pressure.
"""
HEATING = "Radiators are bled in October so that trapped air does not stop them heating the top floor.\n"


@pytest.fixture
def notes(tmp_path: Path) -> TestClient:
    """An app whose book "notes" has no index yet."""
    with app_client(tmp_path / "data", book="notes", LECTERN_ADMIN_TOKEN="sources-token") as client:
        yield client


def _ask(client: TestClient, question: str) -> dict:
    return client.post("/api/chat/query", json={"query": question}).json()


def test_uploaded_sources_are_answered_from_and_deleted_ones_are_not(notes: TestClient, tmp_path: Path) -> None:
    listed = notes.get("/api/admin/books/notes/sources", headers=TOKEN).json()
    assert (listed["managed"], listed["files"], listed["ingested"]) == (True, [], [])
    first = notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER, headers=TOKEN)
    assert first.status_code == 200 and (first.json()["pages"], first.json()["embedded"]) == (1, 1)
    alone = _ask(notes, "How often is the boiler serviced?")  # a book of one passage answers too
    assert alone["status"] == "found" and "every spring" in alone["response"]
    text = notes.put("/api/admin/books/notes/sources/heating notes.txt", content=HEATING.encode(), headers=TOKEN)
    assert text.json()["pages"] == 2 and text.json()["embedded"] == 1  # only the new file is embedded
    pdfs.handbook(tmp_path / "handbook.pdf")
    pdf = notes.put("/api/admin/books/notes/sources/handbook.pdf", content=(tmp_path / "handbook.pdf").read_bytes(),
                    headers=TOKEN)
    assert pdf.json()["pages"] == 5
    listed = notes.get("/api/admin/books/notes/sources", headers=TOKEN).json()
    assert [f["name"] for f in listed["files"]] == ["boiler.md", "handbook.pdf", "heating notes.txt"]

    answer = _ask(notes, "How often is the boiler serviced?")
    assert answer["status"] == "found"
    source = answer["sources"][0]
    assert source["url"] == "http://testserver/books/notes/pages/boiler.md#servicing" and source["page"] is None
    page = notes.get("/books/notes/pages/boiler.md")
    assert page.status_code == 200 and 'id="servicing"' in page.text and "registered engineer" in page.text
    radiators = _ask(notes, "When are the radiators bled?")["sources"][0]
    assert radiators["url"] == "http://testserver/books/notes/pages/heating%20notes.txt"
    assert notes.get("/books/notes/pages/heating notes.txt").status_code == 200
    assert _ask(notes, "Is mould excluded?")["sources"][0]["page"] == 3

    again = notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER, headers=TOKEN)
    assert again.json()["embedded"] == 0  # nothing changed, nothing embedded
    gone = notes.delete("/api/admin/books/notes/sources/boiler.md", headers=TOKEN)
    assert gone.status_code == 200 and gone.json()["pages"] == 4
    assert all("boiler" not in s["url"] for s in _ask(notes, "How often is the boiler serviced?")["sources"])
    assert notes.get("/books/notes/pages/boiler.md").status_code == 404
    for name in ("handbook.pdf", "heating notes.txt"):
        assert notes.delete(f"/api/admin/books/notes/sources/{name}", headers=TOKEN).status_code == 200
    assert notes.post("/api/chat/query", json={"query": "Is mould excluded?"}).status_code == 404
    assert notes.get("/books/notes/files/handbook.pdf").status_code == 404


def test_bad_uploads_are_refused_with_a_message_and_change_nothing(notes: TestClient, tmp_path: Path) -> None:
    notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER, headers=TOKEN)
    pdfs.encrypted(tmp_path / "locked.pdf")
    pdfs.with_scanned_page(tmp_path / "scan-only.pdf", tmp_path)
    cases = [
        ("program.exe", b"MZ", 400, "ending in .md, .txt, .pdf"),
        (".hidden.md", b"# x", 400, "a source is a file name"),
        ("latin.txt", "caf\u00e9".encode("latin-1"), 400, "not UTF-8 text"),
        ("empty.md", b"", 400, "the file is empty"),
        ("locked.pdf", (tmp_path / "locked.pdf").read_bytes(), 400, "the PDF is encrypted"),
        ("broken.md", b"---\ntitle: [unclosed\n---\n# x\n", 400, "front matter"),
        # YAML aliases: six levels of these made a 7 MB title from 387 bytes, and 4.2 GB of memory
        ("laughs.md", (b"---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       b"title: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n---\n# x\n\nText.\n"), 400,
         "laughs.md:3: front matter: front matter may not use aliases (*name)"),
    ]
    for name, data, status, message in cases:
        response = notes.put(f"/api/admin/books/notes/sources/{name}", content=data, headers=TOKEN)
        assert response.status_code == status and message in response.json()["detail"], name
    listed = notes.get("/api/admin/books/notes/sources", headers=TOKEN).json()
    assert [f["name"] for f in listed["files"]] == ["boiler.md"]
    assert notes.delete("/api/admin/books/notes/sources/missing.md", headers=TOKEN).status_code == 404
    assert notes.put("/api/admin/books/notes/sources/a.md", content=b"# a\n\nText here.\n").status_code == 401
    assert notes.put("/api/admin/books/notes/sources/a.md", content=b"# a", headers={"Authorization": "Bearer no"}).status_code == 403


def test_a_name_is_kept_as_it_is_indexed_whatever_its_case_or_unicode_form(notes: TestClient) -> None:
    """`.MD` and `.Txt` were listed and never indexed; macOS writes names decomposed ("é" as "e"
    and an accent), which was refused while the composed form was accepted; a name of a Hangul
    filler (a letter no font draws) was accepted."""
    upper = notes.put("/api/admin/books/notes/sources/Boiler.MD", content=BOILER, headers=TOKEN)
    assert upper.status_code == 200 and upper.json()["pages"] == 1
    decomposed = "Re\u0301sume\u0301 heating.Txt"  # "Résumé heating.Txt" as macOS writes it
    text = notes.put(f"/api/admin/books/notes/sources/{decomposed}", content=HEATING.encode(), headers=TOKEN)
    assert text.status_code == 200 and text.json()["pages"] == 2
    listed = [f["name"] for f in notes.get("/api/admin/books/notes/sources", headers=TOKEN).json()["files"]]
    assert listed == ["Boiler.md", "R\u00e9sum\u00e9 heating.txt"]
    assert _ask(notes, "When are the radiators bled?")["status"] == "found"
    invisible = notes.put("/api/admin/books/notes/sources/\u115f.md", content=b"# x\n\nText.\n", headers=TOKEN)
    assert invisible.status_code == 400 and "visible letter or digit" in invisible.json()["detail"]
    # deleting by the name as uploaded, or as kept, deletes the same file
    assert notes.delete("/api/admin/books/notes/sources/Boiler.MD", headers=TOKEN).status_code == 200
    assert notes.delete(f"/api/admin/books/notes/sources/{decomposed}", headers=TOKEN).status_code == 200


def test_a_large_upload_gets_413_and_a_book_ingested_from_a_folder_gets_409(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "data")
    with app_client(data, LECTERN_ADMIN_TOKEN="sources-token", LECTERN_MAX_UPLOAD_BYTES=1000) as client:
        assert client.get("/api/admin/books/motors/sources", headers=TOKEN).json()["managed"] is False
        refused = client.put("/api/admin/books/motors/sources/extra.md", content=b"# Extra\n\nMore text.\n", headers=TOKEN)
        assert refused.status_code == 409 and "lectern ingest" in refused.json()["detail"]
        large = client.put("/api/admin/books/motors/sources/big.md", content=b"x" * 2000, headers=TOKEN)
        assert large.status_code == 413 and "1000 bytes" in large.json()["detail"]
        assert client.post("/api/chat/query", json={"query": "How does a servo hold its position?"}).status_code == 200


def test_an_uploaded_page_is_rendered_once_per_build(notes: TestClient) -> None:
    """Every anonymous GET rendered the page again on the event loop (a 2 MB page: 0.2–0.4 s
    each, stalling every other route): it is rendered off the loop, once per build."""
    from backend.api.pages import _rendered

    notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER, headers=TOKEN)
    _rendered.cache_clear()
    first = notes.get("/books/notes/pages/boiler.md")
    again = notes.get("/books/notes/pages/boiler.md")
    assert first.text == again.text and "registered engineer" in again.text
    assert (_rendered.cache_info().misses, _rendered.cache_info().hits) == (1, 1)
    notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER + b"\nAnd the filter.\n", headers=TOKEN)
    assert "And the filter." in notes.get("/books/notes/pages/boiler.md").text  # a new build, rendered anew


def test_bombs_are_refused_with_a_message_and_each_pdf_is_read_once(notes: TestClient, tmp_path: Path) -> None:
    pdfs.handbook(tmp_path / "handbook.pdf")
    assert notes.put("/api/admin/books/notes/sources/handbook.pdf", content=(tmp_path / "handbook.pdf").read_bytes(),
                     headers=TOKEN).status_code == 200
    cache = tmp_path / "data" / "cache" / "pdf" / "notes"
    read = {entry.name: entry.stat().st_mtime_ns for entry in cache.iterdir()}
    assert len(read) == 1

    pdfs.decompression_bomb(tmp_path / "bomb.pdf", inflated_mib=3072)
    pdfs.outline_bomb(tmp_path / "bookmarks.pdf", entries=50_000)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    bomb = notes.put("/api/admin/books/notes/sources/bomb.pdf", content=(tmp_path / "bomb.pdf").read_bytes(), headers=TOKEN)
    assert bomb.status_code == 400
    assert bomb.json()["detail"].startswith("bomb.pdf: reading it needs more than 768 MiB of memory")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - peak < 200
    bookmarks = notes.put("/api/admin/books/notes/sources/bookmarks.pdf",
                          content=(tmp_path / "bookmarks.pdf").read_bytes(), headers=TOKEN)
    assert bookmarks.status_code == 200  # its one page is read; 50,000 bookmarks are not made headings
    assert [f["name"] for f in notes.get("/api/admin/books/notes/sources", headers=TOKEN).json()["files"]] == [
        "bookmarks.pdf", "handbook.pdf"]

    assert notes.put("/api/admin/books/notes/sources/boiler.md", content=BOILER, headers=TOKEN).status_code == 200
    after = {entry.name: entry.stat().st_mtime_ns for entry in cache.iterdir()}
    assert {name: after[name] for name in read} == read  # the handbook was not read again
    assert len(after) == 2  # the refused bomb is forgotten once the book no longer holds it


def test_a_book_ingested_from_a_folder_lists_that_folders_files(tmp_path: Path) -> None:
    """The Sources panel said "Nothing yet." for a book `lectern ingest` built from a folder:
    it lists the files the index holds, and the folder they were read from."""
    docs = tmp_path / "house"
    docs.mkdir()
    (docs / "boiler.md").write_bytes(BOILER)
    pdfs.handbook(docs / "handbook.pdf")
    ingested = CliRunner().invoke(app, ["ingest", str(docs), "--book", "house", "--data-dir", str(tmp_path / "data")])
    assert ingested.exit_code == 0, ingested.stderr
    with app_client(tmp_path / "data", book="house", LECTERN_ADMIN_TOKEN="sources-token") as client:
        listed = client.get("/api/admin/books/house/sources", headers=TOKEN).json()
    assert (listed["managed"], listed["files"], listed["folder"]) == (False, [], str(docs.resolve()))
    files = {entry["name"]: entry for entry in listed["ingested"]}
    assert set(files) == {"boiler.md", "handbook.pdf"}
    assert (files["boiler.md"]["title"], files["boiler.md"]["pages"], files["boiler.md"]["passages"]) == ("Boiler", 1, 1)
    handbook = files["handbook.pdf"]
    assert handbook["title"] == "Acme Flood Policy Handbook" and handbook["pages"] == 3 and handbook["passages"] >= 3
    assert handbook["url"] == "/books/house/files/handbook.pdf"
