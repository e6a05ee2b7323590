"""Answers the maintainers reviewed: served instead of a generated answer to questions that mean
the same, for as long as the passages they cite are unchanged.

A curated answer is a question, the maintainer's text and the passages it cites (chunk ids of
that book, with the content hash each had when it was approved). A reader's standalone question
(no selection, no earlier turns) gets it when the two questions are more alike than any pair of
different topics of this book (insights.TopicLevels.same_question, measured per build and shown
in the console). When a re-ingest changes or removes a cited passage, the answer is flagged
for review and the reader gets a generated answer until a maintainer approves it again.
"""

import asyncio
import logging
import uuid
from datetime import UTC, datetime

import numpy as np

from backend.engine import Library
from backend.grounding.answer import Answer
from backend.grounding.citations import citation_of
from backend.insights import TopicLevels, unit_embeddings
from backend.question import Question
from backend.retrieval.index import ScoredChunk
from backend.retrieval.search import BookCorpus
from backend.store import ResilientStore
from backend.store.models import CitedPassage, CuratedAnswer
from backend.store.resilient import DatabaseUnavailable

log = logging.getLogger("lectern.curated")


class CuratedError(ValueError):
    """A curated answer that cannot be saved as given (a 400 with this message)."""


def cited_passages(corpus: BookCorpus, chunk_ids: list[str]) -> list[CitedPassage]:
    """The passages as they are now; every id must be a passage of this book."""
    if not chunk_ids:
        raise CuratedError("citations: cite at least one passage of the book")
    unknown = [chunk_id for chunk_id in chunk_ids if chunk_id not in corpus.row]
    if unknown:
        raise CuratedError(f"citations: {', '.join(map(repr, unknown))} are not passages of this book")
    return [CitedPassage(chunk_id=c, content_hash=corpus.chunks[corpus.row[c]].content_hash) for c in dict.fromkeys(chunk_ids)]


def new_curated(book: str, question: str, answer: str, citations: list[CitedPassage]) -> CuratedAnswer:
    now = datetime.now(UTC)
    return CuratedAnswer(id=uuid.uuid4().hex, book=book, question=question.strip(), answer=answer.strip(),
                         citations=citations, state="active", created_at=now, updated_at=now)


def changed_passages(curated: CuratedAnswer, corpus: BookCorpus) -> list[str]:
    """Cited passages that are gone or whose text changed since the answer was approved."""
    return [
        cited.chunk_id for cited in curated.citations
        if cited.chunk_id not in corpus.row or corpus.chunks[corpus.row[cited.chunk_id]].content_hash != cited.content_hash
    ]


def as_answer(curated: CuratedAnswer, corpus: BookCorpus) -> Answer:
    citations = [
        citation_of(number, ScoredChunk(corpus.chunks[corpus.row[cited.chunk_id]], 1.0), curated.answer)
        for number, cited in enumerate(curated.citations, start=1)
    ]
    return Answer(text=curated.answer, citations=citations, status="found", confidence="high", suggestions=[])


class CuratedAnswers:
    """Finds the curated answer for a reader's question; one per process, all books."""

    def __init__(self, store: ResilientStore, library: Library):
        self.store = store
        self.library = library
        self._levels: dict[str, TopicLevels] = {}
        self._vectors: dict[str, tuple[list[CuratedAnswer], np.ndarray]] = {}  # active ones, per book
        self._changes: dict[str, int] = {}  # per book: a list loaded before a change is not kept

    def levels(self, book: str) -> TopicLevels:
        """The book's topic levels, measured once per build (the console's gap finder uses them too)."""
        engine = self.library.engine(book)
        return self._levels.setdefault(book, TopicLevels(engine.retriever, self.library.embedder))

    def changed(self, book: str) -> None:
        """Call after any change to the book's curated answers."""
        self._changes[book] = self._changes.get(book, 0) + 1
        self._vectors.pop(book, None)

    async def answer(self, book: str, question: Question) -> Answer | None:
        """The curated answer for `question`, or None (also when the database is down)."""
        if question.selected_text or question.history:
            return None
        try:
            loaded = self._vectors.get(book)
            if loaded is None:
                before = self._changes.get(book, 0)
                active = await self.store.run(lambda db: db.curated_answers(book, state="active"))
                questions = [c.question for c in active]
                loaded = (active, await asyncio.to_thread(unit_embeddings, self.library.embedder, questions))
                if self._changes.get(book, 0) == before:  # else a maintainer changed them meanwhile
                    self._vectors[book] = loaded
        except DatabaseUnavailable:
            return None
        active, vectors = loaded
        if not active:
            return None
        found = await asyncio.to_thread(self._closest, book, question.text, active, vectors)
        if found is None:
            return None
        curated, corpus = found
        if changed := changed_passages(curated, corpus):
            log.warning("curated answer %s needs review: cited passages changed (%s)", curated.id, ", ".join(changed))
            self.changed(book)
            try:
                await self.store.run(lambda db: db.set_curated_state(curated.id, "needs_review"))
            except DatabaseUnavailable as exc:
                log.warning("curated answer %s not flagged yet: %s", curated.id, exc)
            return None
        return as_answer(curated, corpus)

    def _closest(
        self, book: str, text: str, active: list[CuratedAnswer], vectors: np.ndarray
    ) -> tuple[CuratedAnswer, BookCorpus] | None:
        similarity = vectors @ unit_embeddings(self.library.embedder, [text])[0]
        best = int(np.argmax(similarity))
        if similarity[best] < self.levels(book).same_question():
            return None
        return active[best], self.library.engine(book).retriever.corpus
