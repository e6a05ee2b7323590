"""The physical-ai book printed to one PDF, and its question sets with gold pages.

    python eval/pdf_book.py OUT.pdf [--questions eval/questions/physical-ai-pdf.jsonl]

Prints the book as a reader would print it: every lesson in reading order (as `lectern ingest`
plans the markdown), rendered by markdown-it and printed by headless Chromium with an outline
from the headings, a running header and page numbers. Then it rewrites the questions of
`physical-ai-a` and `physical-ai-b` for that PDF: each gold `{file, heading}` becomes
`{file: OUT.pdf's name, page}`, the pages of that lesson that hold one of the question's answer
phrases (else its gold heading). A question none of whose gold can be placed is left out.
Page numbers depend on the fonts Chromium finds, so re-make both on a new machine.
"""

import argparse
import html
import json
import re
from pathlib import Path

import pypdfium2 as pdfium
from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright

from ingest_scripts.markdown import split_front_matter
from ingest_scripts.pipeline import plan_book

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT.parent / "shared" / "corpora" / "physical-ai-book"
SETS = [ROOT / "eval" / "questions" / name for name in ("physical-ai-a.jsonl", "physical-ai-b.jsonl")]
CHROMIUM = "/usr/bin/chromium"
_NOT_PRINTED = re.compile(r"^(?:import |export |:::|<[A-Z]).*$", re.MULTILINE)


def book_html() -> tuple[str, dict[str, str]]:
    """The whole book as one HTML page, and each lesson's title by its file."""
    plan = plan_book(BOOK, "physical-ai")
    render = MarkdownIt("commonmark", {"html": False}).enable("table")
    parts, titles = [], {}
    for page in plan.pages:
        source = (BOOK / page.source_path).read_text(encoding="utf-8")
        _, body_start = split_front_matter(source, page.source_path)
        body = re.sub(r"^# .*$", "", source[body_start:], count=1, flags=re.MULTILINE)
        parts.append(f"<h1>{html.escape(page.title)}</h1>\n{render.render(_NOT_PRINTED.sub('', body))}")
        titles[page.source_path] = page.title
    style = "body { font: 11pt/1.45 serif; } h1 { break-before: page; } pre { white-space: pre-wrap; }"
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Physical AI and Humanoid "
            f"Robotics</title><style>{style}</style></head><body>{''.join(parts)}</body></html>")
    return page, titles


def print_pdf(page: str, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        tab = browser.new_page()
        tab.set_content(page)
        tab.pdf(
            path=str(out), format="A4", outline=True, tagged=True, display_header_footer=True,
            header_template="<div style='font-size:8px;width:100%;text-align:center'>Physical AI and Humanoid Robotics</div>",
            footer_template="<div style='font-size:8px;width:100%;text-align:center'><span class='pageNumber'></span></div>",
            margin={"top": "60px", "bottom": "60px", "left": "50px", "right": "50px"},
        )
        browser.close()


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\ufffe", "").replace("\r\n", " ")).casefold()


def _letters(text: str) -> str:
    return re.sub(r"\W+", "", text.casefold())


def pages_of(pdf_path: Path, titles: dict[str, str]) -> tuple[list[str], dict[str, range]]:
    """Each page's text (normalised) and the pages of each lesson (by its file)."""
    document = pdfium.PdfDocument(str(pdf_path))
    texts = [_normal(document[i].get_textpage().get_text_range()) for i in range(len(document))]
    starts = []
    for bookmark in document.get_toc():
        destination = bookmark.get_dest()
        if bookmark.level == 0 and destination is not None:
            starts.append((bookmark.get_title(), destination.get_index() + 1))
    document.close()
    ranges: dict[str, range] = {}
    for number, (title, first) in enumerate(starts):
        last = starts[number + 1][1] - 1 if number + 1 < len(starts) else len(texts)
        for file, lesson in titles.items():
            # Chromium's outline joins a title wrapped over two lines without a space.
            if _letters(lesson) == _letters(title) and file not in ranges:
                ranges[file] = range(first, max(first, last) + 1)
                break
    return texts, ranges


def placed(question: dict, texts: list[str], ranges: dict[str, range], pdf_name: str) -> dict | None:
    gold = []
    for entry in question.get("gold", []):
        lesson = ranges.get(entry["file"])
        if lesson is None:
            continue
        phrases = [_normal(p) for p in question.get("answer_phrases", [])]
        holding = [p for p in lesson if any(phrase in texts[p - 1] for phrase in phrases)]
        heading = _normal(entry.get("heading", ""))
        if not holding and heading:
            holding = [p for p in lesson if heading in texts[p - 1]][:1]
        heading = entry.get("heading", "")
        gold += [{"file": pdf_name, "heading": heading, "page": p, "source": entry["file"]} for p in holding]
    if question.get("gold") and not gold:
        return None
    return question | {"gold": gold}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--questions", type=Path, default=ROOT / "eval" / "questions" / "physical-ai-pdf.jsonl")
    args = parser.parse_args()
    page, titles = book_html()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    print_pdf(page, args.out)
    texts, ranges = pages_of(args.out, titles)
    kept, left = [], 0
    for path in SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                question = placed(json.loads(line), texts, ranges, args.out.name)
                kept += [question] if question else []
                left += question is None
    args.questions.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in kept), encoding="utf-8")
    print(f"{args.out}: {len(texts)} pages; {args.questions}: {len(kept)} questions ({left} could not be placed)")


if __name__ == "__main__":
    main()
