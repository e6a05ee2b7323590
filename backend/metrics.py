"""Prometheus metrics (served at GET /metrics), and the percentile every latency report uses."""

from collections.abc import Iterable

from prometheus_client import CollectorRegistry, Counter, Histogram


def percentile(values: Iterable[float], share: float) -> float:
    """The nearest-rank percentile of `values` (`share` 0.95: p95); 0 when there are none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


REGISTRY = CollectorRegistry()

REQUESTS = Counter(
    "lectern_http_requests_total", "HTTP requests by route and status code.",
    ["route", "status"], registry=REGISTRY,
)
ANSWER_LATENCY = Histogram(
    "lectern_answer_latency_seconds", "Time to a complete answer.",
    buckets=(0.05, 0.1, 0.15, 0.25, 0.5, 1, 2, 5, 10, 30), registry=REGISTRY,
)
RETRIEVAL_LATENCY = Histogram(
    "lectern_retrieval_latency_seconds", "Time of one book search (embedding, query, evidence).",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1), registry=REGISTRY,
)
ANSWERS = Counter(
    "lectern_answers_total", "Answers by status (found, partial, not_found).",
    ["status"], registry=REGISTRY,
)
FEEDBACK = Counter(
    "lectern_feedback_total", "Reader feedback by verdict.", ["helpful"], registry=REGISTRY,
)
