"""Cohere Rerank through the real SDK against a local fake of its API: the search's windows in
Cohere's order, and the search's own order when Cohere fails."""

import time
from pathlib import Path

from backend.config import Settings
from backend.engine import Library
from backend.retrieval.rerank import CohereReranker, make_reranker
from tests.fakes.servers import FakeCohere, serve
from tests.support.books import ingest_into, write_book

BOOK = {
    "docs/braking.md": "# Braking\n\nThe robot brakes when an obstacle is near. Braking distance grows with speed.\n\n"
    "## Emergency stop\n\nThe emergency stop cuts motor power at once. It is wired to a red button on the back.\n",
    "docs/speed.md": "# Speed\n\nThe robot drives at most two metres a second indoors. Outdoors it may drive faster.\n",
}


def test_relevance_comes_back_in_the_texts_order() -> None:
    fake = FakeCohere()
    with serve(fake) as url:
        scores = CohereReranker(fake.api_key, base_url=url).scores("red button", ["a blue wall", "the red button", "red"])
    assert scores == [0.0, 1.0, 0.5]
    assert fake.requests == [{"path": "/v2/rerank", "model": "rerank-v3.5", "query": "red button",
                              "documents": ["a blue wall", "the red button", "red"], "top_n": 3}]


def test_the_reranker_is_used_only_with_a_cohere_key() -> None:
    assert make_reranker(Settings(LECTERN_RERANK="auto")) is None
    assert make_reranker(Settings(LECTERN_RERANK="auto", COHERE_API_KEY="k")) is not None
    assert make_reranker(Settings(LECTERN_RERANK="none", COHERE_API_KEY="k")) is None


def test_the_search_quotes_in_cohere_order_and_keeps_its_own_when_cohere_fails(tmp_path: Path) -> None:
    ingest_into(tmp_path / "data", write_book(tmp_path / "book", BOOK), "robot")
    fake = FakeCohere()
    fake.preferred = "red button"
    with serve(fake) as url:
        settings = Settings(LECTERN_DATA_DIR=tmp_path / "data", LECTERN_BOOK="robot", COHERE_API_KEY=fake.api_key,
                            COHERE_BASE_URL=url, LECTERN_RERANK_MODEL="rerank-test")
        library = Library(settings)
        try:
            retriever = library.engine("robot").retriever
            question = "How fast does the robot brake?"
            reranked = retriever.search(question).evidence.windows
            assert "red button" in reranked[0].text
            assert fake.requests[-1]["model"] == "rerank-test" and fake.requests[-1]["query"] == question
            fake.fail(500)
            started = time.monotonic()
            own = retriever.search(question).evidence.windows
            assert time.monotonic() - started < 5 and "red button" not in own[0].text
            retriever.reranker = None
            assert [w.text for w in own] == [w.text for w in retriever.search(question).evidence.windows]
        finally:
            library.close()
