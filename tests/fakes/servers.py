"""Local fake servers that speak the Cohere, Gemini and OpenAI HTTP protocols.

Tests point the real SDK clients at them (base URL), so the SDKs' own request building and
response parsing run for real. Each fake records the requests it received and can be told to
fail (status code) or hang (seconds) for its next calls.
"""

import asyncio
import hashlib
import json
import math
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Self

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


def hashed_embedding(text: str, dimension: int) -> list[float]:
    """Deterministic bag-of-words vector: texts sharing words get similar vectors."""
    vector = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        slot = int(hashlib.md5(word.encode()).hexdigest(), 16) % dimension
        vector[slot] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


@dataclass
class Behaviour:
    """What the fake does with its next calls."""

    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_status: int | None = None
    fail_times: int = 0
    hang_seconds: float = 0.0

    def fail(self, status: int, times: int = 1) -> None:
        self.fail_status, self.fail_times = status, times

    async def interfere(self) -> Response | None:
        if self.hang_seconds:
            await asyncio.sleep(self.hang_seconds)
        if self.fail_times > 0 and self.fail_status:
            self.fail_times -= 1
            headers = {"Retry-After": "7"} if self.fail_status == 429 else {}
            return JSONResponse({"error": {"message": "fake failure", "code": self.fail_status}},
                                status_code=self.fail_status, headers=headers)
        return None


class FakeServer:
    """Runs an ASGI app with uvicorn on a free loopback port in a background thread."""

    def __init__(self, app: Starlette, port: int | None = None, **options: Any):
        if port is None:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
        self.port = port
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="auto", **options
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        deadline = time.monotonic() + 60  # an app may load models at start-up
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("fake server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)


# --- Cohere ------------------------------------------------------------------------------------

class FakeCohere(Behaviour):
    api_key = "test-cohere-key"
    preferred: str | None = None  # rerank: a document holding this is the most relevant

    def app(self) -> Starlette:
        async def embed(request: Request) -> Response:
            if request.headers.get("authorization") != f"Bearer {self.api_key}":
                return JSONResponse({"message": "invalid api token"}, status_code=401)
            body = await request.json()
            self.requests.append(body)
            if failure := await self.interfere():
                return failure
            vectors = [hashed_embedding(t, 1024) for t in body["texts"]]
            return JSONResponse({
                "id": "fake", "response_type": "embeddings_by_type", "texts": body["texts"],
                "embeddings": {"float": vectors}, "meta": {"api_version": {"version": "2"}},
            })

        async def rerank(request: Request) -> Response:
            """Relevance: 1 for a document holding `preferred`, else the share of the query's
            words it holds; results best first, as Cohere's."""
            if request.headers.get("authorization") != f"Bearer {self.api_key}":
                return JSONResponse({"message": "invalid api token"}, status_code=401)
            body = await request.json()
            self.requests.append({"path": "/v2/rerank", **body})
            if failure := await self.interfere():
                return failure
            asked = set(body["query"].lower().split())

            def relevance(document: str) -> float:
                if self.preferred and self.preferred in document:
                    return 1.0
                return len(asked & set(document.lower().split())) / max(len(asked), 1)

            ranked = sorted(enumerate(body["documents"]), key=lambda item: -relevance(item[1]))
            results = [{"index": i, "relevance_score": relevance(d)} for i, d in ranked[: body.get("top_n")]]
            return JSONResponse({"id": "fake", "results": results, "meta": {"api_version": {"version": "2"}}})

        return Starlette(routes=[Route("/v2/embed", embed, methods=["POST"]),
                                 Route("/v2/rerank", rerank, methods=["POST"])])


# --- Gemini ------------------------------------------------------------------------------------

class FakeGemini(Behaviour):
    api_key = "test-gemini-key"
    dimension = 768

    def app(self) -> Starlette:
        async def embed(request: Request) -> Response:
            if request.headers.get("x-goog-api-key") != self.api_key:
                return JSONResponse({"error": {"code": 403, "message": "bad key", "status": "PERMISSION_DENIED"}}, status_code=403)
            body = await request.json()
            self.requests.append({"path": request.url.path, **body})
            if failure := await self.interfere():
                return failure
            items = body.get("requests") or [body]
            embeddings = []
            for item in items:
                text = " ".join(part.get("text", "") for part in item["content"]["parts"])
                size = item.get("outputDimensionality") or self.dimension
                embeddings.append({"values": hashed_embedding(text, size)})
            return JSONResponse({"embeddings": embeddings})

        return Starlette(routes=[Route("/{path:path}", embed, methods=["POST"])])


# --- OpenAI-compatible chat completions -----------------------------------------------------------

@dataclass
class Reply:
    """One scripted model turn: tool calls ({name: arguments}) or text."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class FakeChatModel(Behaviour):
    """Answers /v1/chat/completions from a script, one Reply per call, streamed or not."""

    def __init__(self, script: list[Reply] | None = None):
        super().__init__()
        self.script = list(script or [])

    def app(self) -> Starlette:
        async def completions(request: Request) -> Response:
            body = await request.json()
            self.requests.append(body)
            if failure := await self.interfere():
                return failure
            reply = self.script.pop(0) if self.script else Reply(text="NOT_IN_BOOK")
            model = body.get("model", "fake")
            if body.get("stream"):
                return StreamingResponse(_stream(reply, model), media_type="text/event-stream")
            return JSONResponse(_completion(reply, model))

        async def models(request: Request) -> Response:
            return JSONResponse({"object": "list", "data": [{"id": "fake", "object": "model", "created": 0, "owned_by": "tests"}]})

        return Starlette(routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models),
        ])

    def tool_results(self, call: int) -> list[str]:
        """The tool outputs the client sent back in request number `call`."""
        return [m["content"] for m in self.requests[call]["messages"] if m.get("role") == "tool"]


def _tool_call_dicts(reply: Reply) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{i}", "type": "function",
         "function": {"name": name, "arguments": json.dumps(arguments)}}
        for i, (name, arguments) in enumerate(reply.tool_calls)
    ]


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = _tool_call_dicts(reply)
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


async def _stream(reply: Reply, model: str) -> AsyncIterator[bytes]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        payload = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0,
                   "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(payload)}\n\n".encode()

    yield chunk({"role": "assistant"})
    for i, call in enumerate(_tool_call_dicts(reply)):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    for piece in _pieces(reply.text, 7):
        yield chunk({"content": piece})
        await asyncio.sleep(0)
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    yield b"data: [DONE]\n\n"


def _pieces(text: str, size: int) -> Iterator[str]:
    for start in range(0, len(text), size):
        yield text[start : start + size]


@contextmanager
def serve(fake: FakeCohere | FakeGemini | FakeChatModel) -> Iterator[str]:
    with FakeServer(fake.app()) as server:
        yield server.url
