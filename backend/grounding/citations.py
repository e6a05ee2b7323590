"""Where citations get checked.

The model cites passages by the refs the tools gave them in this run (`[S3]`). Every marker is
checked against the passages actually retrieved in this run: unknown refs are dropped, refs to
the same passage are merged, and the rest are renumbered `[1]`, `[2]`, … in order of first use.
The same class serves streamed and whole answers, so both number citations identically.
"""

import re

from pydantic import BaseModel

from backend.retrieval.index import ScoredChunk
from backend.retrieval.sentences import split_sentences

EXCERPT_CHARS = 240
_MARKER = re.compile(r"\[(S\d+(?:\s*[,;]\s*S\d+)*)\]")
_PARTIAL_MARKER = re.compile(r"\[(S\d*(?:\s*[,;]\s*S?\d*)*)?$")


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


class CitationStream:
    """Rewrites `[S3]` markers to reader-facing numbers as text arrives, holding back a marker
    that is split across deltas."""

    def __init__(self, sources: dict[str, ScoredChunk]):
        self.sources = sources
        self.numbers: dict[str, int] = {}  # chunk id → number
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
        out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out) if out != ready else out
        self.text += out
        return out

    def _renumber(self, marker: re.Match[str], context: str) -> str:
        numbers: list[int] = []
        for ref in re.split(r"\s*[,;]\s*", marker.group(1)):
            hit = self.sources.get(ref)
            if hit is None:
                continue
            chunk_id = hit.chunk.id
            if chunk_id not in self.numbers:
                self.numbers[chunk_id] = len(self.numbers) + 1
                self.quotes[chunk_id] = (self.text + context[: marker.start()])[-400:]
            if self.numbers[chunk_id] not in numbers:
                numbers.append(self.numbers[chunk_id])
        return "".join(f"[{n}]" for n in numbers)

    def citations(self) -> list[Citation]:
        by_id = {hit.chunk.id: hit for hit in self.sources.values()}
        cited = sorted(self.numbers.items(), key=lambda item: item[1])
        return [
            _citation(number, by_id[chunk_id], self.quotes.get(chunk_id, ""))
            for chunk_id, number in cited
        ]


def _citation(number: int, hit: ScoredChunk, quote: str) -> Citation:
    chunk = hit.chunk
    return Citation(
        number=number,
        module=chunk.module,
        lesson=chunk.lesson,
        section=chunk.section,
        heading=chunk.heading,
        url=chunk.url,
        source_path=chunk.source_path,
        excerpt=excerpt(chunk.id, chunk.text, quote),
        score=round(hit.score, 4),
    )


def excerpt(chunk_id: str, text: str, quote: str) -> str:
    """The passage sentence the answer quotes (verbatim from the page, so the widget can
    highlight it), else the passage's first sentence; at most EXCERPT_CHARS."""
    sentences = split_sentences(chunk_id, text)
    if not sentences:
        return ""
    tail = " ".join(quote.split())
    chosen = next((s.text for s in sentences if s.text and s.text in tail), sentences[0].text)
    if len(chosen) <= EXCERPT_CHARS:
        return chosen
    return chosen[: EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "…"
