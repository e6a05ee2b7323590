"""The book as an MCP server, driven by the official `mcp` client over stdio and streamable HTTP."""

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from backend.app import SERVER_OPTIONS, create_app
from backend.registry import reader_token
from tests.fakes.servers import FakeServer
from tests.support.books import READER_SECRET, app_settings, copy_data_dir


async def exercise(client: Client, passages: set[str]) -> None:
    """What any MCP client of a Lectern book can rely on."""
    tools = {tool.name for tool in (await client.list_tools()).tools}
    assert tools == {"search_book", "answer_question", "get_page"}

    found = await client.call_tool("search_book", {"query": "servo position", "limit": 3})
    results = json.loads(found.content[0].text) if not found.structured_content else found.structured_content["result"]
    assert not found.is_error and 0 < len(results) <= 3
    assert results[0]["lesson"] == "Servo Motors" and results[0]["url"] in passages

    answered = await client.call_tool("answer_question", {"question": "How does a servo hold its position?"})
    answer = answered.structured_content
    assert not answered.is_error and answer["status"] == "found" and "feedback loop" in answer["answer"]
    assert answer["citations"] and all(c["url"] in passages for c in answer["citations"])

    page = (await client.call_tool("get_page", {"page": results[0]["url"]})).structured_content
    assert page["title"] == "Servo Motors" and "Holding Position" in " ".join(page["outline"])
    assert "feedback loop" in page["text"]

    outline = await client.read_resource("book://motors/outline")
    assert "[Servo Motors](" in outline.contents[0].text

    for name, arguments, message in [
        ("search_book", {"query": "", "limit": 3}, "query must have some text"),
        ("search_book", {"query": "servo", "limit": 500}, "limit must be between 1 and 20"),
        ("get_page", {"page": "/nowhere"}, "no page '/nowhere'"),
        ("search_book", {"query": "servo", "book": "nobook"}, "'nobook' has not been ingested"),
        # the HTTP API's limits, refused before anything reads the text (900k characters of distinct
        # words once cost 101 s of CPU in search_book and 39.5 s in answer_question)
        ("search_book", {"query": distinct_words(900_000)}, "query has 900,000 characters; at most 2,000"),
        ("answer_question", {"question": distinct_words(900_000)}, "question has 900,000 characters; at most 2,000"),
        ("answer_question", {"question": "What is a servo?", "selected_text": "x" * 5001}, "at most 5,000"),
        ("search_book", {"query": "servo", "book": "No Such Book! " * 10_000}, "book must be a book id"),
    ]:
        failed = await client.call_tool(name, arguments)
        assert failed.is_error and message in failed.content[0].text, failed.content[0].text
    assert (await client.call_tool("search_book", {"query": "servo"})).is_error is False  # still serving


def distinct_words(length: int) -> str:
    """Text of `length` characters made of words that never repeat (the costliest to score)."""
    words = " ".join(f"w{number:x}" for number in range(length // 4))
    return (words + " " * length)[:length]


def passage_urls(data: Path) -> set[str]:
    from backend.config import Settings
    from backend.engine import Library

    library = Library(Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="motors"))
    try:
        return {chunk.url for chunk in library.engine().retriever.corpus.chunks}
    finally:
        library.close()


def test_over_stdio(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "data")
    passages = passage_urls(data)
    server = StdioServerParameters(command=sys.executable, args=["-m", "backend", "mcp", "--book", "motors",
                                                                  "--data-dir", str(data)])

    async def session() -> None:
        async with Client(server) as client:
            await exercise(client, passages)

    asyncio.run(session())


def test_over_http_on_the_service(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "data")
    passages = passage_urls(data)
    with FakeServer(create_app(app_settings(data)), **SERVER_OPTIONS) as server:

        async def session() -> None:
            async with Client(f"{server.url}/mcp") as client:
                await exercise(client, passages)

        asyncio.run(session())


def test_http_calls_follow_the_registry_and_the_limits(
    two_books: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KITCHEN_READER_SECRET", READER_SECRET)
    settings = app_settings(copy_data_dir(two_books / "data", tmp_path / "data"), LECTERN_BOOKS=two_books / "books.toml",
                            LECTERN_RATE_LIMIT_SEARCH="6/minute")
    token = reader_token(READER_SECRET.encode(), "kitchen", int(time.time()) + 600)  # kitchen is private
    with FakeServer(create_app(settings), **SERVER_OPTIONS) as server:

        async def session(headers: dict[str, str]) -> Any:
            transport = streamable_http_client(f"{server.url}/mcp", http_client=httpx2.AsyncClient(headers=headers))
            async with Client(transport) as client:
                return await client.call_tool("search_book", {"query": "sourdough starter", "book": "kitchen"})

        refused = asyncio.run(session({}))
        assert refused.is_error and "This book is private" in refused.content[0].text
        allowed = asyncio.run(session({"X-Reader-Token": token}))
        assert not allowed.is_error
        with pytest.raises(Exception):  # noqa: B017 (the SDK's own error for an HTTP 429)
            for _ in range(6):
                asyncio.run(session({"X-Reader-Token": token}))


def test_mcp_questions_spend_the_books_limit_and_the_readers_questions(
    two_books: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A book limited to 3 questions a minute answered 40 of 40 over MCP, each with its own
    session: MCP spent neither the book's limit nor the questions budget."""
    monkeypatch.setenv("KITCHEN_READER_SECRET", READER_SECRET)
    registry = tmp_path / "books.toml"
    registry.write_text((two_books / "books.toml").read_text().replace('rate_limit = "30/minute"', 'rate_limit = "3/minute"'))
    settings = app_settings(copy_data_dir(two_books / "data", tmp_path / "data"), LECTERN_BOOKS=registry)
    with FakeServer(create_app(settings), **SERVER_OPTIONS) as server:

        async def question(session: str) -> Any:
            headers = {"X-Session-Id": session}
            transport = streamable_http_client(f"{server.url}/mcp", http_client=httpx2.AsyncClient(headers=headers))
            async with Client(transport) as client:
                return await client.call_tool(
                    "answer_question", {"question": "How does a servo hold its position?", "book": "motors"})

        answered = [asyncio.run(question(f"reader-{n}")) for n in range(5)]
        assert [a.is_error for a in answered] == [False, False, False, True, True]
        assert "Too many questions" in answered[3].content[0].text
        chat = httpx2.post(f"{server.url}/api/chat/query", json={"query": "What is a stepper?", "book": "motors"})
        assert chat.status_code == 429  # the same book's limit, spent over MCP
