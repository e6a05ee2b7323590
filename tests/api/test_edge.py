"""What every request meets before it is answered: the reader's address behind proxies, limits
that hold across routes and count invalid requests, body size, request ids, security headers,
and a schema that says what the API does."""

import hashlib
import sqlite3
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from backend.app import SERVER_OPTIONS, create_app
from tests.fakes.servers import FakeServer
from tests.support.books import app_client, app_settings, copy_data_dir

ROOT = Path(__file__).resolve().parents[2]
QUESTION = {"query": "How does a servo hold its position?"}


def codes(client: TestClient, requests: list[tuple[str, dict[str, Any], dict[str, str]]]) -> list[int]:
    return [client.post(path, json=body, headers=headers).status_code for path, body, headers in requests]


def test_a_forged_forwarded_for_does_not_buy_a_new_address_budget(motors_template: Path, tmp_path: Path) -> None:
    """The per-address limit holds against a client that rotates X-Forwarded-For and session
    ids, on a real uvicorn server set up as `lectern serve` sets it up."""
    settings = app_settings(copy_data_dir(motors_template, tmp_path / "d"), LECTERN_RATE_LIMIT_PER_ADDRESS="3/minute")
    with FakeServer(create_app(settings), **SERVER_OPTIONS) as server, httpx.Client(base_url=server.url) as client:
        forged = [client.post("/api/chat/query", json=QUESTION,
                              headers={"X-Forwarded-For": f"203.0.113.{n}", "X-Session-Id": f"s{n}"}).status_code
                  for n in range(5)]
    assert forged == [200, 200, 200, 429, 429]


def test_the_railway_deployment_trusts_only_its_own_proxy() -> None:
    start = tomllib.loads((ROOT / "railway.toml").read_text())["deploy"]["startCommand"]
    assert "--no-proxy-headers" in start and "forwarded-allow-ips" not in start
    assert "LECTERN_PROXY_HOPS=${LECTERN_PROXY_HOPS:-1}" in start


def test_behind_one_proxy_only_the_address_it_appended_counts(motors_template: Path, tmp_path: Path) -> None:
    env = {"LECTERN_RATE_LIMIT_PER_ADDRESS": "2/minute", "LECTERN_PROXY_HOPS": "1"}
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), **env) as client:
        # The reader forges the leftmost entries; the proxy appends the address it saw.
        reader = [("/api/chat/query", QUESTION, {"X-Forwarded-For": f"10.9.9.{n}, 198.51.100.7", "X-Session-Id": f"s{n}"})
                  for n in range(3)]
        assert codes(client, reader) == [200, 200, 429]
        other = [("/api/chat/query", QUESTION, {"X-Forwarded-For": "198.51.100.8", "X-Session-Id": "t"})]
        assert codes(client, other) == [200]


def test_query_and_stream_draw_from_one_budget(motors_template: Path, tmp_path: Path) -> None:
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), LECTERN_RATE_LIMIT="3/minute") as client:
        session = {"X-Session-Id": "reader"}
        both = [("/api/chat/query", QUESTION, session), ("/api/chat/stream", QUESTION, session)] * 2
        assert codes(client, both) == [200, 200, 200, 429]


def test_invalid_requests_count_against_the_limit(motors_template: Path, tmp_path: Path) -> None:
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), LECTERN_RATE_LIMIT="3/minute") as client:
        session = {"X-Session-Id": "reader"}
        invalid = [("/api/chat/query", {"query": "ok", "surprise": 1}, session)] * 3
        assert codes(client, invalid) == [400, 400, 400]
        assert codes(client, [("/api/chat/query", QUESTION, session)]) == [429]


def test_a_reader_has_one_vote_per_answer_and_votes_are_limited(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    with app_client(data, LECTERN_RATE_LIMIT_FEEDBACK="5/minute") as client:
        answer = client.post("/api/chat/query", json=QUESTION).json()
        votes = [("/api/feedback", {"message_id": answer["message_id"], "helpful": n % 2 == 0}, {"X-Session-Id": "r"})
                 for n in range(7)]
        assert codes(client, votes) == [200] * 5 + [429] * 2
        refused = client.post("/api/feedback", json=votes[0][1], headers={"X-Session-Id": "r"})
        assert "Too many votes in a short time" in refused.json()["detail"]  # not "questions"
        other_reader = {"message_id": answer["message_id"], "helpful": False}
        assert client.post("/api/feedback", json=other_reader, headers={"X-Session-Id": "r2"}).status_code == 200
    with sqlite3.connect(data / "lectern.sqlite3") as db:
        rows = db.execute("SELECT vote_id, helpful FROM feedback ORDER BY vote_id").fetchall()
    voter = hashlib.sha256(f"{answer['message_id']}\nsession:r".encode()).hexdigest()[:32]
    assert len(rows) == 2 and (voter, 1) in rows  # the reader's last vote (the fifth, helpful) stands


def test_a_body_over_the_limit_is_refused_unread(motors: TestClient, motors_template: Path, tmp_path: Path) -> None:
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), LECTERN_MAX_BODY_BYTES="1000") as client:
        declared = client.post("/api/chat/query", json={"query": "x" * 2000}, headers={"Origin": "http://localhost:3000"})
        assert declared.status_code == 413 and "larger than 1000 bytes" in declared.json()["detail"]
        assert declared.headers["access-control-allow-origin"] == "http://localhost:3000"  # the widget can read it

        def chunks() -> Iterator[bytes]:  # no Content-Length: the size shows only while reading
            yield b'{"query": "'
            for _ in range(100):
                yield b"y" * 100
            yield b'"}'

        streamed = client.post("/api/chat/query", content=chunks(), headers={"content-type": "application/json"})
        assert streamed.status_code == 413
        assert client.post("/api/chat/query", json=QUESTION).status_code == 200


@pytest.mark.parametrize("field", ["query", "selected_text", "comment", "history"])
def test_nul_characters_are_refused_with_a_message(motors: TestClient, field: str) -> None:
    if field == "comment":
        response = motors.post("/api/feedback", json={"message_id": "m", "helpful": True, "comment": "a\u0000b"})
    elif field == "history":
        response = motors.post("/api/chat/query", json={
            **QUESTION, "conversation_history": [{"role": "user", "content": "hi\u0000"}]})
    else:
        response = motors.post("/api/chat/query", json={**QUESTION, field: "a\u0000b"})
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_a_question_of_invisible_characters_is_refused(motors: TestClient) -> None:
    response = motors.post("/api/chat/query", json={"query": "\u200b\u200c\u2060\ufeff"})
    assert response.status_code == 400 and "invisible characters" in response.json()["detail"]


@pytest.mark.parametrize("value", [b"\xff\xfe", b"id with spaces", b"a" * 65, b"ok\r\nforged: line"[:5] + b"\x00"])
def test_an_unusable_request_id_is_replaced_not_an_error(motors: TestClient, value: bytes) -> None:
    for path in ("/api/health", "/openapi.json"):
        response = motors.get(path, headers=[(b"x-request-id", value)])
        assert response.status_code in (200, 503)
        assert response.headers["x-request-id"].isalnum() and response.headers["x-request-id"].encode() != value
    kept = motors.get("/openapi.json", headers={"X-Request-Id": "trace-42.a:b"})
    assert kept.headers["x-request-id"] == "trace-42.a:b"


def test_security_headers(motors: TestClient) -> None:
    api = motors.get("/openapi.json")
    assert api.headers["x-content-type-options"] == "nosniff"
    assert api.headers["referrer-policy"] == "strict-origin-when-cross-origin"
    assert "content-security-policy" not in api.headers  # host sites embed the API and widget
    page = motors.get("/docs")
    policy = page.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "default-src 'self'" in policy


def test_the_schema_says_what_the_api_does(motors: TestClient) -> None:
    schema = motors.get("/openapi.json").json()
    query = schema["paths"]["/api/chat/query"]["post"]
    assert "422" not in query["responses"] and "400" in query["responses"] and "429" in query["responses"]
    assert "HTTPValidationError" not in schema["components"]["schemas"]
    assert schema["components"]["schemas"]["ChatRequest"]["properties"]["query"]["minLength"] == 1
    assert "503" in schema["paths"]["/api/health"]["get"]["responses"]
    assert "429" in schema["paths"]["/api/feedback"]["post"]["responses"]
    console = [(path, method, operation) for path, item in schema["paths"].items() if path.startswith("/api/admin")
               for method, operation in item.items()]
    assert len(console) >= 17  # every console route says it may answer 400, as each may
    assert [(path, method) for path, method, operation in console if "400" not in operation["responses"]] == []
