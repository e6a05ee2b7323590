"""Where citations get checked.

The model cites passages by the refs the tools gave them in this run (`[S3]`). Every marker is
checked against the passages actually retrieved in this run: unknown refs are dropped, refs to
the same section (one passage, or two parts of a long section) are merged, and the rest are
renumbered `[1]`, `[2]`, … in order of first use.
The same class serves streamed and whole answers, so both number citations identically.
"""

import re
from urllib.parse import urlencode

from pydantic import BaseModel

from backend.retrieval import lexical
from backend.retrieval.index import ScoredChunk
from backend.retrieval.models import Chunk
from backend.retrieval.sentences import Sentence, split_sentences

EXCERPT_CHARS = 240
_MARKER = re.compile(r"(?P<space>[ \t]*)\[(?P<refs>S\d+(?:\s*[,;]\s*S\d+)*)\]")
# What may still become a marker: trailing blanks and an unfinished "[S1, S".
_PARTIAL_MARKER = re.compile(r"[ \t]*(?:\[(?:S\d*(?:\s*[,;]\s*S?\d*)*)?)?$")


class Citation(BaseModel):
    number: int
    module: str
    lesson: str
    section: str
    heading: str
    url: str
    source_path: str
    excerpt: str
    score: float
    page: int | None = None  # of a PDF: the page the excerpt is on (1-based)

    @property
    def label(self) -> str:
        """"Module · Lesson · Section" ("Document · p. 12 · Section" for a PDF), without empty
        parts or a part that repeats the one before it, as the widget names it: a page's opening
        section is named by the page's title, and a book without modules starts with it."""
        return label(self.module, self.lesson, f"p. {self.page}" if self.page else "", self.section)


def label(*names: str) -> str:
    """The names joined "A · B · C", without empty ones or one that repeats the one before it."""
    shown = [name for name in names if name]
    return " · ".join(name for i, name in enumerate(shown) if i == 0 or name != shown[i - 1])


class CitationStream:
    """Rewrites `[S3]` markers to reader-facing numbers as text arrives, holding back a marker
    that is split across deltas."""

    def __init__(self, sources: dict[str, ScoredChunk]):
        self.sources = sources
        self.numbers: dict[str, int] = {}  # chunk id → number; the first chunk cited with a number is its passage
        self._section_numbers: dict[tuple[str, str, str], int] = {}
        self.quotes: dict[str, str] = {}  # chunk id → the text that cited it first
        self.text = ""  # everything emitted so far
        self._pending = ""

    def feed(self, delta: str) -> str:
        self._pending += delta
        partial = _PARTIAL_MARKER.search(self._pending)
        cut = partial.start() if partial else len(self._pending)
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        return self._emit(ready)

    def finish(self) -> str:
        ready, self._pending = self._pending, ""
        return self._emit(ready)

    def _emit(self, ready: str) -> str:
        out = _MARKER.sub(lambda m: self._renumber(m, ready), ready)
        self.text += out
        return out

    def _renumber(self, marker: re.Match[str], context: str) -> str:
        """Valid refs become numbers; a marker with none disappears with its leading blank."""
        numbers: list[int] = []
        for ref in re.split(r"\s*[,;]\s*", marker.group("refs")):
            hit = self.sources.get(ref)
            if hit is None:
                continue
            chunk_id, section = hit.chunk.id, _section_of(hit.chunk)
            if section not in self._section_numbers:
                self._section_numbers[section] = len(self._section_numbers) + 1
                self.quotes[chunk_id] = (self.text + context[: marker.start()])[-400:]
            self.numbers.setdefault(chunk_id, self._section_numbers[section])
            if self.numbers[chunk_id] not in numbers:
                numbers.append(self.numbers[chunk_id])
        return marker.group("space") + "".join(f"[{n}]" for n in numbers) if numbers else ""

    def citations(self) -> list[Citation]:
        by_id = {hit.chunk.id: hit for hit in self.sources.values()}
        first_cited = {number: chunk_id for chunk_id, number in reversed(self.numbers.items())}
        return [
            citation_of(number, by_id[chunk_id], self.quotes.get(chunk_id, ""))
            for number, chunk_id in sorted(first_cited.items())
        ]


def _section_of(chunk: Chunk) -> tuple[str, str, str]:
    """What one citation stands for: a section of a page (all the parts of a long one)."""
    return chunk.source_path, chunk.anchor, chunk.section


def citation_of(number: int, hit: ScoredChunk, quote: str) -> Citation:
    chunk = hit.chunk
    shown = excerpt(chunk.id, chunk.text, quote)
    url, page = located(chunk, shown)
    return Citation(
        number=number,
        module=chunk.module,
        lesson=chunk.lesson,
        section=chunk.section,
        heading=chunk.heading,
        url=url,
        source_path=chunk.source_path,
        excerpt=shown,
        score=round(hit.score, 4),
        page=page,
    )


def located(chunk: Chunk, shown: str) -> tuple[str, int | None]:
    """The link to the excerpt `shown` of a passage, and its page for a PDF: the viewer opens
    the page the excerpt is on and highlights it."""
    if not chunk.page_starts:
        return chunk.url, None
    quoted = shown.removesuffix("…")
    page = chunk.page_at(max(chunk.text.find(quoted[:80]), chunk.overlap_chars)) or 1
    return f"{chunk.url}?{urlencode({'page': page, 'highlight': quoted})}", page


def excerpt(chunk_id: str, text: str, quote: str) -> str:
    """The passage sentence closest to what the answer said before citing it (verbatim from
    the page, so the widget can highlight it); at most EXCERPT_CHARS."""
    sentences = split_sentences(chunk_id, text)
    if not sentences:
        return ""
    said = frozenset(lexical.terms(quote, compounds=False))

    def closeness(sentence: Sentence) -> float:
        return len(sentence.terms & said) / max(len(sentence.terms), 1)

    chosen = max(sentences, key=closeness).text  # max keeps the earliest of equals
    if len(chosen) <= EXCERPT_CHARS:
        return chosen
    return chosen[: EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "…"
