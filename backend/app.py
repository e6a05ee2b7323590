"""create_app(): the FastAPI service readers' widgets and maintainers talk to."""

import asyncio
import html
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import fastapi_standalone_docs
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from backend.api import admin, errors, files, health, logs, pages, sources
from backend.api.access import reader_problem
from backend.api.chat import chat_router
from backend.api.edge import BodyLimit, ForwardedFor, SecurityHeaders
from backend.api.feedback import feedback_router
from backend.api.limits import budget, make_limiter, question_spender
from backend.api.mcp import McpEndpoint, book_server
from backend.api.search import search_router
from backend.config import Settings, get_settings
from backend.curated import CuratedAnswers
from backend.engine import Library
from backend.questionnaires import Runs
from backend.registry import Registry
from backend.retrieval.embeddings import reader_for
from backend.retrieval.index import BookNotIngested
from backend.sources import Sources
from backend.store import ResilientStore, open_store

log = logging.getLogger("lectern.app")
# How uvicorn must serve the app: X-Forwarded-For is read by the app itself (edge.ForwardedFor,
# LECTERN_PROXY_HOPS), never by the server, which would believe any client's header.
SERVER_OPTIONS = {"proxy_headers": False, "log_config": None}
STATIC_DIR = Path(__file__).parent / "api" / "static"
# Swagger UI and Redoc as fastapi-standalone-docs ships them (with their licences): the API docs
# load nothing from a CDN, so they work offline and under the pages' content security policy.
DOCS_ASSETS = Path(fastapi_standalone_docs.__file__).parent / "static"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logs.configure()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.store = ResilientStore(open_store(settings), settings.data_dir, settings.dependency_timeout)
        await app.state.store.start()
        app.state.questionnaire_runs = Runs(app.state.store, library)
        app.state.curated = CuratedAnswers(app.state.store, library)
        await app.state.questionnaire_runs.resume()
        await asyncio.to_thread(_warm_up, library)
        log.info("ready", extra={"book": settings.book, "model": library.models.name})
        stop = asyncio.Event()
        watching = _watch(library, settings, stop)
        try:
            async with book_tools.session_manager.run():
                yield
        finally:
            stop.set()
            if watching:
                await watching
            await app.state.questionnaire_runs.close()
            await app.state.store.close()
            library.close()

    app = FastAPI(
        title="Lectern",
        version="0.1.0",
        summary="Grounded, cited answers from a book.",
        lifespan=lifespan,
        docs_url=None,  # served by _add_home_routes, from packaged assets
        redoc_url=None,
    )
    app.state.settings = settings
    library = Library(settings, check=False)  # a server that is down means 503s, not no app
    app.state.library = library
    app.state.sources = Sources(library)
    app.state.registry = Registry.load(settings.books_file) if settings.books_file else None
    app.state.limiter = make_limiter(settings)
    errors.install(app)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, uploads_max_bytes=settings.max_upload_bytes)  # inside CORS: a 413 is readable
    app.add_middleware(
        CORSMiddleware,
        allow_origins=[*settings.cors_origins, *(app.state.registry.origins() if app.state.registry else [])],
        allow_methods=["GET", "POST", "OPTIONS"],  # the console's PUT and DELETE are same-origin
        allow_headers=["Content-Type", "X-Session-Id", "X-Request-Id", "X-Reader-Token"],
        expose_headers=["Retry-After", "X-Request-Id"],
        allow_credentials=False,
    )
    app.add_middleware(SecurityHeaders)
    app.add_middleware(logs.RequestContext)
    app.add_middleware(ForwardedFor, hops=settings.proxy_hops)  # outermost: every layer sees the reader
    questions = budget(app.state.limiter, "questions", settings.rate_limit, settings.rate_limit_per_address)
    app.include_router(chat_router(questions))
    app.include_router(feedback_router(app.state.limiter, settings))
    app.include_router(search_router(app.state.limiter, settings))
    app.include_router(admin.router)
    app.include_router(sources.router)
    app.include_router(admin.page_router)
    app.include_router(health.router)
    app.include_router(pages.router)
    app.include_router(files.router)
    _add_home_routes(app)
    book_tools = book_server(library, settings, app.state.registry,
                             question_spender(app.state.limiter, questions, app.state.registry))
    calls = budget(app.state.limiter, "mcp_calls", settings.rate_limit_search, settings.rate_limit_per_address)
    # host: the service answers on whatever name its proxy gives it; the MCP SDK's rebinding
    # guard for loopback hosts would refuse those.
    tools_app = book_tools.streamable_http_app(streamable_http_path="/mcp", host="0.0.0.0")
    app.router.routes.append(Route("/mcp", endpoint=McpEndpoint(tools_app, calls)))
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict:
    """The schema as the API behaves: invalid requests get 400 with a message (errors.py), so
    FastAPI's generated 422 responses and their schemas are left out."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
        for path in schema["paths"].values():
            for operation in path.values():
                operation.get("responses", {}).pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            schema.get("components", {}).get("schemas", {}).pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema


def _add_home_routes(app: FastAPI) -> None:
    """`/` (the demo when this server shows one, else a page of links), the favicon, and the API
    docs: Swagger UI at /docs and Redoc at /redoc."""

    @app.get("/", include_in_schema=False)
    async def home(request: Request) -> Response:
        if await _demo_is_served(request):
            return RedirectResponse("/demo/", status_code=307)
        return HTMLResponse(_HOME_PAGE.format(book=html.escape(app.state.settings.book)))

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon_ico() -> FileResponse:
        return _asset(STATIC_DIR / "favicon.ico", "image/x-icon")

    @app.get("/favicon.svg", include_in_schema=False)
    async def favicon_svg() -> FileResponse:
        return _asset(STATIC_DIR / "favicon.svg")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title="Lectern API", swagger_favicon_url="/favicon.ico",
            swagger_js_url="/docs/swagger-ui-bundle.js", swagger_css_url="/docs/swagger-ui.css",
            swagger_ui_parameters={"validatorUrl": None},  # else it sends the schema's URL to swagger.io
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        # The packaged Redoc loads its logo from the page's path: /redoc/logo-mini.svg.
        return get_redoc_html(openapi_url="/openapi.json", title="Lectern API", redoc_favicon_url="/favicon.ico",
                              redoc_js_url="/redoc/redoc.standalone.js", with_google_fonts=False)

    @app.get("/docs/{name}", include_in_schema=False)
    async def swagger_ui_asset(name: Literal["swagger-ui-bundle.js", "swagger-ui.css"]) -> FileResponse:
        return _asset(DOCS_ASSETS / "swagger" / name)

    @app.get("/redoc/{name}", include_in_schema=False)
    async def redoc_asset(name: Literal["redoc.standalone.js", "logo-mini.svg"]) -> FileResponse:
        return _asset(DOCS_ASSETS / "redoc" / name)


def _asset(path: Path, media_type: str | None = None) -> FileResponse:
    return FileResponse(path, media_type=media_type, headers={"Cache-Control": "public, max-age=86400"})


async def _demo_is_served(request: Request) -> bool:
    """True when the default book was ingested for the demo (`--base-url …/demo`) and anyone may
    read it."""
    settings = request.app.state.settings
    if reader_problem(request.app.state.registry, settings, settings.book, None, None):
        return False
    try:
        corpus = await request.app.state.library.loaded_corpus()
    except errors.DEPENDENCY_ERRORS:
        return False
    return any(urlsplit(page.url).path.startswith("/demo/") for page in corpus.pages)


_HOME_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lectern</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem;
  color: #1c1e21; background: #fff; }}
a {{ color: #1f6b43; }} code {{ background: #f3f4f6; padding: 0 .25em; border-radius: 4px; }}
@media (prefers-color-scheme: dark) {{ body {{ color: #e3e3e3; background: #1b1b1d; }} a {{ color: #6fd49b; }}
  code {{ background: #2b2b2e; }} }}
</style></head>
<body><main>
<h1>Lectern</h1>
<p>This server answers questions about the book <code>{book}</code>.</p>
<ul>
<li><a href="/docs">API documentation</a> (or as <a href="/redoc">Redoc</a>)</li>
<li><a href="/admin">Maintainer console</a></li>
<li><a href="/api/health">Health</a></li>
</ul>
<p>A demo site of the book is shown here when it is ingested with
<code>--base-url http://this-server/demo</code>.</p>
</main></body></html>
"""


def _watch(library: Library, settings: Settings, stop: asyncio.Event) -> asyncio.Task | None:
    """With LECTERN_WATCH set, the book's folder is re-ingested here whenever it changes."""
    if settings.watch is None:
        return None
    from ingest_scripts.watch import BookWatcher  # the service needs ingest only when watching

    watcher = BookWatcher(library, settings.watch, settings.book, settings.base_url, settings.layout)
    log.info("watching", extra={"path": str(settings.watch), "book": settings.book})
    return asyncio.create_task(watcher.run(stop))


def _warm_up(library: Library) -> None:
    """Loads the embedding model, the model that reads quotes and the book before the first
    reader waits for them."""
    try:
        library.embedder.embed_query("warm up")
        reader_for(library.embedder).word_piece_vectors("warm up")
        passages = len(library.engine().retriever.corpus.chunks)
        log.info("book loaded", extra={"passages": passages})
    except BookNotIngested:
        log.warning("the book is not ingested yet; answers will fail until `lectern ingest` runs")
    except errors.DEPENDENCY_ERRORS as exc:
        log.error("a dependency is down at start-up (%s); answering 503 until it is back", type(exc).__name__)
