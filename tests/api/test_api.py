"""The HTTP service against the real app: contract, SSE, errors, limits, CORS, persistence."""

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from backend.cli import app as cli
from backend.store.sql import PostgresStore, SQLiteStore
from tests.fakes.servers import FakeChatModel, Reply, serve
from tests.support.books import REDIS, app_client, copy_data_dir


def sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_query_contract_on_the_real_book(real_book: Path) -> None:
    with app_client(real_book, book="physical-ai") as client:
        response = client.post("/api/chat/query", json={"query": "What are the two steps of a Kalman filter?"})
        assert response.status_code == 200
        body = response.json()
        assert set(body) == {"response", "sources", "status", "confidence", "reviewed", "conversation_id", "message_id", "timestamp"}
        assert body["status"] == "found" and body["sources"]
        source = body["sources"][0]
        assert set(source) == {"module", "lesson", "section", "url", "excerpt", "score", "page"} and source["page"] is None
        assert "04-sensor-fusion" not in source["url"] and "/sensor-fusion#" in source["url"]
        assert response.headers["x-request-id"]


def test_stream_sends_events_in_order(motors: TestClient) -> None:
    with motors.stream("POST", "/api/chat/stream", json={"query": "How does a servo motor hold its position?"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events("".join(response.iter_text()))
    names = [name for name, _ in events]
    assert names[0] == "text"
    last_text = max(i for i, n in enumerate(names) if n == "text")
    assert names[last_text + 1 :] == ["source"] * names.count("source") + ["confidence", "done"]
    text = "".join(data["delta"] for name, data in events if name == "text")
    assert "feedback loop" in text
    assert events[-2][1] == {"status": "found", "confidence": events[-2][1]["confidence"], "reviewed": False}
    assert set(events[-1][1]) == {"conversation_id", "message_id"}


def test_stream_of_an_unanswerable_question(motors: TestClient) -> None:
    with motors.stream("POST", "/api/chat/stream", json={"query": "How do jet engines produce thrust?"}) as response:
        events = sse_events("".join(response.iter_text()))
    names = [name for name, _ in events]
    assert "source" not in names
    assert events[-2] == ("confidence", {"status": "not_found", "confidence": "not_found", "reviewed": False})
    assert any(name == "replace" and "outside the scope of this book" in data["text"] for name, data in events)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": ""}, "at least 1 character"),
        ({"query": "   "}, "query must not be empty"),
        ({"query": "<script>alert('hi')</script><b></b>"}, "no text once its markup and invisible characters are removed"),
        ({"query": "x" * 2001}, "at most 2000 characters"),
        ({"query": "ok", "surprise": 1}, "surprise: unknown field"),
        ({"query": "ok", "selected_text": "y" * 5001}, "selected_text"),
        ({"query": "ok", "conversation_history": [{"role": "system", "content": "x"}]}, "conversation_history"),
        # an earlier question is searched with the next one: no longer than a question
        ({"query": "and then?", "conversation_history": [{"role": "user", "content": "why " * 501}]},
         "a reader's turn has at most 2,000 characters"),
        ({}, "query: Field required"),
    ],
)
def test_invalid_requests_get_400_with_a_message(motors: TestClient, body: dict[str, Any], message: str) -> None:
    response = motors.post("/api/chat/query", json=body)
    assert response.status_code == 400
    assert message in response.json()["detail"]


def test_malformed_json_gets_400(motors: TestClient) -> None:
    response = motors.post("/api/chat/query", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400 and "not valid JSON" in response.json()["detail"]


def test_rate_limit_per_session_with_retry_after(motors_template: Path, tmp_path: Path) -> None:
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), LECTERN_RATE_LIMIT="2/minute") as client:
        headers = {"X-Session-Id": "reader-1"}
        for _ in range(2):
            assert client.post("/api/chat/query", json={"query": "servo"}, headers=headers).status_code == 200
        limited = client.post("/api/chat/query", json={"query": "servo"}, headers=headers)
        assert limited.status_code == 429
        assert 0 < int(limited.headers["retry-after"]) <= 60
        assert "Too many questions" in limited.json()["detail"]
        other = client.post("/api/chat/query", json={"query": "servo"}, headers={"X-Session-Id": "reader-2"})
        assert other.status_code == 200


def test_rate_limits_are_shared_through_redis(motors_template: Path, tmp_path: Path) -> None:
    session = {"X-Session-Id": f"shared-{uuid.uuid4().hex}"}
    env = {"LECTERN_RATE_LIMIT": "3/minute", "REDIS_URL": REDIS}
    with app_client(copy_data_dir(motors_template, tmp_path / "a"), **env) as first, \
            app_client(copy_data_dir(motors_template, tmp_path / "b"), **env) as second:
        codes = [c.post("/api/chat/query", json={"query": "servo"}, headers=session).status_code
                 for c in (first, second, first, second)]
    assert codes == [200, 200, 200, 429]


def test_vector_store_down_gives_503(tmp_path: Path) -> None:
    with app_client(tmp_path / "d", QDRANT_URL="http://127.0.0.1:1") as client:
        response = client.post("/api/chat/query", json={"query": "servo"})
        assert response.status_code == 503
        assert response.json() == {"detail": "Search is temporarily unavailable. Please try again in a minute."}
        health = client.get("/api/health")
        assert health.status_code == 503 and health.json()["checks"]["vector_store"].startswith("down")
        with client.stream("POST", "/api/chat/stream", json={"query": "servo"}) as stream:
            assert stream.status_code == 503


@pytest.mark.parametrize(("failure", "status"), [(429, 429), (500, 503), ("hang", 503)])
def test_answer_model_failures(motors_template: Path, tmp_path: Path, failure: int | str, status: int) -> None:
    fake = FakeChatModel()
    if failure == "hang":
        fake.hang_seconds = 3
    else:
        fake.fail(failure, times=1000)
    with serve(fake) as url, app_client(
        copy_data_dir(motors_template, tmp_path / "d"), LECTERN_MODEL="openai-compatible",
        LECTERN_MODEL_NAME="gemini-2.5-flash", LECTERN_LLM_BASE_URL=f"{url}/v1", LECTERN_LLM_TIMEOUT=0.5,
    ) as client:
        response = client.post("/api/chat/query", json={"query": "How does a servo hold position?"})
        assert response.status_code == status
        assert "Traceback" not in response.text and "try again" in response.json()["detail"]
        assert "retry-after" in response.headers
        with client.stream("POST", "/api/chat/stream", json={"query": "servo position?"}) as stream:
            events = sse_events("".join(stream.iter_text()))
        assert events[-1][0] == "error" and events[-1][1]["code"] == status


def test_llm_answers_stream_through_the_api(motors_template: Path, tmp_path: Path) -> None:
    fake = FakeChatModel([
        Reply(tool_calls=[("search_book_content", {"query": "servo position"})]),
        Reply(text="A feedback loop holds it [S1]."),
    ])
    with serve(fake) as url, app_client(
        copy_data_dir(motors_template, tmp_path / "d"), LECTERN_MODEL="openai-compatible",
        LECTERN_MODEL_NAME="gemini-2.5-flash", LECTERN_LLM_BASE_URL=f"{url}/v1",
    ) as client:
        body = client.post("/api/chat/query", json={"query": "How does a servo hold position?"}).json()
    assert body["response"] == "A feedback loop holds it [1]."
    assert body["sources"][0]["lesson"] == "Servo Motors"


def test_cors_allows_only_configured_origins(motors: TestClient) -> None:
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type,x-session-id"}
    allowed = motors.options("/api/chat/query", headers={"Origin": "http://localhost:3000", **preflight})
    assert allowed.headers["access-control-allow-origin"] == "http://localhost:3000"
    assert "access-control-allow-credentials" not in allowed.headers
    denied = motors.options("/api/chat/query", headers={"Origin": "https://evil.example", **preflight})
    assert "access-control-allow-origin" not in denied.headers


def test_feedback_round_trip_in_sqlite(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    with app_client(data) as client:
        answer = client.post("/api/chat/query", json={"query": "How does a servo hold its position?"}).json()
        ok = client.post("/api/feedback", json={"message_id": answer["message_id"], "helpful": False, "comment": "too short"})
        assert ok.json() == {"ok": True}
        unknown = client.post("/api/feedback", json={"message_id": "nope", "helpful": True})
        assert unknown.status_code == 404
        metrics = client.get("/metrics").text
        assert 'lectern_feedback_total{helpful="false"} 1.0' in metrics
        assert "lectern_answer_latency_seconds_bucket" in metrics

    async def check() -> None:
        store = SQLiteStore(data / "lectern.sqlite3")
        stored = await store.get_interaction(answer["message_id"])
        assert stored and stored.status == "found" and stored.sources[0]["lesson"] == "Servo Motors"
        entries = await store.feedback("motors")
        assert [(e.helpful, e.comment) for e in entries] == [(False, "too short")]
        await store.close()

    asyncio.run(check())
    result = CliRunner().invoke(cli, ["report", "--book", "motors", "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["stats"]["questions"] == 1 and summary["stats"]["unhelpful"] == 1
    assert summary["asked"][0]["question"] == "How does a servo hold its position?"
    assert summary["unanswered"] == [] and summary["feedback"][0]["comment"] == "too short"


def test_conversations_and_feedback_in_postgres(motors_template: Path, tmp_path: Path, postgres_url: str) -> None:
    with app_client(copy_data_dir(motors_template, tmp_path / "d"), DATABASE_URL=postgres_url) as client:
        assert client.get("/api/health").json()["database"] == "postgres"
        first = client.post("/api/chat/query", json={"query": "How does a servo hold its position?"}).json()
        follow = client.post("/api/chat/query", json={"query": "What does it compare?", "conversation_id": first["conversation_id"]}).json()
        assert follow["conversation_id"] == first["conversation_id"]
        assert client.post("/api/feedback", json={"message_id": follow["message_id"], "helpful": True}).status_code == 200

    async def check() -> None:
        store = PostgresStore(postgres_url)
        history = await store.history(first["conversation_id"], "motors")
        assert [t.role for t in history] == ["user", "assistant", "user", "assistant"]
        stats = await store.stats("motors")
        assert (stats.questions, stats.helpful) == (2, 1)
        await store.close()

    asyncio.run(check())


def test_chat_keeps_answering_when_the_database_is_down(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    with app_client(data, DATABASE_URL="postgresql://postgres@127.0.0.1:1/nothing") as client:
        response = client.post("/api/chat/query", json={"query": "How does a servo hold its position?"})
        assert response.status_code == 200
        assert client.get("/api/health").status_code == 503
    spooled = (data / "pending.jsonl").read_text().splitlines()
    assert json.loads(spooled[0])["item"]["message_id"] == response.json()["message_id"]
    with app_client(data) as client:  # SQLite works: the spool is written on start-up
        for _ in range(50):
            if not (data / "pending.jsonl").exists():
                break
            asyncio.run(asyncio.sleep(0.1))
    assert not (data / "pending.jsonl").exists()


def test_widget_and_demo_pages(motors: TestClient) -> None:
    assert motors.get("/docs").status_code == 200  # OpenAPI docs
    assert motors.get("/openapi.json").json()["paths"]["/api/chat/query"]
    demo = motors.get("/demo/", follow_redirects=False)
    assert demo.status_code in (307, 404)
