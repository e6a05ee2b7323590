"""The maintainer console: /admin (one page) and /api/admin/... (the same data as JSON, CSV).

Every /api/admin route needs `Authorization: Bearer <LECTERN_ADMIN_TOKEN>`, compared in
constant time; the page keeps the token the maintainer types for the browser tab only.
"""

import csv
import io
import secrets
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from backend.api.schemas import Problem
from backend.insights import GapFinder, Gaps, Overview, overview

CONSOLE_PAGE = Path(__file__).with_name("console.html")
Book = Annotated[str, PathParam(pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")]
Days = Annotated[int, Query(ge=1, le=366, description="How many days back")]
_bearer = HTTPBearer(auto_error=False, description="The maintainer token (LECTERN_ADMIN_TOKEN)")


def maintainer(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> None:
    expected = request.app.state.settings.admin_token
    if expected is None:
        raise HTTPException(403, "The maintainer console is off: set LECTERN_ADMIN_TOKEN to turn it on.")
    if credentials is None:
        raise HTTPException(401, "Send the maintainer token as `Authorization: Bearer <token>`.",
                            headers={"WWW-Authenticate": "Bearer"})
    if not secrets.compare_digest(credentials.credentials.encode(), expected.get_secret_value().encode()):
        raise HTTPException(403, "That token does not open this console.")


ERRORS = {401: {"model": Problem}, 403: {"model": Problem}, 404: {"model": Problem}}
router = APIRouter(prefix="/api/admin", tags=["maintainers"], dependencies=[Depends(maintainer)], responses=ERRORS)
page_router = APIRouter(include_in_schema=False)


@page_router.get("/admin")
async def console_page() -> HTMLResponse:
    return HTMLResponse(CONSOLE_PAGE.read_text(encoding="utf-8"), headers={"Cache-Control": "no-store"})


@router.get("/books")
async def books(request: Request) -> dict[str, list[str]]:
    """The served book and every book readers have asked about."""
    asked = await request.app.state.store.read(lambda store: store.books())
    return {"books": sorted({request.app.state.settings.book, *asked})}


@router.get("/books/{book}/overview")
async def book_overview(request: Request, book: Book, days: Days = 30) -> Overview:
    """Questions per day by status, status mix, latency, most asked questions and feedback."""
    return await request.app.state.store.read(lambda store: overview(store, book, days))


@router.get("/books/{book}/gaps")
async def book_gaps(request: Request, book: Book, days: Days = 30) -> Gaps:
    """Unanswered and voted-down questions grouped by meaning, with the nearest lessons."""
    engine = await request.app.state.library.loaded_engine(book)
    finders: dict[str, GapFinder] = request.app.state.gap_finders
    finder = finders.setdefault(book, GapFinder(engine.retriever, request.app.state.library.embedder))
    return await request.app.state.store.read(lambda store: finder.gaps(store, book, days))


EXPORT_COLUMNS = ["created_at", "question", "selected_text", "answer", "status", "confidence",
                  "latency_ms", "sources", "conversation_id", "message_id", "model"]


@router.get("/books/{book}/interactions", responses={200: {"content": {"text/csv": {}, "application/json": {}}}})
async def export(
    request: Request, book: Book, days: Days = 30, format: Literal["csv", "json"] = "csv"
) -> Response:
    """Every answered question in the period, oldest first, as CSV or JSON (a download)."""
    rows = await request.app.state.store.read(lambda store: store.interactions_since(book, _since(days)))
    name = f"lectern-{book}-{days}d.{format}"
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    if format == "json":
        return JSONResponse([row.model_dump(mode="json") for row in rows], headers=disposition)
    out = io.StringIO()
    writer = csv.DictWriter(out, EXPORT_COLUMNS, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        values = row.model_dump(mode="json")
        values["sources"] = " | ".join(source.get("url", "") for source in row.sources)
        writer.writerow(values)
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=disposition)


def _since(days: int) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)
