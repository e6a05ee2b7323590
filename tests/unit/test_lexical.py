"""The in-memory BM25 ranking against Qdrant's own sparse query on the real book."""

import itertools
from pathlib import Path

import pytest
from qdrant_client import QdrantClient

from backend.config import Settings
from backend.evaluation import load_questions
from backend.retrieval import lexical
from backend.retrieval.index import SPARSE, BookIndex, match
from backend.retrieval.search import BookCorpus
from tests.support.books import EVAL_QUESTIONS

pytestmark = pytest.mark.slow


@pytest.fixture
def served(real_book: Path):
    client = QdrantClient(path=str(Settings(LECTERN_DATA_DIR=real_book).qdrant_path))
    index = BookIndex(client, "physical-ai")
    yield index, BookCorpus(index)
    client.close()


def _qdrant_ranking(index: BookIndex, query: str, limit: int, **scope: str) -> list[tuple[str, float]]:
    result = index.client.query_points(
        index.alias, query=lexical.query_vector(query), using=SPARSE, limit=limit,
        query_filter=match(**scope) if scope else None, with_payload=False,
    )
    return [(str(point.id), point.score) for point in result.points]


def _same_ranking(ours: list[tuple[str, float]], qdrant: list[tuple[str, float]]) -> None:
    """The same scores in the same order, and the same ids within each run of equal scores,
    except the last run: the limit may cut it anywhere among its ties."""
    assert [round(score, 3) for _, score in ours] == [round(score, 3) for _, score in qdrant]
    assert _tied_runs(ours)[:-1] == _tied_runs(qdrant)[:-1]


def _tied_runs(ranking: list[tuple[str, float]]) -> list[set[str]]:
    runs = itertools.groupby(ranking, key=lambda entry: round(entry[1], 3))
    return [{cid for cid, _ in run} for _, run in runs]


def test_in_memory_bm25_ranks_as_qdrant_does(served: tuple[BookIndex, BookCorpus]) -> None:
    index, corpus = served
    questions = [q.question for q in load_questions(EVAL_QUESTIONS)]
    assert len(questions) >= 20
    for question in questions:
        _same_ranking(corpus.rank_lexical(question, 40, {}), _qdrant_ranking(index, question, 40))


def test_scoped_bm25_ranks_as_qdrant_does(served: tuple[BookIndex, BookCorpus]) -> None:
    index, corpus = served
    lesson = next(c for c in corpus.chunks if c.kind == "lesson")
    for scope in ({"source_path": lesson.source_path}, {"module": lesson.module}):
        ours = corpus.rank_lexical("publisher subscriber topic", 10, scope)
        assert ours and all(
            getattr(corpus.chunks[corpus.row[cid]], field) == value
            for cid, _ in ours for field, value in scope.items()
        )
        _same_ranking(ours, _qdrant_ranking(index, "publisher subscriber topic", 10, **scope))


def test_words_the_book_never_uses_rank_nothing(served: tuple[BookIndex, BookCorpus]) -> None:
    _, corpus = served
    assert corpus.rank_lexical("sourdough croissant", 10, {}) == []


def test_an_acronyms_plural_has_the_acronyms_terms() -> None:
    assert lexical.terms("VLAs and GPUs", compounds=False) == lexical.terms("VLA and GPU", compounds=False)
    assert lexical.terms("Is it ROS2?", compounds=False) == ["ros", "2"]  # "Is" is no plural
