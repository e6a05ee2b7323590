"""Cohere and Gemini embeddings through their real SDK clients against local fake servers."""

import time

import pytest

from backend.retrieval.embeddings import CohereEmbedder, EmbeddingError, GeminiEmbedder
from tests.fakes.servers import FakeCohere, FakeGemini, serve


def test_cohere_documents_and_queries_use_their_input_types() -> None:
    fake = FakeCohere()
    with serve(fake) as url:
        embedder = CohereEmbedder(fake.api_key, base_url=url)
        docs = embedder.embed_documents([f"passage {i} about lidar" for i in range(150)])
        query = embedder.embed_query("lidar range")
    assert len(docs) == 150 and all(len(v) == 1024 for v in docs)
    assert len(query) == 1024
    assert [len(r["texts"]) for r in fake.requests] == [96, 54, 1]  # at most 96 texts a call
    assert [r["input_type"] for r in fake.requests] == ["search_document"] * 2 + ["search_query"]
    assert all(r["model"] == "embed-english-v3.0" and r["embedding_types"] == ["float"] for r in fake.requests)


def test_cohere_errors_surface_as_embedding_errors() -> None:
    fake = FakeCohere()
    with serve(fake) as url:
        with pytest.raises(EmbeddingError, match="Cohere"):
            CohereEmbedder("wrong-key", base_url=url).embed_query("x")
        fake.fail(500, times=10)
        started = time.monotonic()
        with pytest.raises(EmbeddingError):
            CohereEmbedder(fake.api_key, base_url=url).embed_documents(["a"])
        assert time.monotonic() - started < 30


def test_gemini_batches_with_retrieval_task_types() -> None:
    fake = FakeGemini()
    with serve(fake) as url:
        embedder = GeminiEmbedder(fake.api_key, base_url=url)
        docs = embedder.embed_documents([f"text {i}" for i in range(130)])
        query = embedder.embed_query("a question")
        assert embedder.dimension == 768
    assert len(docs) == 130 and len(query) == 768
    batches = [r for r in fake.requests if "requests" in r]
    assert [len(r["requests"]) for r in batches][:2] == [100, 30]  # at most 100 a call
    assert all(r["path"].endswith(":batchEmbedContents") for r in fake.requests)
    tasks = [item["taskType"] for r in batches for item in r["requests"]]
    assert tasks[:130] == ["RETRIEVAL_DOCUMENT"] * 130
    assert tasks[130] == "RETRIEVAL_QUERY"


def test_gemini_errors_surface_as_embedding_errors() -> None:
    fake = FakeGemini()
    with serve(fake) as url, pytest.raises(EmbeddingError, match="Gemini"):
        GeminiEmbedder("wrong-key", base_url=url).embed_query("x")
