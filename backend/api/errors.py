"""Every failure becomes a clear JSON message with the right status; never a stack trace."""

import asyncio
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse
from slowapi.errors import RateLimitExceeded
from starlette.exceptions import HTTPException

from backend.agent.errors import ModelUnavailable
from backend.api.limits import seconds_to_refill
from backend.retrieval.embeddings import EmbeddingError
from backend.retrieval.index import BookNotIngested, IndexUnavailable
from backend.store.resilient import DatabaseUnavailable

log = logging.getLogger("lectern.api")

SEARCH_DOWN = "Search is temporarily unavailable. Please try again in a minute."
DATABASE_DOWN = "The database is temporarily unavailable. Please try again in a minute."
MODEL_BUSY = "The answer service is busy right now. Please try again in {seconds} seconds."
MODEL_DOWN = "The answer service is temporarily unavailable. Please try again in a minute."
RATE_LIMITED = "Too many {what} in a short time. Please try again in {seconds} seconds."
# What a budget counts, by the route that spends it (questions elsewhere).
_COUNTED = {"/api/search": "searches", "/api/feedback": "votes", "/mcp": "calls"}
INTERNAL = "Something went wrong on our side (request {request_id}). Please try again."


def problem(status: int, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def validation_message(exc: RequestValidationError) -> str:
    messages = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body")
        text = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
        if error.get("type") == "extra_forbidden":
            text = "unknown field"
        elif error.get("type") == "json_invalid":
            text = "the request body is not valid JSON"
        messages.append(f"{where}: {text}" if where else text)
    return "; ".join(messages) or "invalid request"


def dependency_error(exc: Exception) -> tuple[int, str, dict[str, str]]:
    """Status, message and headers for a failure of a service Lectern depends on."""
    if isinstance(exc, ModelUnavailable):
        seconds = str(exc.retry_after)
        if exc.rate_limited:
            return 429, MODEL_BUSY.format(seconds=seconds), {"Retry-After": seconds}
        return 503, MODEL_DOWN, {"Retry-After": "60"}
    if isinstance(exc, BookNotIngested):
        return 404, f"{exc} (run `lectern ingest`, or upload its sources in the console)", {}
    if isinstance(exc, DatabaseUnavailable):
        return 503, DATABASE_DOWN, {"Retry-After": "30"}
    return 503, SEARCH_DOWN, {"Retry-After": "30"}


DEPENDENCY_ERRORS = (
    ModelUnavailable,
    BookNotIngested,
    IndexUnavailable,
    EmbeddingError,
    ResponseHandlingException,
    UnexpectedResponse,
    DatabaseUnavailable,
)


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def on_invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return problem(400, validation_message(exc))

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, exc: HTTPException) -> JSONResponse:
        return problem(exc.status_code, str(exc.detail), getattr(exc, "headers", None))

    @app.exception_handler(RateLimitExceeded)
    async def on_rate_limited(request: Request, exc: RateLimitExceeded) -> JSONResponse:
        seconds = str(await asyncio.to_thread(retry_after_seconds, request, exc))  # may ask Redis
        what = next((w for path, w in _COUNTED.items() if request.url.path.startswith(path)), "questions")
        return problem(429, RATE_LIMITED.format(what=what, seconds=seconds), {"Retry-After": seconds})

    for error in DEPENDENCY_ERRORS:
        @app.exception_handler(error)
        async def on_dependency(request: Request, exc: Exception) -> JSONResponse:
            status, detail, headers = dependency_error(exc)
            log.warning("dependency failure: %s: %s", type(exc).__name__, exc)
            return problem(status, detail, headers)

    @app.exception_handler(Exception)
    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        request_id = getattr(request.state, "request_id", "-")
        log.exception("unhandled error")
        return problem(500, INTERNAL.format(request_id=request_id))


def retry_after_seconds(request: Request, exc: RateLimitExceeded) -> int:
    """Seconds until the exceeded window resets, from the limiter's own storage."""
    current = getattr(request.state, "view_rate_limit", None)
    if current is not None:
        return seconds_to_refill(request.app.state.limiter, current[0], current[1])
    return exc.limit.limit.get_expiry()
