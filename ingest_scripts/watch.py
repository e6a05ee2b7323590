"""`lectern serve --watch PATH`: the serving process re-ingests the book's folder when its files
change. Ingest is incremental and publishes a new collection before it moves the alias, so
readers keep getting answers from the last build while the next one is made, and an edit is
answerable as soon as the alias moves (about a second for a one-page edit on this machine's
two cores, after the file watcher's debounce). A folder that fails to ingest leaves the last
good build serving, and the error is logged."""

import asyncio
import logging
from pathlib import Path

import watchfiles

from backend.engine import Library
from backend.retrieval.index import BookIndex
from ingest_scripts.layouts import LayoutError, LayoutName
from ingest_scripts.markdown import FrontMatterError
from ingest_scripts.pipeline import IngestError, IngestReport, ingest, plan_book
from ingest_scripts.worker import in_ingest_worker

log = logging.getLogger("lectern.watch")
DEBOUNCE_MS = 300  # an editor's save often writes a file more than once


class BookWatcher:
    def __init__(
        self,
        library: Library,
        root: Path,
        book: str,
        base_url: str = "",
        layout: LayoutName | None = None,
    ):
        self.library = library
        self.root = root
        self.book = book
        self.base_url = base_url
        self.layout = layout

    async def run(self, stop: asyncio.Event) -> None:
        """Ingests once (the folder may have changed while nothing served it), then again
        after every change, until `stop` is set."""
        await in_ingest_worker(self.reingest)
        async for _ in watchfiles.awatch(self.root, debounce=DEBOUNCE_MS, stop_event=stop):
            await in_ingest_worker(self.reingest)

    def reingest(self) -> IngestReport | None:
        try:
            plan = plan_book(self.root, self.book, self.base_url, None, self.layout)
            report = ingest(
                plan, BookIndex(self.library.client, self.book), self.library.embedder,
                files_dir=self.library.settings.files_dir(self.book),
            )
        except (IngestError, FrontMatterError, LayoutError, ValueError) as exc:
            log.error("re-ingest failed; the last good build keeps serving: %s", exc)
            return None
        if report.rebuild_reason:  # another embedding model: questions must be embedded by it
            self.library.forget(self.book)
        if not report.unchanged:
            log.info("re-ingested", extra={
                "book": self.book, "embedded": report.embedded, "reused": report.reused,
                "removed": report.removed, "seconds": report.seconds,
            })
        return report
