"""A Unix manual page as `man` prints it (nroff's text), put in a web page's <pre> as is by
Postfix's and other projects' man2html: read as the sections, paragraphs and tagged paragraphs
the man macros laid out, not as one block of code.

nroff's layout under the man macros (man(7)): a header line `TITLE(SECTION) … TITLE(SECTION)`;
section headings (.SH) at the left margin, subsection headings (.SS) indented 3; text filled
and indented by the prevailing indent (7); a tagged paragraph (.TP, .IP) its tag at the
paragraph's indent and its text 7 further in, on the tag's line when the tag is short; lines
left unfilled (.nf, examples) keep their own indents; a footer line ending in the title.
"""

import re
from collections import Counter

from ingest_scripts.markdown import Block

_HEADER = re.compile(r"^[ \t]*(\S+\(\w+\))[ \t]{2,}.*?\1[ \t]*$")
TAG_INDENT = 7  # the man macros' default indent of a tagged paragraph's text
_HYPHENATED = re.compile(r"(\w+)-\Z")
_WORD = re.compile(r"[\w-]+")


def manual_page_blocks(text: str) -> list[Block] | None:
    """The page's blocks when `text` is a manual page as nroff prints it (its first line the
    man header), else None."""
    lines = text.expandtabs().split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or not (header := _HEADER.match(lines[0])):
        return None
    body = lines[1:]
    while body and not body[-1].strip():
        body.pop()
    if body and body[-1].rstrip().endswith(header[1]):
        body.pop()  # the footer
    words = Counter(word.lower() for word in _WORD.findall(text))
    indents = Counter(_indent(line) for line in body if line.strip())
    text_indent = max((indent for indent in indents if indent > 0), key=lambda i: (indents[i], -i), default=0)
    blocks: list[Block] = []
    paragraph: list[str] = []
    for line in [*body, ""]:
        if line.strip() and _indent(line) < text_indent:  # .SH at the margin, .SS indented 3
            blocks.extend(_paragraph(paragraph, words))
            paragraph = []
            level = 2 if _indent(line) == 0 else 3
            blocks.append(Block("heading", 0, 0, " ".join(line.split()), level))
        elif line.strip():
            paragraph.append(line)
        else:
            blocks.extend(_paragraph(paragraph, words))
            paragraph = []
    return blocks


def _paragraph(lines: list[str], words: Counter[str]) -> list[Block]:
    """A filled paragraph as one text; a tagged one as "tag: text", as a definition list's entry
    reads; lines that keep their own indents (an example) as code."""
    if not lines:
        return []
    first, rest = _indent(lines[0]), [_indent(line) for line in lines[1:]]
    inner = first + TAG_INDENT
    head = lines[0][:inner]
    beside = head.endswith(" ") and lines[0][inner:inner + 1].strip() != ""  # text at the tag's text indent
    # A paragraph's last line is not justified: two spaces up to the text's indent on a line
    # of its own end a short tag.
    if rest and all(indent == inner for indent in rest) or not rest and beside and head.endswith("  "):
        tag, text = (head, [lines[0][inner:], *lines[1:]]) if beside else (lines[0], lines[1:])
        return [Block("text", 0, 0, f"{' '.join(tag.split())}: {_filled(text, words)}")]
    if all(indent == first for indent in rest):
        return [Block("text", 0, 0, _filled(lines, words))]
    least = min(first, *rest)
    return [Block("fence", 0, 0, "```\n" + "\n".join(line[least:].rstrip() for line in lines) + "\n```")]


def _filled(lines: list[str], words: Counter[str]) -> str:
    """Filled lines as one: a word nroff hyphenated at a line's end is joined again, unless the
    page spells it with the hyphen elsewhere (`non-empty`) and never without."""
    text = ""
    for line in (" ".join(line.split()) for line in lines):
        broken = _HYPHENATED.search(text)
        head = _WORD.match(line)
        if broken and head:
            joined, kept = broken[1] + head[0], f"{broken[1]}-{head[0]}"
            spelt_with_hyphen = words[kept.lower()] > 0 and words[joined.lower()] == 0
            text = (text if spelt_with_hyphen else text[:-1]) + line
            continue
        text = f"{text} {line}" if text else line
    return text


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
