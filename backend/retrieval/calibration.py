"""What "unrelated to this book" means for this book, measured on the book itself.

How similar a question's best passages are to it depends on the book (its length, its
subject, how its pages are written) and on the embedding model, so no constant can say where
"related" starts. At ingest, and once for an index built before calibration existed, the book
is searched with everyday questions no technical book answers (`everyday_questions.txt`:
weather, cooking, sport, travel …); their best passages' similarity is what an unrelated
question scores on this book. A question whose best passage is no more similar than most of
them (OFF_TOPIC_QUANTILE) is outside the book's scope. The probes are fixed and the search
deterministic, so the same book and model always give the same figures.
"""

from pathlib import Path
from typing import Protocol

import numpy as np
from pydantic import BaseModel

PROBES = Path(__file__).with_name("everyday_questions.txt")
# The share of everyday questions a question must be more similar to the book than, to count
# as related: a high quantile, not the maximum, because a book may happen to touch one everyday
# subject (a cooking example in a programming guide) and that one probe says nothing of the rest.
OFF_TOPIC_QUANTILE = 0.9
# Bump when what is measured changes: a stored calibration of another method is measured again.
METHOD = "best-passage-similarity/everyday-40/q90"


class Calibration(BaseModel):
    """Stored with the index (collection metadata "calibration") and printed by ingest."""

    off_topic_similarity: float  # best-passage similarity most everyday questions stay below
    probes: int
    method: str = METHOD


class Searcher(Protocol):
    def topical_similarity(self, query: str) -> float: ...


def calibrate(searcher: Searcher) -> Calibration:
    questions = [q for q in PROBES.read_text(encoding="utf-8").splitlines() if q.strip()]
    similarities = [searcher.topical_similarity(q) for q in questions]
    level = float(np.quantile(similarities, OFF_TOPIC_QUANTILE, method="inverted_cdf"))
    return Calibration(off_topic_similarity=round(level, 4), probes=len(questions))
