"""GET /api/health and GET /metrics."""

import asyncio

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from backend.metrics import REGISTRY

router = APIRouter(tags=["operations"])


@router.get("/api/health")
async def health(request: Request) -> JSONResponse:
    """Checks the vector store and the database; reports mode and model names."""
    state = request.app.state
    checks: dict[str, str] = {}
    try:
        engine = state.library.engine()
        await asyncio.to_thread(engine.retriever.index.current_collection)
        checks["vector_store"] = "ok"
    except Exception as exc:  # any failure means "down"; the reason is logged, not shown
        checks["vector_store"] = f"down ({type(exc).__name__})"
    try:
        await state.store.ping()
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"] = f"down ({type(exc).__name__})"
    healthy = all(v == "ok" for v in checks.values())
    settings = state.settings
    body = {
        "status": "ok" if healthy else "degraded",
        "checks": checks,
        "book": settings.book,
        "model": state.library.models.name,
        "embeddings": state.library.embedder.name,
        "vector_store": "qdrant-server" if settings.qdrant_url else "qdrant-local",
        "database": "postgres" if settings.database_url else "sqlite",
    }
    return JSONResponse(body, status_code=200 if healthy else 503)


@router.get("/metrics", include_in_schema=False)
async def metrics() -> Response:
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
