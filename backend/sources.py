"""A book's uploaded sources: the markdown, text and PDF files a maintainer adds and deletes
from the console. They are kept in `<data>/sources/<book>/` and the book is indexed from there;
each change re-indexes it in the serving process, embedding only the passages that changed
(readers get answers from the previous build meanwhile). Uploaded text pages are served at
`/books/{book}/pages/{file}` (their citations link there); PDFs at `/books/{book}/files/{file}`.

A book ingested from a folder with `lectern ingest` is not managed here: its sources are that
folder's files, and uploading beside them would index the uploads alone.
"""

import asyncio
import re
import shutil
import tempfile
import unicodedata
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from backend.engine import Library
from backend.retrieval.index import BookIndex
from ingest_scripts.markdown import FrontMatterError
from ingest_scripts.pdf import PdfCache, PdfError
from ingest_scripts.pipeline import IngestError, IngestReport, ingest, plan_book, write_whole
from ingest_scripts.worker import in_ingest_worker

ACCEPTED = (".md", ".txt", ".pdf")
# Letters Unicode lists as default-ignorable: fonts draw nothing for them (Hangul fillers).
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
_NAME = re.compile(r"[\w][\w .()+-]{0,150}")
UPLOADED = "uploads"  # the index metadata "sources" of a book built from its uploads


class SourcesError(ValueError):
    """An upload or deletion that cannot be done as asked (a 400 with this message)."""


class NotManaged(SourcesError):
    """The book is ingested from a folder, not from uploads (a 409)."""


class SourceFile(BaseModel):
    name: str
    bytes: int
    modified: datetime


class Reindexed(BaseModel):
    files: list[SourceFile]
    pages: int
    chunks: int
    embedded: int
    problems: list[str]


class Sources:
    def __init__(self, library: Library):
        self.library = library
        self._locks: dict[str, asyncio.Lock] = {}

    def folder(self, book: str) -> Path:
        return self.library.settings.sources_dir(book)

    def files(self, book: str) -> list[SourceFile]:
        folder = self.folder(book)
        if not folder.is_dir():
            return []
        return [
            SourceFile(name=path.name, bytes=path.stat().st_size,
                       modified=datetime.fromtimestamp(path.stat().st_mtime, UTC))
            for path in sorted(folder.iterdir())
            if path.is_file() and not path.name.startswith(".")
        ]

    def managed(self, book: str) -> bool:
        """The book has no index yet, or was built from its uploads."""
        index = BookIndex(self.library.client, book)
        return index.current_collection() is None or index.metadata().get("sources") == UPLOADED

    async def add(self, book: str, name: str, data: bytes) -> Reindexed:
        """Stores the file (replacing one of that name) and re-indexes the book; a file that
        cannot be read, or that makes the book unreadable, is refused and nothing changes."""
        return await self._replace(book, source_name(name), data)

    async def remove(self, book: str, name: str) -> Reindexed:
        return await self._replace(book, source_name(name), None)

    async def _replace(self, book: str, name: str, data: bytes | None) -> Reindexed:
        """Puts `data` in place of the source `name` (None deletes it) and re-indexes the book;
        undone when the book cannot be indexed with it."""
        async with self._lock(book):
            await asyncio.to_thread(self._check_managed, book)
            if data is not None:
                await in_ingest_worker(_check_readable, name, data, PdfCache(self.library.settings.pdf_cache_dir(book)))
            target = self.folder(book) / name
            previous = await asyncio.to_thread(_contents, target)
            if data is None and previous is None:
                raise LookupError(f"the book {book!r} has no uploaded source {name!r}")
            await asyncio.to_thread(_put, target, data)
            try:
                return await in_ingest_worker(self._reindex, book)
            except SourcesError:
                await asyncio.to_thread(_put, target, previous)
                raise

    def _lock(self, book: str) -> asyncio.Lock:
        return self._locks.setdefault(book, asyncio.Lock())

    def _check_managed(self, book: str) -> None:
        if not self.managed(book):
            raise NotManaged(
                f"The book {book!r} is ingested from a folder with `lectern ingest`: add or delete "
                "files there and ingest it again."
            )

    def _reindex(self, book: str) -> Reindexed:
        settings = self.library.settings
        index = BookIndex(self.library.client, book)
        files = self.files(book)
        if not files:  # the last source deleted: the book has nothing to answer from
            index.drop()
            shutil.rmtree(settings.files_dir(book), ignore_errors=True)
            shutil.rmtree(settings.pdf_cache_dir(book), ignore_errors=True)
            self.library.forget(book)
            return Reindexed(files=[], pages=0, chunks=0, embedded=0, problems=[])
        try:
            plan = plan_book(self.folder(book), book, f"/books/{book}/pages", layout_name="plain", text_files=True,
                             pdf_cache=PdfCache(settings.pdf_cache_dir(book)))
            report: IngestReport = ingest(plan, index, self.library.embedder, files_dir=settings.files_dir(book))
        except (IngestError, FrontMatterError, ValueError) as exc:
            raise SourcesError(str(exc)) from None
        if report.rebuild_reason:  # another embedding model: questions must be embedded by it
            self.library.forget(book)
        index.add_metadata({"sources": UPLOADED})
        return Reindexed(files=files, pages=report.pages, chunks=report.chunks, embedded=report.embedded,
                         problems=report.problems)


def source_name(name: str) -> str:
    """The name a source is kept under: composed Unicode (macOS writes names decomposed, "é" as
    "e" and an accent), its suffix in lower case (a `.MD` is indexed as the `.md` it is). A name
    of no visible letter or digit (a Hangul filler is a letter no font draws) is refused."""
    name = unicodedata.normalize("NFC", name)
    path = Path(name)
    if not _NAME.fullmatch(name) or path.suffix.lower() not in ACCEPTED:
        raise SourcesError(
            f"{name!r}: a source is a file name (letters, digits, spaces, `.-_()+`) ending in "
            + ", ".join(ACCEPTED)
        )
    if not any(char.isalnum() and char not in _INVISIBLE_LETTERS for char in path.stem):
        raise SourcesError(f"{name!r}: a source's name needs a visible letter or digit before its suffix")
    return path.stem + path.suffix.lower()


def _check_readable(name: str, data: bytes, cache: PdfCache) -> None:
    if not data:
        raise SourcesError(f"{name}: the file is empty")
    if Path(name).suffix.lower() != ".pdf":
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SourcesError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        return
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "upload.pdf"
        path.write_bytes(data)
        try:
            pdf = cache.read(path, name)
        except PdfError as exc:
            raise SourcesError(str(exc)) from None
        if not any(block.kind == "text" for block in pdf.blocks):
            raise SourcesError(f"{name}: no page has a text layer (a scanned document?); OCR it first")


def _contents(target: Path) -> bytes | None:
    return target.read_bytes() if target.is_file() else None


def _put(target: Path, data: bytes | None) -> None:
    """`data` as the file's contents; None: no such file."""
    if data is None:
        target.unlink(missing_ok=True)
    else:
        write_whole(target, data)
