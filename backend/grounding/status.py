"""Answer status and confidence from calibrated evidence (see retrieval/search.py).

`support` is the mean of two model-independent measures of the best sentence window: the
IDF-weighted share of the question's terms it contains, and its passage's similarity to the
question relative to the question's average similarity to the whole book. On the development
set (physical-ai book, local embeddings), unanswerable questions score 0.10–0.36 and answerable
ones 0.35–0.9; ANSWERABLE sits at the boundary, CONFIDENT where answers were all correct.
"""

from typing import Literal

from pydantic import BaseModel

Status = Literal["found", "partial", "not_found"]
Confidence = Literal["high", "needs_review", "not_found"]

ANSWERABLE = 0.36  # below this the offline model says the book does not cover the question
CONFIDENT = 0.5  # at or above this a cited answer is `found` with `high` confidence


class Assessment(BaseModel):
    status: Status
    confidence: Confidence


def assess(
    support: float, citations: int, model_declined: bool, every_part: bool = True
) -> Assessment:
    """`every_part` is False when a part of a question that asks several things found too
    little support: the rest may be answered, the whole is not."""
    if model_declined or citations == 0:
        return Assessment(status="not_found", confidence="not_found")
    if not every_part:
        return Assessment(status="partial", confidence="needs_review")
    if support >= CONFIDENT:
        return Assessment(status="found", confidence="high")
    if support >= ANSWERABLE:
        return Assessment(status="found", confidence="needs_review")
    return Assessment(status="partial", confidence="needs_review")
