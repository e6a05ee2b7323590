"""PDF files → what they say: text per page from the text layer, sections from the outline
(bookmarks) or else from heading-like lines, running headers, footers and page numbers left out,
words hyphenated at line ends joined again.

Read with pypdfium2: PDFium (the PDF engine of Chromium) in a wheel with no other dependency.
Per character it gives the text, font size, font name and box, and it reads outlines; headings
and page furniture are found from those. It is many times faster than the pure-Python readers
built on pdfminer, which matters for books of hundreds of pages.

Every rule below reads the document itself: the body text size is the size most of its text is
set in, a heading is set larger (or bold and alone on its line; bold meaning a bold font or one
clearly heavier than the body's), furniture is a line at the top or bottom of the page that
repeats on many pages, a hyphen at a line end is dropped when the document spells the word
without it elsewhere.
"""

import ctypes
import hashlib
import logging
import multiprocessing
import os
import pickle
import re
import resource
import signal
import statistics
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from itertools import pairwise
from multiprocessing.connection import Connection
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from backend.retrieval.models import Page, PageKind
from ingest_scripts import markdown
from ingest_scripts.markdown import (
    Block,
    ParsedPage,
    chunks_of,
    group_sections,
    humanize,
    placed,
    titled_kind,
)

_HYPHENS = "-\u00ad\u0002\ufffe"  # a hyphen, a soft hyphen, PDFium's marks of a line-end hyphen
_NUMBERED = re.compile(r"([^\W\d_]+)\s+(?:\d+|[IVXLCDM]+|[A-Z])[.:)]?(?:\s|$)")
_PAGE_NUMBER = re.compile(
    r"\W*(?:page\s+)?(?:\d+|[ivxlcdm]+)(?:\s*(?:of|/)\s*\d+)?\W*", re.IGNORECASE
)
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+)*\.?\s+(?=[^\W\d])")  # "12.1. " of "12.1. Elements", "3 " of "3 Usage"
_LEADER = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")  # "Sensors ........ 12" in a table of contents
_BULLET = re.compile(r"[•◦▪▫‣⁃●○■□–-]\s|\d{1,3}[.)]\s|[a-z][.)]\s")
_FINISHED = re.compile(r"[.!?:;][\"')\]]*\s*$")  # a paragraph that ends its last sentence
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?:\s+|$)")
_WORD = re.compile(r"\w+(?:[-\u00ad\ufffe\u0002]\w+)*")
_FORCE_BOLD = 1 << 18  # PDF font descriptor flag
# A heading is set at least this much larger than the body (1.15× covers 10→11.5 pt, the
# smallest step typesetters use between body and a sub-heading) and is short.
HEADING_SIZE_RATIO = 1.15
HEADING_MAX_WORDS = 20
# Bold: a font PDFium weighs at 600 or more (CSS's semi-bold), or this much heavier than the body
# font. TeX's fonts give only their stem widths, which PDFium reads as weights: Computer Modern's
# bold extended is 1.65 times its roman (570 against 345), under 600; a medium weight is 1.25
# times a regular one and a semi-bold 1.5, and the ratio is set between the two.
BOLD_WEIGHT = 600
BOLDER_RATIO = 1.4
# Furniture repeats at a page edge on at least this share of pages (and on 2 pages at least).
FURNITURE_SHARE = 0.3
EDGE_LINES = 2  # lines at the top and at the bottom of a page that may be furniture
# A chapter's running head ("Chapter 2: Installing R 12") is furniture too, though no chapter
# fills 30% of the pages: it is the first (or the last) line of this many pages in a row, each
# this close to the one before (left and right pages alternate their heads).
RUNNING_HEAD_PAGES = 3
RUNNING_HEAD_STEP = 2
PARAGRAPH_GAP = 1.45  # a gap between lines larger than this many typical line steps: new block


@dataclass(frozen=True)
class PdfLimits:
    """What reading one document may cost. A book of a thousand pages reads in well under a
    minute and 200 MiB; its table of contents has a few thousand entries."""

    memory_mib: int = 768  # beyond what the reading process holds before it opens the file
    cpu_seconds: int = 120
    pages: int = 10_000
    outline_entries: int = 5_000  # a deeper outline is read to the levels that fit


class PdfError(ValueError):
    """A PDF that cannot be read; the message names the file and says what to do."""


@dataclass
class Line:
    page: int  # 1-based
    text: str
    size: float
    weights: dict[int, int]  # PDFium's font weight → how many of its characters are set at it
    first_weight: int
    bold_first: bool  # its first character is in a font named or flagged bold
    top: float  # baseline of its first character (the previous line is above it)
    last_top: float  # baseline of its last character (PDFium joins two lines broken at a hyphen)
    heading: int = 0  # heading level once known (1 = the document's top level)
    bold: bool = False  # once the body's weight is known (`_mark_bold`)


@dataclass
class PdfFile:
    title: str  # the document's metadata title, else "" (the caller names it after the file)
    blocks: list[Block]  # offsets in the document's text (its blocks joined by blank lines)
    scanned_pages: list[int] = field(default_factory=list)  # pages with images and no text
    has_outline: bool = False


def read_pdf(path: Path, name: str, limits: PdfLimits = PdfLimits()) -> PdfFile:
    """The document's text as heading and paragraph blocks, each with its page number.

    PDF streams are compressed (Flate reaches about 1000:1), so a small file can ask for
    gigabytes, and a crafted one for hours of CPU. The document is read in a child process of
    its own, at low priority, held to `limits`:
    a runaway document fails alone with a clear message, and the caller's memory and the
    readers it serves are untouched."""
    _check_complete(path, name)
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_read_in_child, args=(sender, path, name, limits), daemon=True)
    child.start()
    sender.close()
    outcome: PdfFile | str | None = None
    try:
        if receiver.poll(limits.cpu_seconds * 2):  # data, or the end of a child that died
            outcome = receiver.recv()
    except EOFError:
        pass
    finally:
        receiver.close()
        child.kill()
        child.join()
    if isinstance(outcome, PdfFile):
        return outcome
    if isinstance(outcome, str):
        raise PdfError(outcome)
    if child.exitcode in (-signal.SIGXCPU, -signal.SIGKILL) or outcome is None and child.exitcode is None:
        raise PdfError(f"{name}: reading it takes more than {limits.cpu_seconds} s of CPU; re-export the PDF")
    if child.exitcode == -signal.SIGABRT:  # PDFium's C++ aborts when an allocation fails at the limit
        raise PdfError(_too_large(name, limits))
    ended = signal.Signals(-child.exitcode).name if child.exitcode and child.exitcode < 0 else f"status {child.exitcode}"
    raise PdfError(f"{name}: the PDF reader crashed on it ({ended}); re-export the PDF and try again")


class PdfCache:
    """What reading each document gave (its text, or why it cannot be read), kept in `folder` by
    the document's bytes: re-indexing a book after one upload reads only the new file, and a
    refused document is not read again. One folder per book; `forget_unused` after reading all of
    the book's documents drops what they no longer hold."""

    def __init__(self, folder: Path, limits: PdfLimits = PdfLimits()):
        self.folder = folder
        self.limits = limits
        self._used: set[str] = set()

    def read(self, path: Path, name: str) -> PdfFile:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise PdfError(f"{name}: cannot read ({exc.strerror})") from None
        key = hashlib.sha256(_reader() + repr(self.limits).encode() + data).hexdigest()
        entry = self.folder / f"{key}.pickle"
        self._used.add(entry.name)
        try:  # written by this class only, in the service's own data folder
            outcome = pickle.loads(entry.read_bytes())
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError):
            try:
                outcome = read_pdf(path, name, self.limits)
            except PdfError as exc:
                outcome = str(exc)
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = entry.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(outcome))
            partial.replace(entry)
        if isinstance(outcome, str):
            raise PdfError(outcome)
        return outcome

    def forget_unused(self) -> None:
        if self.folder.is_dir():
            for entry in self.folder.iterdir():
                if entry.name not in self._used:
                    entry.unlink(missing_ok=True)


@cache
def _reader() -> bytes:
    """What a cached reading depends on besides the document: this reader and the blocks it
    makes (read when a cache is first used, not when the module is imported)."""
    return hashlib.sha256(
        Path(__file__).read_bytes() + Path(markdown.__file__).read_bytes() + version("pypdfium2").encode()
    ).digest()


def _too_large(name: str, limits: PdfLimits) -> str:
    return (f"{name}: reading it needs more than {limits.memory_mib} MiB of memory (its compressed "
            "streams expand enormously); re-export the PDF")


def _read_in_child(sender: Connection, path: Path, name: str, limits: PdfLimits) -> None:
    os.nice(10)
    memory = _address_space() + limits.memory_mib * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    seconds = int(usage.ru_utime + usage.ru_stime) + limits.cpu_seconds
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a limit reached is not a crash to keep
    outcome: PdfFile | str
    try:
        outcome = _read(path, name, limits)
    except PdfError as exc:
        outcome = str(exc)
    except MemoryError:
        outcome = _too_large(name, limits)
    except Exception as exc:  # the child's whole job is to return an outcome; the log keeps the trace
        logging.getLogger(__name__).exception("reading %s failed", name)
        outcome = f"{name}: the PDF reader failed on it ({type(exc).__name__}); re-export the PDF and try again"
    sender.send(outcome)
    sender.close()


def _address_space() -> int:
    """This process's virtual memory size in bytes (what RLIMIT_AS counts)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


def _read(path: Path, name: str, limits: PdfLimits) -> PdfFile:
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        reason = str(exc).lower()
        if "password" in reason or "security" in reason:
            raise PdfError(f"{name}: the PDF is encrypted; save an unprotected copy and ingest that") from None
        raise PdfError(f"{name}: not a readable PDF ({exc}); re-export it and try again") from None
    try:
        page_count = len(document)
        if page_count > limits.pages:
            raise PdfError(f"{name}: {page_count:,} pages; a PDF of at most {limits.pages:,} pages is read. Split it")
        title = str(document.get_metadata_dict().get("Title") or "").strip()
        lines: list[Line] = []
        scanned: list[int] = []
        for index in range(page_count):
            page = document[index]
            page_lines = _lines(page, index + 1)
            if not page_lines and _has_images(page):  # no text layer: a scanned page
                scanned.append(index + 1)
            lines.extend(page_lines)
        outline = _outline(document, limits.outline_entries)
    except pdfium.PdfiumError as exc:
        raise PdfError(f"{name}: a page cannot be read ({exc}); re-export the PDF") from None
    finally:
        document.close()
    lines = _without_furniture(lines, page_count)
    body = _body_size(lines)
    if outline:
        lines = _mark_outline_headings(lines, outline)
    else:
        _mark_bold(lines)
        _mark_heading_lines(lines, body)
    vocabulary = _vocabulary(lines)
    blocks = _across_page_breaks(_blocks(lines, vocabulary), vocabulary)
    return PdfFile(title, placed(blocks), scanned, bool(outline))


def _check_complete(path: Path, name: str) -> None:
    """A PDF ends with `%%EOF` (readers look for it in the last kilobyte); a file cut short by a
    failed download or copy does not, and PDFium would quietly read what is left."""
    try:
        with path.open("rb") as file:
            head = file.read(5)
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - 1024))
            tail = file.read()
    except OSError as exc:
        raise PdfError(f"{name}: cannot read ({exc.strerror})") from None
    if head != b"%PDF-":
        raise PdfError(f"{name}: not a PDF file (it does not start with %PDF-)")
    if b"%%EOF" not in tail:
        raise PdfError(f"{name}: the file is truncated (no end-of-file marker); copy or download it again")


def _lines(page: pdfium.PdfPage, number: int) -> list[Line]:
    textpage = page.get_textpage()
    count = textpage.count_chars()
    text = textpage.get_text_range() if count else ""
    if len(text) != count:  # characters outside the Basic Plane: read one by one
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i)) for i in range(count))
    lines: list[Line] = []
    start = 0
    for end in [m.start() for m in re.finditer(r"\r\n|\r|\n", text)] + [count]:
        if end > start:
            lines.append(_line(textpage, number, text, start, end))
        start = end + (2 if text[end : end + 2] == "\r\n" else 1)
    return [line for line in lines if line.text.strip()]


def _line(textpage: pdfium.PdfTextPage, number: int, text: str, start: int, end: int) -> Line:
    shown = [i for i in range(start, end) if not text[i].isspace()]
    sizes = [pdfium_c.FPDFText_GetFontSize(textpage, i) for i in shown]
    weights = [pdfium_c.FPDFText_GetFontWeight(textpage, i) for i in shown]
    first = shown[0] if shown else start
    last = shown[-1] if shown else first
    return Line(
        page=number,
        text="".join(ch for ch in text[start:end] if ch.isprintable() or ch in _HYPHENS).strip(),
        size=round(statistics.median(sizes), 1) if sizes else 0.0,
        weights=dict(Counter(weights)),
        first_weight=weights[0] if weights else 0,
        bold_first=_in_bold_font(textpage, first),
        top=_baseline(textpage, first),
        last_top=_baseline(textpage, last),
    )


def _baseline(textpage: pdfium.PdfTextPage, index: int) -> float:
    x, y = ctypes.c_double(), ctypes.c_double()
    pdfium_c.FPDFText_GetCharOrigin(textpage, index, ctypes.byref(x), ctypes.byref(y))
    return y.value


def _in_bold_font(textpage: pdfium.PdfTextPage, index: int) -> bool:
    name = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(textpage, index, name, len(name), ctypes.byref(flags))
    font = name.value.decode("latin-1").lower()
    return "bold" in font or "black" in font or "heavy" in font or bool(flags.value & _FORCE_BOLD)


def _has_images(page: pdfium.PdfPage) -> bool:
    return any(True for _ in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,)))


@dataclass
class _OutlineItem:
    level: int  # 1 = the outline's top level
    title: str
    page: int  # 1-based
    top: float | None  # where on the page it points, when the outline says


def _outline(document: pdfium.PdfDocument, most: int) -> list[_OutlineItem]:
    """The outline's entries; of an outline of more than `most`, its top levels that hold at
    most that many (none if its top level alone holds more)."""
    items = []
    for bookmark in document.get_toc():
        destination = bookmark.get_dest()
        title = (bookmark.get_title() or "").strip()
        if destination is None or not title or destination.get_index() is None:
            continue
        _, position = destination.get_view()
        top = position[1] if len(position) > 1 and position[1] else None
        items.append(_OutlineItem(bookmark.level + 1, title, destination.get_index() + 1, top))
    while len(items) > most:
        deepest = max(item.level for item in items)
        items = [item for item in items if item.level < deepest]
    return items


def _key(text: str) -> str:
    """A line as furniture repeats it: page numbers and case aside."""
    return re.sub(r"\d+", "#", text.casefold()).strip()


def _without_furniture(lines: list[Line], page_count: int) -> list[Line]:
    """Leaves out running headers and footers (the same line at the top or bottom of many pages,
    or of pages in a row) and page numbers (a number alone at the top or bottom of a page)."""
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    edges: dict[int, list[Line]] = {}
    heads_on: dict[tuple[str, bool], list[int]] = defaultdict(list)  # a page's first or last line → pages
    for number, page_lines in sorted(by_page.items()):
        ordered = sorted(page_lines, key=lambda line: -line.top)
        edges[number] = ordered[:EDGE_LINES] + ordered[-EDGE_LINES:]
        for line, on_top in ((ordered[0], True), (ordered[-1], False)):
            heads_on[_key(line.text), on_top].append(number)
    repeats = Counter(key for page_lines in edges.values() for key in {_key(line.text) for line in page_lines})
    least = max(2, FURNITURE_SHARE * page_count)
    running = {key for (key, _), pages in heads_on.items() if _runs_on(pages)}
    furniture = {
        id(line)
        for page_lines in edges.values()
        for line in page_lines
        if (key := _key(line.text)) in running or repeats[key] >= least or _PAGE_NUMBER.fullmatch(line.text)
    }
    return [line for line in lines if id(line) not in furniture]


def _runs_on(pages: list[int]) -> bool:
    """Whether a page's first (or last) line comes back as a chapter's running head does: on
    RUNNING_HEAD_PAGES pages or more in a row, each within RUNNING_HEAD_STEP pages of the one
    before (a head on left pages only comes back every other page)."""
    run = 1
    for before, after in pairwise(pages):
        run = run + 1 if after - before <= RUNNING_HEAD_STEP else 1
        if run >= RUNNING_HEAD_PAGES:
            return True
    return False


def _body_size(lines: list[Line]) -> float:
    """The size most of the document's characters are set in."""
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _mark_bold(lines: list[Line]) -> None:
    """A line is bold when it starts in a font named or flagged bold, heavy, or clearly heavier
    than the body's (the weight most of the document's characters are set at)."""
    weights: Counter[int] = Counter()
    for line in lines:
        weights.update(line.weights)
    body = weights.most_common(1)[0][0] if weights else 0
    for line in lines:
        line.bold = line.bold_first or line.first_weight >= BOLD_WEIGHT or (
            body > 0 and line.first_weight >= body * BOLDER_RATIO)


def _normal(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def _mark_outline_headings(lines: list[Line], outline: list[_OutlineItem]) -> list[Line]:
    """Each outline entry marks the lines on its page that spell its title, after a section number
    the outline may leave out (nearest to where it points); an entry whose title is not on the
    page gets a heading line of its own there. The lines with those added; the cost grows with
    entries times the lines of their pages."""
    by_page = _by_page(lines)
    spelled = [_normal(line.text) for line in lines]
    unnumbered = [_normal(_without_section_number(line.text)) for line in lines]
    pages = [line.page for line in lines]  # in page order
    added: dict[int, list[Line]] = defaultdict(list)  # line index → heading lines to go before it
    for item in outline:
        wanted = _normal(item.title)
        on_page = [i for i in by_page.get(item.page, []) if not lines[i].heading]
        candidates: list[tuple[float, int, int]] = []
        for position, first in enumerate(on_page):
            # the title as printed, or after the section number the outline leaves out
            for opening in dict.fromkeys((spelled[first], unnumbered[first])):
                joined = opening
                for last in on_page[position : position + 4]:  # a title may wrap over a few lines
                    if last != first:
                        joined += spelled[last]
                    if joined == wanted:
                        distance = abs(lines[first].top - item.top) if item.top is not None else 0.0
                        candidates.append((distance, first, last))
                        break
                    if not wanted.startswith(joined):
                        break
        if candidates:
            _, first, last = min(candidates)
            for i in range(first, last + 1):
                lines[i].heading = item.level
            continue
        before = next(
            (i for i in on_page if item.top is None or lines[i].top <= item.top + 1),
            on_page[-1] + 1 if on_page else bisect_right(pages, item.page),
        )
        top = item.top or 0.0
        added[before].append(Line(page=item.page, text=item.title, size=0.0, weights={}, first_weight=0,
                                   bold_first=True, top=top, last_top=top, heading=item.level, bold=True))
    merged: list[Line] = []
    for i, line in enumerate(lines):
        merged += added.get(i, [])
        merged.append(line)
    return merged + added.get(len(lines), [])


def _without_section_number(text: str) -> str:
    number = _SECTION_NUMBER.match(text)
    return text[number.end():] if number else text


def _by_page(lines: list[Line]) -> dict[int, list[int]]:
    indexes: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        indexes.setdefault(line.page, []).append(i)
    return indexes


def _mark_heading_lines(lines: list[Line], body: float) -> None:
    """Without an outline: short lines set larger than the body, or bold at body size and alone
    on their line, are headings, the largest size being the top level. A line that ends as a
    sentence or a clause does is not, unless it starts with a section number: some styles end
    their titles with a period ("12.1. Elements.", plain TeX's)."""
    def looks_like_heading(i: int) -> bool:
        line = lines[i]
        words = len(line.text.split())
        ends = (",", ";", ":") if _SECTION_NUMBER.match(line.text) else (".", ",", ";", ":")
        if not line.text[0].isalnum() or words > HEADING_MAX_WORDS or line.text.endswith(ends):
            return False
        if line.size >= body * HEADING_SIZE_RATIO:
            return True
        alone = all(
            not (0 <= j < len(lines)) or lines[j].page != line.page or lines[j].bold != line.bold
            for j in (i - 1, i + 1)
        )
        return line.bold and line.size >= body and alone

    chosen = [i for i in range(len(lines)) if looks_like_heading(i)]
    sizes = sorted({lines[i].size for i in chosen if lines[i].size >= body * HEADING_SIZE_RATIO}, reverse=True)
    for i in chosen:
        line = lines[i]
        line.heading = sizes.index(line.size) + 1 if line.size in sizes else len(sizes) + 1


def _vocabulary(lines: list[Line]) -> set[str]:
    """The words the document spells within a line, to tell `data-` + `base` (database) from
    `publish-` + `subscribe` (publish-subscribe) at a line end."""
    return {word.casefold() for line in lines for word in _WORD.findall(line.text.replace("\ufffe", "\x00"))}


def _joined(left: str, right: str, vocabulary: set[str]) -> str:
    """Two parts of a line broken after a hyphen: the word as the document spells it
    elsewhere; a word it never spells either way keeps its hyphen only if the part after it
    starts with a capital or a digit (a compound such as `ROS-Industrial`)."""
    head = re.search(r"\w+$", left)
    tail = re.match(r"\w+", right)
    if not head or not tail:
        return f"{left}-{right}"
    solid = (head.group() + tail.group()).casefold()
    hyphenated = f"{head.group()}-{tail.group()}".casefold()
    if solid in vocabulary:
        return left + right
    if hyphenated in vocabulary or not tail.group()[0].islower():
        return f"{left}-{right}"
    return left + right


def _rejoin_inline(text: str, vocabulary: set[str]) -> str:
    """PDFium joins a line broken after a hyphen itself and marks the hyphen with U+FFFE."""
    while "\ufffe" in text:
        left, right = text.split("\ufffe", 1)
        text = _joined(left, right, vocabulary)
    return text.replace("\u00ad", "").replace("\u0002", "")


def _blocks(lines: list[Line], vocabulary: set[str]) -> list[Block]:
    """Headings, and paragraphs of lines that follow each other on a page at the usual step."""
    # The line step inside a paragraph is the document's smallest regular step (paragraphs are
    # set further apart, never closer): its 10th percentile, lines closer than 0.8 of their size
    # (superscripts, overlapping runs) aside.
    steps = sorted(
        previous.last_top - line.top
        for previous, line in pairwise(lines)
        if previous.page == line.page and not previous.heading and not line.heading
        and 0.8 * line.size < previous.last_top - line.top < 3 * max(line.size, 1)
    )
    step = steps[len(steps) // 10] if steps else 0.0
    blocks: list[Block] = []
    paragraph: list[Line] = []

    def close() -> None:
        if paragraph:
            text = _rejoin_inline(_paragraph_text(paragraph, vocabulary), vocabulary)
            if text.strip():
                blocks.append(Block("text", 0, 0, text.strip(), page=paragraph[0].page))
            paragraph.clear()

    heading: list[Line] = []  # the lines of a heading set over several lines

    def close_heading() -> None:
        if heading:
            text = " ".join(h.text for h in heading)
            blocks.append(Block("heading", 0, 0, text, heading[0].heading, page=heading[0].page))
            heading.clear()

    for line in lines:
        if heading and not (line.heading == heading[-1].heading and line.page == heading[-1].page):
            close_heading()
        if line.heading:
            close()
            heading.append(line)
            continue
        if _LEADER.search(line.text) and not paragraph:  # a line of a table of contents
            continue
        if paragraph:
            previous = paragraph[-1]
            gap = previous.last_top - line.top
            # A block stays on one page, so that each passage knows its page.
            if (
                line.page != previous.page
                or gap <= 0  # the next column
                or (step and gap > PARAGRAPH_GAP * step)
                or abs(line.size - previous.size) > 0.6
            ):
                close()
        paragraph.append(line)
    close_heading()
    close()
    return blocks


def _across_page_breaks(blocks: list[Block], vocabulary: set[str]) -> list[Block]:
    """A sentence a page break cuts in two (the paragraph ends unfinished, the next page goes on
    in lower case) made whole again, on the page that holds most of it: a block stays on one
    page, and half a sentence on each would answer nothing and be quoted as two fragments."""
    out: list[Block] = []
    for block in blocks:
        before = out[-1] if out else None
        if not (
            before and before.kind == block.kind == "text" and block.page > before.page
            and not _FINISHED.search(before.text) and block.text[:1].islower()
        ):
            out.append(block)
            continue
        ends = list(_SENTENCE_END.finditer(before.text))
        cut = ends[-1].end() if ends else 0  # the unfinished sentence's start
        rest = _SENTENCE_END.search(block.text)
        end = rest.end() if rest else len(block.text)  # where it finishes on the next page
        tail, head = before.text[cut:], block.text[:end].rstrip()
        if before.text[-1] in _HYPHENS and before.text[-2:-1].isalpha():
            sentence = _joined(tail[:-1], head, vocabulary)
        else:
            sentence = f"{tail} {head}"
        if len(tail) <= len(head):
            texts = before.text[:cut].rstrip(), f"{sentence} {block.text[end:].lstrip()}".strip()
        else:
            texts = f"{before.text[:cut]}{sentence}".strip(), block.text[end:].strip()
        out.pop()  # an emptied block goes, so a sentence over two breaks is joined again
        pages = (before.page, block.page)
        out += [Block("text", 0, 0, text, page=page) for text, page in zip(texts, pages, strict=True) if text]
    return out


def _paragraph_text(lines: list[Line], vocabulary: set[str]) -> str:
    text = lines[0].text
    for line in lines[1:]:
        if text and text[-1] in _HYPHENS and len(text) > 1 and text[-2].isalpha() and line.text[:1].isalpha():
            text = _joined(text[:-1], line.text, vocabulary)
        elif _BULLET.match(line.text):
            text += "\n" + line.text
        else:
            text += " " + line.text
    return text


def chunk_pdf(pdf: PdfFile, source_path: str, *, book: str, module: str, url: str) -> list[ParsedPage]:
    """The document's pages as Lectern pages: one per chapter when its top level (below a single
    title entry) has two headings or more, else one for the whole document. A chapter's page is
    `{file}#{n}`, titled after its heading, in the module named after the document, or after
    the part it is in (see _parts); a document without chapters is one page titled after itself,
    in `module`. `url` opens the file."""
    title = pdf.title or humanize(source_path)
    headings = Counter(block.level for block in pdf.blocks if block.kind == "heading")
    chapter_level = next((level for level in sorted(headings) if headings[level] >= 2), None)
    if chapter_level is None:
        above = min(headings, default=1) - 1
        return [_parsed(pdf.blocks, source_path, source_path, title, module, book, url, above, titled_kind(title))]
    parts = _parts(pdf.blocks, chapter_level)
    # (title, module, level of its heading, blocks) of each chapter, and of each part's own opening
    chapters: list[tuple[str, str, int, list[Block]]] = [(title, title, chapter_level, [])]
    part = ""
    for block in pdf.blocks:
        if block.kind == "heading" and block.level < chapter_level:
            continue  # the document's own title: its chapters say more
        if block.kind == "heading" and block.level == chapter_level:
            part = block.text if block.text in parts else ""
            chapters.append((block.text, part or title, chapter_level, [block]))
        elif block.kind == "heading" and part and block.level == chapter_level + 1:
            chapters.append((block.text, part, chapter_level + 1, [block]))
        else:
            chapters[-1][3].append(block)
    pages: list[ParsedPage] = []
    for number, (chapter, in_module, level, blocks) in enumerate(chapters):
        if not any(block.kind == "text" for block in blocks):
            continue
        key = f"{source_path}#{number:03d}"
        kind = titled_kind(chapter)
        pages.append(_parsed(blocks, key, key, chapter, in_module, book, url, level, kind))
    return pages


def _parts(blocks: list[Block], chapter_level: int) -> set[str]:
    """The top-level headings that are parts of the book, not chapters: those labelled as a
    top-level heading is whose entries are mostly chapters, two or more, labelled as other
    top-level headings are ("Part I. The Basic Knowledge" over "Chapter 2. The Basics" and
    "Chapter 3. …", where "Chapter 1. Overview" is top-level too; "Part IV. Appendices" is a part
    by its label). A part's chapters are pages in the part's module, as a site's pages are in
    their folder's."""
    top: list[tuple[str, list[str]]] = []
    for block in blocks:
        if block.kind == "heading" and block.level == chapter_level:
            top.append((block.text, []))
        elif block.kind == "heading" and block.level == chapter_level + 1 and top:
            top[-1][1].append(block.text)
    chapter_labels = {_label(heading) for heading, _ in top} - {None}

    def holds_chapters(heading: str, below: list[str]) -> bool:
        chapters = [child for child in below if _label(child) in chapter_labels - {_label(heading)}]
        return len(chapters) >= 2 and 2 * len(chapters) > len(below)

    part_labels = {_label(heading) for heading, below in top if holds_chapters(heading, below)}
    part_labels.discard(None)
    return {heading for heading, _ in top if _label(heading) in part_labels}


def _label(heading: str) -> str | None:
    """The word a numbered heading opens with ("Chapter 2. The Basics" → "chapter", "Part IV"
    → "part"), None for one that is not numbered."""
    found = _NUMBERED.match(heading.strip())
    return found.group(1).casefold() if found else None


def _parsed(
    blocks: list[Block], source_path: str, lesson_id: str, title: str, module: str, book: str,
    url: str, above: int, kind: PageKind,
) -> ParsedPage:
    """One Lectern page of a PDF: headings `above` levels deep become its sections (the one at
    level `above` is its title)."""
    first_page = next((block.page for block in blocks if block.page), 1)
    record = Page(
        book=book,
        lesson_id=lesson_id,
        source_path=source_path,
        title=title,
        module=module,
        url=f"{url}?page={first_page}",
        kind=kind,
    )
    relevelled = [
        Block(b.kind, b.start, b.end, b.text, max(1, b.level - above + 1), page=b.page)
        if b.kind == "heading" else b
        for b in blocks
    ]
    chunks = chunks_of(group_sections(relevelled), record)
    for chunk in chunks:  # the page of each citation is added when it is cited
        chunk.url = url
    return ParsedPage(record, chunks, 0)

