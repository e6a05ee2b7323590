"""Wiring: settings → vector store → retriever → answer engine (used by the CLI and the app)."""

from backend.agent.agent import AnswerEngine
from backend.agent.providers import ModelFactory
from backend.config import Settings
from backend.retrieval.embeddings import make_embedder
from backend.retrieval.index import BookIndex, open_client
from backend.retrieval.search import RetrievalMode, Retriever


def open_engine(
    settings: Settings, book: str | None = None, mode: RetrievalMode = "hybrid"
) -> AnswerEngine:
    index = BookIndex(open_client(settings), book or settings.book)
    retriever = Retriever(index, make_embedder(settings), mode)
    return AnswerEngine(retriever, ModelFactory(settings), settings.top_k)
