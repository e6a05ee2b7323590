"""The maintainer console: /admin (one page) and /api/admin/... (the same data as JSON, CSV).

Every /api/admin route needs `Authorization: Bearer <token>`: LECTERN_ADMIN_TOKEN opens every
book, a book's own token (backend/registry.py) that book alone; compared in constant time.

The page signs in once per browser (POST /api/admin/session): the token is kept in an HttpOnly
cookie, so no script on the page, an injected one included, can read it (in web storage any
script could send it elsewhere). The cookie goes only to /api/admin, never from another site
(SameSite=Strict), and counts only on requests carrying the console's own header, which another
origin cannot add without a preflight this app refuses: no cross-site request forgery. It
lasts a week unless the maintainer signs out.
"""

import asyncio
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
from pydantic import BaseModel, ConfigDict, Field, field_validator

from backend.api.edge import CONSOLE_POLICY
from backend.api.limits import guessing
from backend.api.schemas import MAX_SURROUNDING, Problem, no_nul
from backend.curated import CuratedError, changed_passages, cited_passages, new_curated
from backend.grounding.citations import excerpt
from backend.insights import GAP_QUESTIONS, GapFinder, Gaps, Overview, overview
from backend.question import MAX_QUESTION
from backend.questionnaires import (
    ExportMode,
    QuestionnaireError,
    Summary,
    export_csv,
    export_name,
    new_questionnaire,
    read_csv,
    spreadsheet_safe,
    summary,
)
from backend.registry import Registry
from backend.retrieval.index import BOOK_ID
from backend.retrieval.models import Chunk
from backend.store.models import CuratedAnswer, Questionnaire, QuestionnaireRow

CONSOLE_PAGE = Path(__file__).with_name("console.html")
Book = Annotated[str, PathParam(pattern=BOOK_ID.pattern)]
Days = Annotated[int, Query(ge=1, le=366, description="How many days back")]
_bearer = HTTPBearer(auto_error=False, description="LECTERN_ADMIN_TOKEN, or a book's maintainer token")
SESSION_COOKIE = "lectern_console"
CONSOLE_HEADER = "X-Lectern-Console"  # sent by the console's page with the cookie
SESSION_SECONDS = 7 * 24 * 3600


class Maintainer(BaseModel):
    """Whom a token opens the console for: every book, or the books whose token it is."""

    every_book: bool
    books: frozenset[str] = frozenset()

    def opens(self, book: str) -> bool:
        return self.every_book or book in self.books


def maintainer(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Maintainer:
    admin = request.app.state.settings.admin_token
    registry: Registry | None = request.app.state.registry
    policies = registry.books if registry else {}
    if admin is None and not any(policy.maintainer_token_sha256 for policy in policies.values()):
        raise HTTPException(403, "The maintainer console is off: set LECTERN_ADMIN_TOKEN to turn it on.")
    token = credentials.credentials if credentials else _signed_in(request)
    if token is None:
        raise HTTPException(401, "Send the maintainer token as `Authorization: Bearer <token>`.",
                            headers={"WWW-Authenticate": "Bearer"})
    if admin is not None and secrets.compare_digest(token.encode(), admin.get_secret_value().encode()):
        who = Maintainer(every_book=True)
    else:
        who = Maintainer(every_book=False, books=frozenset(b for b, p in policies.items() if p.opened_by(token)))
    opened = who.every_book or bool(who.books)
    wait = guessing(request.app.state.limiter, request, request.app.state.settings.rate_limit_wrong_tokens,
                    wrong=not opened)
    if wait is not None:
        raise HTTPException(429, f"Too many wrong tokens from this address. Please try again in {wait} seconds.",
                            headers={"Retry-After": str(wait)})
    if not opened:
        raise HTTPException(403, "That token does not open this console.")
    book = request.path_params.get("book")
    if book is not None and not who.opens(book):
        raise HTTPException(403, f"That token does not open the book {book!r}.")
    return who


def _signed_in(request: Request) -> str | None:
    """The token the console's page signed in with, on the page's own requests only."""
    return request.cookies.get(SESSION_COOKIE) if request.headers.get(CONSOLE_HEADER) == "1" else None


# Every console route may refuse its input (400: a book id, a query, a body), its token (401,
# 403, 429), the book (404) or answer 503 when the database is down.
ERRORS = {code: {"model": Problem} for code in (400, 401, 403, 404, 429, 503)}
router = APIRouter(prefix="/api/admin", tags=["maintainers"], dependencies=[Depends(maintainer)], responses=ERRORS)
page_router = APIRouter(include_in_schema=False)


_PAGE = CONSOLE_PAGE.read_text(encoding="utf-8")
_ASSETS = {  # the page's script and styles, served by the app so the page's CSP allows nothing inline
    name: (CONSOLE_PAGE.with_name(name).read_text(encoding="utf-8"), media_type)
    for name, media_type in (("console.js", "text/javascript"), ("console.css", "text/css"))
}
_NO_STORE = {"Cache-Control": "no-store"}


@page_router.get("/admin")
async def console_page() -> HTMLResponse:
    return HTMLResponse(_PAGE, headers={**_NO_STORE, "Content-Security-Policy": CONSOLE_POLICY})


@page_router.get("/admin/{asset}")
async def console_asset(asset: str) -> Response:
    if asset not in _ASSETS:
        raise HTTPException(404, f"The console has no file {asset!r}.")
    text, media_type = _ASSETS[asset]
    return Response(text, media_type=f"{media_type}; charset=utf-8", headers=_NO_STORE)


@router.post("/session", status_code=204)
async def sign_in(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> Response:
    """Keeps the token sent as `Authorization: Bearer` in an HttpOnly cookie for the console's
    page, for a week or until DELETE /api/admin/session."""
    if credentials is None:
        raise HTTPException(400, "Sign in with the token as `Authorization: Bearer <token>`.")
    response = Response(status_code=204)
    # Secure whenever the page is on HTTPS (behind a proxy the app itself may see plain HTTP).
    secure = request.url.scheme == "https" or request.headers.get("origin", "").startswith("https://")
    response.set_cookie(SESSION_COOKIE, credentials.credentials, max_age=SESSION_SECONDS, path="/api/admin",
                        secure=secure, httponly=True, samesite="strict")
    return response


@page_router.delete("/api/admin/session", status_code=204)
async def sign_out() -> Response:
    """Forgets the console's sign-in in this browser (no token needed: it only clears a cookie)."""
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/api/admin", httponly=True, samesite="strict")
    return response


@router.get("/books")
async def books(request: Request, who: Annotated[Maintainer, Depends(maintainer)]) -> dict[str, list[str]]:
    """The books this token opens: those of the registry (LECTERN_BOOKS), else the served book
    and every book readers have asked about."""
    registry: Registry | None = request.app.state.registry
    if registry is not None:
        return {"books": sorted(book for book in registry.books if who.opens(book))}
    asked = await request.app.state.store.run(lambda db: db.books())
    return {"books": sorted({request.app.state.settings.book, *asked})}


@router.get("/books/{book}/overview")
async def book_overview(request: Request, book: Book, days: Days = 30) -> Overview:
    """Questions per day by status, status mix, latency, most asked questions and feedback."""
    return await request.app.state.store.run(lambda store: overview(store, book, days))


@router.get("/books/{book}/gaps")
async def book_gaps(request: Request, book: Book, days: Days = 30) -> Gaps:
    """Unanswered and voted-down questions grouped by meaning, with the nearest lessons."""
    await request.app.state.library.loaded_engine(book)  # 404 for a book that is not ingested
    finder = GapFinder(request.app.state.curated.levels(book))
    since = _since(days)
    asked = await request.app.state.store.run(lambda db: db.gap_questions(book, since, GAP_QUESTIONS))
    return await finder.gaps(book, since, asked)


EXPORT_COLUMNS = ["created_at", "question", "selected_text", "answer", "status", "confidence",
                  "latency_ms", "sources", "conversation_id", "message_id", "model"]


@router.get("/books/{book}/interactions", responses={200: {"content": {"text/csv": {}, "application/json": {}}}})
async def export(
    request: Request, book: Book, days: Days = 30, format: Literal["csv", "json"] = "csv"
) -> Response:
    """Every answered question in the period, oldest first, as CSV or JSON (a download)."""
    since = _since(days)
    rows = await request.app.state.store.run(lambda store: store.interactions_since(book, since))
    name = f"lectern-{book}-questions-{since.date().isoformat()}-to-{datetime.now(UTC).date().isoformat()}.{format}"
    disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
    if format == "json":
        return JSONResponse([row.model_dump(mode="json") for row in rows], headers=disposition)
    out = io.StringIO()
    writer = csv.DictWriter(out, EXPORT_COLUMNS, extrasaction="ignore", quoting=csv.QUOTE_ALL)
    writer.writeheader()
    for row in rows:
        values = row.model_dump(mode="json")
        values["sources"] = " | ".join(source.get("url", "") for source in row.sources)
        writer.writerow({key: spreadsheet_safe(str(value)) if value is not None else "" for key, value in values.items()})
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8", headers=disposition)


def _since(days: int) -> datetime:
    return datetime.now(UTC) - timedelta(days=days)


# --- questionnaires: a CSV of questions answered from the book, reviewed, exported ------------

Status = Literal["FOUND", "PARTIAL", "NOT_FOUND"]


class QuestionnaireDetail(BaseModel):
    questionnaire: Summary
    header: list[str]
    rows: list[QuestionnaireRow]


class Approval(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str | None = Field(None, max_length=MAX_SURROUNDING, description="Edited text; none approves the generated answer")

    _no_nul = field_validator("*")(no_nul)


async def _questionnaire(request: Request, book: str, questionnaire_id: str) -> Questionnaire:
    found = await request.app.state.store.run(lambda db: db.questionnaire(book, questionnaire_id))
    if found is None:
        raise HTTPException(404, f"no questionnaire {questionnaire_id!r} for book {book!r}")
    return found


@router.post("/books/{book}/questionnaires", status_code=201, openapi_extra={
    "requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string"}}}}})
async def upload_questionnaire(
    request: Request, book: Book, column: Annotated[str, Query(min_length=1, max_length=200)],
    name: Annotated[str, Query(max_length=200)] = "questionnaire",
) -> Summary:
    """Upload a CSV (the request body) and answer every row of its `column` in the background."""
    await request.app.state.library.loaded_engine(book)  # 404 for a book that is not ingested
    data = await request.body()
    try:  # sniffing and parsing up to a megabyte: off the event loop
        questionnaire, rows = await asyncio.to_thread(new_questionnaire, book, name, column, data)
    except QuestionnaireError as exc:
        raise HTTPException(400, str(exc)) from None
    await request.app.state.store.run(lambda db: db.create_questionnaire(questionnaire, rows))
    request.app.state.questionnaire_runs.start(book, questionnaire.id)
    return summary(questionnaire, rows, answering=True)


@router.post("/books/{book}/questionnaires/columns", openapi_extra={
    "requestBody": {"required": True, "content": {"text/csv": {"schema": {"type": "string"}}}}})
async def questionnaire_columns(request: Request, book: Book) -> dict[str, list[str]]:
    """The header of a CSV (the request body) as an upload would read it: which column to pick."""
    data = await request.body()
    try:
        table = await asyncio.to_thread(read_csv, data)
    except QuestionnaireError as exc:
        raise HTTPException(400, str(exc)) from None
    return {"columns": table.header}


@router.get("/books/{book}/questionnaires")
async def list_questionnaires(request: Request, book: Book) -> list[Summary]:
    runs = request.app.state.questionnaire_runs
    found = await request.app.state.store.run(lambda db: db.questionnaires(book))
    summaries = []
    for questionnaire in found:
        rows = await request.app.state.store.run(lambda db, q=questionnaire: db.questionnaire_rows(q.id))
        summaries.append(summary(questionnaire, rows, runs.answering(questionnaire.id)))
    return summaries


@router.post("/books/{book}/questionnaires/{questionnaire_id}/answer", status_code=202)
async def resume_questionnaire(request: Request, book: Book, questionnaire_id: str) -> dict[str, bool]:
    """Answer the rows a stopped run left unanswered (a model or database failure stops one)."""
    await _questionnaire(request, book, questionnaire_id)
    await request.app.state.library.loaded_engine(book)
    request.app.state.questionnaire_runs.start(book, questionnaire_id)
    return {"answering": True}


@router.get("/books/{book}/questionnaires/{questionnaire_id}")
async def show_questionnaire(
    request: Request, book: Book, questionnaire_id: str,
    status: Status | None = None, review: Literal["approved", "generated"] | None = None,
) -> QuestionnaireDetail:
    """Every row with its generated and approved answer; filtered by status or review."""
    questionnaire = await _questionnaire(request, book, questionnaire_id)
    rows = await request.app.state.store.run(lambda db: db.questionnaire_rows(questionnaire_id))
    shown = [
        row for row in rows
        if (status is None or (row.generated and row.generated.status == status))
        and (review is None or row.approved == (review == "approved"))
    ]
    answering = request.app.state.questionnaire_runs.answering(questionnaire_id)
    return QuestionnaireDetail(questionnaire=summary(questionnaire, rows, answering), header=questionnaire.header, rows=shown)


@router.put("/books/{book}/questionnaires/{questionnaire_id}/rows/{position}/approval")
async def approve_row(request: Request, book: Book, questionnaire_id: str, position: int, body: Approval) -> QuestionnaireRow:
    """Approve the row's generated answer, or the edited text given."""
    row = await _row(request, book, questionnaire_id, position)
    if body.answer is None and row.generated is None:
        raise HTTPException(400, "this row has no generated answer yet: send the approved text")
    text = body.answer.strip() if body.answer is not None else row.generated.answer  # type: ignore[union-attr]
    if not text:
        raise HTTPException(400, "answer: an approved answer cannot be empty")
    await request.app.state.store.run(lambda db: db.set_approval(questionnaire_id, position, text))
    return row.model_copy(update={"approved_answer": text})


@router.delete("/books/{book}/questionnaires/{questionnaire_id}/rows/{position}/approval")
async def unapprove_row(request: Request, book: Book, questionnaire_id: str, position: int) -> QuestionnaireRow:
    row = await _row(request, book, questionnaire_id, position)
    await request.app.state.store.run(lambda db: db.set_approval(questionnaire_id, position, None))
    return row.model_copy(update={"approved_answer": None})


async def _row(request: Request, book: str, questionnaire_id: str, position: int) -> QuestionnaireRow:
    await _questionnaire(request, book, questionnaire_id)
    rows = await request.app.state.store.run(lambda db: db.questionnaire_rows(questionnaire_id))
    row = next((row for row in rows if row.position == position), None)
    if row is None:
        raise HTTPException(404, f"no row {position} in questionnaire {questionnaire_id!r}")
    return row


@router.get("/books/{book}/questionnaires/{questionnaire_id}/export",
            responses={200: {"content": {"text/csv": {}}}})
async def export_questionnaire(
    request: Request, book: Book, questionnaire_id: str, mode: ExportMode = "prefer_approved"
) -> Response:
    """The file as uploaded plus Answer, Status, Citations and Review columns. prefer_approved:
    approved answers where there are some, else generated; approved_only: other rows blank;
    generated: approvals ignored."""
    questionnaire = await _questionnaire(request, book, questionnaire_id)
    rows = await request.app.state.store.run(lambda db: db.questionnaire_rows(questionnaire_id))
    name = export_name(questionnaire, mode, datetime.now(UTC).date())
    return Response(export_csv(questionnaire.header, rows, mode), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@router.delete("/books/{book}/questionnaires/{questionnaire_id}", status_code=204)
async def delete_questionnaire(request: Request, book: Book, questionnaire_id: str) -> Response:
    await _questionnaire(request, book, questionnaire_id)
    await request.app.state.store.run(lambda db: db.delete_questionnaire(questionnaire_id))
    return Response(status_code=204)


# --- curated answers: the maintainers' reviewed answers, served to questions that mean the same ----

class Passage(BaseModel):
    chunk_id: str
    module: str
    lesson: str
    section: str
    url: str
    text: str = Field(description="The passage as the book's source writes it (markdown)")
    excerpt: str = Field(description="Its sentence nearest the question, as the page shows it (no markup)")


class CuratedView(BaseModel):
    id: str
    question: str
    answer: str
    state: str
    citations: list[Passage]
    changed: list[str]  # cited passages gone or rewritten since approval
    updated_at: datetime


class CuratedList(BaseModel):
    same_question_similarity: float  # a reader's question at least this similar gets the answer
    answers: list[CuratedView]


class CuratedInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION)
    answer: str = Field(min_length=1, max_length=MAX_SURROUNDING)
    citations: list[str] = Field(min_length=1, max_length=20, description="Chunk ids of passages of this book")

    _no_nul = field_validator("*")(no_nul)


def _passage(chunk: Chunk, question: str) -> Passage:
    return Passage(chunk_id=chunk.id, module=chunk.module, lesson=chunk.lesson, section=chunk.section,
                   url=chunk.url, text=chunk.text, excerpt=excerpt(chunk.id, chunk.text, question))


@router.get("/books/{book}/passages")
async def find_passages(request: Request, book: Book, q: Annotated[str, Query(min_length=1, max_length=MAX_QUESTION)]) -> list[Passage]:
    """Passages of the book for a question, best first: what a curated answer may cite."""
    engine = await request.app.state.library.loaded_engine(book)
    return await asyncio.to_thread(lambda: [_passage(hit.chunk, q) for hit in engine.retriever.search(q, 8).hits])


@router.get("/books/{book}/curated")
async def list_curated(request: Request, book: Book) -> CuratedList:
    corpus = await request.app.state.library.loaded_corpus(book)
    levels = request.app.state.curated.levels(book)
    level = await asyncio.to_thread(levels.same_question)
    answers = await request.app.state.store.run(lambda db: db.curated_answers(book))
    return CuratedList(same_question_similarity=round(level, 3), answers=[
        CuratedView(
            id=c.id, question=c.question, answer=c.answer, state=c.state, updated_at=c.updated_at,
            citations=[_passage(corpus.chunks[corpus.row[p.chunk_id]], c.question) for p in c.citations if p.chunk_id in corpus.row],
            changed=changed_passages(c, corpus),
        )
        for c in answers
    ])


async def _save_curated(request: Request, book: str, body: CuratedInput, existing: CuratedAnswer | None) -> CuratedView:
    corpus = await request.app.state.library.loaded_corpus(book)
    try:
        citations = cited_passages(corpus, body.citations)
    except CuratedError as exc:
        raise HTTPException(400, str(exc)) from None
    curated = new_curated(book, body.question, body.answer, citations)
    if existing:
        curated = curated.model_copy(update={"id": existing.id, "created_at": existing.created_at})
    await request.app.state.store.run(lambda db: db.save_curated(curated))
    request.app.state.curated.changed(book)
    return CuratedView(id=curated.id, question=curated.question, answer=curated.answer, state=curated.state,
                       updated_at=curated.updated_at, changed=[],
                       citations=[_passage(corpus.chunks[corpus.row[p.chunk_id]], body.question) for p in citations])


async def _curated(request: Request, book: str, curated_id: str) -> CuratedAnswer:
    found = await request.app.state.store.run(lambda db: db.curated_answers(book, curated_id=curated_id))
    curated = next(iter(found), None)
    if curated is None:
        raise HTTPException(404, f"no curated answer {curated_id!r} for book {book!r}")
    return curated


@router.post("/books/{book}/curated", status_code=201)
async def create_curated(request: Request, book: Book, body: CuratedInput) -> CuratedView:
    """Approve an answer (text and the passages it cites) for a question and its paraphrases."""
    return await _save_curated(request, book, body, None)


@router.put("/books/{book}/curated/{curated_id}")
async def edit_curated(request: Request, book: Book, curated_id: str, body: CuratedInput) -> CuratedView:
    """Edit an answer; saving approves it again (also one flagged for review)."""
    return await _save_curated(request, book, body, await _curated(request, book, curated_id))


@router.post("/books/{book}/curated/{curated_id}/withdraw")
async def withdraw_curated(request: Request, book: Book, curated_id: str) -> dict[str, str]:
    """Stop serving an answer (it stays listed, withdrawn)."""
    await _curated(request, book, curated_id)
    await request.app.state.store.run(lambda db: db.set_curated_state(curated_id, "withdrawn"))
    request.app.state.curated.changed(book)
    return {"state": "withdrawn"}
