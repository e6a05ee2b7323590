"""POST /api/search: the book's passages for a query, ranked, with highlights; no answer, no model."""

import asyncio
import re

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from slowapi import Limiter

from backend.api.access import check_reader
from backend.api.limits import budget
from backend.api.schemas import Problem, no_nul, public_url
from backend.config import Settings
from backend.engine import Library
from backend.grounding.citations import excerpt, located
from backend.question import MAX_QUESTION, readable
from backend.retrieval import lexical
from backend.retrieval.index import BOOK_ID

_WORD = re.compile(r"\w+(?:['’.-]\w+)*")


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(min_length=1, max_length=MAX_QUESTION, description="What to look for.")
    book: str | None = Field(None, pattern=BOOK_ID.pattern)
    limit: int = Field(8, ge=1, le=20)

    _no_nul = field_validator("*")(no_nul)

    @field_validator("query")
    @classmethod
    def has_words(cls, value: str) -> str:
        text = readable(value)
        if not text:
            raise ValueError("query has no text once its markup and invisible characters are removed")
        return text


class SearchResult(BaseModel):
    module: str
    lesson: str
    section: str
    url: str
    page: int | None = Field(None, description="Of a PDF: the page the excerpt is on (1-based)")
    excerpt: str = Field(description="The passage's sentence nearest the query, as the page shows it")
    highlights: list[tuple[int, int]] = Field(description="[start, end) of the query's words in the excerpt")
    score: float


class SearchResponse(BaseModel):
    query: str
    results: list[SearchResult] = Field(description=(
        "Best first: the passages nearer to the query than everyday questions come to this book"
        " (its calibration), or holding every word of it; empty when nothing in the book matches"))


def search_router(limiter: Limiter, settings: Settings) -> APIRouter:
    searches = budget(limiter, "searches", settings.rate_limit_search, settings.rate_limit_per_address)
    router = APIRouter(tags=["search"], dependencies=[Depends(searches)])

    @router.post("/api/search", responses={
        400: {"model": Problem}, 401: {"model": Problem}, 403: {"model": Problem}, 404: {"model": Problem},
        429: {"model": Problem}, 503: {"model": Problem},
    })
    async def search(request: Request, body: SearchRequest) -> SearchResponse:
        """Ranked passages of the book with the sections they are in and links to them."""
        check_reader(request, body.book or settings.book)
        results = await find_passages(request.app.state.library, body.book, body.query, body.limit)
        origin = str(request.base_url).rstrip("/")
        for result in results:
            result.url = public_url(result.url, origin)
        return SearchResponse(query=body.query, results=results)

    return router


async def find_passages(library: Library, book: str | None, query: str, limit: int) -> list[SearchResult]:
    """The book's passages for `query`, best first, each with its nearest sentence highlighted.
    Only passages that match: nearer to the query than everyday questions come to the book (the
    calibration's related level, where a declined answer calls a question outside the book's
    scope), or holding every word of it (a name like "tf2" is found by its words, however
    little its meaning says to the embedding model). Nonsense matches nothing."""
    retriever = (await library.loaded_engine(book)).retriever
    # the calibration is measured on first use for an index built by an earlier method: off the loop
    found, related, corpus = await asyncio.to_thread(
        lambda: (retriever.search(query, limit), retriever.calibration.off_topic_similarity, retriever.corpus)
    )
    asked = set(lexical.terms(query, compounds=False))

    def matches(chunk_id: str) -> bool:
        near = found.evidence.similarity.get(chunk_id, 0.0) > related
        return near or bool(asked) and asked <= corpus.terms_of(chunk_id)

    results = []
    # Best first: the search puts the rest of a best passage's section right after it.
    for hit in sorted(found.hits, key=lambda hit: -hit.score):
        chunk = hit.chunk
        if not matches(chunk.id):
            continue
        shown = excerpt(chunk.id, chunk.text, query)
        url, page = located(chunk, shown)
        results.append(SearchResult(
            module=chunk.module, lesson=chunk.lesson, section=chunk.section, url=url, page=page,
            excerpt=shown, highlights=highlights(shown, asked), score=round(hit.score, 4),
        ))
        if len(results) == limit:
            break
    return results


def highlights(text: str, asked: set[str]) -> list[tuple[int, int]]:
    """Where the words of `text` that share a term with the query are."""
    return [
        (word.start(), word.end()) for word in _WORD.finditer(text)
        if asked.intersection(lexical.terms(word.group(), compounds=False))
    ]
