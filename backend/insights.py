"""What readers ask and what the book lacks: the maintainer console's figures, from the store.

Content gaps are the questions the book did not answer (status not_found) or whose answer a
reader voted down, grouped by meaning: complete-linkage clustering of their embeddings, so that
every two questions of a gap are more alike than two different sections of this book usually
are (the 95th percentile of the similarity between section titles of different pages, measured
on the served build, pooled with everyday questions on unrelated subjects). Each gap lists its
questions and the lessons nearest to them, which is where the missing text would most likely go.
"""

import asyncio
import statistics
from collections import Counter, defaultdict
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
SAME_TOPIC_PERCENTILE = 95
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
    keep the estimate from resting on a handful of pairs."""

    def __init__(self, retriever: Retriever, embedder: Embedder):
        self.retriever = retriever
        self.embedder = embedder
        self._measured: tuple[str, np.ndarray] | None = None

    def same_topic(self) -> float:
        """More alike than SAME_TOPIC_PERCENTILE % of pairs of different topics."""
        return float(np.percentile(self._different_topics(), SAME_TOPIC_PERCENTILE))

    def same_question(self) -> float:
        """More alike than any pair of different topics."""
        return float(self._different_topics().max())

    def _different_topics(self) -> np.ndarray:
        collection = self.retriever.corpus.collection
        if self._measured is None or self._measured[0] != collection:
            self._measured = (collection, self._measure())
        return self._measured[1]

    def _measure(self) -> np.ndarray:
        titles: dict[str, str] = {}  # one page per distinct section title
        for chunk in self.retriever.corpus.chunks:
            if chunk.heading and chunk.heading not in titles:
                titles[chunk.heading] = chunk.source_path
        sample = sorted(titles.items())[:: max(1, len(titles) // SECTION_SAMPLE)][:SECTION_SAMPLE]
        probes = probe_questions()
        vectors = unit_embeddings(self.embedder, [title for title, _ in sample] + probes)
        titled, asked = vectors[: len(sample)], vectors[len(sample):]
        similarities = [
            float(titled[i] @ titled[j])
            for i, j in combinations(range(len(sample)), 2) if sample[i][1] != sample[j][1]
        ]
        similarities += [float(asked[i] @ asked[j]) for i, j in combinations(range(len(probes)), 2)]
        return np.asarray(similarities)


class GapFinder:
    """Clusters a book's unanswered and voted-down questions (see the module docstring)."""

    def __init__(self, levels: TopicLevels):
        self.levels = levels  # the book's, measured once per build (shared with curated answers)
        self.retriever = levels.retriever
        self.embedder = levels.embedder

    async def gaps(self, book: str, since: datetime, asked: list[dict[str, Any]], limit: int = 20) -> Gaps:
        """Clusters `asked` (Store.gap_questions' rows) off the event loop: it embeds (CPU work)."""
        questions = [GapQuestion(**row) for row in asked]
        return await asyncio.to_thread(self._cluster, book, since, questions, limit)

    def _cluster(self, book: str, since: datetime, asked: list[GapQuestion], limit: int) -> Gaps:
        level = self.levels.same_topic()
        method = (f"Two questions share a group when their similarity (the cosine of their embeddings) is at "
                  f"least {level:.2f}, and so is every other pair in the group: more alike than "
                  f"{SAME_TOPIC_PERCENTILE}% of pairs on different topics of this book (its section titles "
                  "from different pages, and everyday questions), measured on each build.")
        if not asked:
            return Gaps(book=book, since=since, method=method, same_topic_similarity=level, gaps=[])
        vectors = unit_embeddings(self.embedder, [q.question for q in asked])
        if len(asked) == 1:
            labels = np.array([1])
        else:
            tree = linkage(vectors, method="complete", metric="cosine")
            labels = fcluster(tree, t=1 - level, criterion="distance")
        members: dict[int, list[int]] = defaultdict(list)
        for position, label in enumerate(labels):
            members[int(label)].append(position)
        gaps = []
        for group in members.values():
            questions = sorted((asked[i] for i in group), key=lambda q: -q.times)
            centre = vectors[group].mean(axis=0)
            typical = asked[max(group, key=lambda i: float(vectors[i] @ centre))].question
            gaps.append(Gap(
                count=sum(q.times for q in questions), questions=questions,
                closest_lessons=self._closest_lessons(typical),
            ))
        gaps.sort(key=lambda gap: (-gap.count, gap.questions[0].question))
        return Gaps(book=book, since=since, method=method, same_topic_similarity=level, gaps=gaps[:limit])

    def _closest_lessons(self, question: str, lessons: int = 3) -> list[NearLesson]:
        near: dict[str, NearLesson] = {}
        for hit in self.retriever.search(question, k=lessons * 3).hits:
            page_url = hit.chunk.url.split("#", 1)[0]
            near.setdefault(page_url, NearLesson(module=hit.chunk.module, lesson=hit.chunk.lesson, url=page_url))
        return list(near.values())[:lessons]


def unit_embeddings(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """One row per text, each of length 1, so a product of two rows is their cosine."""
    if not texts:
        return np.zeros((0, embedder.dimension))
    matrix = np.asarray(embedder.embed_documents(texts), dtype=np.float64)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
