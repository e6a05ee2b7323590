"""Real PDFs for tests, made with fpdf2: a handbook with a two-level outline, a running header, a
page-number footer and words broken at line ends; the same without an outline; a two-column
page; a scanned (image-only) page; an encrypted file; a report set as plain TeX sets one, in
Computer Modern with numbered titles. Each maker returns where it put each
paragraph (its first words → page) so tests check pages against the source."""

import struct
import zlib
from pathlib import Path

import matplotlib
from fontTools.ttLib import TTFont
from fpdf import FPDF
from PIL import Image

HEADER = "Acme Flood Policy Handbook - Confidential"
CHAPTERS = {
    "Coverage": {
        "Flood Damage": [
            "Flood damage is covered when water enters the insured building from outside after heavy rain or a river overflow.",
            "The insurer pays for drying, cleaning and replacing damaged floors up to the limit stated in the schedule.",
        ],
        "Storm Damage": [
            "Storm damage to roofs and windows is covered when wind speeds exceed ninety kilometres per hour at the nearest station.",
        ],
    },
    "Exclusions": {
        "Gradual Leaks": [
            "Damage from gradual leaks that the owner could have noticed is excluded, such as a dripping pipe behind a wall.",
        ],
        "Mould": [
            "Mould is excluded unless it follows a covered flood and is reported within thirty days of the water entering.",
        ],
    },
    "Claims": {
        "Making a Claim": [
            "A claim is made by calling the claims line within fourteen days and sending photographs of every damaged room.",
        ],
        "Settlement": [
            "Settlement is paid within twenty working days once the loss adjuster has approved the documented loss.",
        ],
    },
}
# Broken at line ends on purpose: a word the handbook also spells whole ("documented") and a
# compound it also spells with its hyphen ("loss-adjuster").
BROKEN_LINES = [
    "Every claim must be properly docu-",
    "mented before the adjuster visits, and the loss-",
    "adjuster report names the loss-adjuster who signed it.",
]


class _Handbook(FPDF):
    def __init__(self, furniture: bool):
        super().__init__(format="A4")
        self.furniture = furniture
        self.set_auto_page_break(True, margin=25)

    def header(self) -> None:
        if self.furniture:
            self.set_font("helvetica", size=8)
            self.cell(0, 8, HEADER, align="C")
            self.ln(12)

    def footer(self) -> None:
        if self.furniture:
            self.set_y(-15)
            self.set_font("helvetica", size=8)
            self.cell(0, 10, f"Page {self.page_no()} of {{nb}}", align="C")


def handbook(path: Path, outline: bool = True, furniture: bool = True, numbered: bool = False) -> dict[str, int]:
    """Three chapters on their own pages, two sections each; `numbered` prints each title after
    its number ("1.2 Storm Damage") where the outline has the title alone, as Sphinx's LaTeX
    does. Returns paragraph → page."""
    pdf = _Handbook(furniture)
    pdf.set_title("Acme Flood Policy Handbook")
    placed: dict[str, int] = {}
    for number, (chapter, sections) in enumerate(CHAPTERS.items(), start=1):
        pdf.add_page()
        pdf.set_font("helvetica", "B", 20)
        if outline:
            pdf.start_section(chapter, level=0)
        pdf.cell(0, 12, f"{number} {chapter}" if numbered else chapter)
        pdf.ln(16)
        for sub, (section, paragraphs) in enumerate(sections.items(), start=1):
            pdf.set_font("helvetica", "B", 14)
            if outline:
                pdf.start_section(section, level=1)
            pdf.cell(0, 9, f"{number}.{sub} {section}" if numbered else section)
            pdf.ln(11)
            pdf.set_font("helvetica", size=11)
            for paragraph in paragraphs:
                for _ in range(6):  # long enough that sections run on to later pages
                    placed.setdefault(paragraph, pdf.page_no())
                    pdf.multi_cell(0, 6, paragraph)
                    pdf.ln(3)
        if chapter == "Claims":
            for line in BROKEN_LINES:
                pdf.cell(0, 6, line)
                pdf.ln(6)
    pdf.output(str(path))
    return placed


class _Manual(FPDF):
    """Each page headed by its chapter's running head, as LaTeX's book class heads its pages."""

    chapter = ""

    def header(self) -> None:
        if self.chapter:
            self.set_font("helvetica", size=9)
            self.cell(0, 8, f"{self.chapter} {self.page_no()}", align="R")
            self.ln(12)


def chapter_heads(path: Path) -> None:
    """Four chapters of three pages each, every page headed "Chapter N: Title" and its number:
    each head is on a quarter of the pages, fewer than a running header of the whole book."""
    pdf = _Manual(format="A4")
    for number, chapter in enumerate(["Pumps", "Valves", "Seals", "Gauges"], start=1):
        pdf.chapter = f"Chapter {number}: {chapter}"
        for check in ("are checked every spring by the duty engineer.",
                      "that fail the check are replaced before the summer.",
                      "are logged in the station book with the date of the check."):
            pdf.add_page()
            pdf.set_font("helvetica", size=11)
            pdf.multi_cell(0, 6, f"{chapter} {check}")
    pdf.output(str(path))


RUNNING_ON = [
    f"Pump {n} is inspected every {n + 2} weeks by the duty engineer, who checks the seals, the "
    f"bearings and the intake screen, and writes the readings of gauge {n} in the station logbook."
    for n in range(1, 31)
]
RUNNING_ON_TAIL = "Keep the logbook dry."


def running_on(path: Path) -> dict[str, int]:
    """One titled section whose paragraphs (RUNNING_ON) run over several pages, and a last page
    holding one short line (RUNNING_ON_TAIL). Returns paragraph → the page it starts on."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=25)
    pdf.add_page()
    pdf.set_font("helvetica", "B", 20)
    pdf.cell(0, 12, "Station Maintenance")
    pdf.ln(16)
    pdf.set_font("helvetica", size=11)
    placed: dict[str, int] = {}
    for paragraph in RUNNING_ON:
        placed[paragraph] = pdf.page_no()
        pdf.multi_cell(0, 6, paragraph)
        pdf.ln(3)
    pdf.add_page()
    placed[RUNNING_ON_TAIL] = pdf.page_no()
    pdf.cell(0, 6, RUNNING_ON_TAIL)
    pdf.output(str(path))
    return placed


def two_columns(path: Path) -> list[str]:
    """One page of two columns; returns the paragraphs in reading order."""
    paragraphs = [
        f"Column paragraph {n}: the pump station moves {n * 100} litres a minute through the main intake."
        for n in range(1, 41)
    ]
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 18)
    pdf.cell(0, 12, "Pump Stations")
    pdf.ln(16)
    pdf.set_font("helvetica", size=11)
    with pdf.text_columns(ncols=2, gutter=10) as columns:
        for paragraph in paragraphs:
            columns.write(paragraph)
            columns.ln()
            columns.ln()
    pdf.output(str(path))
    return paragraphs


# A book in parts, as a typeset manual is: a chapter before the first part, then parts whose
# entries in the outline are chapters (with sections of their own) and, in the last part,
# appendices. Each entry: (outline level, title, text or None).
PARTED = [
    (0, "Chapter 1. Welcome", "This manual explains how the station pumps and cleans water."),
    (1, "About This Manual", "Each part covers one stage of the plant, from intake to upkeep."),
    (0, "Part I. Basics", "This part introduces the machines of the plant."),
    (1, "Chapter 2. Pumps", None),
    (2, "Pump Types", "A centrifugal pump moves water with a spinning impeller."),
    (2, "Pump Sizes", "A small pump moves two hundred litres a minute."),
    (1, "Chapter 3. Valves", None),
    (2, "Valve Types", "A gate valve opens fully so that water flows without resistance."),
    (0, "Part II. Appendices", "Reference material for the operators."),
    (1, "Appendix A. Glossary", None),
    (2, "Terms", "An impeller is the rotating part of a centrifugal pump."),
]


def parted(path: Path) -> None:
    pdf = FPDF(format="A4")
    pdf.set_title("Station Manual")
    for level, title, text in PARTED:
        if level < 2:
            pdf.add_page()
        pdf.set_font("helvetica", "B", 20 - 3 * level)
        pdf.start_section(title, level=level)
        pdf.cell(0, 10, title)
        pdf.ln(14)
        if text:
            pdf.set_font("helvetica", size=11)
            for _ in range(3):
                pdf.multi_cell(0, 6, text)
                pdf.ln(2)
    pdf.output(str(path))


# Numbered titles that end with a period, as plain TeX sets them: (its size, the title, its paragraph).
TEX_SECTIONS = [
    (12, "1. Pumps.", "The station has two centrifugal pumps that move water from the intake to the filters."),
    (10, "1.1. Starting a pump.", "A pump is started only after its suction valve has been opened fully."),
    (10, "1.2. Stopping a pump.", "A pump is stopped by closing its discharge valve before switching off the motor."),
    (12, "2. Filters.", "Sand filters remove the particles that settling leaves in the water."),
    (10, "2.1. Backwashing.", "A filter is backwashed when the pressure across it rises above half a bar."),
]


def _computer_modern(folder: Path, name: str, weight_class: int) -> str:
    """One of Computer Modern's faces (as matplotlib ships them) made to declare the weight from
    which fpdf2 writes the stem width TeX's own fonts give: 69 for the roman, 114 for the bold
    extended, which PDFium reads as weights 345 and 570."""
    font = TTFont(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / f"{name}.ttf")
    font["OS/2"].usWeightClass = weight_class
    path = folder / f"{name}.ttf"
    font.save(path)
    return str(path)


def tex_styled(path: Path) -> None:
    """A report with no outline whose titles are set in Computer Modern's bold at the body's
    size (the top ones a size larger), its text in the roman: neither face is named or
    flagged bold, and the bold one is heavier than the roman but under PDFium's 600."""
    pdf = FPDF(format="A4")
    pdf.add_font("roman", fname=_computer_modern(path.parent, "cmr10", 285))
    pdf.add_font("bold", fname=_computer_modern(path.parent, "cmb10", 520))
    pdf.add_page()
    for size, title, paragraph in TEX_SECTIONS:
        pdf.set_font("bold", size=size)
        pdf.cell(0, 8, title)
        pdf.ln(10)
        pdf.set_font("roman", size=10)
        for _ in range(3):
            pdf.multi_cell(0, 5, paragraph)
            pdf.ln(2)
    pdf.output(str(path))


def with_scanned_page(path: Path, image_dir: Path) -> None:
    """Page 1 has text; page 2 is only a picture of text (no text layer)."""
    picture = image_dir / "scan.png"
    Image.new("RGB", (600, 800), "white").save(picture)
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, "This page has a text layer that says the boiler is serviced every spring.")
    pdf.add_page()
    pdf.image(str(picture), x=10, y=10, w=180)
    pdf.output(str(path))


def encrypted(path: Path) -> None:
    pdf = FPDF(format="A4")
    pdf.set_encryption(owner_password="owner", user_password="reader")
    pdf.add_page()
    pdf.set_font("helvetica", size=11)
    pdf.multi_cell(0, 6, "Secret terms of the policy.")
    pdf.output(str(path))


def truncated(path: Path, source: Path) -> None:
    data = source.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# Two sentences cut by a page break, as a typesetter leaves them: (the last lines of a page, the
# first lines of the next). The first is mostly on the next page, the second mostly on its own.
ACROSS_PAGES = [
    (["The pump station is cleaned twice a year. The boiler is inspected"],
     ["every autumn by a certified engineer who signs the logbook.", "Spare fuses are kept in the office."]),
    (["The valve on the north side of the main intake must be closed by the duty", "operator before the"],
     ["first frost. The gauges are read daily. The spare pump is started by the"]),
    # A sentence over two breaks: its middle is a page's only line.
    ([], ["night shift"]),
    ([], ["whenever the main pump stops."]),
]


def across_pages(path: Path) -> None:
    """Pages of prose whose sentences run on over the page breaks (ACROSS_PAGES)."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_font("helvetica", size=11)
    pages: list[list[str]] = [[]]
    for before, after in ACROSS_PAGES:
        pages[-1] += before
        pages.append(list(after))
    for lines in pages:
        pdf.add_page()
        pdf.set_y(250 - 6 * len(lines) if lines is not pages[-1] else 20)  # end the page at its foot
        for line in lines:
            pdf.cell(0, 6, line)
            pdf.ln(6)
    pdf.output(str(path))


def _raw_pdf(path: Path, objects: list[bytes]) -> None:
    """A PDF of the given objects (numbered from 1; object 1 is the catalog) with its cross-reference
    table, written without a library so a test can put in what no generator would."""
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))


def decompression_bomb(path: Path, inflated_mib: int) -> None:
    """One page whose content stream is `inflated_mib` MiB of spaces, Flate-compressed about
    1000:1 (a 1 MiB file that asks a reader for a GiB). Each MiB compresses alone (a full flush
    between them), so one compressed MiB repeated makes the stream in well under a second."""
    mib = b" " * 2**20
    compressor = zlib.compressobj(9)
    header_and_first = compressor.compress(mib) + compressor.flush(zlib.Z_FULL_FLUSH)
    checksum = 1
    for _ in range(inflated_mib):
        checksum = zlib.adler32(mib, checksum)
    final_empty_block = b"\x03\x00"
    stream = header_and_first[:2] + header_and_first[2:] * inflated_mib + final_empty_block + struct.pack(">I", checksum)
    _raw_pdf(path, [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ])


def outline_bomb(path: Path, entries: int) -> None:
    """A one-page PDF with `entries` bookmarks, all pointing at its page."""
    content = b"BT /F1 12 Tf 72 720 Td (Chapter one) Tj ET"
    first_item = 7
    items = [
        b"<< /Title (Entry %d) /Parent 6 0 R /Dest [3 0 R /XYZ 0 720 0]%s%s >>" % (
            i,
            b" /Prev %d 0 R" % (first_item + i - 1) if i else b"",
            b" /Next %d 0 R" % (first_item + i + 1) if i < entries - 1 else b"",
        )
        for i in range(entries)
    ]
    _raw_pdf(path, [
        b"<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
         b" /Resources << /Font << /F1 5 0 R >> >> >>"),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (first_item, first_item + entries - 1, entries),
        *items,
    ])
