"""Request and response bodies of the HTTP API (the contract in docs/architecture.md)."""

import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from backend.question import (
    MAX_HISTORY_TURNS,
    MAX_LESSON_ID,
    MAX_QUESTION,
    MAX_SELECTION,
    MAX_SURROUNDING,
    Turn,
    readable,
)
from backend.retrieval.index import BOOK_ID


def no_nul(value: object) -> object:
    """Text with a NUL character cannot be stored (PostgreSQL refuses it) and is never meant."""
    items = value if isinstance(value, list) else [value]
    texts = [getattr(item, "content", item) for item in items]  # a history's turns, or strings
    if any(isinstance(text, str) and "\x00" in text for text in texts):
        raise ValueError("must not contain NUL characters (\\u0000)")
    return value


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUESTION, description="The reader's question.")
    selected_text: str | None = Field(None, max_length=MAX_SELECTION)
    surrounding_text: str | None = Field(None, max_length=MAX_SURROUNDING)
    lesson_id: str | None = Field(None, max_length=MAX_LESSON_ID)
    conversation_history: list[Turn] = Field(default_factory=list, max_length=MAX_HISTORY_TURNS)
    conversation_id: str | None = Field(None, max_length=100, pattern=r"^[A-Za-z0-9_-]+$")
    book: str | None = Field(None, pattern=BOOK_ID.pattern)

    _no_nul = field_validator("*")(no_nul)

    @field_validator("query")
    @classmethod
    def not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be empty")
        if not readable(value):
            raise ValueError("query has no text once its markup and invisible characters are removed")
        return value.strip()


SERVED_HERE = "/books/"  # what this server serves itself: a PDF's viewer and file
_SERVED_LINK = re.compile(r"\]\((/books/[^)\s]*)\)")


def public_url(url: str, origin: str) -> str:
    """A link to something this server serves, made absolute: the widget shows it on another
    site. `origin` is the server's base URL as the reader reached it."""
    return origin + url if url.startswith(SERVED_HERE) else url


def public_links(markdown: str, origin: str) -> str:
    return _SERVED_LINK.sub(lambda link: f"]({origin}{link.group(1)})", markdown)


class Source(BaseModel):
    module: str
    lesson: str
    section: str
    url: str
    excerpt: str
    score: float
    page: int | None = Field(None, description="Of a PDF: the page the excerpt is on (1-based)")


class ChatResponse(BaseModel):
    response: str
    sources: list[Source]
    status: Literal["found", "partial", "not_found"]
    confidence: Literal["high", "needs_review", "not_found"]
    reviewed: bool = Field(False, description="The maintainers' reviewed answer to this question")
    conversation_id: str
    message_id: str
    timestamp: datetime


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    message_id: str = Field(max_length=100)
    helpful: bool
    comment: str | None = Field(None, max_length=2000)

    _no_nul = field_validator("*")(no_nul)


class Problem(BaseModel):
    detail: str
