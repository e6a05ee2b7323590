"""Wiring: settings → vector store → retriever → answer engine, shared by the CLI and the app."""

import asyncio
import logging
import threading

from qdrant_client import QdrantClient

from backend.agent.agent import AnswerEngine
from backend.agent.providers import ModelFactory
from backend.config import Settings
from backend.grounding.judge import PACKAGED, Judge
from backend.retrieval import lexical
from backend.retrieval.embeddings import Embedder, LocalEmbedder, make_embedder
from backend.retrieval.index import BookIndex, BookNotIngested, IndexUnavailable, open_client
from backend.retrieval.rerank import make_reranker
from backend.retrieval.search import BookCorpus, RetrievalMode, Retriever

log = logging.getLogger("lectern.engine")


class Library:
    """The books this process answers from. One Qdrant client (embedded mode allows only one
    per data dir), one embedder and one model factory serve every book.

    With `check=False` (the server) a vector store that cannot be opened is not fatal: every
    request that needs it gets IndexUnavailable (a 503 with the reason) and the next one tries
    to open it again, so the service starts, reports what is wrong and recovers on its own."""

    def __init__(self, settings: Settings, check: bool = True):
        self.settings = settings
        self._client: QdrantClient | None = open_client(settings, check) if check else None
        self.embedder = make_embedder(settings)
        self.reranker = make_reranker(settings)
        self.models = ModelFactory(settings)
        self._engines: dict[tuple[str, str], AnswerEngine] = {}
        self.judge = Judge.load(settings.judge or PACKAGED)
        self._reference: LocalEmbedder | None = None
        self._opening = threading.Lock()

    @property
    def client(self) -> QdrantClient:
        with self._opening:  # start-up work and readers' requests may ask for it at once
            if self._client is None:
                self._client = open_client(self.settings, check=False)
            return self._client

    def engine(self, book: str | None = None, mode: RetrievalMode = "hybrid") -> AnswerEngine:
        """The engine of an ingested book (BookNotIngested otherwise, so unknown ids that
        readers send are never cached)."""
        key = (book or self.settings.book, mode)
        if key not in self._engines:
            index = BookIndex(self.client, key[0])
            if index.current_collection() is None:
                raise BookNotIngested(f"book {key[0]!r} has not been ingested yet")
            metadata = index.metadata()
            if metadata.get("analyzer") != lexical.ANALYZER:
                log.warning("book %r was indexed by an older Lectern: run `lectern ingest` again "
                            "for the best keyword matching", key[0])
            embedder = self._embedder_for(metadata.get("embedder"))
            if metadata.get("embedder") and metadata["embedder"] != embedder.name:
                log.warning("book %r was embedded with %s and is asked with %s: run `lectern ingest` "
                            "again for the best matches", key[0], metadata["embedder"], embedder.name)
            retriever = Retriever(index, embedder, mode, self.reranker)
            self._engines[key] = AnswerEngine(retriever, self.models, self.settings.top_k, self.judge)
        return self._engines[key]

    def _embedder_for(self, built_with: str | None) -> Embedder:
        """Questions are embedded by the model the book's index was built with: a book indexed
        with the PyTorch build of the local model keeps being served by it until re-ingested, where
        PyTorch is installed (the `export` extra; else the ONNX build, whose vectors are 0.99 alike)."""
        if built_with == LocalEmbedder.name and self.embedder.name != built_with and LocalEmbedder.installed():
            if self._reference is None:
                self._reference = LocalEmbedder()
            return self._reference
        return self.embedder

    def forget(self, book: str) -> None:
        """Drops the engines of a book whose index was removed (readers get 404 again) or rebuilt
        with another embedding model (the next question loads it with that model)."""
        for key in [key for key in self._engines if key[0] == book]:
            del self._engines[key]

    async def loaded_engine(self, book: str | None = None) -> AnswerEngine:
        """engine() with the book loaded, off the event loop and, for a Qdrant server, within the
        dependency timeout (IndexUnavailable after it): a server that hangs holds up only its callers."""
        return (await self._loaded(book))[0]

    async def loaded_corpus(self, book: str | None = None) -> BookCorpus:
        """The served build's passages and pages, as loaded_engine loads them."""
        return (await self._loaded(book))[1]

    async def _loaded(self, book: str | None) -> tuple[AnswerEngine, BookCorpus]:
        def load() -> tuple[AnswerEngine, BookCorpus]:
            engine = self.engine(book)
            return engine, engine.retriever.corpus  # the corpus asks the store which build is served

        if not self.settings.qdrant_url:  # embedded: nothing remote can hang, and a deadline would
            return await asyncio.to_thread(load)  # count time spent queueing for a worker thread
        try:
            return await asyncio.wait_for(asyncio.to_thread(load), self.settings.dependency_timeout)
        except TimeoutError:
            raise IndexUnavailable(
                f"the vector store did not answer within {self.settings.dependency_timeout:g} s"
            ) from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
