"""GET /api/health and GET /metrics."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from backend.api.limits import counting_in_memory
from backend.metrics import REGISTRY
from backend.retrieval.index import local_index_problem

router = APIRouter(tags=["operations"])


@router.get("/api/health", responses={503: {"description": "A dependency is down (see checks)"}})
async def health(request: Request) -> JSONResponse:
    """Checks the vector store, the database and the rate-limit store, each within its timeout;
    200 when all are ok, else 503 with the failing checks. Reports mode, model names and how
    many answers and votes wait in the spool for the database."""
    state = request.app.state
    settings = state.settings

    async def vector_store() -> None:
        if not settings.qdrant_url and (problem := await asyncio.to_thread(local_index_problem, settings.qdrant_path)):
            raise RuntimeError(problem)
        await state.library.loaded_corpus()  # asks the store which build it serves

    async def rate_limits() -> None:
        if counting_in_memory(state.limiter, settings):
            raise ConnectionError("limits counted per instance until Redis answers")
        if settings.redis_url and not await asyncio.to_thread(state.limiter.limiter.storage.check):
            raise ConnectionError("Redis did not answer")

    checks = {
        "vector_store": await _check(vector_store, settings.dependency_timeout),
        "database": await _check(state.store.ping, settings.dependency_timeout),
        "rate_limits": await _check(rate_limits, settings.dependency_timeout),
    }
    healthy = all(v == "ok" for v in checks.values())
    body: dict[str, Any] = {
        "status": "ok" if healthy else "degraded",
        "checks": checks,
        "pending_writes": state.store.pending(),
        "book": settings.book,
        "model": state.library.models.name,
        "embeddings": state.library.embedder.name,
        "vector_store": "qdrant-server" if settings.qdrant_url else "qdrant-local",
        "database": "postgres" if settings.database_url else "sqlite",
        "rate_limit_store": "redis" if settings.redis_url else "memory",
    }
    return JSONResponse(body, status_code=200 if healthy else 503)


async def _check(probe: Callable[[], Awaitable[None]], timeout: float) -> str:
    """'ok' or 'down (reason)'; the reason names the failure, never shows internals."""
    try:
        await asyncio.wait_for(probe(), timeout)
        return "ok"
    except TimeoutError:
        return f"down (no answer within {timeout:g} s)"
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        reason = str(exc) if isinstance(exc, RuntimeError | ConnectionError) else type(exc).__name__
        return f"down ({reason})"


@router.get("/metrics", include_in_schema=False)
async def metrics() -> Response:
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
