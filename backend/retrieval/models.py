"""The records ingestion writes and retrieval reads: one name per concept (see docs/architecture.md)."""

import hashlib
import uuid
from typing import Literal

from pydantic import BaseModel, Field


def embedded_text(header: str, text: str) -> str:
    """What the embedding model reads of a passage: its context line, then its text."""
    return f"{header}\n\n{text}"


PageKind = Literal["lesson", "summary", "quiz", "index"]


class Page(BaseModel):
    """One published document (a lesson, a module index, a summary or a quiz)."""

    book: str
    lesson_id: str  # Docusaurus doc id, e.g. "01-ros2-nervous-system/nodes-topics-services"
    source_path: str  # relative to the ingested folder, POSIX separators
    title: str
    module: str
    url: str
    kind: PageKind
    description: str = ""
    tags: list[str] = Field(default_factory=list)
    objectives: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    order: int = 0  # its place in the book's reading order (its generator's navigation)


class Chunk(BaseModel):
    """A heading-bounded passage of a page, with everything needed to cite it."""

    book: str
    # The name the book gives itself (a site's, from its pages' <title>s), "" where it names none.
    book_name: str = ""
    lesson_id: str
    source_path: str
    module: str
    lesson: str
    section: str  # heading path, "3.1 Depth Sensing Technologies › 2D LiDAR"
    heading: str  # nearest heading above the passage ("" before the first heading)
    anchor: str  # Docusaurus heading slug ("" for the page top)
    url: str  # page URL + "#anchor"
    kind: PageKind
    tags: list[str] = Field(default_factory=list)
    position: int  # order of the chunk within its page
    text: str
    overlap_chars: int = 0  # text starts with this much of the previous part (for context)
    start: int  # character offsets of the passage in the source file (HTML, PDF, a notebook, a page
    # whose generator markup ingest takes out: in the text read)
    end: int
    # A PDF's passage: (offset in `text`, page number) where the text of each of its pages begins.
    page_starts: list[tuple[int, int]] = Field(default_factory=list)
    # What the page shows folded (a `<details>` body): (start, end) in `text` and the label of the
    # button that opens it, which is not text of the passage.
    collapsibles: list[tuple[int, int, str]] = Field(default_factory=list)

    def page_at(self, offset: int) -> int | None:
        """The PDF page that character `offset` of the text is on; None for a site's page."""
        pages = [page for start, page in self.page_starts if start <= offset]
        return pages[-1] if pages else (self.page_starts[0][1] if self.page_starts else None)

    @property
    def first_page(self) -> int | None:
        """The PDF page the passage itself (not the sentence it repeats) starts on."""
        return self.page_at(self.overlap_chars)

    @property
    def header(self) -> str:
        """The context line embedded with the text: Book › Module › Lesson › Section, the book
        by its id and by the name it gives itself."""
        parts = [self.book, self.book_name, self.module, self.lesson, self.section]
        return " › ".join(p for p in parts if p)

    @property
    def embedding_text(self) -> str:
        return embedded_text(self.header, self.text)

    @property
    def content_hash(self) -> str:
        """Changes whenever anything that is embedded or shown for this chunk changes."""
        # Empty fields added since are left out so that hashes are those of earlier builds.
        empty = {name for name in ("page_starts", "book_name", "collapsibles") if not getattr(self, name)}
        payload = self.model_dump_json(exclude={"start", "end"} | empty)
        return hashlib.sha256(payload.encode()).hexdigest()[:32]

    @property
    def embedding_hash(self) -> str:
        """Changes only when the embedded text changes (not, say, when the site's URL does)."""
        return hashlib.sha256(self.embedding_text.encode()).hexdigest()[:32]

    @property
    def id(self) -> str:
        """Stable point id: same page, section and position keep their id across re-ingests."""
        key = f"{self.book}|{self.source_path}|{self.position}"
        return str(uuid.uuid5(uuid.NAMESPACE_URL, key))
