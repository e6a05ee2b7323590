"""Wiring: settings → vector store → retriever → answer engine, shared by the CLI and the app."""

import logging

from backend.agent.agent import AnswerEngine
from backend.agent.providers import ModelFactory
from backend.config import Settings
from backend.retrieval import lexical
from backend.retrieval.embeddings import make_embedder
from backend.retrieval.index import BookIndex, BookNotIngested, open_client
from backend.retrieval.search import RetrievalMode, Retriever

log = logging.getLogger("lectern.engine")


class Library:
    """The books this process answers from. One Qdrant client (embedded mode allows only one
    per data dir), one embedder and one model factory serve every book."""

    def __init__(self, settings: Settings, check: bool = True):
        self.settings = settings
        self.client = open_client(settings, check)
        self.embedder = make_embedder(settings)
        self.models = ModelFactory(settings)
        self._engines: dict[tuple[str, str], AnswerEngine] = {}

    def engine(self, book: str | None = None, mode: RetrievalMode = "hybrid") -> AnswerEngine:
        """The engine of an ingested book (BookNotIngested otherwise, so unknown ids that
        readers send are never cached)."""
        key = (book or self.settings.book, mode)
        if key not in self._engines:
            index = BookIndex(self.client, key[0])
            if index.current_collection() is None:
                raise BookNotIngested(f"book {key[0]!r} has not been ingested yet")
            if index.metadata().get("analyzer") != lexical.ANALYZER:
                log.warning("book %r was indexed by an older Lectern: run `lectern ingest` again "
                            "for the best keyword matching", key[0])
            retriever = Retriever(index, self.embedder, mode)
            self._engines[key] = AnswerEngine(retriever, self.models, self.settings.top_k)
        return self._engines[key]

    def close(self) -> None:
        self.client.close()
