"""What Lectern remembers: every answered question and every piece of reader feedback."""

import uuid
from datetime import datetime
from enum import StrEnum
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


class RowStatus(StrEnum):
    FOUND = "FOUND"
    PARTIAL = "PARTIAL"
    NOT_FOUND = "NOT_FOUND"


class Citation(BaseModel):
    module: str
    lesson: str
    section: str
    url: str


class GeneratedAnswer(BaseModel):
    answer: str
    status: RowStatus
    citations: list[Citation]


class QuestionnaireRow(BaseModel):
    position: int  # 1-based, the order of the file's data rows
    cells: list[str]
    question: str
    generated: GeneratedAnswer | None = None  # None until answered, or when the cell is empty
    approved_answer: str | None = None

    @property
    def approved(self) -> bool:
        return self.approved_answer is not None


class Questionnaire(BaseModel):
    id: str
    book: str
    name: str
    header: list[str]
    question_column: str
    created_at: datetime



class CitedPassage(BaseModel):
    chunk_id: str
    content_hash: str  # the passage's text when the answer was approved


class CuratedAnswer(BaseModel):
    id: str
    book: str
    question: str
    answer: str
    citations: list[CitedPassage]
    state: Literal["active", "needs_review", "withdrawn"]
    created_at: datetime
    updated_at: datetime
