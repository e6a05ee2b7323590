"""What every request goes through before routing: who is asking, its request id, and the
headers every response carries, and how much it may send. Pure ASGI middleware, so streamed answers pass straight through."""

import json
import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOO_LARGE = "The request body is larger than {limit} bytes."


class ForwardedFor:
    """The reader's address behind `hops` reverse proxies that each append the address they saw
    to X-Forwarded-For. Only those last `hops` entries were written by proxies we trust; anything
    to their left came from the client and may be forged, so it is never used. With 0 hops the
    header is ignored and the TCP peer is the reader."""

    def __init__(self, app: ASGIApp, hops: int):
        self.app = app
        self.hops = hops

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.hops > 0:
            values = [v.decode("latin-1") for k, v in scope.get("headers") or [] if k == b"x-forwarded-for"]
            hops = [part.strip() for part in ",".join(values).split(",") if part.strip()]
            if hops:
                # Fewer entries than proxies: the nearest proxy wrote the leftmost one.
                address = hops[-self.hops] if len(hops) >= self.hops else hops[0]
                scope = dict(scope, client=(address, 0))
        await self.app(scope, receive, send)


class _BodyTooLarge(Exception):
    pass


_UPLOADS = re.compile(r"^/api/admin/books/[^/]+/sources(/|$)")


class BodyLimit:
    """Refuses request bodies over `max_bytes` with 413 before reading them (by Content-Length)
    or as soon as a streamed body passes the limit; nothing over the limit is ever buffered.
    (FastAPI's own `max_body_size` answers in plain text, outside the app's JSON errors.)"""

    def __init__(self, app: ASGIApp, max_bytes: int, uploads_max_bytes: int | None = None):
        self.app = app
        self.max_bytes = max_bytes
        self.uploads_max_bytes = uploads_max_bytes or max_bytes  # a book's sources (a PDF, say)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.uploads_max_bytes if _UPLOADS.match(scope.get("path", "")) else self.max_bytes
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length.isdigit() and int(length) > limit:
            await self._refuse(send, limit)
            return
        received = 0
        exceeded = responded = False

        async def counted_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise _BodyTooLarge
            return message

        async def refusing_send(message: Message) -> None:
            # The framework turns a failed body read into its own error response: say 413 instead.
            nonlocal responded
            if exceeded:
                if not responded:
                    responded = True
                    await self._refuse(send, limit)
                return
            responded = responded or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, refusing_send)
        except _BodyTooLarge:
            if not responded:
                await self._refuse(send, limit)

    async def _refuse(self, send: Send, limit: int) -> None:
        body = json.dumps({"detail": TOO_LARGE.format(limit=limit)}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]})
        await send({"type": "http.response.body", "body": body})


# Pages Lectern renders itself (the demo, the API docs) load scripts and styles only from this
# origin (the API docs' assets are served from a package); no page of ours may be framed by another site.
_PAGE_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
# The maintainer console holds a token that opens the book's log: its scripts and styles are
# files this app serves (/admin/console.js, /admin/console.css), nothing inline, no other origin.
CONSOLE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
_ALWAYS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
]


class SecurityHeaders:
    """nosniff and a referrer policy on every response; a content security policy that also
    forbids framing on HTML pages (API responses and widget.js are embedded by host sites)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                headers += [header for header in _ALWAYS if header[0] not in present]
                content_type = dict(headers).get(b"content-type", b"")
                if content_type.startswith(b"text/html") and b"content-security-policy" not in present:
                    headers.append((b"content-security-policy", _PAGE_POLICY.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


_REQUEST_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")


def request_id_from(headers: dict[bytes, bytes]) -> str | None:
    """The caller's X-Request-Id when it is a plain token (ASCII letters, digits, `._:-`, at
    most 64); anything else (non-UTF-8 bytes, spaces, log-forging newlines) is replaced."""
    value = headers.get(b"x-request-id", b"")
    return value.decode("ascii") if _REQUEST_ID.match(value) else None
