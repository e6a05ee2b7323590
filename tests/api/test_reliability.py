"""The service with a dependency that hangs, fails or comes back, on a real uvicorn server.

Hangs and outages are made by a proxy this test starts in front of the machine's PostgreSQL or
Redis (tests/fakes/proxy.py: frozen = SIGSTOP-like silence, cut = down), or a black hole
standing in for a Qdrant server; only those are stopped.
"""

import asyncio
import json
import logging
import shutil
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from backend.api import logs
from backend.app import SERVER_OPTIONS, create_app
from backend.breaker import COOLDOWN_S
from backend.config import Settings
from backend.store.models import Feedback, Interaction
from backend.store.resilient import ResilientStore
from backend.store.sql import PostgresStore, SQLiteStore
from tests.fakes.proxy import DependencyProxy
from tests.fakes.servers import FakeServer
from tests.support.books import app_settings, copy_data_dir

QUESTION = {"query": "How does a servo hold its position?"}
FAST_S = 0.2  # routes that do not need the hung dependency answer within this
BOUND_S = 1.0  # LECTERN_DEPENDENCY_TIMEOUT in these tests
UNLIMITED = {
    "LECTERN_RATE_LIMIT": "100000/hour", "LECTERN_RATE_LIMIT_PER_ADDRESS": "100000/hour",
    "LECTERN_RATE_LIMIT_FEEDBACK": "100000/hour",
}


@contextmanager
def live(settings: Settings) -> Iterator[httpx.Client]:
    with FakeServer(create_app(settings), **SERVER_OPTIONS) as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def timed(call: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    response = call()
    return response, time.perf_counter() - started


def assert_not_held_up(latencies: list[float]) -> None:
    """A route held up by the hung dependency waits out its timeout (BOUND_S), again and again
    while the calls run; one slow response alone is the test process pausing (a garbage
    collection of the whole suite's heap), not the service."""
    assert statistics.median(latencies) < FAST_S, latencies
    assert max(latencies) < BOUND_S, latencies


def while_running(client: httpx.Client, slow: Callable[[], Any], copies: int = 3) -> list[float]:
    """Runs `slow` in `copies` threads and meanwhile times routes that need no dependency."""
    for path in ("/metrics", "/openapi.json"):
        client.get(path)  # the schema is generated on its first request: not what is measured
    threads = [threading.Thread(target=slow) for _ in range(copies)]
    for thread in threads:
        thread.start()
    time.sleep(0.05)
    latencies = []
    while any(thread.is_alive() for thread in threads):
        for path in ("/metrics", "/openapi.json"):
            latencies.append(timed(lambda path=path: client.get(path))[1])  # type: ignore[misc]
        time.sleep(0.02)
    assert latencies, "the slow requests were not slow: nothing was measured while they ran"
    for thread in threads:
        thread.join()
    return latencies


def test_a_hung_qdrant_server_gives_bounded_503s_and_holds_up_no_other_route(tmp_path: Path) -> None:
    with DependencyProxy() as black_hole, live(app_settings(
        tmp_path / "d", QDRANT_URL=f"http://127.0.0.1:{black_hole.port}", LECTERN_DEPENDENCY_TIMEOUT=str(BOUND_S),
    )) as client:
        time.sleep(COOLDOWN_S)  # start-up found it hung; wait until the next call probes it again
        answers: list[tuple[httpx.Response, float]] = []
        others = while_running(client, lambda: answers.append(timed(lambda: client.post("/api/chat/query", json=QUESTION))))
        assert [r.status_code for r, _ in answers] == [503] * 3
        assert max(seconds for _, seconds in answers) < BOUND_S + 1
        assert answers[0][0].json()["detail"].startswith("Search is temporarily unavailable")
        assert_not_held_up(others)
        health, seconds = timed(lambda: client.get("/api/health"))
        assert health.status_code == 503 and health.json()["checks"]["vector_store"].startswith("down")
        assert seconds < BOUND_S + 1


def test_a_hung_redis_costs_one_short_wait_then_limits_count_in_memory(motors_template: Path, tmp_path: Path) -> None:
    with DependencyProxy(6379) as redis, live(app_settings(
        copy_data_dir(motors_template, tmp_path / "d"), REDIS_URL=f"redis://127.0.0.1:{redis.port}/0",
        LECTERN_RATE_LIMIT="6/minute",
    )) as client:
        session = {"X-Session-Id": f"reader-{time.time_ns()}"}
        assert client.post("/api/chat/query", json=QUESTION, headers=session).status_code == 200
        assert client.get("/api/health").json()["checks"]["rate_limits"] == "ok"
        redis.freeze()
        answers: list[tuple[httpx.Response, float]] = []
        others = while_running(client, lambda: answers.append(
            timed(lambda: client.post("/api/chat/query", json=QUESTION, headers=session))))
        assert [r.status_code for r, _ in answers] == [200] * 3
        assert max(seconds for _, seconds in answers) < 1.5
        assert_not_held_up(others)
        health, seconds = timed(lambda: client.get("/api/health"))
        assert health.status_code == 503 and health.json()["checks"]["rate_limits"].startswith("down")
        assert seconds < 1
        # Limits still hold, counted in this instance's memory: 6 a minute, 3 already in memory.
        codes = [client.post("/api/chat/query", json=QUESTION, headers=session).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        redis.restore()
        deadline = time.monotonic() + 20  # slowapi probes Redis again with backoff (1, 2, 4… s)
        while client.get("/api/health").json()["checks"]["rate_limits"] != "ok":
            assert time.monotonic() < deadline, "Redis is back but the limits never returned to it"
            client.post("/api/chat/query", json=QUESTION, headers={"X-Session-Id": f"probe-{time.time_ns()}"})
            time.sleep(0.5)


def test_a_bad_redis_url_shows_in_health_and_answers_go_on(motors_template: Path, tmp_path: Path) -> None:
    with live(app_settings(copy_data_dir(motors_template, tmp_path / "d"), REDIS_URL="redis://127.0.0.1:1/0")) as client:
        assert client.post("/api/chat/query", json=QUESTION).status_code == 200
        health = client.get("/api/health")
        assert health.status_code == 503 and health.json()["checks"]["rate_limits"].startswith("down")
        assert health.json()["rate_limit_store"] == "redis"


def _through(url: str, port: int) -> str:
    return url.replace("127.0.0.1:5432", f"127.0.0.1:{port}")


def _count(url: str, sql: str) -> int:
    async def run() -> int:
        connection = await asyncpg.connect(url)
        try:
            return int(await connection.fetchval(sql))
        finally:
            await connection.close()

    return asyncio.run(run())


def test_a_hung_database_delays_nothing_beyond_its_timeout(motors_template: Path, tmp_path: Path, postgres_url: str) -> None:
    with DependencyProxy(5432) as postgres, live(app_settings(
        copy_data_dir(motors_template, tmp_path / "d"), DATABASE_URL=_through(postgres_url, postgres.port),
        LECTERN_DEPENDENCY_TIMEOUT=str(BOUND_S), **UNLIMITED,
    )) as client:
        first = client.post("/api/chat/query", json=QUESTION).json()
        postgres.freeze()
        follow_up = {"query": "What does it compare?", "conversation_id": first["conversation_id"]}
        answers: list[tuple[httpx.Response, float]] = []
        others = while_running(client, lambda: answers.append(timed(lambda: client.post("/api/chat/query", json=follow_up))))
        assert [r.status_code for r, _ in answers] == [200] * 3
        assert max(seconds for _, seconds in answers) < 2 * BOUND_S + 1  # history, then the write
        assert_not_held_up(others)
        stream, seconds = timed(lambda: client.post("/api/chat/stream", json=follow_up))
        assert stream.text.rstrip().splitlines()[-2] == "event: done" or "event: done" in stream.text
        assert seconds < BOUND_S  # the breaker is open: no waiting at all now
        vote = client.post("/api/feedback", json={"message_id": first["message_id"], "helpful": True})
        assert vote.status_code == 200
        health, seconds = timed(lambda: client.get("/api/health"))
        assert health.status_code == 503 and health.json()["checks"]["database"].startswith("down")
        assert health.json()["pending_writes"] == 5 and seconds < BOUND_S + 1
        postgres.restore()
        _wait_for_no_pending(client)
    assert _count(postgres_url, "SELECT COUNT(*) FROM interactions") == 5
    assert _count(postgres_url, "SELECT COUNT(*) FROM feedback") == 1


def _wait_for_no_pending(client: httpx.Client, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while (health := client.get("/api/health").json())["pending_writes"] or health["checks"]["database"] != "ok":
        assert time.monotonic() < deadline, f"spool never emptied: {health}"
        time.sleep(0.3)


def test_after_an_outage_every_answer_and_vote_is_stored_exactly_once(
    motors_template: Path, tmp_path: Path, postgres_url: str
) -> None:
    """Readers ask and vote from four threads while the database goes down, hangs, and returns."""
    answered: list[str] = []
    voted: list[str] = []
    failures: list[str] = []
    stop = threading.Event()
    with DependencyProxy(5432) as postgres, live(app_settings(
        copy_data_dir(motors_template, tmp_path / "d"), DATABASE_URL=_through(postgres_url, postgres.port),
        LECTERN_DEPENDENCY_TIMEOUT="0.5", **UNLIMITED,
    )) as client:
        def reader(number: int) -> None:
            while not stop.is_set():
                headers = {"X-Session-Id": f"reader-{number}"}
                answer = client.post("/api/chat/query", json=QUESTION, headers=headers)
                if answer.status_code != 200:
                    failures.append(f"answer {answer.status_code}: {answer.text}")
                    continue
                message_id = answer.json()["message_id"]
                answered.append(message_id)
                vote = {"message_id": message_id, "helpful": number % 2 == 0}
                voting = client.post("/api/feedback", json=vote, headers=headers)
                if voting.status_code != 200:
                    failures.append(f"vote {voting.status_code}: {voting.text}")
                    continue
                voted.append(message_id)

        readers = [threading.Thread(target=reader, args=(n,)) for n in range(4)]
        for thread in readers:
            thread.start()
        for change in (postgres.cut, postgres.restore, postgres.freeze, postgres.restore):
            time.sleep(1.5)
            change()
        time.sleep(1)
        stop.set()
        for thread in readers:
            thread.join()
        _wait_for_no_pending(client)
    assert failures == []
    assert len(set(answered)) == len(answered) > 20
    assert _count(postgres_url, "SELECT COUNT(*) FROM interactions") == len(answered)
    assert _count(postgres_url, "SELECT COUNT(DISTINCT message_id) FROM interactions") == len(answered)
    assert _count(postgres_url, "SELECT COUNT(*) FROM feedback") == len(voted)


def _interaction(number: int, **fields: Any) -> Interaction:
    return Interaction.model_validate({
        "message_id": f"m{number}", "conversation_id": "c", "book": "motors", "question": "q",
        "answer": "a", "status": "found", "confidence": "high", "latency_ms": 1.0, "model": "offline",
        "created_at": datetime.now(UTC), **fields,
    })


def test_entries_spooled_during_a_flush_are_kept(tmp_path: Path, postgres_url: str) -> None:
    async def scenario() -> None:
        with DependencyProxy(5432) as postgres:
            store = ResilientStore(PostgresStore(_through(postgres_url, postgres.port), 0.5), tmp_path, timeout=0.5)
            await store.start()
            postgres.cut()
            for number in range(30):
                await store.record_interaction(_interaction(number))  # spooled; the breaker opens
            postgres.restore()
            flush = asyncio.create_task(store.flush_pending())
            for number in range(30, 60):  # the breaker is still open: these go to the spool now
                await store.record_interaction(_interaction(number))
                await asyncio.sleep(0.005)
            await flush
            assert await store.flush_pending() == 0
            await store.close()

    asyncio.run(scenario())
    assert _count(postgres_url, "SELECT COUNT(DISTINCT message_id) FROM interactions") == 60


def test_an_unreadable_spool_line_or_refused_entry_holds_up_nothing(tmp_path: Path, postgres_url: str) -> None:
    async def scenario() -> None:
        store = ResilientStore(PostgresStore(postgres_url), tmp_path)
        await store.start()
        await store.record_interaction(_interaction(1))
        vote = Feedback(vote_id="v1", message_id="m1", helpful=True, created_at=datetime.now(UTC))
        lines = [
            json.dumps({"kind": "Feedback", "item": vote.model_dump(mode="json")}),
            '{"kind": "Interaction", "item": {"message_id": "m2"',  # cut off mid-write
            json.dumps({"kind": "Interaction", "item": _interaction(3, answer="NUL \u0000 here").model_dump(mode="json")}),
            json.dumps({"kind": "Interaction", "item": _interaction(4).model_dump(mode="json")}),
        ]
        store.spool.write_text("\n".join(lines) + "\n")
        for _ in range(3):
            assert await store.flush_pending() == 0
        await store.close()

    asyncio.run(scenario())
    assert _count(postgres_url, "SELECT COUNT(*) FROM interactions") == 2  # m1 and m4
    assert _count(postgres_url, "SELECT COUNT(*) FROM feedback") == 1
    rejected = [json.loads(line) for line in (tmp_path / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == 2 and "unreadable" in rejected[0]["reason"]
    assert "m2" in rejected[0]["entry"] and "m3" in rejected[1]["entry"]


@pytest.mark.parametrize("damage", ["truncated meta.json", "corrupted collection", "not a folder"])
def test_a_damaged_index_starts_the_server_and_answers_503_with_the_reason(
    motors_template: Path, tmp_path: Path, damage: str
) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    qdrant = data / "qdrant"
    if damage == "truncated meta.json":
        (qdrant / "meta.json").write_text((qdrant / "meta.json").read_text()[:30])
    elif damage == "corrupted collection":
        for storage in (qdrant / "collection").glob("*/storage.sqlite"):
            storage.write_bytes(b"\x00" * 4096)
    else:
        for child in qdrant.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()
        qdrant.rmdir()
        qdrant.write_text("not a folder")
    with live(app_settings(data)) as client:
        answer = client.post("/api/chat/query", json=QUESTION)
        assert answer.status_code == 503 and "Traceback" not in answer.text
        health = client.get("/api/health")
        assert health.status_code == 503
        assert "damaged" in health.json()["checks"]["vector_store"] or "Error" in health.json()["checks"]["vector_store"]


def test_damage_under_a_running_server_shows_in_health(motors_template: Path, tmp_path: Path) -> None:
    data = copy_data_dir(motors_template, tmp_path / "d")
    with live(app_settings(data)) as client:
        assert client.get("/api/health").json()["checks"]["vector_store"] == "ok"
        meta = data / "qdrant" / "meta.json"
        meta.write_text(meta.read_text()[:30])
        check = client.get("/api/health").json()["checks"]["vector_store"]
        assert check.startswith("down") and "damaged" in check


def test_library_warnings_are_json_lines(capfd: pytest.CaptureFixture[str]) -> None:
    logs.configure()
    logging.getLogger("asyncpg.pool").warning("connection lost")
    line = capfd.readouterr().err.strip().splitlines()[-1]
    assert json.loads(line)["logger"] == "asyncpg.pool" and json.loads(line)["level"] == "warning"


def test_sqlite_votes_are_idempotent(tmp_path: Path) -> None:
    async def scenario() -> int:
        store = SQLiteStore(tmp_path / "db.sqlite3")
        await store.migrate()
        await store.record_interaction(_interaction(1))
        vote = Feedback(vote_id="v", message_id="m1", helpful=False, created_at=datetime.now(UTC))
        for _ in range(3):
            assert await store.record_feedback(vote)
        rows = await store.fetch("SELECT COUNT(*) AS n FROM feedback")
        await store.close()
        return int(rows[0]["n"])

    assert asyncio.run(scenario()) == 1
