"""From a model's raw reply to the answer a reader sees: checked citations, status,
confidence, and the fixed not-found text with suggested lessons."""

from pydantic import BaseModel

from backend.agent.context import RunState
from backend.grounding import messages
from backend.grounding.citations import Citation, CitationStream
from backend.grounding.status import Confidence, Status, assess
from backend.retrieval.models import Page

RELATED = 0.2  # evidence below this is too thin to call any lesson "related"
MAX_SUGGESTIONS = 3


class Suggestion(BaseModel):
    lesson: str
    module: str
    url: str


class Answer(BaseModel):
    text: str
    citations: list[Citation]
    status: Status
    confidence: Confidence
    suggestions: list[Suggestion]


def declined(text: str) -> bool:
    return text.strip().startswith(messages.NOT_IN_BOOK_MARKER)


def ground(stream: CitationStream, raw_text: str, state: RunState) -> Answer:
    """`stream` has been fed the model's text (streamed or whole); `raw_text` is that text."""
    citations = stream.citations()
    assessment = assess(state.evidence.support, len(citations), declined(raw_text))
    if assessment.status == "not_found":
        suggestions = suggest(state) if state.evidence.support >= RELATED else []
        return not_found(messages.NOT_FOUND, suggestions, assessment.status)
    text = stream.text.strip()
    if assessment.status == "partial":
        text = f"{text}\n\n*{messages.NEEDS_REVIEW_NOTE}*"
    return Answer(
        text=text,
        citations=citations,
        status=assessment.status,
        confidence=assessment.confidence,
        suggestions=[],
    )


def suggest(state: RunState) -> list[Suggestion]:
    """The lessons of the best retrieved passages, full lessons before summaries."""
    hits = sorted(state.sources.values(), key=lambda h: (h.chunk.kind != "lesson", -h.score))
    seen: dict[str, Suggestion] = {}
    for hit in hits:
        chunk = hit.chunk
        if chunk.source_path not in seen and len(seen) < MAX_SUGGESTIONS:
            url = chunk.url.split("#", 1)[0]
            seen[chunk.source_path] = Suggestion(lesson=chunk.lesson, module=chunk.module, url=url)
    return list(seen.values())


def topics(pages: list[Page]) -> list[Suggestion]:
    """The book's modules (their overview pages), for questions too broad to answer."""
    overviews = [p for p in pages if p.kind == "index"] or pages
    return [Suggestion(lesson=p.title, module=p.module, url=p.url) for p in overviews][:8]


def not_found(lead: str, suggestions: list[Suggestion], status: Status = "not_found") -> Answer:
    if not suggestions:
        lead = messages.NOT_FOUND_NO_SUGGESTIONS if lead == messages.NOT_FOUND else lead
    lines = [lead] + [
        f"- [{s.lesson}]({s.url})" + (f" ({s.module})" if s.module else "") for s in suggestions
    ]
    return Answer(
        text="\n".join(lines),
        citations=[],
        status=status,
        confidence="not_found",
        suggestions=suggestions,
    )
