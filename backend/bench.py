"""`lectern bench`: simulated readers against a running server, for latency and throughput.

Each reader asks a question, reads the answer for a while (think time), and asks again, with
its own session id, as readers of a site would. Run the server with a rate limit above what the
benchmark sends (e.g. LECTERN_RATE_LIMIT=100000/hour), or the figures will be 429s.
"""

import asyncio
import random
import statistics
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import httpx


@dataclass
class BenchReport:
    readers: int
    seconds: float
    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)

    @property
    def answers_per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0

    def summary(self) -> dict[str, float | int | dict[str, int]]:
        return {
            "readers": self.readers,
            "seconds": round(self.seconds, 1),
            "answers": len(self.latencies_ms),
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "answers_per_second": round(self.answers_per_second, 2),
            "latency_p50_ms": round(statistics.median(self.latencies_ms), 1) if self.latencies_ms else 0.0,
            "latency_p95_ms": round(self.percentile(0.95), 1),
            "latency_max_ms": round(max(self.latencies_ms, default=0.0), 1),
            "status_counts": dict(self.statuses),
        }


async def _reader(
    client: httpx.AsyncClient, questions: list[str], deadline: float, think_s: float, report: BenchReport
) -> None:
    session = uuid.uuid4().hex
    rng = random.Random(session)
    await asyncio.sleep(rng.uniform(0, think_s))  # readers arrive spread out, not all at once
    while time.monotonic() < deadline:
        started = time.perf_counter()
        try:
            response = await client.post(
                "/api/chat/query", json={"query": rng.choice(questions)}, headers={"X-Session-Id": session}
            )
            if response.status_code == 200:
                report.latencies_ms.append((time.perf_counter() - started) * 1000)
                report.statuses[response.json()["status"]] += 1
            else:
                report.errors[f"HTTP {response.status_code}"] += 1
        except httpx.HTTPError as exc:
            report.errors[type(exc).__name__] += 1
        pause = rng.expovariate(1 / think_s) if think_s else 0
        await asyncio.sleep(min(pause, max(0.0, deadline - time.monotonic())))


async def run_bench(
    url: str, questions: list[str], readers: int = 50, seconds: float = 60, think_s: float = 10
) -> BenchReport:
    report = BenchReport(readers=readers, seconds=seconds)
    limits = httpx.Limits(max_connections=readers, max_keepalive_connections=readers)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        deadline = time.monotonic() + seconds
        started = time.monotonic()
        await asyncio.gather(*(_reader(client, questions, deadline, think_s, report) for _ in range(readers)))
        report.seconds = time.monotonic() - started
    return report
