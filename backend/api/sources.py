"""The console's sources of a book: list, upload (PUT the file's bytes under its name) and
delete; each change re-indexes the book (backend/sources.py). Same maintainer token as the
rest of /api/admin."""

import asyncio
from collections import Counter
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import BaseModel

from backend.api.admin import ERRORS, Book, maintainer
from backend.api.schemas import Problem
from backend.retrieval.index import BookIndex
from backend.retrieval.search import BookCorpus
from backend.sources import NotManaged, Reindexed, SourceFile, SourcesError

FileName = Annotated[str, PathParam(min_length=1, max_length=200)]
router = APIRouter(prefix="/api/admin", tags=["maintainers"], dependencies=[Depends(maintainer)],
                   responses={**ERRORS, 409: {"model": Problem}, 413: {"model": Problem}})


class IngestedFile(BaseModel):
    name: str  # relative to the folder `lectern ingest` read
    title: str  # its page's title; a PDF in chapters: the document's
    url: str  # where readers' citations of it link (without an anchor)
    pages: int  # the book's pages it makes (a PDF's chapters)
    passages: int


class SourceList(BaseModel):
    managed: bool  # false: the book is ingested from a folder; uploads are refused (409)
    files: list[SourceFile]  # uploaded files (a managed book)
    folder: str | None = None  # the folder `lectern ingest` read, when it recorded one
    ingested: list[IngestedFile] = []  # the files of that folder the index holds (a book not managed)


@router.get("/books/{book}/sources")
async def list_sources(request: Request, book: Book) -> SourceList:
    """The files uploaded to the book, and whether its index is built from them; for a book
    ingested from a folder, the files of it that the index holds."""
    sources = request.app.state.sources
    managed = await asyncio.to_thread(sources.managed, book)  # asks the vector store
    if managed:
        return SourceList(managed=True, files=sources.files(book))
    corpus = await request.app.state.library.loaded_corpus(book)
    folder = await asyncio.to_thread(lambda: BookIndex(request.app.state.library.client, book).metadata().get("folder"))
    return SourceList(managed=False, files=[], folder=folder, ingested=await asyncio.to_thread(ingested_files, corpus))


def ingested_files(corpus: BookCorpus) -> list[IngestedFile]:
    """One entry per file the book was read from, in reading order; a PDF read as one page per
    chapter (`manual.pdf#001`) is one file."""
    passages = Counter(chunk.source_path for chunk in corpus.chunks)
    files: dict[str, IngestedFile] = {}
    for page in corpus.pages:
        name = page.source_path.split("#", 1)[0]
        if name in files:
            files[name].pages += 1
            files[name].passages += passages[page.source_path]
        else:
            whole = name != page.source_path  # a chapter of a document: the document's title
            files[name] = IngestedFile(name=name, title=page.module if whole and page.module else page.title,
                                       url=page.url.split("?", 1)[0], pages=1, passages=passages[page.source_path])
    return list(files.values())


@router.put("/books/{book}/sources/{name}", openapi_extra={"requestBody": {"required": True, "content": {
    "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}})
async def upload_source(request: Request, book: Book, name: FileName) -> Reindexed:
    """Adds (or replaces) a markdown, text or PDF file, then re-indexes the book."""
    try:
        return await request.app.state.sources.add(book, name, await request.body())
    except NotManaged as exc:
        raise HTTPException(409, str(exc)) from None
    except SourcesError as exc:
        raise HTTPException(400, str(exc)) from None


@router.delete("/books/{book}/sources/{name}")
async def delete_source(request: Request, book: Book, name: FileName) -> Reindexed:
    """Deletes an uploaded file, then re-indexes the book (the last one: the book is emptied)."""
    try:
        return await request.app.state.sources.remove(book, name)
    except NotManaged as exc:
        raise HTTPException(409, str(exc)) from None
    except SourcesError as exc:
        raise HTTPException(400, str(exc)) from None
    except LookupError as exc:
        raise HTTPException(404, str(exc)) from None
