"""Who may ask which book: with a registry (LECTERN_BOOKS), only its books, from their own
origins, and a private book only with a reader token its site signed (backend/registry.py)."""

from fastapi import HTTPException, Request

from backend.registry import Registry, reader_token_problem


def check_reader(request: Request, book: str) -> None:
    """404 for a book the server does not serve, 403 for a page on another site, 401 without a
    valid reader token for a private book; nothing at all without a registry."""
    registry: Registry | None = request.app.state.registry
    if registry is None:
        return
    policy = registry.books.get(book)
    if policy is None:
        raise HTTPException(404, f"This server has no book {book!r}.")
    origin = request.headers.get("origin")
    allowed = policy.origins or request.app.state.settings.cors_origins
    if origin is not None and origin not in allowed:
        raise HTTPException(403, f"Pages on {origin} may not ask the book {book!r}.")
    if policy.private:
        problem = reader_token_problem(request.headers.get("x-reader-token"), policy.reader_secret(), book)
        if problem:
            raise HTTPException(401, problem)
