"""POST /api/chat/query and POST /api/chat/stream."""

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

from fastapi import APIRouter, Depends, HTTPException, Request
from sse_starlette import EventSourceResponse, ServerSentEvent

from backend.agent.agent import AnswerEngine, TextDelta
from backend.api.access import check_reader
from backend.api.errors import DEPENDENCY_ERRORS, INTERNAL, RATE_LIMITED, dependency_error
from backend.api.limits import spend_book_budget
from backend.api.schemas import ChatRequest, ChatResponse, Problem, Source, public_links, public_url
from backend.grounding.answer import Answer
from backend.metrics import ANSWER_LATENCY, ANSWERS
from backend.question import Question
from backend.store.models import Interaction

log = logging.getLogger("lectern.api")

ERRORS = {
    400: {"model": Problem, "description": "Invalid request"},
    401: {"model": Problem, "description": "A private book without a valid reader token"},
    403: {"model": Problem, "description": "A page on a site that may not ask this book"},
    404: {"model": Problem, "description": "Book not ingested"},
    429: {"model": Problem, "description": "Rate limited (see Retry-After)"},
    503: {"model": Problem, "description": "A dependency is down"},
}


def chat_router(questions: Callable[[Request], None]) -> APIRouter:
    """`questions`: the readers' questions budget (limits.budget), one for both routes and MCP's
    answer_question: a question costs the same however its answer is delivered."""
    router = APIRouter(prefix="/api/chat", tags=["chat"], dependencies=[Depends(questions)])

    @router.post("/query", response_model=ChatResponse, responses=ERRORS)
    async def query(request: Request, body: ChatRequest) -> ChatResponse:
        """Answer a question from the book, with citations."""
        turn = await Turn.start(request, body)
        answer = turn.curated or await turn.engine.answer(turn.question)
        return await turn.finish(answer)

    @router.post("/stream", responses={200: {"content": {"text/event-stream": {}}}, **ERRORS})
    async def stream(request: Request, body: ChatRequest) -> EventSourceResponse:
        """The same answer as Server-Sent Events: text deltas, sources, confidence, done."""
        turn = await Turn.start(request, body)
        return EventSourceResponse(turn.events(), ping=15)

    return router


class Turn:
    """One question being answered: resolves history, times the answer, stores the result."""

    def __init__(
        self, request: Request, body: ChatRequest, engine: AnswerEngine, question: Question, curated: Answer | None
    ):
        self.request = request
        self.body = body
        self.engine = engine
        self.question = question
        self.curated = curated  # the maintainers' reviewed answer to this question, if there is one
        self.conversation_id = body.conversation_id or uuid.uuid4().hex
        self.message_id = uuid.uuid4().hex
        self.started = time.perf_counter()

    @classmethod
    async def start(cls, request: Request, body: ChatRequest) -> "Turn":
        book = body.book or request.app.state.settings.book
        check_reader(request, book)
        await _spend_book_budget(request, book)
        # Fails fast (503/404) while a plain HTTP error can still be sent, before any stream.
        engine = await request.app.state.library.loaded_engine(body.book)
        history = body.conversation_history
        if not history and body.conversation_id:
            history = await request.app.state.store.history(body.conversation_id, book)
        question = Question(
            text=body.query,
            selected_text=body.selected_text,
            surrounding_text=body.surrounding_text,
            lesson_id=body.lesson_id,
            history=history,
        )
        curated = await request.app.state.curated.answer(engine.retriever.index.book, question)
        return cls(request, body, engine, question, curated)

    async def finish(self, answer: Answer) -> ChatResponse:
        latency = time.perf_counter() - self.started
        ANSWER_LATENCY.observe(latency)
        ANSWERS.labels(answer.status).inc()
        origin = str(self.request.base_url).rstrip("/")
        sources = [
            Source.model_validate(c.model_dump() | {"url": public_url(c.url, origin)}) for c in answer.citations
        ]
        text = public_links(answer.text, origin)
        now = datetime.now(UTC)
        await self.request.app.state.store.record_interaction(
            Interaction(
                message_id=self.message_id,
                conversation_id=self.conversation_id,
                session_id=self.request.headers.get("x-session-id"),
                book=self.engine.retriever.index.book,
                question=self.question.text,
                selected_text=self.question.selected_text,
                answer=text,
                sources=[s.model_dump() for s in sources],
                status=answer.status,
                confidence=answer.confidence,
                latency_ms=round(latency * 1000, 1),
                model="curated" if self.curated else self.engine.model_name,
                created_at=now,
            )
        )
        log.info(
            "answered",
            extra={"status": answer.status, "latency_ms": round(latency * 1000, 1)}
            | ({"question": self.question.text} if self.request.app.state.settings.log_user_text else {}),
        )
        return ChatResponse(
            response=text,
            sources=sources,
            status=answer.status,
            confidence=answer.confidence,
            reviewed=self.curated is not None,
            conversation_id=self.conversation_id,
            message_id=self.message_id,
            timestamp=now,
        )

    async def events(self) -> AsyncIterator[ServerSentEvent]:
        streamed = ""
        try:
            answers = _just(self.curated) if self.curated else self.engine.stream(self.question)
            async for event in answers:
                if isinstance(event, TextDelta):
                    streamed += event.text
                    yield _event("text", {"delta": event.text})
                    continue
                response = await self.finish(event)
                if response.response != streamed:
                    yield _event("replace", {"text": response.response})
                for source in response.sources:
                    yield _event("source", source.model_dump())
                yield _event("confidence", {"status": response.status, "confidence": response.confidence,
                                            "reviewed": response.reviewed})
                yield _event("done", {"conversation_id": response.conversation_id, "message_id": response.message_id})
        except DEPENDENCY_ERRORS as exc:
            status, detail, _ = dependency_error(exc)
            log.warning("dependency failure while streaming: %s", type(exc).__name__)
            yield _event("error", {"code": status, "message": detail})
        except Exception:
            log.exception("unhandled error while streaming")
            request_id = getattr(self.request.state, "request_id", "-")
            yield _event("error", {"code": 500, "message": INTERNAL.format(request_id=request_id)})


async def _spend_book_budget(request: Request, book: str) -> None:
    state = request.app.state
    wait = await asyncio.to_thread(spend_book_budget, state.limiter, state.registry, request, book)
    if wait is not None:
        raise HTTPException(429, RATE_LIMITED.format(what="questions", seconds=wait), headers={"Retry-After": str(wait)})


async def _just(answer: Answer) -> AsyncIterator[TextDelta | Answer]:
    """A curated answer as a stream: its text at once, then the answer."""
    yield TextDelta(answer.text)
    yield answer


def _event(name: str, data: dict[str, object]) -> ServerSentEvent:
    return ServerSentEvent(event=name, data=json.dumps(data, ensure_ascii=False))
