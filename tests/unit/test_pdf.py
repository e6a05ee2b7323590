"""PDF books: real PDFs (fpdf2, see tests/support/pdfs.py) read into pages, sections and passages
that keep their page numbers and offsets; files that cannot be read say why."""

import os
import resource
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fpdf import FPDF

from ingest_scripts.pdf import PdfCache, PdfError, PdfLimits, chunk_pdf, read_pdf
from ingest_scripts.pipeline import plan_book
from tests.support import pdfs


@pytest.fixture(scope="module")
def handbook(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    path = tmp_path_factory.mktemp("pdf") / "handbook.pdf"
    return path, pdfs.handbook(path)


def test_sections_come_from_the_outline_and_each_paragraph_keeps_its_page(handbook) -> None:
    path, placed = handbook
    pdf = read_pdf(path, "handbook.pdf")
    assert pdf.has_outline and pdf.title == "Acme Flood Policy Handbook"
    headings = [(b.level, b.text, b.page) for b in pdf.blocks if b.kind == "heading"]
    assert headings[:3] == [(1, "Coverage", 1), (2, "Flood Damage", 1), (2, "Storm Damage", 1)]
    assert [h for h in headings if h[0] == 1] == [(1, "Coverage", 1), (1, "Exclusions", 3), (1, "Claims", 4)]
    for paragraph, page in placed.items():
        first = next(b for b in pdf.blocks if b.text.startswith(paragraph))
        assert first.page == page, paragraph
    # Offsets are in the document's text: its blocks joined by blank lines.
    text = "\n\n".join(b.text for b in pdf.blocks)
    assert all(text[b.start : b.end] == b.text for b in pdf.blocks)


def test_an_outline_title_printed_after_its_number_heads_its_section_once(tmp_path: Path) -> None:
    pdfs.handbook(tmp_path / "numbered.pdf", numbered=True)
    blocks = read_pdf(tmp_path / "numbered.pdf", "numbered.pdf").blocks
    headings = [(b.level, b.text, b.page) for b in blocks if b.kind == "heading"]
    assert headings[:3] == [(1, "1 Coverage", 1), (2, "1.1 Flood Damage", 1), (2, "1.2 Storm Damage", 1)]
    assert not [b.text for b in blocks if b.kind != "heading" and b.text in ("1 Coverage", "1.1 Flood Damage")]


def test_running_headers_footers_and_page_numbers_are_left_out(handbook) -> None:
    pdf = read_pdf(handbook[0], "handbook.pdf")
    text = "\n".join(b.text for b in pdf.blocks)
    assert pdfs.HEADER not in text and "Confidential" not in text
    assert "Page 1 of" not in text and "of 4" not in text


def test_a_running_head_that_changes_with_the_chapter_is_left_out(tmp_path: Path) -> None:
    pdfs.chapter_heads(tmp_path / "manual.pdf")
    text = "\n".join(b.text for b in read_pdf(tmp_path / "manual.pdf", "manual.pdf").blocks)
    assert "Chapter" not in text
    assert text.count("duty engineer") == text.count("before the summer") == text.count("station book") == 4


def test_a_word_broken_at_a_line_end_is_joined_as_the_document_spells_it(handbook) -> None:
    text = "\n".join(b.text for b in read_pdf(handbook[0], "handbook.pdf").blocks)
    assert "properly documented before the adjuster visits" in text
    assert "the loss-adjuster report" in text  # spelled with its hyphen elsewhere, so kept
    assert "docu-" not in text and "lossadjuster" not in text


def test_a_sentence_cut_by_a_page_break_is_whole_on_the_page_that_holds_most_of_it(tmp_path: Path) -> None:
    pdfs.across_pages(tmp_path / "across.pdf")
    blocks = [(b.page, b.text) for b in read_pdf(tmp_path / "across.pdf", "across.pdf").blocks]
    assert blocks == [
        (1, "The pump station is cleaned twice a year."),
        (2, ("The boiler is inspected every autumn by a certified engineer who signs the logbook. "
             "Spare fuses are kept in the office. The valve on the north side of the main intake "
             "must be closed by the duty operator before the first frost.")),
        (3, "The gauges are read daily. The spare pump is started by the night shift whenever the main pump stops."),
    ]


def test_without_an_outline_headings_are_the_larger_lines(tmp_path: Path) -> None:
    pdfs.handbook(tmp_path / "plain.pdf", outline=False)
    pdf = read_pdf(tmp_path / "plain.pdf", "plain.pdf")
    assert not pdf.has_outline
    headings = [(b.level, b.text, b.page) for b in pdf.blocks if b.kind == "heading"]
    assert headings == [
        (1, "Coverage", 1), (2, "Flood Damage", 1), (2, "Storm Damage", 1),
        (1, "Exclusions", 3), (2, "Gradual Leaks", 3), (2, "Mould", 3),
        (1, "Claims", 4), (2, "Making a Claim", 4), (2, "Settlement", 4),
    ]


def test_without_an_outline_titles_in_a_heavier_face_are_headings_however_they_end(tmp_path: Path) -> None:
    """TeX's fonts are neither named nor flagged bold and weigh under 600; its bold is told by
    being heavier than the text's face. Plain TeX ends numbered titles with a period."""
    pdfs.tex_styled(tmp_path / "report.pdf")
    pdf = read_pdf(tmp_path / "report.pdf", "report.pdf")
    headings = [(b.level, b.text) for b in pdf.blocks if b.kind == "heading"]
    assert headings == [(1, "1. Pumps."), (2, "1.1. Starting a pump."), (2, "1.2. Stopping a pump."),
                        (1, "2. Filters."), (2, "2.1. Backwashing.")]
    paragraphs = [b.text for b in pdf.blocks if b.kind != "heading"]
    assert all(any(text in p for p in paragraphs) for _, _, text in pdfs.TEX_SECTIONS)


def test_an_outline_entry_whose_title_the_page_does_not_print_still_heads_its_section(tmp_path: Path) -> None:
    pdf = FPDF(format="A4")
    for title in ("Intake", "Outflow"):
        pdf.add_page()
        pdf.start_section(title)
        pdf.set_font("helvetica", size=11)
        pdf.multi_cell(0, 6, f"The {title.lower()} gate is checked each morning by the duty operator.")
    pdf.output(str(tmp_path / "unprinted.pdf"))
    read = read_pdf(tmp_path / "unprinted.pdf", "unprinted.pdf")
    assert [(b.text, b.page) for b in read.blocks if b.kind == "heading"] == [("Intake", 1), ("Outflow", 2)]


def test_two_columns_read_in_order(tmp_path: Path) -> None:
    paragraphs = pdfs.two_columns(tmp_path / "columns.pdf")
    text = "\n".join(b.text for b in read_pdf(tmp_path / "columns.pdf", "columns.pdf").blocks)
    positions = [text.find(paragraph.split(":")[0] + ":") for paragraph in paragraphs]
    assert -1 not in positions and positions == sorted(positions)


def test_chapters_become_pages_whose_passages_know_their_pages(handbook) -> None:
    path, placed = handbook
    pages = chunk_pdf(read_pdf(path, "policies/handbook.pdf"), "policies/handbook.pdf", book="acme",
                      module="Policies", url="/books/acme/files/policies/handbook.pdf")
    assert [(p.page.source_path, p.page.title, p.page.module, p.page.url) for p in pages] == [
        ("policies/handbook.pdf#001", "Coverage", "Acme Flood Policy Handbook", "/books/acme/files/policies/handbook.pdf?page=1"),
        ("policies/handbook.pdf#002", "Exclusions", "Acme Flood Policy Handbook", "/books/acme/files/policies/handbook.pdf?page=3"),
        ("policies/handbook.pdf#003", "Claims", "Acme Flood Policy Handbook", "/books/acme/files/policies/handbook.pdf?page=4"),
    ]
    chunks = [c for p in pages for c in p.chunks]
    assert {c.section for c in chunks} >= {"Flood Damage", "Storm Damage", "Gradual Leaks", "Settlement"}
    for paragraph, page in placed.items():
        chunk = next(c for c in chunks if paragraph in c.text[c.overlap_chars :])
        assert chunk.page_at(chunk.text.index(paragraph, chunk.overlap_chars)) == page
    storm = [c for c in chunks if c.section == "Storm Damage"]
    assert {c.first_page for c in storm} == {1, 2} or any(len(c.page_starts) > 1 for c in storm)


def test_a_passage_ends_at_a_page_break_so_its_citation_opens_the_page_that_holds_it(tmp_path: Path) -> None:
    placed = pdfs.running_on(tmp_path / "station.pdf")
    pages = chunk_pdf(read_pdf(tmp_path / "station.pdf", "station.pdf"), "station.pdf", book="acme",
                      module="Station", url="/books/acme/files/station.pdf")
    chunks = [c for p in pages for c in p.chunks]
    own_pages = [{c.page_at(c.overlap_chars)} | {page for start, page in c.page_starts if start > c.overlap_chars}
                 for c in chunks]
    last_page = max(placed.values())
    assert last_page >= 3 and len(chunks) >= last_page
    # every passage is on one page, but the last: a page of one short line is read with the one before
    assert all(len(on) == 1 for on in own_pages[:-1])
    assert own_pages[-1] == {last_page - 1, last_page}


def test_a_book_in_parts_has_its_chapters_as_pages_in_the_parts_modules(tmp_path: Path) -> None:
    """A part's entries that are chapters ("Part I. Basics" over "Chapter 2. Pumps", where
    "Chapter 1. Welcome" is at the top level) are pages of the part's module; a chapter outside
    any part is in the document's; a part's own opening text is a page of its own."""
    path = tmp_path / "manual.pdf"
    pdfs.parted(path)
    pages = chunk_pdf(read_pdf(path, "manual.pdf"), "manual.pdf", book="plant", module="Docs", url="/f")
    assert [(p.page.title, p.page.module) for p in pages] == [
        ("Chapter 1. Welcome", "Station Manual"),
        ("Part I. Basics", "Part I. Basics"),
        ("Chapter 2. Pumps", "Part I. Basics"),
        ("Chapter 3. Valves", "Part I. Basics"),
        ("Part II. Appendices", "Part II. Appendices"),
        ("Appendix A. Glossary", "Part II. Appendices"),
    ]
    # A chapter's sections are one level below it, wherever the chapter sits in the outline.
    assert [[(c.section, c.first_page) for c in p.chunks] for p in pages] == [
        [("", 1), ("About This Manual", 2)],
        [("", 3)],
        [("Pump Types", 4), ("Pump Sizes", 4)],
        [("Valve Types", 5)],
        [("", 6)],
        [("Terms", 7)],
    ]


def test_scanned_encrypted_truncated_and_foreign_files_say_why(tmp_path: Path, handbook) -> None:
    pdfs.with_scanned_page(tmp_path / "scan.pdf", tmp_path)
    assert read_pdf(tmp_path / "scan.pdf", "scan.pdf").scanned_pages == [2]
    pdfs.encrypted(tmp_path / "locked.pdf")
    with pytest.raises(PdfError, match="locked.pdf: the PDF is encrypted"):
        read_pdf(tmp_path / "locked.pdf", "locked.pdf")
    pdfs.truncated(tmp_path / "cut.pdf", handbook[0])
    with pytest.raises(PdfError, match="cut.pdf: the file is truncated"):
        read_pdf(tmp_path / "cut.pdf", "cut.pdf")
    (tmp_path / "fake.pdf").write_text("<html>not a pdf</html>")
    with pytest.raises(PdfError, match="fake.pdf: not a PDF file"):
        read_pdf(tmp_path / "fake.pdf", "fake.pdf")


def test_a_book_of_markdown_and_pdfs_plans_both_and_reports_what_it_could_not_read(
    tmp_path: Path, handbook
) -> None:
    root = tmp_path / "docs"
    (root / "manuals").mkdir(parents=True)
    (root / "intro.md").write_text("# Intro\n\nThe handbook explains what the policy covers.\n")
    (root / "manuals" / "handbook.pdf").write_bytes(handbook[0].read_bytes())
    pdfs.with_scanned_page(root / "manuals" / "boiler.pdf", tmp_path)
    pdfs.encrypted(root / "manuals" / "locked.pdf")
    plan = plan_book(root, "acme")
    assert {p.source_path for p in plan.pages} == {
        "intro.md", "manuals/boiler.pdf", "manuals/handbook.pdf#001", "manuals/handbook.pdf#002",
        "manuals/handbook.pdf#003",
    }
    assert set(plan.files) == {"manuals/boiler.pdf", "manuals/handbook.pdf"}
    assert plan.problems == [
        "manuals/boiler.pdf: page 2 has no text layer (a scanned image?), so it is not indexed; OCR it first",
        "manuals/locked.pdf: the PDF is encrypted; save an unprotected copy and ingest that",
    ]
    boiler = next(p for p in plan.pages if p.source_path == "manuals/boiler.pdf")
    assert (boiler.module, boiler.title) == ("Manuals", "Boiler")
    # One PDF given directly is a book too; one that cannot be read is a clear error.
    assert len(plan_book(root / "manuals" / "handbook.pdf", "acme").pages) == 3
    locked = plan_book(root / "manuals" / "locked.pdf", "acme")
    assert locked.pages == [] and locked.problems[0].startswith("locked.pdf: the PDF is encrypted")


def test_eval_scores_pdf_citations_by_page() -> None:
    from backend.evaluation import EvalQuestion, EvalResult, score

    question = EvalQuestion.model_validate({
        "id": "q", "kind": "cross_lesson", "question": "?",
        "gold": [{"file": "book.pdf", "heading": "Ports", "page": 12},
                 {"file": "book.pdf", "heading": "Ports", "page": 13},
                 {"file": "book.pdf", "heading": "Valves", "page": 40}],
    })

    def result(*pages: int) -> EvalResult:
        cited = [{"source_path": f"book.pdf#00{n}", "heading": "", "url": "", "module": "", "lesson": "", "page": p}
                 for n, p in enumerate(pages)]
        return EvalResult(id="q", kind="cross_lesson", status="found", answer="", citations=cited, latency_ms=1)

    both = score([question], [result(12, 40)])["all"]
    assert (both["first_citation_hit"], both["cross_lesson_coverage"]) == (1.0, 1.0)
    # A passage over two pages is covered by a citation of either.
    assert score([question], [result(13, 40)])["all"]["cross_lesson_coverage"] == 1.0
    # Two lessons' passages under the same heading are two passages, told apart by their source.
    same_heading = question.model_copy(update={"gold": [
        question.gold[0].model_copy(update={"heading": "Example", "source": "pumps.md"}),
        question.gold[2].model_copy(update={"heading": "Example", "source": "valves.md"}),
    ]})
    assert score([same_heading], [result(12)])["all"]["cross_lesson_coverage"] == 0.0
    assert score([same_heading], [result(12, 40)])["all"]["cross_lesson_coverage"] == 1.0
    missed = score([question], [result(14, 40)])["all"]
    assert (missed["first_citation_hit"], missed["any_citation_hit"], missed["cross_lesson_coverage"]) == (0.0, 1.0, 0.0)


def _peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_a_decompression_bomb_is_refused_without_touching_the_readers_memory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.pdf"
    pdfs.decompression_bomb(bomb, inflated_mib=3072)  # 3 MiB on disk, 3 GiB when read
    assert bomb.stat().st_size < 4 * 2**20
    peak = _peak_rss_mib()
    with pytest.raises(PdfError, match=r"bomb\.pdf: reading it needs more than 768 MiB of memory"):
        read_pdf(bomb, "bomb.pdf")
    assert _peak_rss_mib() - peak < 200


def test_a_document_is_held_to_its_cpu_time_and_pages(tmp_path: Path, handbook) -> None:
    outline = tmp_path / "outline.pdf"
    pdfs.outline_bomb(outline, entries=200_000)  # several seconds of CPU: well past the limit
    with pytest.raises(PdfError, match=r"outline\.pdf: reading it takes more than 1 s of CPU"):
        read_pdf(outline, "outline.pdf", PdfLimits(cpu_seconds=1))
    with pytest.raises(PdfError, match=r"handbook\.pdf: 4 pages; a PDF of at most 2 pages is read"):
        read_pdf(handbook[0], "handbook.pdf", PdfLimits(pages=2))


def _reading_children() -> list[int]:
    """The processes forked by this process's multiprocessing forkserver: the PDF reading child."""
    parents: dict[int, int] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            ppid = next(line for line in status.read_text().splitlines() if line.startswith("PPid:"))
        except (OSError, StopIteration):
            continue
        parents[int(status.parent.name)] = int(ppid.split()[1])
    forkservers = {pid for pid, parent in parents.items()
                   if parent == os.getpid() and b"forkserver" in _command_line(pid)}
    return [pid for pid, parent in parents.items() if parent in forkservers]


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_reader_that_crashes_is_reported_as_a_crash_not_as_a_memory_limit(tmp_path: Path) -> None:
    slow = tmp_path / "slow.pdf"
    pdfs.outline_bomb(slow, entries=200_000)  # seconds of reading: time to stop it mid-way
    with ThreadPoolExecutor(1) as pool:
        reading = pool.submit(read_pdf, slow, "slow.pdf")
        pids: list[int] = []
        for _ in range(200):
            if reading.done() or (pids := _reading_children()):
                break
            time.sleep(0.05)
        assert not reading.done()
        for pid in pids:
            os.kill(pid, signal.SIGSEGV)
        with pytest.raises(PdfError, match=r"^slow\.pdf: the PDF reader crashed on it \(SIGSEGV\); re-export"):
            reading.result(timeout=60)


def test_an_outline_larger_than_the_limit_is_read_to_the_levels_that_fit(tmp_path: Path, handbook) -> None:
    path, _ = handbook
    by_level = read_pdf(path, "handbook.pdf", PdfLimits(outline_entries=3))
    assert [(b.level, b.text) for b in by_level.blocks if b.kind == "heading" and b.level == 1] == [
        (1, "Coverage"), (1, "Exclusions"), (1, "Claims")]
    assert not [b for b in by_level.blocks if b.kind == "heading" and b.level == 2 and b.text == "Flood Damage"]
    bookmarks = tmp_path / "bookmarks.pdf"
    pdfs.outline_bomb(bookmarks, entries=50_000)  # all on the top level: no outline is used
    pdf = read_pdf(bookmarks, "bookmarks.pdf")
    assert not pdf.has_outline and "Entry 7" not in " ".join(b.text for b in pdf.blocks)


def test_each_document_is_read_once_and_a_refused_one_is_not_read_again(tmp_path: Path, handbook) -> None:
    cache = PdfCache(tmp_path / "cache")
    bomb = tmp_path / "bomb.pdf"
    pdfs.decompression_bomb(bomb, inflated_mib=1024)
    first = cache.read(handbook[0], "handbook.pdf")
    with pytest.raises(PdfError, match="memory"):
        cache.read(bomb, "bomb.pdf")
    entries = {entry.name: entry.stat().st_mtime_ns for entry in (tmp_path / "cache").iterdir()}
    assert len(entries) == 2
    again = PdfCache(tmp_path / "cache")
    assert again.read(handbook[0], "handbook.pdf") == first
    with pytest.raises(PdfError, match="memory"):
        again.read(bomb, "bomb.pdf")
    assert {entry.name: entry.stat().st_mtime_ns for entry in (tmp_path / "cache").iterdir()} == entries
    again.forget_unused()  # both were read: both kept
    assert len(list((tmp_path / "cache").iterdir())) == 2
    only_handbook = PdfCache(tmp_path / "cache")
    only_handbook.read(handbook[0], "handbook.pdf")
    only_handbook.forget_unused()
    assert len(list((tmp_path / "cache").iterdir())) == 1
