"""Answer status and confidence from the judge's probabilities that the book answers the
question and that the answer is right (grounding/judge.py), and the levels learned with them."""

from typing import Literal

from pydantic import BaseModel

from backend.grounding.judge import Judgment

Status = Literal["found", "partial", "not_found"]
Confidence = Literal["high", "needs_review", "not_found"]


class Assessment(BaseModel):
    status: Status
    confidence: Confidence


def assess(
    judgment: Judgment,
    citations: int,
    model_declined: bool,
    found_at: float,
    high_at: float | None,
    every_part: bool = True,
    never_mentioned: bool = False,
) -> Assessment:
    """`every_part` is False when a part of a question that asks several things found too
    little support: the rest may be answered, the whole is not.

    A question that names something the book never mentions (`never_mentioned`) is not answered
    by it, whatever the judge's probability: over the 21 sets this fired on 72 questions, 66 of
    them unanswerable; the judge answered one of the other six, citing the wrong page, and
    declined the rest."""
    if model_declined or citations == 0 or never_mentioned or judgment.answers < found_at:
        return Assessment(status="not_found", confidence="not_found")
    if not every_part:
        return Assessment(status="partial", confidence="needs_review")
    if high_at is not None and judgment.right >= high_at:
        return Assessment(status="found", confidence="high")
    return Assessment(status="found", confidence="needs_review")
