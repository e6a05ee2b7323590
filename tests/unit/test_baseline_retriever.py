"""benchmarks/baseline_retriever.py: the tutorial retriever finds the right page of the sample
book, and reads a PDF (a real one, fpdf2: tests/support/pdfs.py) one document a page."""

from pathlib import Path

import pytest

from benchmarks.baseline_retriever import BaselineRetriever, hits, load, query_of
from tests.support import pdfs

SAMPLE_BOOK = Path(__file__).resolve().parents[2] / "sample_book"


@pytest.fixture(scope="module")
def sample_book() -> BaselineRetriever:
    return BaselineRetriever(SAMPLE_BOOK)


@pytest.mark.parametrize(("question", "file"), [
    ("Which environment variable chooses the answer model?", "02-for-maintainers/03-configuration.md"),
    ("How long does the widget keep my conversations in the browser?",
     "03-for-readers/04-privacy-and-history.md"),
    ("Does chat still answer when the database is down?", "02-for-maintainers/04-deploying.md"),
])
def test_the_page_that_answers_is_ranked_first(sample_book: BaselineRetriever, question: str, file: str) -> None:
    assert sample_book.search(question)[0].file == file


def test_files_are_read_whole_with_their_path_and_split_into_overlapping_chunks(sample_book: BaselineRetriever) -> None:
    files = {chunk.file for chunk in sample_book.chunks}
    assert "02-for-maintainers/02-docusaurus-plugin.mdx" in files and "README.md" in files
    assert not any(file.endswith(".json") for file in files)  # _category_.json is not a document
    assert all(len(chunk.text) <= 1000 and chunk.page is None for chunk in sample_book.chunks)
    raw = (SAMPLE_BOOK / "02-for-maintainers/03-configuration.md").read_text(encoding="utf-8")
    assert raw.startswith(next(c.text for c in sample_book.chunks if c.file.endswith("03-configuration.md")))


def test_the_query_is_the_question_after_the_selection_or_the_readers_last_turn() -> None:
    assert query_of({"kind": "selection", "question": "Why?", "selected_text": "Mould is excluded."}) \
        == "Mould is excluded.\n\nWhy?"
    history = [{"role": "user", "content": "What is URDF?"}, {"role": "assistant", "content": "A format."}]
    assert query_of({"kind": "followup", "question": "Which units?", "history": history}) \
        == "What is URDF?\n\nWhich units?"


def test_a_pdf_is_read_one_document_a_page_and_hits_by_page(tmp_path: Path) -> None:
    (tmp_path / "manuals").mkdir()
    placed = pdfs.handbook(tmp_path / "manuals" / "handbook.pdf")
    documents = load(tmp_path)
    assert [d.file for d in documents] == ["manuals/handbook.pdf"] * len(documents)
    assert [d.page for d in documents] == list(range(1, len(documents) + 1))
    for paragraph, page in placed.items():  # each page's text is that page's
        assert " ".join(paragraph.split()[:6]) in " ".join(documents[page - 1].text.split())

    retriever = BaselineRetriever(tmp_path)
    assert {chunk.page for chunk in retriever.chunks} == {d.page for d in documents}
    mould = next(p for p in placed if p.startswith("Mould"))
    top = retriever.search("Is mould covered after a flood?")[0]
    gold = [{"file": "manuals/handbook.pdf", "page": placed[mould]}]
    assert "Mould is excluded" in top.text and hits(top, gold)
    assert not hits(top, [{"file": "manuals/handbook.pdf", "page": placed[mould] + 2}])
    assert hits(top, [{"file": "manuals/handbook.pdf"}])


def test_an_html_page_is_read_as_its_visible_body_text(tmp_path: Path) -> None:
    (tmp_path / "guide.html").write_text(
        "<html><head><title>Guide</title><style>p { color: red }</style></head><body>"
        "<nav><a href='/'>Home</a></nav><h1>Pumps</h1><p>The pump moves <b>water</b>.</p>"
        "<script>track()</script></body></html>", encoding="utf-8")
    (document,) = load(tmp_path)
    assert (document.file, document.page) == ("guide.html", None)
    assert "The pump moves" in document.text and "water" in document.text and "Pumps" in document.text
    assert not any(word in document.text for word in ("Home", "track", "color", "Guide"))
