"""What Lectern remembers: every answered question and every piece of reader feedback."""

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field


class Interaction(BaseModel):
    message_id: str
    conversation_id: str
    session_id: str | None = None
    book: str
    question: str
    selected_text: str | None = None
    answer: str
    sources: list[dict[str, Any]] = Field(default_factory=list)
    status: Literal["found", "partial", "not_found"]
    confidence: Literal["high", "needs_review", "not_found"]
    latency_ms: float
    model: str
    created_at: datetime


class Feedback(BaseModel):
    # One per voter and answer (see api/feedback.py); votes spooled by older versions have none.
    vote_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    message_id: str
    helpful: bool
    comment: str | None = Field(None, max_length=2000)
    created_at: datetime


class Stats(BaseModel):
    questions: int
    not_found: int
    helpful: int
    unhelpful: int

    @property
    def not_found_rate(self) -> float:
        return self.not_found / self.questions if self.questions else 0.0


class AskedQuestion(BaseModel):
    question: str
    times: int
    last_asked: datetime


class FeedbackEntry(BaseModel):
    question: str
    answer: str
    helpful: bool
    comment: str | None
    created_at: datetime
