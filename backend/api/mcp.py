"""The book as a tool for coding assistants and agents: a Model Context Protocol server.

`lectern mcp --book ID` speaks MCP over stdio (a local, trusted client); `lectern serve` also
serves it over streamable HTTP at /mcp, where each call is counted against the searches budget
and the registry's rules apply as for the chat (the book is a tool argument; the origin and
X-Reader-Token come from the HTTP request). Tools: search_book, answer_question, get_page;
resource: book://{book}/outline. Tool errors (a bad argument, a book that is not served) are
MCP tool errors, never a crash.
"""

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel
from slowapi.errors import RateLimitExceeded
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from backend.api.access import reader_problem
from backend.api.errors import (
    DEPENDENCY_ERRORS,
    RATE_LIMITED,
    dependency_error,
    retry_after_seconds,
)
from backend.api.search import SearchResult, find_passages
from backend.config import Settings
from backend.engine import Library
from backend.question import (
    MAX_QUESTION,
    MAX_SELECTION,
    Question,
    QuestionTooLong,
    readable,
    within_limit,
)
from backend.registry import Registry
from backend.retrieval.index import BOOK_ID, BookNotIngested


class Cited(BaseModel):
    number: int
    module: str
    lesson: str
    section: str
    url: str  # a PDF's: the server's viewer, `/books/{book}/files/{file}?page=N&highlight=…`
    excerpt: str
    page: int | None = None  # of a PDF: the page the excerpt is on


class BookAnswer(BaseModel):
    answer: str
    status: str
    confidence: str
    citations: list[Cited]


class PageText(BaseModel):
    title: str
    module: str
    url: str
    outline: list[str]
    text: str


def book_server(
    library: Library,
    settings: Settings,
    registry: Registry | None = None,
    spend_question: Callable[[Request, str], int | None] | None = None,
) -> MCPServer:
    """`spend_question` (over HTTP): what a question costs the reader, as in the chat
    (limits.question_spender); stdio's client is local and spends nothing."""
    server = MCPServer("lectern", instructions=(
        f"Search and cite the book {settings.book!r} (or another book this server serves, by id). "
        "Answers come only from the book, with citations that link to the passage."))

    def book_of(book: str | None, ctx: Context) -> str:
        """The book asked about, if this client may ask it (over HTTP: the registry's rules)."""
        chosen = book or settings.book
        if not BOOK_ID.match(chosen):
            raise ToolError("book must be a book id: lower-case letters, digits, '-' and '_', at most 63")
        headers = ctx.headers  # None over stdio: a local client the user started
        if headers is not None:
            problem = reader_problem(registry, settings, chosen, headers.get("origin"), headers.get("x-reader-token"))
            if problem:
                raise ToolError(problem[1])
        return chosen

    @server.tool()
    async def search_book(ctx: Context, query: str, limit: int = 8, book: str | None = None) -> list[SearchResult]:
        """Passages of the book for `query`, best first, with module, lesson, section, url and
        the passage's sentence nearest the query (highlights are character ranges in it)."""
        with _argument_errors():
            text = readable(within_limit(query, MAX_QUESTION, "query"))
        if not text:
            raise ToolError("query must have some text")
        if not 1 <= limit <= 20:
            raise ToolError("limit must be between 1 and 20")
        async with _book_errors():
            return await find_passages(library, book_of(book, ctx), text, limit)

    @server.tool()
    async def answer_question(
        ctx: Context, question: str, selected_text: str | None = None, book: str | None = None
    ) -> BookAnswer:
        """The book's grounded answer to `question` (optionally about a passage the reader
        selected): its text, status (found / partial / not_found), confidence and citations."""
        with _argument_errors():
            within_limit(question, MAX_QUESTION, "question")
            within_limit(selected_text or "", MAX_SELECTION, "selected_text")
        asked = Question(text=question, selected_text=selected_text)
        if not asked.text:
            raise ToolError("question must have some text")
        chosen = book_of(book, ctx)
        request = ctx.request_context.request
        if spend_question is not None and isinstance(request, Request):
            try:
                wait = await asyncio.to_thread(spend_question, request, chosen)
            except RateLimitExceeded as exc:
                wait = retry_after_seconds(request, exc)
            if wait is not None:
                raise ToolError(RATE_LIMITED.format(what="questions", seconds=wait))
        async with _book_errors():
            engine = await library.loaded_engine(chosen)
            answer = await engine.answer(asked)
        return BookAnswer(answer=answer.text, status=answer.status, confidence=answer.confidence, citations=[
            Cited(number=c.number, module=c.module, lesson=c.lesson, section=c.section, url=c.url,
                  excerpt=c.excerpt, page=c.page)
            for c in answer.citations
        ])

    @server.tool()
    async def get_page(ctx: Context, page: str, book: str | None = None) -> PageText:
        """A page of the book by its URL (as search_book and answer_question give them, with or
        without the #section) or its source path: title, section outline and text."""
        async with _book_errors():
            corpus = await library.loaded_corpus(book_of(book, ctx))
        wanted = page.split("#", 1)[0]
        found = next((p for p in corpus.pages if wanted in (p.url.split("#", 1)[0], p.source_path)), None)
        if found is None:
            raise ToolError(f"no page {page!r} in this book (use a URL from search_book)")
        chunks = corpus.page_chunks(found.source_path)
        outline = list(dict.fromkeys(chunk.section for chunk in chunks if chunk.section))
        text = "\n\n".join(chunk.text[chunk.overlap_chars:] for chunk in chunks)
        return PageText(title=found.title, module=found.module, url=found.url, outline=outline, text=text)

    @server.resource("book://{book}/outline", mime_type="text/markdown")
    async def outline(book: str, ctx: Context) -> str:
        """The book's modules and pages, in order, with their links."""
        async with _book_errors():
            corpus = await library.loaded_corpus(book_of(book, ctx))
        lines: list[str] = []
        for page in corpus.pages:
            if not lines or lines[-1] != f"## {page.module}":
                lines.append(f"## {page.module}")
            lines.append(f"- [{page.title}]({page.url})")
        return "\n".join(lines)

    return server


@contextmanager
def _argument_errors() -> Iterator[None]:
    """An argument over its limit is refused before anything reads it: the same limits as the
    HTTP API's (backend/question.py)."""
    try:
        yield
    except QuestionTooLong as exc:
        raise ToolError(str(exc)) from None


@asynccontextmanager
async def _book_errors() -> AsyncIterator[None]:
    """A book that is not there, or a service that is down, is the tool's error, said plainly."""
    try:
        yield
    except DEPENDENCY_ERRORS as exc:
        raise ToolError(dependency_error(exc)[1] if not isinstance(exc, BookNotIngested) else str(exc)) from exc




class McpEndpoint:
    """/mcp on the HTTP service: counts each call against a budget (a 429 as for the API)."""

    def __init__(self, app: ASGIApp, spend: Callable[[Request], None]):
        self.app = app
        self.spend = spend

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            await asyncio.to_thread(self.spend, Request(scope))  # RateLimitExceeded → the app's 429
        await self.app(scope, receive, send)


