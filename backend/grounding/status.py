"""Answer status and confidence from the evidence (see retrieval/search.py), graded against
the book's own calibration (retrieval/calibration.py).

`support` is the geometric mean of two model-independent measures of the best sentence window:
the IDF-weighted share of the question's terms it contains, and its passage's similarity to the
question relative to the question's average similarity to the rest of the book. Where on that scale
a book answers a question, and answers it confidently, is measured on each book at ingest.
"""

from typing import Literal

from pydantic import BaseModel

from backend.retrieval.calibration import Calibration

Status = Literal["found", "partial", "not_found"]
Confidence = Literal["high", "needs_review", "not_found"]


class Assessment(BaseModel):
    status: Status
    confidence: Confidence


def assess(
    support: float,
    citations: int,
    model_declined: bool,
    calibration: Calibration,
    every_part: bool = True,
    one_page: bool = False,
) -> Assessment:
    """`every_part` is False when a part of a question that asks several things found too
    little support: the rest may be answered, the whole is not. `one_page`: the evidence is of
    a search that found one page (retrieval/search.py, Evidence)."""
    if model_declined or citations == 0:
        return Assessment(status="not_found", confidence="not_found")
    if not every_part:
        return Assessment(status="partial", confidence="needs_review")
    if support >= calibration.confident:
        return Assessment(status="found", confidence="high")
    if support >= calibration.answerable_for(one_page):
        return Assessment(status="found", confidence="needs_review")
    return Assessment(status="partial", confidence="needs_review")
