"""From a model's raw reply to the answer a reader sees: checked citations, status,
confidence, and the fixed not-found text with suggested lessons."""

from pydantic import BaseModel

from backend.grounding import messages
from backend.grounding.citations import Citation, CitationStream, citation_of
from backend.grounding.judge import Judge, Judgment
from backend.grounding.run import RunState
from backend.grounding.status import Confidence, Status, assess
from backend.retrieval import lexical
from backend.retrieval.index import ScoredChunk
from backend.retrieval.models import Page
from backend.retrieval.search import BookCorpus

PART_COVERED = 0.5  # an answer using this share of a part's (IDF-weighted) words addresses it
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
    judgment: Judgment | None = None  # of a generated answer: the judge's signals and probability


def declined(text: str) -> bool:
    return text.strip().startswith(messages.NOT_IN_BOOK_MARKER)


def ground(stream: CitationStream, raw_text: str, state: RunState, judge: Judge) -> Answer:
    """`stream` has been fed the model's text (streamed or whole); `raw_text` is that text."""
    citations = stream.citations()
    calibration = state.retriever.calibration
    judgment = judge.judge(state, stream)
    assessment = assess(
        judgment, len(citations), declined(raw_text), judge.found_at, judge.high_at,
        _answers_every_part(state, stream.text), never_mentioned=bool(state.evidence.unmentioned),
    )
    if assessment.status == "not_found":
        related = state.evidence.topical > calibration.off_topic_similarity
        suggestions = suggest(state) if related else []
        if not suggestions:  # no nearer to the book than everyday questions: say what it covers
            answer = not_found(messages.OUT_OF_SCOPE, topics(state.retriever.corpus.pages))
        elif unmentioned := state.evidence.unmentioned:
            answer = not_found(messages.NEVER_MENTIONED.format(names=" or ".join(unmentioned)), suggestions)
        else:
            answer = not_found(messages.NOT_FOUND, suggestions, assessment.status)
        return answer.model_copy(update={"judgment": judgment})
    text = stream.text.strip()
    if assessment.status == "partial":
        text = f"{text}\n\n*{messages.NEEDS_REVIEW_NOTE}*"
    return Answer(
        text=text,
        citations=citations,
        status=assessment.status,
        confidence=assessment.confidence,
        suggestions=[],
        judgment=judgment,
    )


def _answers_every_part(state: RunState, answer: str) -> bool:
    """False when the run searched for a part of the question ("…, and what is X?"), the book
    had too little on it, and the answer does not use that part's words either. A statement
    that sets the scene ("Our robot runs Kubernetes.") asks nothing, so needs no answer."""
    question = state.question
    idf = state.retriever.corpus.idf
    calibration = state.retriever.calibration
    said = frozenset(lexical.terms(answer, compounds=False))
    for part, query in question.asked.parts.items():
        found = state.searched.get(query)
        if part in question.asked.scenes or found is None or found.support >= calibration.answerable_for(found.one_page):
            continue
        if lexical.weighted_share(lexical.terms(part, compounds=False), said, idf) < PART_COVERED:
            return False
    return True


def suggest(state: RunState) -> list[Suggestion]:
    """The lessons of the best retrieved passages, full lessons before summaries, each linked
    to where it begins (a PDF chapter to its first page)."""
    hits = sorted(
        state.sources.values(),
        key=lambda h: (h.chunk.kind != "lesson", -h.score, h.chunk.source_path, h.chunk.position),
    )
    corpus = state.retriever.corpus
    seen: dict[str, Suggestion] = {}
    for hit in hits:
        chunk = hit.chunk
        if chunk.source_path not in seen and len(seen) < MAX_SUGGESTIONS:
            page = corpus.find_page(chunk.source_path)
            url = page.url if page else chunk.url.split("#", 1)[0]
            seen[chunk.source_path] = Suggestion(lesson=chunk.lesson, module=chunk.module, url=url)
    return list(seen.values())


def topics(pages: list[Page]) -> list[Suggestion]:
    """The book's modules (their overview pages, else their first pages), for questions too
    broad to answer or outside the book."""
    return [Suggestion(lesson=_named(p), module="" if p.kind != "index" else p.module, url=p.url)
            for p in _overviews(pages)][:8]


def book_overview(corpus: BookCorpus) -> Answer:
    """"What does this book cover?": each module with its lessons, citing the module's
    overview page, else its first page (a book without modules gets the list of its topics)."""
    lines: list[str] = []
    citations: list[Citation] = []
    for overview in _overviews(corpus.pages):
        passages = corpus.page_chunks(overview.source_path)
        lessons = [p.title for p in corpus.pages if p.module == overview.module and p.kind == "lesson"]
        if not overview.module or not passages or not lessons:
            continue
        number = len(citations) + 1
        citations.append(citation_of(number, ScoredChunk(passages[0], 1.0), _named(overview)))
        lines.append(f"- **{_named(overview)}**: {', '.join(lessons)} [{number}]")
    if not citations:
        return not_found(messages.BOOK_TOPICS, topics(corpus.pages))
    return Answer(
        text="\n".join([messages.BOOK_CONTENTS, *lines]),
        citations=citations,
        status="found",
        confidence="high",
        suggestions=[],
    )


def _overviews(pages: list[Page]) -> list[Page]:
    """The page that opens each module, in reading order: its overview (index) page, else its
    first page; the first pages of a book with no modules."""
    if overviews := [p for p in pages if p.kind == "index" and p.module]:
        return overviews
    first: dict[str, Page] = {}
    for page in pages:
        if page.module:
            first.setdefault(page.module, page)
    return list(first.values()) or pages


def _named(page: Page) -> str:
    """What a module's opening page stands for: the overview by its title, another page by its
    module's name."""
    return page.title if page.kind == "index" or not page.module else page.module


def not_found(lead: str, suggestions: list[Suggestion], status: Status = "not_found") -> Answer:
    if not suggestions:
        lead = messages.NOT_FOUND_NO_SUGGESTIONS if lead == messages.NOT_FOUND else lead
    lines = [lead] + [
        f"- [{s.lesson}]({s.url})" + (f" ({s.module})" if s.module not in ("", s.lesson) else "")
        for s in suggestions
    ]
    return Answer(
        text="\n".join(lines),
        citations=[],
        status=status,
        confidence="not_found",
        suggestions=suggestions,
    )
