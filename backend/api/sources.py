"""The console's sources of a book: list, upload (PUT the file's bytes under its name) and
delete; each change re-indexes the book (backend/sources.py). Same maintainer token as the
rest of /api/admin."""

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import BaseModel

from backend.api.admin import ERRORS, Book, maintainer
from backend.api.schemas import Problem
from backend.sources import NotManaged, Reindexed, SourceFile, SourcesError

FileName = Annotated[str, PathParam(min_length=1, max_length=200)]
router = APIRouter(prefix="/api/admin", tags=["maintainers"], dependencies=[Depends(maintainer)],
                   responses={**ERRORS, 409: {"model": Problem}, 413: {"model": Problem}})


class SourceList(BaseModel):
    managed: bool  # false: the book is ingested from a folder; uploads are refused (409)
    files: list[SourceFile]


@router.get("/books/{book}/sources")
async def list_sources(request: Request, book: Book) -> SourceList:
    """The files uploaded to the book, and whether its index is built from them."""
    sources = request.app.state.sources
    managed = await asyncio.to_thread(sources.managed, book)  # asks the vector store
    return SourceList(managed=managed, files=sources.files(book))


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
