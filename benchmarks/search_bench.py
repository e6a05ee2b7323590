"""`POST /api/search` latency on a whole book, offline: every question of the project's sets.

    python benchmarks/search_bench.py ../shared/corpora/physical-ai-book

Ingests the book into a temporary folder, serves it with uvicorn in this process, warms up,
then sends each question of eval/questions/*.jsonl and the shared dev set twice, one at a
time, and prints the median and 95th percentile of the server-side round trip.
"""

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from backend.app import SERVER_OPTIONS, create_app
from backend.config import Settings
from backend.metrics import percentile
from tests.fakes.servers import FakeServer


def questions() -> list[str]:
    files = [*sorted((ROOT / "eval" / "questions").glob("*.jsonl")), ROOT.parent / "shared" / "eval" / "dev.jsonl"]
    asked = []
    for path in files:
        if path.exists():
            asked += [json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return asked


def main(book: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        subprocess.run([sys.executable, "-m", "backend", "ingest", str(book), "--book", "bench", "--data-dir", str(data),
                        "--json"], check=True, capture_output=True)
        settings = Settings(LECTERN_DATA_DIR=data, LECTERN_BOOK="bench", LECTERN_RATE_LIMIT_SEARCH="1000000/hour",
                            LECTERN_RATE_LIMIT_PER_ADDRESS="1000000/hour")
        asked = questions()
        with FakeServer(create_app(settings), **SERVER_OPTIONS) as server, httpx.Client(base_url=server.url) as client:
            for question in asked[:20]:
                client.post("/api/search", json={"query": question})
            latencies = []
            for question in asked * 2:
                started = time.perf_counter()
                response = client.post("/api/search", json={"query": question, "limit": 8})
                latencies.append((time.perf_counter() - started) * 1000)
                assert response.status_code == 200, response.text
        latencies.sort()
        print(json.dumps({
            "searches": len(latencies),
            "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(percentile(latencies, 0.95), 1),
            "max_ms": round(latencies[-1], 1),
        }, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
