"""Soak: 20 readers for 60 s while Redis hangs and PostgreSQL goes down, then both come back.

    python benchmarks/soak.py ../shared/corpora/physical-ai-book [--readers 20] [--phase 15]

Starts its own redis-server (hung with SIGSTOP, resumed with SIGCONT), a new database on the
machine's PostgreSQL behind a proxy that this script cuts and restores (tests/fakes/proxy.py),
and `lectern serve` in its own process. Four phases of equal length: all up, Redis hung,
PostgreSQL down, all back. Prints per phase the answers, failures, p50/p95 and the server's
RSS, then checks that every answer reached the database exactly once.
"""

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from backend.bench import run_bench
from tests.fakes.proxy import DependencyProxy

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
QUESTIONS = [
    "What is ROS 2?", "How does a Kalman filter combine sensor readings?", "What is URDF used for?",
    "What does Nav2 do?", "How do VLA models use language?", "What is a digital twin?",
    "How does SLAM build a map?", "What are the two steps of a Kalman filter?",
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def wait_until(check: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():  # type: ignore[operator]
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"timed out waiting for {what}")


async def admin(sql: str, url: str = POSTGRES) -> object:
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval(sql)
    finally:
        await connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("book", type=Path)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--phase", type=float, default=15.0, help="seconds per phase (four phases)")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds between a reader's questions")
    args = parser.parse_args()

    database = f"lectern_soak_{uuid.uuid4().hex[:8]}"
    asyncio.run(admin(f"CREATE DATABASE {database}"))
    redis_port, api_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp, DependencyProxy(5432) as postgres:
        data = Path(tmp) / "data"
        subprocess.run([sys.executable, "-m", "backend", "ingest", str(args.book), "--book", "soak",
                        "--data-dir", str(data), "--json"], check=True, capture_output=True)
        redis = subprocess.Popen(["redis-server", "--port", str(redis_port), "--save", "", "--appendonly", "no"],
                                 stdout=subprocess.DEVNULL)
        env = os.environ | {
            "LECTERN_DATA_DIR": str(data), "LECTERN_BOOK": "soak",
            "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
            "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{postgres.port}/{database}",
            "LECTERN_RATE_LIMIT": "1000000/hour", "LECTERN_RATE_LIMIT_PER_ADDRESS": "1000000/hour",
        }
        server = subprocess.Popen([sys.executable, "-m", "backend", "serve", "--port", str(api_port)],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{api_port}"
        try:
            wait_until(lambda: httpx.get(f"{url}/api/health").status_code == 200, 120, "the server")
            phases = [
                ("all up", lambda: None),
                ("Redis hung (SIGSTOP)", lambda: os.kill(redis.pid, signal.SIGSTOP)),
                ("PostgreSQL down", lambda: (os.kill(redis.pid, signal.SIGCONT), postgres.cut())),
                ("all back", postgres.restore),
            ]
            rows = []
            for name, change in phases:
                change()
                before = rss_mb(server.pid)
                report = asyncio.run(run_bench(url, QUESTIONS, args.readers, args.phase, args.think))
                summary = report.summary()
                rows.append({"phase": name, **{k: summary[k] for k in (
                    "answers", "errors", "error_kinds", "latency_p50_ms", "latency_p95_ms")},
                    "rss_mb_start": round(before, 1), "rss_mb_end": round(rss_mb(server.pid), 1)})
            wait_until(lambda: httpx.get(f"{url}/api/health").json()["pending_writes"] == 0, 120, "the spool")
            answers = sum(int(row["answers"]) for row in rows)
            stored = asyncio.run(admin("SELECT COUNT(*) FROM interactions",
                                       f"postgresql://postgres@127.0.0.1:5432/{database}"))
            distinct = asyncio.run(admin("SELECT COUNT(DISTINCT message_id) FROM interactions",
                                         f"postgresql://postgres@127.0.0.1:5432/{database}"))
            print(json.dumps({"readers": args.readers, "phase_seconds": args.phase, "phases": rows,
                              "answers": answers, "stored": stored, "stored_distinct": distinct}, indent=2))
        finally:
            server.terminate()
            server.wait(timeout=30)
            os.kill(redis.pid, signal.SIGCONT)
            redis.terminate()
            redis.wait(timeout=30)
    asyncio.run(admin(f"DROP DATABASE {database} WITH (FORCE)"))


if __name__ == "__main__":
    main()
