"""What readers ask and what the book lacks: the maintainer console's figures, from the store.

Content gaps are the questions the book did not answer (status not_found) or whose answer a
reader voted down, grouped by meaning: complete-linkage clustering of their embeddings, so that
every two questions of a gap are more alike than two different topics of this book usually are
(a high percentile of the similarity between section titles of different pages, measured on the
served build, pooled with everyday questions on unrelated subjects; the percentile is the one
that groups labelled reader questions best, eval/gap_purity.py). Each gap lists its questions and
the lessons nearest to them, which is where the missing text would most likely go.

A gap none of whose questions comes nearer to the book than everyday questions do (the book's
calibrated off-topic level, the one the answer path uses to decide whether to suggest lessons)
is not something to write: its questions are listed apart, as off-topic.
"""

import asyncio
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Any

import numpy as np
from pydantic import BaseModel
from scipy.cluster.hierarchy import fcluster, linkage

from backend.metrics import percentile
from backend.retrieval.calibration import probe_questions
from backend.retrieval.embeddings import Embedder
from backend.retrieval.search import Retriever
from backend.store.models import AskedQuestion, FeedbackEntry
from backend.store.sql import Store

GAP_QUESTIONS = 500  # the most recent unanswered or voted-down questions that are clustered
# The percentile of different topics' similarity a gap's questions must pass: the one whose
# gaps best match labelled reader questions of three books (B-cubed F1, eval/gap_purity.py);
# chosen on two books leaving the third out, it is 92 to 95 (docs/evaluation.md, Content gaps).
SAME_TOPIC_PERCENTILE = 92.0
SECTION_SAMPLE = 200  # section titles compared to calibrate the cut (enough for a stable percentile)


class DayCount(BaseModel):
    day: str  # YYYY-MM-DD, UTC
    found: int = 0
    partial: int = 0
    not_found: int = 0


class Overview(BaseModel):
    book: str
    since: datetime
    questions: int
    status_mix: dict[str, int]
    latency_p50_ms: float
    latency_p95_ms: float
    per_day: list[DayCount]
    top_questions: list[AskedQuestion]
    helpful: int
    unhelpful: int
    feedback: list[FeedbackEntry]


class GapQuestion(BaseModel):
    question: str
    times: int
    why: str  # "not answered" or "voted down"


class NearLesson(BaseModel):
    module: str
    lesson: str
    url: str


class Gap(BaseModel):
    count: int  # times its questions were asked
    questions: list[GapQuestion]
    closest_lessons: list[NearLesson]


class Gaps(BaseModel):
    book: str
    since: datetime
    method: str
    same_topic_similarity: float
    gaps: list[Gap]
    off_topic: list[GapQuestion]  # no nearer to the book than everyday questions, most asked first


async def overview(store: Store, book: str, days: int, top: int = 10) -> Overview:
    since = datetime.now(UTC) - timedelta(days=days)
    rows = await store.answered_since(book, since)
    per_day: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        per_day[row["created_at"].astimezone(UTC).date().isoformat()][row["status"]] += 1
    latencies = [float(row["latency_ms"]) for row in rows]
    helpful, unhelpful = await store.vote_counts(book, since)
    votes = await store.feedback(book, top * 2, since=since)
    first = since.date()
    return Overview(
        book=book,
        since=since,
        questions=len(rows),
        status_mix={status: sum(1 for r in rows if r["status"] == status) for status in ("found", "partial", "not_found")},
        latency_p50_ms=round(statistics.median(latencies), 1) if latencies else 0.0,
        latency_p95_ms=round(percentile(latencies, 0.95), 1),
        per_day=[
            DayCount(day=day, **per_day.get(day, Counter()))
            for day in ((first + timedelta(days=n)).isoformat() for n in range(days + 1))
        ],
        top_questions=await store.top_questions(book, top, since=since),
        helpful=helpful,
        unhelpful=unhelpful,
        feedback=votes,
    )


class TopicLevels:
    """How alike two questions are when they are about one topic, or mean the same thing, on
    this build of the book: measured against pairs known to be about different topics (this
    book's section titles from different pages, and the everyday probe questions with each
    other). A long book's sections dominate the pairs; on a book of a few sections, the probes
    keep the estimate from resting on a handful of pairs.

    Questions put to one book share its subject ("Can Lectern read Notion?", "What does Lectern
    cost?"), which makes them alike whatever they ask. Gaps compare questions beyond that: less
    the book's centre (the mean of its passages' embeddings), for the pairs measured too."""

    def __init__(self, retriever: Retriever, embedder: Embedder):
        self.retriever = retriever
        self.embedder = embedder
        self._measured: tuple[str, DifferentTopics] | None = None

    def same_topic(self, percentile: float = SAME_TOPIC_PERCENTILE) -> float:
        """Less the book's centre, more alike than `percentile` % of pairs of different topics."""
        return float(np.percentile(self._different_topics().centred, percentile))

    def same_question(self) -> float:
        """More alike than any pair of different topics."""
        return float(self._different_topics().raw.max())

    def book_centre(self) -> np.ndarray:
        return self._different_topics().centre

    def _different_topics(self) -> "DifferentTopics":
        collection = self.retriever.corpus.collection
        if self._measured is None or self._measured[0] != collection:
            self._measured = (collection, self._measure())
        return self._measured[1]

    def _measure(self) -> "DifferentTopics":
        corpus = self.retriever.corpus
        titles: dict[str, str] = {}  # one page per distinct section title
        for chunk in corpus.chunks:
            if chunk.heading and chunk.heading not in titles:
                titles[chunk.heading] = chunk.source_path
        sample = sorted(titles.items())[:: max(1, len(titles) // SECTION_SAMPLE)][:SECTION_SAMPLE]
        probes = probe_questions()
        texts = [title for title, _ in sample] + probes
        centre = np.asarray(corpus.vectors, dtype=np.float64).mean(axis=0)

        def similarities(vectors: np.ndarray) -> np.ndarray:
            titled, asked = vectors[: len(sample)], vectors[len(sample):]
            pairs = [
                float(titled[i] @ titled[j])
                for i, j in combinations(range(len(sample)), 2) if sample[i][1] != sample[j][1]
            ]
            pairs += [float(asked[i] @ asked[j]) for i, j in combinations(range(len(probes)), 2)]
            return np.asarray(pairs)

        embedded = np.asarray(self.embedder.embed_documents(texts), dtype=np.float64)
        return DifferentTopics(
            raw=similarities(unit_rows(embedded)), centred=similarities(unit_rows(embedded - centre)), centre=centre,
        )


@dataclass(frozen=True)
class DifferentTopics:
    raw: np.ndarray  # cosines of the pairs of different topics
    centred: np.ndarray  # the same, less the book's centre
    centre: np.ndarray


class GapFinder:
    """Clusters a book's unanswered and voted-down questions (see the module docstring)."""

    def __init__(self, levels: TopicLevels, percentile: float = SAME_TOPIC_PERCENTILE):
        self.levels = levels  # the book's, measured once per build (shared with curated answers)
        self.percentile = percentile
        self.retriever = levels.retriever
        self.embedder = levels.embedder

    async def gaps(self, book: str, since: datetime, asked: list[dict[str, Any]], limit: int = 20) -> Gaps:
        """Clusters `asked` (Store.gap_questions' rows) off the event loop: it embeds (CPU work)."""
        questions = [GapQuestion(**row) for row in asked]
        return await asyncio.to_thread(self._cluster, book, since, questions, limit)

    def _cluster(self, book: str, since: datetime, asked: list[GapQuestion], limit: int) -> Gaps:
        level = self.levels.same_topic(self.percentile)
        method = (f"Two questions share a group when they are more alike than {self.percentile:g}% of pairs on "
                  "different topics of this book (its section titles from different pages, and everyday "
                  "questions), and so is every other pair in the group; what all of the book's text shares "
                  f"is left out first (similarity: the cosine of their embeddings, at least {level:.2f}). A "
                  "group no nearer to the book than everyday questions is listed as off-topic.")
        if not asked:
            return Gaps(book=book, since=since, method=method, same_topic_similarity=level, gaps=[], off_topic=[])
        vectors = unit_embeddings(self.embedder, [q.question for q in asked], self.levels.book_centre())
        if len(asked) == 1:
            labels = np.array([1])
        else:
            tree = linkage(vectors, method="complete", metric="cosine")
            labels = fcluster(tree, t=1 - level, criterion="distance")
        members: dict[int, list[int]] = defaultdict(list)
        for position, label in enumerate(labels):
            members[int(label)].append(position)
        near = self._near_the_book(asked)
        gaps, off_topic = [], []
        for group in members.values():
            questions = sorted((asked[i] for i in group), key=lambda q: -q.times)
            if not any(near[i] for i in group):
                off_topic += questions
                continue
            centre = vectors[group].mean(axis=0)
            typical = asked[max(group, key=lambda i: float(vectors[i] @ centre))].question
            gaps.append(Gap(
                count=sum(q.times for q in questions), questions=questions,
                closest_lessons=self._closest_lessons(typical),
            ))
        gaps.sort(key=lambda gap: (-gap.count, gap.questions[0].question))
        off_topic.sort(key=lambda q: (-q.times, q.question))
        return Gaps(book=book, since=since, method=method, same_topic_similarity=level,
                    gaps=gaps[:limit], off_topic=off_topic[:limit])

    def _near_the_book(self, asked: list[GapQuestion]) -> list[bool]:
        """Whether the book's nearest passage is nearer to each question than to most everyday
        questions: the answer path's test (calibration.py), on the same semantic score."""
        corpus = self.retriever.corpus
        level = self.retriever.calibration.off_topic_similarity
        nearest = [
            corpus.semantic_scores(corpus.cosines(np.asarray(self.embedder.embed_query(q.question))))
            .max(initial=0.0)
            for q in asked
        ]
        return [float(score) > level for score in nearest]

    def _closest_lessons(self, question: str, lessons: int = 3) -> list[NearLesson]:
        near: dict[str, NearLesson] = {}
        for hit in self.retriever.search(question, k=lessons * 3).hits:
            page_url = hit.chunk.url.split("#", 1)[0]
            near.setdefault(page_url, NearLesson(module=hit.chunk.module, lesson=hit.chunk.lesson, url=page_url))
        return list(near.values())[:lessons]


def unit_embeddings(embedder: Embedder, texts: list[str], centre: np.ndarray | None = None) -> np.ndarray:
    """One row per text (less `centre`), each of length 1, so a product of two rows is their cosine."""
    if not texts:
        return np.zeros((0, embedder.dimension))
    matrix = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    return unit_rows(matrix if centre is None else matrix - centre)


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
