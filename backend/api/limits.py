"""Rate limits (slowapi): one budget per kind of request, spent before the body is validated.

A budget is a FastAPI dependency, so routes that share one draw from the same counters (a
question costs the same through /query and /stream) and a request the API then rejects as
invalid has still been counted (all but a body that is not JSON at all, which FastAPI refuses
before any dependency runs). The dependency is a plain function: FastAPI runs it in a worker
thread, so a Redis that stops answering delays only the requests being counted, never the
event loop; after `redis_timeout` the limits fall back to this instance's memory (logged, and
shown by /api/health) and Redis is probed again with backoff.
"""

import time
from collections.abc import Callable, Sequence

from fastapi import Request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry
from slowapi import Limiter

from backend.config import Settings
from backend.registry import Registry


def client_address(request: Request) -> str:
    """The reader's address (see edge.ForwardedFor for when a proxy's header is believed)."""
    return request.client.host if request.client else "unknown"


def session_key(request: Request) -> str:
    """The widget's session id, else the client address."""
    session = request.headers.get("x-session-id", "").strip()[:100]
    return f"session:{session}" if session else f"address:{client_address(request)}"


def make_limiter(settings: Settings) -> Limiter:
    timeouts = {
        "socket_timeout": settings.redis_timeout,
        "socket_connect_timeout": settings.redis_timeout,
        "retry": Retry(NoBackoff(), 0),  # a failed check falls back to memory; it is not repeated
    }
    return Limiter(
        key_func=session_key,
        storage_uri=settings.redis_url or "memory://",
        storage_options=timeouts if settings.redis_url else {},
        in_memory_fallback_enabled=True,  # Redis down: keep limiting, per instance
        key_style="endpoint",  # counters belong to the budget, not to the URL it was spent on
    )


def budget(limiter: Limiter, name: str, per_session: str, per_address: str | None = None) -> Callable[[Request], None]:
    """A dependency that spends one unit of the `name` budget of the request's session (and
    address), raising RateLimitExceeded when it is spent."""

    def counted(request: Request) -> None:
        return None

    # slowapi keys a budget's counters by the decorated function's module and name.
    counted.__name__ = counted.__qualname__ = f"{name}_budget"
    counted = limiter.limit(per_session, key_func=session_key)(counted)
    if per_address:
        counted = limiter.limit(per_address, key_func=client_address)(counted)

    def spend(request: Request) -> None:
        try:
            counted(request=request)
        except RedisError:  # another request found Redis down first; count again, in memory
            counted(request=request)

    return spend


def spend_book_budget(limiter: Limiter, registry: Registry | None, request: Request, book: str) -> int | None:
    """Spends one of the reader's questions on `book` under the book's own limit (the registry's
    `rate_limit`, on top of the server-wide budgets; none, nothing to spend); the seconds until
    it refills when it is spent, else None. Counted per address, not per session: a reader who
    sends a new session id with every question gets no more of the book's questions. Runs in a
    worker thread: it may ask Redis."""
    policy = registry.books.get(book) if registry else None
    if policy is None or policy.rate_limit is None:
        return None
    strategy = limiter.limiter  # Redis, or this instance's memory when Redis is down
    for item in parse_many(policy.rate_limit):
        keys = ("book", book, client_address(request))
        if not strategy.hit(item, *keys):
            return seconds_to_refill(limiter, item, keys)
    return None


def question_spender(
    limiter: Limiter, questions: Callable[[Request], None], registry: Registry | None
) -> Callable[[Request, str], int | None]:
    """What a question asked outside the chat routes (MCP's answer_question) spends: what a chat
    question does, the reader's `questions` budget (the chat's own: a budget made twice would
    count every question twice; RateLimitExceeded when it is spent) and the book's own limit
    (the seconds to wait when it is spent, else None). Runs in a worker thread."""

    def spend(request: Request, book: str) -> int | None:
        questions(request)
        return spend_book_budget(limiter, registry, request, book)

    return spend


def guessing(limiter: Limiter, request: Request, rate: str, wrong: bool) -> int | None:
    """For a maintainer token from the request's address: the seconds to wait when the address
    has sent `rate` wrong tokens already (a right one is refused too meanwhile, or guessing would
    go on), else None; `wrong` counts this one. Runs in a worker thread: it may ask Redis."""
    strategy = limiter.limiter
    keys = ("wrong-token", client_address(request))
    items = parse_many(rate)
    for item in items:
        if not strategy.test(item, *keys):
            return seconds_to_refill(limiter, item, keys)
    for item in items if wrong else ():
        strategy.hit(item, *keys)
    return None


def seconds_to_refill(limiter: Limiter, item: RateLimitItem, keys: Sequence[str]) -> int:
    """Whole seconds until the window of `item` for `keys` resets (at least 1), from the store."""
    reset, _ = limiter.limiter.get_window_stats(item, *keys)
    return max(1, int(reset - time.time()) + 1)


def counting_in_memory(limiter: Limiter, settings: Settings) -> bool:
    """Whether Redis is configured but the limits fell back to this instance's memory."""
    return bool(settings.redis_url) and isinstance(limiter.limiter.storage, MemoryStorage)
