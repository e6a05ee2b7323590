"""One ingest run: read the docs tree, chunk it, embed only what changed, publish atomically."""

import filecmp
import functools
import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import quote

import numpy as np
from pydantic import BaseModel
from selectolax.lexbor import LexborHTMLParser

from backend.retrieval import lexical
from backend.retrieval.calibration import Calibration
from backend.retrieval.embeddings import WINDOWS, Embedder, EmbeddingError, pooled
from backend.retrieval.index import POINT_FORMAT, BookIndex, WindowVectors
from backend.retrieval.models import Chunk, Page
from backend.retrieval.search import Retriever
from ingest_scripts.html_site import (
    HtmlPage,
    asks_not_to_be_listed,
    chunk_html_page,
    links_to,
    named_site,
    next_page,
    placements,
    published_url,
    read_tree,
    reading_order,
    sitemap_urls,
    without_template,
)
from ingest_scripts.layouts import (
    SUFFIXES,
    BuiltSite,
    JupyterBook,
    Layout,
    LayoutError,
    LayoutName,
    Sphinx,
    detect_layout,
    published_files,
)
from ingest_scripts.manifest import Manifest
from ingest_scripts.markdown import chunk_page, first_heading, humanize, split_front_matter
from ingest_scripts.notebooks import NotebookError, notebook_markdown
from ingest_scripts.pdf import PdfCache, PdfError, chunk_pdf, read_pdf
from ingest_scripts.permalinks import is_index_page, page_url
from ingest_scripts.rest import Titles, chunk_rest_page

EMBED_BATCH = 64
# A page is a compilation of others when this share of its statements is on other pages: all
# of them but a heading's sentence or a line of its own in every ten.
REPEATED_SHARE = 0.9
# Statements are sentences of at least this many words ("See also: csvread." recurs by nature).
STATEMENT_WORDS = 6
# A page of fewer statements is not judged: the few lines a short page shares with the pages
# it introduces do not make it a compilation.
MIN_STATEMENTS = 6
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n+")  # sentences, and lines (a heading, an item)
_WORDS = re.compile(r"\w+")


class IngestError(RuntimeError):
    """Bad input: the message is shown to the maintainer as is."""


class IngestReport(BaseModel):
    book: str
    layout: str
    pages: int
    sections: int  # distinct headed parts of pages (a page's opening text counts as one)
    chunks: int
    embedded: int
    reused: int
    removed: int
    dropped_questions: int
    skipped_files: list[str]
    problems: list[str] = []  # files that could not be read, pages with no text to read
    unchanged: bool
    rebuild_reason: str | None
    collection: str | None
    calibration: Calibration | None = None
    seconds: float


@dataclass
class BookPlan:
    pages: list[Page]
    chunks: list[Chunk]
    dropped_questions: int
    skipped_files: list[str]
    layout: str = "docusaurus"
    files: dict[str, Path] = field(default_factory=dict)  # originals served as they are (PDFs)
    problems: list[str] = field(default_factory=list)


ProgressCallback = Callable[[int, int], None]


def discover(root: Path, kind: str = "markdown") -> list[Path]:
    """The `kind` of pages (a key of SUFFIXES) the site publishes, in path order."""
    if not root.exists():
        raise IngestError(f"{root}: no such folder")
    if not root.is_dir():
        raise IngestError(f"{root}: not a folder (point lectern ingest at the docs folder)")
    files = sorted(published_files(root, SUFFIXES[kind]))
    if not files:
        raise IngestError(f"{root}: no {kind} ({'/'.join(SUFFIXES[kind])}) files found")
    return files


def folder_titles(root: Path, files: list[Path]) -> dict[str, str]:
    """Module names: `_category_.json` label, else the folder's index page title."""
    titles: dict[str, str] = {}
    for path in files:
        rel = path.relative_to(root).as_posix()
        if is_index_page(rel):
            source = _page_source(path, rel)
            front_matter, body_start = split_front_matter(source, rel)
            title = front_matter.get("title") or first_heading(source[body_start:])
            if title:
                titles.setdefault(str(Path(rel).parent.as_posix()), str(title))
    for category in root.rglob("_category_.json"):
        rel_folder = category.parent.relative_to(root).as_posix()
        try:
            label = json.loads(category.read_text(encoding="utf-8")).get("label")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise IngestError(f"{category}: invalid _category_.json: {exc}") from exc
        if label:
            titles[rel_folder] = str(label)
    return titles


def plan_book(
    root: Path,
    book: str,
    base_url: str = "",
    manifest: Manifest | None = None,
    layout_name: LayoutName | None = None,
    text_files: bool = False,
    pdf_cache: PdfCache | None = None,
) -> BookPlan:
    """The pages and chunks of the book in `root`, published as its generator (`layout_name`,
    or the one detected) publishes them, and of the PDFs in it (or of `root`, a PDF). With
    `text_files`, `.txt` files are pages too (read as markdown). PDFs read before are taken
    from `pdf_cache` when given."""
    if root.is_file() and root.suffix.lower() == ".pdf":
        return add_pdfs(BookPlan([], [], 0, [], "pdf"), root.parent, [root], book, pdf_cache)
    kind = "markdown or text" if text_files else "markdown"
    pdfs = pdf_files(root)
    sources = SUFFIXES[
        "markdown or reStructuredText" if Sphinx.found(root)
        else "markdown, notebooks or reStructuredText" if JupyterBook.found(root) else kind
    ]
    if pdfs and not any(published_files(root, sources + SUFFIXES["HTML"])):
        return add_pdfs(BookPlan([], [], 0, [], "pdf"), root, pdfs, book, pdf_cache)
    layout = detect_layout(root, layout_name)
    if isinstance(layout, BuiltSite):
        plan = plan_site(root, book, base_url, layout)
    else:
        plan = plan_markdown(root, book, base_url, manifest, layout, kind if text_files else layout.kind)
    return _without_compilations(add_pdfs(plan, root, pdfs, book, pdf_cache))


def _without_compilations(plan: BookPlan) -> BookPlan:
    """The plan without the pages that only gather what other pages say: a site's single-page
    edition beside its pages (Node.js's `all.html`, SQLite's `capi3ref.html`), a changelog over
    the release notes it repeats. Such a page adds no answer; its passages tie with the pages'
    own, and the reader is sent to the long page rather than the one about the question.

    Pages are looked at from the longest: one is left out when nearly all of its statements
    (REPEATED_SHARE) are also on pages still in the book, so whatever it says stays said."""
    statements: dict[str, set[str]] = {page.source_path: set() for page in plan.pages}
    for chunk in plan.chunks:
        for sentence in _SENTENCE_BREAK.split(chunk.text[chunk.overlap_chars :]):
            words = _WORDS.findall(sentence.lower())
            if len(words) >= STATEMENT_WORDS:
                statements[chunk.source_path].add(" ".join(words))
    held = Counter(statement for said in statements.values() for statement in said)
    left_out = set()
    for path in sorted(statements, key=lambda path: len(statements[path]), reverse=True):
        said = statements[path]
        if len(said) >= MIN_STATEMENTS and sum(held[s] > 1 for s in said) >= REPEATED_SHARE * len(said):
            left_out.add(path)
            held.subtract(said)
    if left_out:
        plan.pages = [page for page in plan.pages if page.source_path not in left_out]
        plan.chunks = [chunk for chunk in plan.chunks if chunk.source_path not in left_out]
        plan.skipped_files.extend(sorted(left_out))
    return plan


def plan_markdown(
    root: Path, book: str, base_url: str, manifest: Manifest | None, layout: Layout, kind: str = "markdown"
) -> BookPlan:
    files, left_out = layout.pages(discover(root, kind))
    titles = folder_titles(root, files)
    rest_sources = {path: _read(path, path.relative_to(root).as_posix()) for path in files if path.suffix == ".rst"}
    rest_titles = Titles({
        path.relative_to(layout.docs).with_suffix("").as_posix(): source for path, source in rest_sources.items()
    })
    pages: list[Page] = []
    chunks: list[Chunk] = []
    dropped = 0
    skipped = [path.relative_to(root).as_posix() for path in left_out]
    for path in files:
        rel = path.relative_to(root).as_posix()
        on_site = path.relative_to(layout.docs).as_posix()
        try:
            source = rest_sources[path] if path in rest_sources else layout.readable(_page_source(path, rel))
        except LayoutError as exc:
            raise IngestError(f"{rel}: {exc}") from exc
        front_matter, body_start = split_front_matter(source, rel)
        if front_matter.get("draft") is True or front_matter.get("unlisted") is True:
            skipped.append(rel)
            continue
        entry = manifest.entry(rel) if manifest else None
        path_url = entry.permalink if entry else layout.url_path(on_site, front_matter)
        folder = Path(rel).parent.as_posix()
        module = layout.module_of(on_site)
        if module is None:
            module = titles.get(folder, "") if folder != "." else ""
        url = page_url(base_url, path_url)
        lesson_id = entry.id if entry else layout.page_id(on_site, front_matter)
        if path.suffix == ".rst":
            parsed = chunk_rest_page(
                source, rel, Path(on_site).with_suffix("").as_posix(), rest_titles,
                book=book, module=module, url=url, lesson_id=lesson_id, source_dir=layout.docs,
                book_folder=root,
            )
        else:
            parsed = chunk_page(
                source,
                rel,
                book=book,
                module=module,
                url=url,
                lesson_id=lesson_id,
                front_matter=front_matter,
                body_start=body_start,
                slugger=layout.slugger(),
                title_from_any_heading=layout.title_from_any_heading,
            )
        if parsed and entry:
            parsed.chunks = [entry.apply_anchor(c) for c in parsed.chunks]
        if parsed is None or not parsed.chunks:
            skipped.append(rel)
            continue
        pages.append(parsed.page)
        chunks.extend(parsed.chunks)
        dropped += parsed.dropped_questions
    _lessons_when_they_overview_nothing(pages, chunks)
    return BookPlan(pages, chunks, dropped, skipped, layout.name)


def _lessons_when_they_overview_nothing(pages: list[Page], chunks: list[Chunk]) -> None:
    """An index page (a folder's README, index, or the page named like its folder) overviews
    the pages in its folder, and an overview restates them (it ranks below a lesson); one with
    no other page there (Redux's style-guide/style-guide.md, its category's only page) says it
    in full, as a lesson does."""
    paths = [page.source_path for page in pages]
    alone = set()
    for page in pages:
        folder = PurePosixPath(page.source_path).parent.as_posix()
        inside = "" if folder == "." else f"{folder}/"
        beside = (p for p in paths if p != page.source_path and p.startswith(inside))
        if page.kind == "index" and next(beside, None) is None:
            alone.add(page.source_path)
    for record in [*pages, *chunks]:
        if record.source_path in alone:
            record.kind = "lesson"


def pdf_files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(path for path in published_files(root, (".pdf", ".PDF")))


def add_pdfs(plan: BookPlan, root: Path, pdfs: list[Path], book: str, cache: PdfCache | None = None) -> BookPlan:
    """The PDFs' pages added to the plan. Their citations open the file in Lectern's viewer
    (`/books/{book}/files/{path}`); a file that cannot be read is reported and left out."""
    read = cache.read if cache else read_pdf
    for path in pdfs:
        rel = path.relative_to(root).as_posix()
        try:
            pdf = read(path, rel)
        except PdfError as exc:
            plan.problems.append(str(exc))
            continue
        plan.problems.extend(
            f"{rel}: page {page} has no text layer (a scanned image?), so it is not indexed; OCR it first"
            for page in pdf.scanned_pages
        )
        folder = Path(rel).parent
        module = "" if folder == Path(".") else humanize(folder.name)
        parsed = chunk_pdf(pdf, rel, book=book, module=module, url=f"/books/{book}/files/{quote(rel)}")
        if not parsed:
            plan.skipped_files.append(rel)
            continue
        plan.files[rel] = path
        for page in parsed:
            plan.pages.append(page.page)
            plan.chunks.extend(page.chunks)
    if cache:
        cache.forget_unused()
    return plan


def plan_site(root: Path, book: str, base_url: str, layout: BuiltSite) -> BookPlan:
    """The pages and chunks of a built site: each page's own content at its URL, under the
    module its breadcrumbs, its navigation or its folder's index page give it.

    A page that asks search engines to leave it out (`noindex`) is part of the book when a page
    that does not ask so links to it: a search page or an old address kept for outside links
    (mdBook's first-edition stubs) is reached by none, while ikiwiki marks every page it brings
    from its shared underlay (the directives' reference) though the site's own pages lead there."""
    pages: dict[str, HtmlPage | None] = {}
    unlisted: set[str] = set()
    linked: set[str] = set()  # the pages that pages which do not ask to be left out link to
    following: dict[str, str] = {}
    for path in discover(root, "HTML"):
        rel = path.relative_to(root).as_posix()
        tree = LexborHTMLParser(_read(path, rel, html=True))
        following[rel] = next_page(tree, rel)  # before read_tree takes its navigation out
        if asks_not_to_be_listed(tree):
            unlisted.add(rel)
        else:
            linked |= links_to(tree, rel)
        pages[rel] = read_tree(tree, path.name)
    read: dict[str, HtmlPage] = {}
    skipped: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for rel, page in pages.items():
        # A copy of a page already read, or a stub that only its heading tells from others
        # ("The 2018 edition of the book is no longer distributed …" under each chapter's title).
        text = tuple(block.text for block in page.blocks if block.kind != "heading") if page else ()
        if page is None or (rel in unlisted and rel not in linked) or text in seen:
            skipped.append(rel)
            continue
        seen.add(text)
        read[rel] = page
    read, site_name = named_site(without_template(read))
    served = {rel: layout.url_path(rel, {}) for rel in read}
    sitemap = sitemap_urls(root, served)
    placed = placements(served)
    plan = BookPlan([], [], 0, skipped, layout.name)
    # A folder's index page is the overview of the module its pages are in, though its own
    # breadcrumbs end one level up (Docusaurus's category pages).
    in_folder: dict[str, Counter[str]] = {}
    for rel, page in read.items():
        index_page = placed[rel].index_page
        if index_page and index_page != rel and page.module:
            in_folder.setdefault(index_page, Counter())[page.module] += 1
    for rel in reading_order(list(read), following):
        page = read[rel]
        index_page = placed[rel].index_page
        folder_title = read[index_page].title if index_page else ""
        module = folder_title if page.module is None else page.module
        if rel in in_folder:
            module = in_folder[rel].most_common(1)[0][0]
        parsed = chunk_html_page(
            page,
            rel,
            book=book,
            module=module,
            url=published_url(page.canonical, sitemap.get(rel), base_url, served[rel]),
            lesson_id=layout.page_id(rel, {}),
            is_index=placed[rel].is_index,
        )
        if not parsed.chunks:
            skipped.append(rel)
            continue
        plan.pages.append(parsed.page)
        plan.chunks.extend(parsed.chunks)
        plan.dropped_questions += parsed.dropped_questions
    for chunk in plan.chunks:
        chunk.book_name = site_name
    return plan


def ingest(
    plan: BookPlan,
    index: BookIndex,
    embedder: Embedder,
    on_progress: ProgressCallback | None = None,
    files_dir: Path | None = None,
) -> IngestReport:
    """Publishes `plan` (from plan_book) as the book's new index, re-using the vectors of
    unchanged chunks, and copies the files it serves (PDFs) into `files_dir`; does nothing at
    all when nothing changed."""
    started = time.perf_counter()
    book = index.book
    if not plan.chunks:
        skipped = f" ({len(plan.skipped_files)} files skipped: draft, unlisted or empty)" if plan.skipped_files else ""
        problems = "".join(f"\n  {problem}" for problem in plan.problems)
        raise IngestError(f"no page has any text to index{skipped}; the served index is unchanged{problems}")
    if plan.files and files_dir is None:
        raise IngestError("this book has PDFs: give ingest a folder to serve them from")
    for order, page in enumerate(plan.pages):  # the order the layout read them in
        page.order = order
    pages = {page.source_path: page for page in plan.pages}
    pages_digest = hashlib.sha256(
        json.dumps([page.model_dump() for page in plan.pages]).encode()
    ).hexdigest()[:32]

    previous = index.metadata()
    rebuild_reason = None
    stored = index.stored_points()
    if previous and previous.get("embedder") != embedder.name:
        rebuild_reason = f"embedding model changed ({previous.get('embedder')} → {embedder.name})"
    elif previous and previous.get("dimension") != embedder.dimension:
        rebuild_reason = f"embedding dimension changed ({previous.get('dimension')} → {embedder.dimension})"
    if rebuild_reason:
        stored = {}

    wanted = {chunk.id: chunk.content_hash for chunk in plan.chunks}
    unchanged = (
        bool(previous)
        and rebuild_reason is None
        and previous.get("analyzer") == lexical.ANALYZER  # else the stored terms are stale
        and previous.get("points") == POINT_FORMAT
        and previous.get("windows") == WINDOWS
        and previous.get("pages") == pages_digest  # a page's order, title or description
        and wanted == {chunk_id: point.content_hash for chunk_id, point in stored.items()}
    )
    report = IngestReport(
        book=book,
        layout=plan.layout,
        pages=len(plan.pages),
        sections=len({(chunk.source_path, chunk.section) for chunk in plan.chunks}),
        chunks=len(plan.chunks),
        embedded=0,
        reused=len(plan.chunks) if unchanged else 0,
        removed=0,
        dropped_questions=plan.dropped_questions,
        skipped_files=plan.skipped_files,
        problems=plan.problems,
        unchanged=unchanged,
        rebuild_reason=rebuild_reason,
        collection=index.current_collection(),
        seconds=0.0,
    )
    if unchanged:
        if files_dir:
            publish_files(plan.files, files_dir)
        report.calibration = _calibrated(index, embedder)
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    # A vector is reusable when its text is unchanged, even if the URL or metadata moved, and
    # the passage was read as it is now: in one window, or in windows cut the same way and kept.
    same_windows = previous.get("windows") == WINDOWS
    read = functools.cache(embedder.windows)  # a passage is cut into windows once, here or below
    by_text = {point.embedding_hash: (point.dense, point.windows) for point in stored.values()}
    reusable = {
        chunk.id: by_text[chunk.embedding_hash] for chunk in plan.chunks
        if chunk.embedding_hash in by_text
        and ((same_windows and by_text[chunk.embedding_hash][1] is not None)
             or len(read(chunk.header, chunk.text)) == 1)
    }
    # Similar lengths in a batch waste less padding: the PyTorch build about a third faster on
    # CPU (the default ONNX build embeds one text a run and pads nothing).
    to_embed = sorted(
        (chunk for chunk in plan.chunks if chunk.id not in reusable),
        key=lambda chunk: len(chunk.embedding_text),
    )
    readings = {chunk.id: read(chunk.header, chunk.text) for chunk in to_embed}
    fresh: dict[str, tuple[np.ndarray, WindowVectors | None]] = {}  # a passage's vector, its windows'
    for start in range(0, len(to_embed), EMBED_BATCH):
        batch = to_embed[start : start + EMBED_BATCH]
        texts = [reading.text for chunk in batch for reading in readings[chunk.id]]
        embedded = embedder.embed_documents(texts)
        if len(embedded) != len(texts):
            raise EmbeddingError(f"the embedding model gave {len(embedded)} vectors for {len(texts)} texts")
        vectors = iter(embedded)
        for chunk in batch:
            parts = readings[chunk.id]
            own = [next(vectors) for _ in parts]
            dense = np.asarray(pooled(own, [reading.word_pieces for reading in parts]), dtype=np.float32)
            windows = WindowVectors([(r.start, r.end) for r in parts], np.asarray(own, dtype=np.float32))
            fresh[chunk.id] = (dense, windows if len(parts) > 1 else None)
        if on_progress:
            on_progress(min(start + EMBED_BATCH, len(to_embed)), len(to_embed))

    vectors_of = reusable | fresh
    entries = [
        (chunk, pages[chunk.source_path], vectors_of[chunk.id][0], lexical.terms(chunk.embedding_text),
         vectors_of[chunk.id][1])
        for chunk in plan.chunks
    ]
    dimension = len(entries[0][2])
    report.collection = index.publish(
        entries,
        metadata={
            "embedder": embedder.name, "dimension": dimension, "book": book,
            "analyzer": lexical.ANALYZER, "pages": pages_digest, "windows": WINDOWS,
        },
        dimension=dimension,
    )
    if files_dir:
        publish_files(plan.files, files_dir)
    report.embedded = len(to_embed)
    report.reused = len(reusable)
    report.removed = len(set(stored) - set(wanted))
    report.calibration = _calibrated(index, embedder)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def write_whole(target: Path, data: bytes) -> None:
    """Writes a file so that a reader of it sees the old one or the new one, never half."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.part")
    partial.write_bytes(data)
    os.replace(partial, target)


def publish_files(files: dict[str, Path], folder: Path) -> None:
    """Makes `folder` hold exactly `files` (path in the book → original), each file replaced
    whole so that a reader never downloads half of one."""
    folder.mkdir(parents=True, exist_ok=True)
    for rel, source in files.items():
        target = folder / rel
        if not (target.is_file() and filecmp.cmp(source, target, shallow=False)):
            write_whole(target, source.read_bytes())
    for stale in [path for path in folder.rglob("*") if path.is_file()]:
        if stale.relative_to(folder).as_posix() not in files:
            stale.unlink()


def _calibrated(index: BookIndex, embedder: Embedder) -> Calibration:
    """The served build's calibration, measured and stored with it if it has none yet."""
    calibration = Retriever(index, embedder).calibration
    if index.metadata().get("calibration") != calibration.model_dump():
        index.add_metadata({"calibration": calibration.model_dump()})
    return calibration


def _page_source(path: Path, rel: str) -> str:
    """A page's markdown: the file, or a notebook's cells as markdown."""
    source = _read(path, rel)
    if path.suffix != ".ipynb":
        return source
    try:
        return notebook_markdown(source, rel)
    except NotebookError as exc:
        raise IngestError(str(exc)) from exc


def _read(path: Path, rel: str, html: bool = False) -> str:
    """The file's text: UTF-8, or for an `html` page the encoding its head declares (Vim's help
    pages say ISO-8859-1), as a browser reads it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{rel}: cannot read ({exc.strerror})") from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        declared = _DECLARED_CHARSET.search(data[:_HEAD_BYTES]) if html else None
        if declared is not None:
            try:
                return data.decode(declared.group(1).decode("ascii"))
            except (LookupError, UnicodeDecodeError):
                pass
        raise IngestError(f"{rel}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


# <meta charset="…"> or <meta http-equiv="Content-Type" content="text/html; charset=…">, which
# an HTML page must give within its first 1,024 bytes (the HTML standard's prescan)
_HEAD_BYTES = 1024
_DECLARED_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
