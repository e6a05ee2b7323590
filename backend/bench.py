"""`lectern bench`: simulated readers against a running server, for latency and throughput.

Each reader asks a question, reads the answer for a while (think time), and asks again, with
its own session id, as readers of a site would. Reading times are either a range, drawn
uniformly ("2-6": two to six seconds), or a mean, drawn from an exponential distribution
("10": bursts and long reads, as independent arrivals are); "0" asks again at once, which
measures the most answers a second the server gives. Run the server with a rate limit above what the
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

from backend.metrics import percentile


@dataclass(frozen=True)
class ThinkTime:
    """How long a reader reads an answer before asking again (see the module docstring)."""

    low: float
    high: float | None = None  # None: `low` is the mean of an exponential distribution

    @classmethod
    def parse(cls, text: str) -> "ThinkTime":
        low, dash, high = text.partition("-")
        try:
            think = cls(float(low), float(high)) if dash else cls(float(low))
        except ValueError:
            raise ValueError(f"think time {text!r}: give seconds (a mean, e.g. 10) or a range (e.g. 2-6)") from None
        if think.low < 0 or (think.high is not None and think.high < think.low):
            raise ValueError(f"think time {text!r}: seconds must be positive, the range low-high")
        return think

    @property
    def longest_wait(self) -> float:
        """The spread of readers' arrivals at the start."""
        return self.high if self.high is not None else self.low

    def draw(self, rng: random.Random) -> float:
        if self.high is not None:
            return rng.uniform(self.low, self.high)
        return rng.expovariate(1 / self.low) if self.low else 0.0


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

    def summary(self) -> dict[str, float | int | dict[str, int]]:
        return {
            "readers": self.readers,
            "seconds": round(self.seconds, 1),
            "answers": len(self.latencies_ms),
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "answers_per_second": round(self.answers_per_second, 2),
            "latency_p50_ms": round(statistics.median(self.latencies_ms), 1) if self.latencies_ms else 0.0,
            "latency_p95_ms": round(percentile(self.latencies_ms, 0.95), 1),
            "latency_max_ms": round(max(self.latencies_ms, default=0.0), 1),
            "status_counts": dict(self.statuses),
        }


async def _reader(
    client: httpx.AsyncClient, questions: list[str], deadline: float, think: ThinkTime, report: BenchReport
) -> None:
    session = uuid.uuid4().hex
    rng = random.Random(session)
    await asyncio.sleep(rng.uniform(0, think.longest_wait))  # readers arrive spread out, not all at once
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
        await asyncio.sleep(min(think.draw(rng), max(0.0, deadline - time.monotonic())))


async def run_bench(
    url: str, questions: list[str], readers: int = 50, seconds: float = 60, think: ThinkTime = ThinkTime(10)
) -> BenchReport:
    report = BenchReport(readers=readers, seconds=seconds)
    limits = httpx.Limits(max_connections=readers, max_keepalive_connections=readers)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        deadline = time.monotonic() + seconds
        started = time.monotonic()
        await asyncio.gather(*(_reader(client, questions, deadline, think, report) for _ in range(readers)))
        report.seconds = time.monotonic() - started
    return report
