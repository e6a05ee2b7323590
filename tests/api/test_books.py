"""Several books on one server, isolated: answers, maintainer tokens, origins, private books."""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from backend.app import create_app
from backend.registry import RegistryError, reader_token
from tests.support.books import KITCHEN_SITE, MOTORS_SITE, app_client, app_settings, copy_data_dir
from tests.support.books import READER_SECRET as SECRET


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def kitchen_token(expires_in: float = 3600, book: str = "kitchen", secret: str = SECRET) -> dict[str, str]:
    return {"X-Reader-Token": reader_token(secret.encode(), book, int(time.time() + expires_in))}


@pytest.fixture(params=["sqlite", "postgres"])
def server(two_books: Path, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("KITCHEN_READER_SECRET", SECRET)
    env: dict[str, Any] = {"LECTERN_BOOKS": two_books / "books.toml", "LECTERN_ADMIN_TOKEN": "admin-token"}
    if request.param == "postgres":
        env["DATABASE_URL"] = request.getfixturevalue("postgres_url")
    with app_client(copy_data_dir(two_books / "data", tmp_path / "data"), **env) as client:
        yield client


def ask(client: TestClient, book: str, question: str, **headers: Any) -> Any:
    return client.post("/api/chat/query", json={"query": question, "book": book}, headers=headers)


def test_a_question_to_one_book_never_cites_another(server: TestClient) -> None:
    motors = ask(server, "motors", "How does a servo hold its position?").json()
    assert motors["sources"] and all("/sourdough" not in s["url"] for s in motors["sources"])
    kitchen = ask(server, "kitchen", "How often is a sourdough starter fed?", **kitchen_token()).json()
    assert kitchen["sources"] and all(s["lesson"] == "Sourdough" for s in kitchen["sources"])
    crossed = ask(server, "kitchen", "How does a servo hold its position?", **kitchen_token()).json()
    assert all(s["lesson"] == "Sourdough" for s in crossed["sources"])


def test_a_books_token_opens_that_book_alone(server: TestClient) -> None:
    ask(server, "motors", "How does a servo hold its position?")
    assert server.get("/api/admin/books", headers=bearer("motors-token")).json() == {"books": ["motors"]}
    assert server.get("/api/admin/books", headers=bearer("admin-token")).json() == {"books": ["kitchen", "motors"]}
    assert server.get("/api/admin/books/motors/overview", headers=bearer("motors-token")).json()["questions"] == 1
    for path in ("overview", "gaps", "curated", "questionnaires", "interactions"):
        refused = server.get(f"/api/admin/books/kitchen/{path}", headers=bearer("motors-token"))
        assert refused.status_code == 403, path
        assert refused.json() == {"detail": "That token does not open the book 'kitchen'."}
    assert server.get("/api/admin/books/kitchen/overview", headers=bearer("kitchen-token")).status_code == 200
    assert server.get("/api/admin/books", headers=bearer("nobody")).status_code == 403


def test_a_page_may_ask_only_the_books_of_its_site(server: TestClient) -> None:
    assert ask(server, "motors", "How does a servo hold its position?", Origin=MOTORS_SITE).status_code == 200
    refused = ask(server, "kitchen", "How is sourdough baked?", Origin=MOTORS_SITE, **kitchen_token())
    assert refused.status_code == 403
    assert refused.json() == {"detail": f"Pages on {MOTORS_SITE} may not ask the book 'kitchen'."}
    assert ask(server, "kitchen", "How is sourdough baked?", Origin=KITCHEN_SITE, **kitchen_token()).status_code == 200
    preflight = server.options("/api/chat/stream", headers={
        "Origin": KITCHEN_SITE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-reader-token"})
    assert preflight.headers["access-control-allow-origin"] == KITCHEN_SITE


@pytest.mark.parametrize(("headers", "message"), [
    ({}, "This book is private"),
    ({"X-Reader-Token": "garbage"}, "not valid for this book"),
    ({"X-Reader-Token": "1.\u00e9".encode("latin-1")}, "not valid for this book"),
    ({"X-Reader-Token": "9" * 5000}, "not valid for this book"),
    (kitchen_token(book="motors"), "not valid for this book"),
    (kitchen_token(secret="another-secret"), "not valid for this book"),
    (kitchen_token(expires_in=-60), "has expired"),
    (kitchen_token(expires_in=999_999_999_999 - time.time()), "more than a day ahead"),
])
def test_a_private_book_needs_a_valid_reader_token(server: TestClient, headers: dict[str, Any], message: str) -> None:
    refused = ask(server, "kitchen", "How is sourdough baked?", **headers)
    assert refused.status_code == 401 and message in refused.json()["detail"]
    assert "sources" not in refused.json()
    with server.stream("POST", "/api/chat/stream", json={"query": "How is sourdough baked?", "book": "kitchen"},
                       headers=headers) as stream:
        assert stream.status_code == 401


def test_a_books_own_rate_limit_counts_its_questions_only(two_books: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KITCHEN_READER_SECRET", SECRET)
    registry = tmp_path / "books.toml"
    registry.write_text((two_books / "books.toml").read_text().replace('rate_limit = "30/minute"', 'rate_limit = "2/minute"'))
    with app_client(copy_data_dir(two_books / "data", tmp_path / "data"), LECTERN_BOOKS=registry) as client:
        reader = {"X-Session-Id": "reader"}
        codes = [ask(client, "motors", "How does a servo hold its position?", **reader).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
        limited = ask(client, "motors", "What does a stepper motor do?", **reader)
        assert 0 < int(limited.headers["retry-after"]) <= 60 and "Too many questions" in limited.json()["detail"]
        assert ask(client, "kitchen", "How is sourdough baked?", **reader, **kitchen_token()).status_code == 200
        # a new session id per question buys no more of the book's questions
        others = [ask(client, "motors", "What does a stepper motor do?", **{"X-Session-Id": f"other-{n}"}).status_code
                  for n in range(3)]
        assert others == [429, 429, 429]


def test_a_book_outside_the_registry_is_not_served(server: TestClient) -> None:
    response = ask(server, "unlisted", "How is sourdough baked?")
    assert response.status_code == 404 and response.json() == {"detail": "This server has no book 'unlisted'."}


@pytest.mark.parametrize(("text", "message"), [
    ("[books.motors\n", "not TOML"),
    ('[books."Bad Id"]\n', "is not a book id"),
    ("[books.motors]\ncolour = 1\n", "books.motors.colour: Extra inputs are not permitted"),
    ('[books.motors]\nrate_limit = "lots"\n', "'lots' is not a rate limit"),
    ('[books.motors]\nreader_secret_env = "NO_SUCH_SECRET_VARIABLE"\n', "books.motors: the environment variable NO_SUCH_SECRET_VARIABLE (a reader secret) is not set"),
])
def test_a_registry_that_cannot_be_used_stops_the_server_with_the_reason(tmp_path: Path, text: str, message: str) -> None:
    registry = tmp_path / "books.toml"
    registry.write_text(text, encoding="utf-8")
    with pytest.raises(RegistryError) as caught:
        create_app(app_settings(tmp_path / "data", LECTERN_BOOKS=registry))
    assert str(caught.value).startswith(f"{registry}: ") and message in str(caught.value)
