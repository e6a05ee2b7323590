"""The in-memory rankings (BM25 and dense) against Qdrant's own queries on the real book."""

import itertools
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient, models

from backend.config import Settings
from backend.evaluation import load_questions
from backend.retrieval import lexical
from backend.retrieval.embeddings import Embedder
from backend.retrieval.index import DENSE, BookIndex, match
from backend.retrieval.search import BookCorpus
from tests.support.books import EVAL_QUESTIONS, local_embedder

pytestmark = pytest.mark.slow
BM25 = "bm25"


@pytest.fixture
def served(real_book: Path) -> Iterator[tuple[BookIndex, BookCorpus]]:
    client = QdrantClient(path=str(Settings(LECTERN_DATA_DIR=real_book).qdrant_path))
    index = BookIndex(client, "physical-ai")
    yield index, BookCorpus(index)
    client.close()


def _bm25_document(terms: list[str], average_length: float) -> dict[str, float]:
    """Okapi BM25's term-frequency part of a passage's weights (k1 = 1.2, b = 0.75)."""
    counts = Counter(terms)
    norm = 1.2 * (1 - 0.75 + 0.75 * len(terms) / average_length)
    return {term: tf * 2.2 / (tf + norm) for term, tf in counts.items()}


@pytest.fixture
def reference(served: tuple[BookIndex, BookCorpus]) -> tuple[dict[str, int], str]:
    """The book's passages as Qdrant sparse vectors with its IDF modifier, weighted by BM25 from
    the terms ingest stored, in a collection beside the served one; and the vocabulary."""
    index, _ = served
    chunks, _, term_lists, _ = index.chunks_with_vectors()
    lists = [terms.split() if terms else [] for terms in term_lists]
    average = sum(map(len, lists)) / len(lists)
    vocabulary: dict[str, int] = {}
    points = []
    for chunk, terms in zip(chunks, lists, strict=True):
        weights = _bm25_document(terms, average)
        indices = [vocabulary.setdefault(term, len(vocabulary)) for term in weights]
        points.append(models.PointStruct(
            id=chunk.id, vector={BM25: models.SparseVector(indices=indices, values=list(weights.values()))},
            payload={"module": chunk.module, "source_path": chunk.source_path},
        ))
    name = "bm25-reference"
    index.client.create_collection(
        name, vectors_config={}, sparse_vectors_config={BM25: models.SparseVectorParams(modifier=models.Modifier.IDF)})
    index.client.upsert(name, points)
    return vocabulary, name


def _qdrant_bm25(index: BookIndex, reference: tuple[dict[str, int], str], query: str, limit: int,
                 **scope: str) -> list[tuple[str, float]]:
    vocabulary, name = reference
    asked = sorted({vocabulary[term] for term in lexical.terms(query) if term in vocabulary})
    result = index.client.query_points(
        name, query=models.SparseVector(indices=asked, values=[1.0] * len(asked)), using=BM25, limit=limit,
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


def test_in_memory_bm25_ranks_as_qdrant_does(served: tuple[BookIndex, BookCorpus], reference: tuple[dict[str, int], str]) -> None:
    index, corpus = served
    questions = [q.question for q in load_questions(EVAL_QUESTIONS)]
    assert len(questions) >= 20
    for question in questions:
        _same_ranking(corpus.rank_lexical(question, 40, corpus.in_scope({})), _qdrant_bm25(index, reference, question, 40))


def test_scoped_bm25_ranks_as_qdrant_does(served: tuple[BookIndex, BookCorpus], reference: tuple[dict[str, int], str]) -> None:
    index, corpus = served
    lesson = next(c for c in corpus.chunks if c.kind == "lesson")
    for scope in ({"source_path": lesson.source_path}, {"module": lesson.module}):
        ours = corpus.rank_lexical("publisher subscriber topic", 10, corpus.in_scope(scope))
        assert ours and all(
            getattr(corpus.chunks[corpus.row[cid]], field) == value
            for cid, _ in ours for field, value in scope.items()
        )
        _same_ranking(ours, _qdrant_bm25(index, reference, "publisher subscriber topic", 10, **scope))


def test_in_memory_dense_ranking_is_qdrants(served: tuple[BookIndex, BookCorpus]) -> None:
    """The passages nearest a question, in and out of a scope, as Qdrant's own search of the
    stored vectors finds them (the same cosines, the same order)."""
    index, corpus = served
    embedder: Embedder = local_embedder()
    lesson = next(c for c in corpus.chunks if c.kind == "lesson")
    questions = [q.question for q in load_questions(EVAL_QUESTIONS)][:10]
    for question, scope in itertools.product(questions, ({}, {"module": lesson.module})):
        vector = embedder.embed_query(question)
        ours = corpus.rank_dense(corpus.cosines(np.asarray(vector, dtype=np.float32)), 20, corpus.in_scope(scope))
        result = index.client.query_points(index.alias, query=vector, using=DENSE, limit=20,
                                           query_filter=match(**scope) if scope else None, with_payload=False)
        _same_ranking(ours, [(str(point.id), point.score) for point in result.points])


def test_words_the_book_never_uses_rank_nothing(served: tuple[BookIndex, BookCorpus]) -> None:
    _, corpus = served
    assert corpus.rank_lexical("sourdough croissant", 10, corpus.in_scope({})) == []


def test_an_acronyms_plural_has_the_acronyms_terms() -> None:
    assert lexical.terms("VLAs and GPUs", compounds=False) == lexical.terms("VLA and GPU", compounds=False)
    assert lexical.terms("Is it ROS2?", compounds=False) == ["ros", "2"]  # "Is" is no plural


def test_scores_are_the_same_in_every_process_whatever_its_string_hashing() -> None:
    """A set of terms is iterated in the order of the process's string hashes; float sums taken
    in that order differed in their last bit from one run to the next and broke ties between
    windows differently. The shares and BM25 scores are now the same in every process."""
    program = (
        "from backend.retrieval import lexical\n"
        "words = [f'w{i}' for i in range(60)]\n"
        "docs = [[w for j, w in enumerate(words) if (i * 7 + j) % (i % 5 + 2) == 0] for i in range(40)]\n"
        "postings = lexical.Postings(docs)\n"
        "asked = words[::2]\n"
        "print([repr(lexical.weighted_share(asked, d, postings.idf)) for d in docs])\n"
        "print(repr(postings.scores(asked)[0].tolist()))\n"
    )
    runs = {
        subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3", "4")
    }
    assert len(runs) == 1


def test_a_names_words_are_split_as_its_terms_are() -> None:
    assert lexical.name_words("IsaacSim") == ["Isaac", "Sim"]
    assert lexical.name_words("ros2_ws") == ["ros", "2", "ws"]
    assert lexical.name_words("Log4j") == ["Log", "4j"]  # a digit keeps the letters after it
