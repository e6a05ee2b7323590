"""JSON-lines logs with a request id on every line; no reader text unless enabled."""

import contextvars
import json
import logging
import sys
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backend.api.edge import request_id_from
from backend.metrics import REQUESTS

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": request_id.get(),
        }
        entry |= {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to sys.stderr as it is when a record is emitted: servers and test runners swap it."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


def configure(level: str = "INFO") -> None:
    """Lectern's own records at `level`; the libraries' (asyncpg, slowapi's Redis fallback,
    uvicorn) from warning up, all in the same JSON lines."""
    handler = _StderrHandler()
    handler.setFormatter(JsonFormatter())
    for name, name_level in (("lectern", level), ("", "WARNING")):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.setLevel(name_level)
    logging.getLogger("lectern").propagate = False


class RequestContext:
    """Pure ASGI middleware (streams pass straight through): request id, access log, metrics."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self.log = logging.getLogger("lectern.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = request_id_from(dict(scope.get("headers") or [])) or uuid.uuid4().hex[:16]
        token = request_id.set(rid)
        scope.setdefault("state", {})["request_id"] = rid
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", rid.encode()))
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            route = scope.get("route")
            path = getattr(route, "path", "unmatched")
            REQUESTS.labels(path, str(status)).inc()
            self.log.info(
                "request",
                extra={
                    "method": scope.get("method"),
                    "path": path,
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 1),
                },
            )
            request_id.reset(token)
