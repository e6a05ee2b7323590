"""Who may ask which book: with a registry (LECTERN_BOOKS), only its books, from their own
origins, and a private book only with a reader token its site signed (backend/registry.py)."""

from fastapi import HTTPException, Request

from backend.config import Settings
from backend.registry import Registry, reader_token_problem


def check_reader(request: Request, book: str, query_token: str | None = None) -> None:
    """404 for a book the server does not serve, 403 for a page on another site, 401 without a
    valid reader token for a private book; nothing at all without a registry. The token is the
    X-Reader-Token header, else `query_token` (a link opened in a new tab sends no header)."""
    token = request.headers.get("x-reader-token") or query_token
    problem = reader_problem(request.app.state.registry, request.app.state.settings, book,
                             request.headers.get("origin"), token)
    if problem:
        raise HTTPException(*problem)


def reader_problem(
    registry: Registry | None, settings: Settings, book: str, origin: str | None, token: str | None
) -> tuple[int, str] | None:
    """(status, message) when this reader may not ask `book`, else None."""
    if registry is None:
        return None
    policy = registry.books.get(book)
    if policy is None:
        return 404, f"This server has no book {book!r}."
    if origin is not None and origin not in (policy.origins or settings.cors_origins):
        return 403, f"Pages on {origin} may not ask the book {book!r}."
    if policy.private and (problem := reader_token_problem(token, policy.reader_secret(), book)):
        return 401, problem
    return None
