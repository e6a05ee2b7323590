"""create_app(): the FastAPI service readers' widgets and maintainers talk to."""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from slowapi import Limiter

from backend.api import errors, feedback, health, logs, pages
from backend.api.chat import chat_router, session_key
from backend.config import Settings, get_settings
from backend.engine import Library
from backend.retrieval.index import BookNotIngested
from backend.store import ResilientStore, open_store

log = logging.getLogger("lectern.app")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    logs.configure()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        library = Library(settings, check=False)  # a server that is down means 503s, not no app
        app.state.library = library
        app.state.store = ResilientStore(open_store(settings), settings.data_dir)
        await app.state.store.start()
        await asyncio.to_thread(_warm_up, library)
        log.info("ready", extra={"book": settings.book, "model": library.models.name})
        stop = asyncio.Event()
        watching = _watch(library, settings, stop)
        try:
            yield
        finally:
            stop.set()
            if watching:
                await watching
            await app.state.store.close()
            library.close()

    app = FastAPI(
        title="Lectern",
        version="0.1.0",
        summary="Grounded, cited answers from a book.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.limiter = Limiter(
        key_func=session_key,
        storage_uri=settings.redis_url or "memory://",
        in_memory_fallback_enabled=True,  # Redis down: keep limiting, per instance
    )
    errors.install(app)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Content-Type", "X-Session-Id", "X-Request-Id"],
        expose_headers=["Retry-After", "X-Request-Id"],
        allow_credentials=False,
    )
    app.add_middleware(logs.RequestContext)
    app.include_router(chat_router(app.state.limiter, settings))
    app.include_router(feedback.router)
    app.include_router(health.router)
    app.include_router(pages.router)
    return app


def _watch(library: Library, settings: Settings, stop: asyncio.Event) -> asyncio.Task | None:
    """With LECTERN_WATCH set, the book's folder is re-ingested here whenever it changes."""
    if settings.watch is None:
        return None
    from ingest_scripts.watch import BookWatcher  # the service needs ingest only when watching

    watcher = BookWatcher(library, settings.watch, settings.book, settings.base_url, settings.layout)
    log.info("watching", extra={"path": str(settings.watch), "book": settings.book})
    return asyncio.create_task(watcher.run(stop))


def _warm_up(library: Library) -> None:
    """Loads the embedding model and the book before the first reader waits for them."""
    try:
        library.embedder.embed_query("warm up")
        passages = len(library.engine().retriever.corpus.chunks)
        log.info("book loaded", extra={"passages": passages})
    except BookNotIngested:
        log.warning("the book is not ingested yet; answers will fail until `lectern ingest` runs")
    except errors.DEPENDENCY_ERRORS as exc:
        log.error("a dependency is down at start-up (%s); answering 503 until it is back", type(exc).__name__)
