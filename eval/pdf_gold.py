"""Gold pages for a question set on a PDF edition of its book.

    python eval/pdf_gold.py QUESTIONS BOOK_FOLDER PDF OUT

A book published both as a site (or markdown) and as a PDF (the GnuCash guide's HTML and PDF
are both built from its DocBook) is asked the same questions in both forms. Each gold
`{file, heading}` of QUESTIONS, a file of BOOK_FOLDER as `lectern ingest` reads it, becomes
`{file: PDF's name, heading, page}` for every page of the PDF that holds one of the question's
answer phrases found in that file (else the page of its heading's bookmark); `lectern eval`
counts a cross-lesson question's file as covered by a citation of any of its pages. A question
none of whose gold can be placed is left out.
"""

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

import pypdfium2 as pdfium

from ingest_scripts.pipeline import plan_book


def _normal(text: str) -> str:
    """Text as compared: no code marks, quotes and dashes plain, hyphens at line ends joined,
    spaces single."""
    text = text.replace("`", "").replace("\r\n", "\n").translate(str.maketrans("‘’“”–—", "''\"\"--"))
    text = re.sub(r"[-\u00ad\ufffe]\n", "", text)  # a word broken at a line end
    return re.sub(r"\s+", " ", text.replace("\ufffe", "")).casefold()


def page_texts(pdf: Path) -> list[str]:
    document = pdfium.PdfDocument(str(pdf))
    try:
        return [_normal(document[i].get_textpage().get_text_range()) for i in range(len(document))]
    finally:
        document.close()


def file_texts(book: Path) -> dict[str, str]:
    """Each file's text as ingest reads it (by the path gold names it by)."""
    texts: dict[str, list[str]] = defaultdict(list)
    for chunk in plan_book(book, "gold").chunks:
        texts[chunk.source_path.split("#", 1)[0]].append(chunk.text)
    return {file: _normal(" ".join(parts)) for file, parts in texts.items()}


def outline(pdf: Path) -> dict[str, int]:
    """The page of each bookmark, by its title without its number ("9.10.1. Simple Stock Split")."""
    document = pdfium.PdfDocument(str(pdf))
    try:
        pages = {}
        for bookmark in document.get_toc():
            destination = bookmark.get_dest()
            index = destination.get_index() if destination is not None else None
            if index is not None:
                pages.setdefault(_unnumbered(bookmark.get_title()), index + 1)
        return pages
    finally:
        document.close()


def _unnumbered(heading: str) -> str:
    return _normal(re.sub(r"^(?i:chapter\s+)?(?:\d+|[A-Z])(?:\.\d+)*\.?\s+", "", heading.strip()))


def placed(
    question: dict, pages: list[str], files: dict[str, str], headings: dict[str, int], pdf_name: str
) -> dict | None:
    gold = []
    phrases = [_normal(p) for p in question.get("answer_phrases", []) if p.strip()]
    for entry in question.get("gold", []):
        own = [p for p in phrases if p in files.get(entry["file"], "")]
        holding = [n for n, text in enumerate(pages, 1) if any(p in text for p in own)]
        if not holding and _unnumbered(entry.get("heading", "")) in headings:
            holding = [headings[_unnumbered(entry["heading"])]]
        heading = entry.get("heading", "")
        gold += [{"file": pdf_name, "heading": heading, "page": n, "source": entry["file"]} for n in holding]
    if question.get("gold") and not gold:
        return None
    return question | {"gold": gold}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("book", type=Path)
    parser.add_argument("pdf", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    pages, files, headings = page_texts(args.pdf), file_texts(args.book), outline(args.pdf)
    kept, left = [], 0
    for line in args.questions.read_text(encoding="utf-8").splitlines():
        if line.strip():
            question = placed(json.loads(line), pages, files, headings, args.pdf.name)
            kept += [question] if question else []
            left += question is None
    args.out.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in kept), encoding="utf-8")
    print(f"{args.pdf}: {len(pages)} pages; {args.out}: {len(kept)} questions ({left} could not be placed)")


if __name__ == "__main__":
    main()
